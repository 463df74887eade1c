# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/results.py on the long runs: make soak and KCSAN's reports.

logs/guest-rust-soak.log.gz is a real soak boot of 120 s (make soak SOAK_S=120); the KCSAN
reports are inserted into the recorded C registry's test boot, as the kernel prints them.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results  # noqa: E402
from logedit import recorded, replace_first, scan  # noqa: E402


@pytest.fixture
def soak_log(tmp_path):
    lines = recorded('guest-rust-soak.log')
    assert scan(tmp_path, lines, 'rust') == (1, 0, 0)
    return lines


def test_soak_with_a_wrong_answer_fails(tmp_path, soak_log):
    lines = replace_first(soak_log, ' wrong=0 churned=', ' wrong=2 churned=')
    assert scan(tmp_path, lines, 'rust') == (0, 1, 0)


def test_soak_shorter_than_asked_fails(tmp_path, soak_log):
    lines = replace_first(soak_log, '# SOAK END seconds=133', '# SOAK END seconds=60')
    assert scan(tmp_path, lines, 'rust')[1] == 1


def test_soak_with_a_missed_checkpoint_fails(tmp_path, soak_log):
    lines = replace_first(soak_log, ' checkpoints=2 ', ' checkpoints=1 ')
    assert scan(tmp_path, lines, 'rust')[1] == 1


def test_soak_without_its_summary_fails(tmp_path, soak_log):
    lines = [line for line in soak_log if not line.startswith('# SOAK END')]
    assert scan(tmp_path, lines, 'rust') == (0, 1, 0)


def test_soak_that_failed_its_own_checks_fails(tmp_path, soak_log):
    # soak_test's memory bound and checkpoints are its exit status.
    lines = replace_first(soak_log, '=== SOAK END rc=0', '=== SOAK END rc=1')
    assert scan(tmp_path, lines, 'rust')[1] == 1


@pytest.fixture
def c_log(tmp_path):
    lines = recorded('guest-c-test.log')
    return lines, scan(tmp_path, lines, 'c')


def use_known(tmp_path, monkeypatch, text):
    """A scripts/kcsan_known.txt of @text for this test."""
    known = tmp_path / 'known.txt'
    known.write_text(text)
    monkeypatch.setattr(results, 'KCSAN_KNOWN', str(known))


def with_report(lines, title, frames):
    """@lines with a KCSAN report after their 100th line, as the console prints it (no
    timestamps), and a user space line in its middle."""
    report = ['==================================================================\n',
              'BUG: KCSAN: %s\n' % title,
              '\n',
              'write to 0xffff888003a1b2c8 of 8 bytes by task 1 on cpu 0:\n']
    report += [' %s+0x1a/0x90\n' % f for f in frames]
    report += ['# a user line the console printed meanwhile\n',
               '\n',
               'value changed: 0x00000000 -> 0x00000001\n',
               '\n',
               'Reported by Kernel Concurrency Sanitizer on:\n',
               'CPU: 0 UID: 0 PID: 1 Comm: init Not tainted 7.3.4 #1 PREEMPTLAZY\n',
               'Hardware name: QEMU Standard PC (i440FX + PIIX, 1996)\n',
               '==================================================================\n']
    return lines[:100] + report + lines[100:]


def test_kcsan_report_in_our_code_fails(tmp_path, c_log):
    lines, counts = c_log
    lines = with_report(lines, 'data-race in kallsyms_ioctl / copy_to_user',
                        ['kallsyms_ioctl', '__x64_sys_ioctl', 'do_syscall_64'])
    assert scan(tmp_path, lines, 'c') == (counts[0], 1, counts[2])


def test_kcsan_report_in_rust_code_fails(tmp_path, c_log):
    lines, counts = c_log
    lines = with_report(lines, 'data-race in __rb_insert_augmented / rb_next',
                        ['rb_next', '_RNvNtCs1a2b3c_8bpf_ksym8registry4iter', 'seq_read_iter'])
    assert scan(tmp_path, lines, 'c')[1] == 1


def test_unlisted_upstream_kcsan_report_fails(tmp_path, c_log, monkeypatch):
    lines, counts = c_log
    use_known(tmp_path, monkeypatch, '# none\n')
    lines = with_report(lines, 'data-race in tick_nohz_idle_stop_tick / tick_sched_timer',
                        ['tick_nohz_idle_stop_tick', 'do_idle'])
    assert scan(tmp_path, lines, 'c')[1] == 1


def test_listed_upstream_kcsan_report_passes(tmp_path, c_log, monkeypatch, capsys):
    lines, counts = c_log
    use_known(tmp_path, monkeypatch,
              '# title, tab, reason\ndata-race in tick_nohz_\tthe tick\'s own statistics\n')
    lines = with_report(lines, 'data-race in tick_nohz_idle_stop_tick / tick_sched_timer',
                        ['tick_nohz_idle_stop_tick', 'do_idle'])
    assert scan(tmp_path, lines, 'c') == counts
    assert "the tick's own statistics" in capsys.readouterr().out


def test_listed_kcsan_report_with_our_frame_still_fails(tmp_path, c_log, monkeypatch):
    lines, counts = c_log
    use_known(tmp_path, monkeypatch, 'data-race in tick_nohz_\tthe tick\'s own statistics\n')
    lines = with_report(lines, 'data-race in tick_nohz_idle_stop_tick / tick_sched_timer',
                        ['tick_nohz_idle_stop_tick', 'is_bpf_text_address', 'do_idle'])
    assert scan(tmp_path, lines, 'c')[1] == 1


def test_kallsyms_seq_op_names_match_only_whole(tmp_path, c_log, monkeypatch):
    # s_next is kernel/kallsyms.c's; mas_next (the maple tree) is not.
    lines, counts = c_log
    use_known(tmp_path, monkeypatch, 'data-race in mas_next\tthe maple tree\'s own\n')
    upstream = with_report(lines, 'data-race in mas_next / mas_store', ['mas_next', 'mmap_region'])
    assert scan(tmp_path, upstream, 'c') == counts
    ours = with_report(lines, 'data-race in mas_next / s_next', ['mas_next', 's_next.isra.0'])
    assert scan(tmp_path, ours, 'c')[1] == 1


def test_known_list_without_a_reason_is_refused(tmp_path, c_log, monkeypatch):
    lines, counts = c_log
    use_known(tmp_path, monkeypatch, 'data-race in mas_next\n')
    with pytest.raises(SystemExit):
        scan(tmp_path, with_report(lines, 'data-race in mas_next', ['mas_next']), 'c')


def test_allocation_failure_dump_passes_only_in_a_faults_boot(tmp_path, c_log):
    lines, counts = c_log
    dump = ['fault_injection: vmalloc error: size 4096, align 0x1, vm_struct allocation failed, '
            'mode:0x100dc0(GFP_USER|__GFP_ZERO), nodemask=(null)\n',
            'CPU: 1 UID: 0 PID: 56 Comm: fault_injection Not tainted 7.3.4 #5\n',
            'Call Trace:\n', ' <TASK>\n', ' dump_stack_lvl+0x4b/0x70\n', ' </TASK>\n']
    assert scan(tmp_path, lines[:100] + dump + lines[100:], 'c')[1] == 1
    faults = replace_first(lines[:100] + dump + lines[100:], '=== KSELFTESTS DONE rc=0',
                           '=== FAULTS END rc=0')
    # The faults boot has no kselftest runner: its own count is what it is; no splat problem.
    assert 'splat' not in ''.join(results_problems(tmp_path, faults))


def results_problems(tmp_path, lines):
    """The PROBLEM lines results.scan prints for @lines."""
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        scan(tmp_path, lines, 'c')
    return [line for line in out.getvalue().splitlines() if 'PROBLEM' in line]


def test_kcsan_kernel_without_its_selftest_fails(tmp_path, c_log):
    lines, counts = c_log
    enabled = lines[:50] + ['kcsan: enabled early\n'] + lines[50:]
    assert scan(tmp_path, enabled, 'c')[1] == 1
    passed = lines[:50] + ['kcsan: enabled early\n', 'kcsan: selftest: 3/3 tests passed\n'] + \
        lines[50:]
    assert scan(tmp_path, passed, 'c') == counts


FAULTS = ('FAULTS injected failslab=3445 fail_page_alloc=180 fail_usercopy=55205 '
          'calls_failed=248 checked=3037 wrong=0\n')


def test_faults_summary_counts_only_when_every_kind_injected(tmp_path, c_log):
    lines, counts = c_log
    assert scan(tmp_path, lines + [FAULTS], 'c') == (counts[0] + 1, 0, counts[2])
    idle = FAULTS.replace('fail_page_alloc=180', 'fail_page_alloc=0')
    assert scan(tmp_path, lines + [idle], 'c') == (counts[0], 1, counts[2])
    wrong = FAULTS.replace('wrong=0', 'wrong=3')
    assert scan(tmp_path, lines + [wrong], 'c') == (counts[0], 1, counts[2])


def test_faults_boot_without_its_summary_fails(tmp_path, c_log):
    lines, counts = c_log
    assert scan(tmp_path, lines + ['=== FAULTS END rc=0 ===\n'], 'c')[1] == 1
