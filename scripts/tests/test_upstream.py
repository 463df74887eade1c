# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/upstream.py on recorded test_progs runs (make lint runs them).

logs/ holds the guest logs of make test-upstream recorded on 2026-12-01 on each registry
(upstream's test_progs on scripts/upstream/ALLOWLIST, then the kernel log, with our KUnit
suite's expected WARNING in the Rust one). Each test changes one thing in a copy and checks
that upstream.py notices.
"""
import gzip
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import upstream  # noqa: E402
from logedit import replace_first  # noqa: E402

RUST, C = 'rust-upstream', 'c-upstream'
# scripts/upstream/ALLOWLIST as it was when the logs were recorded.
RECORDED_ALLOWLIST = os.path.join(HERE, 'logs', 'ALLOWLIST-recorded')


def counters_line(when, tainted=0, warn_count=0, oops_count=0):
    return '=== splat counters %s test_progs: tainted=%d warn_count=%d oops_count=%d ===\n' % (
        when, tainted, warn_count, oops_count)


def with_counters(lines, before, after):
    """The log with the counters lines around test_progs' run, as the guest's init prints
    them: before its first line, after its summary. before and after are keyword dicts."""
    lines = [line for line in lines if not line.startswith('=== splat counters')]
    i = [line.startswith('Summary:') for line in lines].index(True)
    return ([counters_line('before', **before)] + lines[:i + 1] +
            [counters_line('after', **after)] + lines[i + 1:])


def recorded(flavour):
    """A recorded log; the counters lines, which it predates, as an uneventful run prints
    them (W from boot: our KUnit suite's expected WARNING on this lockdep kernel)."""
    path = os.path.join(HERE, 'logs', 'guest-%s-upstream.log.gz' % flavour)
    with gzip.open(path, 'rt') as f:
        lines = f.read().splitlines(True)
    boot = {'tainted': 1 << 9, 'warn_count': 1}
    return with_counters(lines, boot, {'tainted': 1 << 9 | 1 << 12 | 1 << 13, 'warn_count': 1})


def run(tmp_path, monkeypatch, capsys, logs, table=False, summary=False,
        allowlist=RECORDED_ALLOWLIST):
    """Run upstream.main() on {flavour: lines}; return (exit status, output, table)."""
    argv = ['upstream.py', '--allowlist', allowlist] + (['--summary'] if summary else [])
    if table:
        argv += ['--table', str(tmp_path / 'table.md')]
    for flavour, lines in logs.items():
        path = tmp_path / ('%s.log' % flavour)
        if lines is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(''.join(lines))
        argv.append('%s=%s' % (flavour, path))
    monkeypatch.setattr(sys, 'argv', argv)
    rc = upstream.main()
    out = capsys.readouterr().out
    md = (tmp_path / 'table.md').read_text() if table else None
    return rc, out, md


@pytest.fixture
def logs(tmp_path, monkeypatch, capsys):
    both = {RUST: recorded(RUST), C: recorded(C)}
    rc, out, _ = run(tmp_path, monkeypatch, capsys, both)
    assert rc == 0, out
    return both


def test_recorded_runs_agree_and_count_every_test_and_subtest(logs, tmp_path, monkeypatch, capsys):
    rc, out, md = run(tmp_path, monkeypatch, capsys, logs, table=True)
    assert rc == 0
    results, problems, _, _ = upstream.scan(str(tmp_path / ('%s.log' % RUST)))
    assert not problems
    # bpf_iter's ksym subtest is the iter/ksym target itself.
    assert results['bpf_iter/ksym'] == 'OK'
    assert results['ksyms'] == 'OK'
    passed = sum(1 for v in results.values() if v == 'OK')
    assert '%s: %d passed, 0 failed' % (RUST, passed) in out
    assert '| bpf_iter/ksym | OK | OK |' in md
    # Per test, then per test and subtest.
    tests = {n.split('/')[0] for n in results}
    assert '| bpf_iter | OK (39/39 subtests OK) | OK (39/39 subtests OK) |' in md
    assert md.count('\n') == len(tests) + 2 + 1 + len(results) + 2


def test_an_allow_list_entry_that_matched_nothing_fails(logs, tmp_path, monkeypatch, capsys):
    # test_progs -a drops a misspelt name without a word: bpf_qdisc was one.
    allow = tmp_path / 'ALLOWLIST'
    allow.write_text(open(RECORDED_ALLOWLIST).read() + 'bpf_qdisc\n')
    rc, out, _ = run(tmp_path, monkeypatch, capsys, logs, allowlist=str(allow))
    assert rc == 1
    assert "allow-list entry 'bpf_qdisc' matched no test" in out


def test_an_unexpected_skip_fails(logs, tmp_path, monkeypatch, capsys):
    for f in (RUST, C):
        logs[f] = replace_first(logs[f], 'bpf_iter/ksym:OK', 'bpf_iter/ksym:SKIP')
    rc, out, _ = run(tmp_path, monkeypatch, capsys, logs)
    assert rc == 1
    assert 'bpf_iter/ksym skipped: not an expected skip' in out


def test_a_missing_test_module_fails(logs, tmp_path, monkeypatch, capsys):
    logs[RUST].insert(5, 'WARNING! Selftests relying on bpf_testmod.ko will be skipped.\n')
    rc, out, _ = run(tmp_path, monkeypatch, capsys, logs)
    assert rc == 1
    assert 'bpf_testmod.ko did not load' in out


def test_a_subtest_failing_on_one_registry_is_a_disagreement(logs, tmp_path, monkeypatch, capsys):
    logs[C] = replace_first(logs[C], 'bpf_iter/ksym:OK', 'bpf_iter/ksym:FAIL')
    rc, out, _ = run(tmp_path, monkeypatch, capsys, logs)
    assert rc == 1
    assert 'bpf_iter/ksym' in out and 'registries disagree' in out


def test_a_test_failing_on_both_fails(logs, tmp_path, monkeypatch, capsys):
    for f in (RUST, C):
        logs[f] = replace_first(logs[f], 'ksyms:OK', 'ksyms:FAIL')
    rc, out, _ = run(tmp_path, monkeypatch, capsys, logs)
    assert rc == 1
    assert '(failed)' in out


def test_summary_lists_failures_but_fails_only_on_splats(logs, tmp_path, monkeypatch, capsys):
    """make test-upstream-all: the whole suite fails tests for want of hardware or config."""
    logs = {RUST: replace_first(logs[RUST], 'ksyms:OK', 'ksyms:FAIL')}
    rc, out, _ = run(tmp_path, monkeypatch, capsys, logs, summary=True)
    assert rc == 0
    assert 'ksyms' in out and '(failed)' in out and '1 failed' in out
    logs[RUST] = replace_first(logs[RUST], '=== kernel log ===',
                               '=== kernel log ===\n[   9.000000] WARNING: CPU: 0 at kernel/bpf/core.c:1')
    rc, out, _ = run(tmp_path, monkeypatch, capsys, logs, summary=True)
    assert rc == 1
    assert 'splat' in out


def test_a_nonzero_exit_of_test_progs_fails(logs, tmp_path, monkeypatch, capsys):
    logs[C] = replace_first(logs[C], '=== UPSTREAM END rc=0', '=== UPSTREAM END rc=1')
    rc, out, _ = run(tmp_path, monkeypatch, capsys, logs)
    assert rc == 1
    assert 'exited with status 1' in out


def test_a_subtest_name_printed_twice_counts_twice(logs, tmp_path, monkeypatch, capsys):
    results, _, _, _ = upstream.scan(str(_write(tmp_path, logs[RUST])))
    assert any(n.startswith('exceptions/exception_ext (#') for n in results)


def _write(tmp_path, lines):
    path = tmp_path / 'one.log'
    path.write_text(''.join(lines))
    return path


def test_a_splat_in_the_kernel_log_fails(logs, tmp_path, monkeypatch, capsys):
    logs[RUST] = replace_first(logs[RUST], '=== kernel log ===',
                               '=== kernel log ===\n[   9.000000] WARNING: CPU: 0 at kernel/bpf/core.c:1')
    rc, out, _ = run(tmp_path, monkeypatch, capsys, logs)
    assert rc == 1
    assert 'splat' in out


def test_a_taint_a_splat_sets_during_the_run_fails(logs, tmp_path, monkeypatch, capsys):
    # Oops (D, bit 7) during the run, its lines lost to the log buffer.
    logs[RUST] = with_counters(logs[RUST], {'tainted': 4096}, {'tainted': 4096 | 1 << 7})
    rc, out, _ = run(tmp_path, monkeypatch, capsys, logs)
    assert rc == 1
    assert 'tainted during test_progs: D (oops)' in out


def test_a_warning_counted_during_the_run_fails_though_w_was_set(logs, tmp_path, monkeypatch,
                                                                 capsys):
    logs[C] = with_counters(logs[C], {'tainted': 1 << 9, 'warn_count': 1},
                            {'tainted': 1 << 9, 'warn_count': 3})
    rc, out, _ = run(tmp_path, monkeypatch, capsys, logs)
    assert rc == 1
    assert 'warn_count rose from 1 to 3 during test_progs' in out


def test_an_oops_counted_during_the_run_fails(logs, tmp_path, monkeypatch, capsys):
    logs[RUST] = with_counters(logs[RUST], {}, {'oops_count': 1})
    rc, out, _ = run(tmp_path, monkeypatch, capsys, logs)
    assert rc == 1
    assert 'oops_count rose from 0 to 1 during test_progs: an oops' in out


def test_module_taints_and_taints_from_before_the_run_pass(logs, tmp_path, monkeypatch, capsys):
    # bpf_testmod sets O and E (bits 12, 13); W (bit 9) was set at boot.
    logs[RUST] = with_counters(logs[RUST], {'tainted': 1 << 9}, {'tainted': 1 << 9 | 3 << 12})
    rc, out, _ = run(tmp_path, monkeypatch, capsys, logs)
    assert rc == 0, out
    assert 'tainted' not in out


def test_a_log_without_its_counters_fails(logs, tmp_path, monkeypatch, capsys):
    logs[C] = [line for line in logs[C] if not line.startswith('=== splat counters after')]
    rc, out, _ = run(tmp_path, monkeypatch, capsys, logs)
    assert rc == 1
    assert 'no splat counters' in out


def test_the_tree_a_log_was_built_from_is_reported(logs, tmp_path, monkeypatch, capsys):
    logs[RUST] = ['=== upstream tree: 1a2b3c4-dirty ===\n'] + logs[RUST]
    logs[C] = ['=== upstream tree: 1a2b3c4 ===\n'] + logs[C]
    rc, out, md = run(tmp_path, monkeypatch, capsys, logs, table=True)
    assert rc == 0
    assert '== %s: tree 1a2b3c4-dirty' % RUST in out
    assert 'ran different trees' in out
    assert md.startswith('Trees: %s 1a2b3c4-dirty, %s 1a2b3c4\n' % (RUST, C))


def test_a_guest_that_did_not_finish_fails(logs, tmp_path, monkeypatch, capsys):
    logs[RUST] = [line for line in logs[RUST] if not line.startswith('=== UPSTREAM END')]
    rc, out, _ = run(tmp_path, monkeypatch, capsys, logs)
    assert rc == 1
    assert 'did not finish' in out


def test_test_progs_dying_before_its_summary_fails(logs, tmp_path, monkeypatch, capsys):
    logs[C] = [line for line in logs[C] if not line.startswith('Summary:')]
    rc, out, _ = run(tmp_path, monkeypatch, capsys, logs)
    assert rc == 1
    assert 'no summary' in out


def test_one_registry_alone_is_judged_alone(logs, tmp_path, monkeypatch, capsys):
    rc, out, _ = run(tmp_path, monkeypatch, capsys, {RUST: logs[RUST], C: None})
    assert rc == 0
    assert 'no guest log' in out


def test_no_log_at_all_fails(tmp_path, monkeypatch, capsys):
    rc, out, _ = run(tmp_path, monkeypatch, capsys, {RUST: None, C: None})
    assert rc == 1
