# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/results.py's parts: the record read_log() makes of a guest log, and
the per-boot checks (CHECKS) on records made by hand.

test_results.py and test_results_long_runs.py check scan() as a whole on recorded logs;
these say which part noticed, so that a change to one part is tested where it is made.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from logedit import recorded, results  # noqa: E402 (logedit puts scripts/ on the path)


def boot_of(lines, variant='rust', suites=(), ended=True, warnings=0):
    """A Boot of @lines (no trailing newlines) as read_log() would leave it."""
    boot = results.Boot('guest.log', variant, lines, [])
    boot.suites, boot.ended, boot.warnings_expected = set(suites), ended, warnings
    return boot


def read(tmp_path, lines, variant):
    path = tmp_path / 'guest.log'
    path.write_text(''.join(lines))
    return results.read_log(str(path), variant)


def test_recorded_debug_boot_reads_into_its_record(tmp_path):
    boot = read(tmp_path, recorded('guest-rust-debug-test.log'), 'rust-debug')
    assert boot.ended and boot.count_kunit and boot.warnings_expected >= 1
    assert {'rust_doctests_kernel', 'rust_rbtree_latch', 'kallsyms_query', 'bpf_ksym',
            'kallsyms_iter'} <= boot.suites
    assert boot.problems == [] and boot.kcsan == []
    assert all(check(boot) == [] for check in results.CHECKS)


def test_reading_finds_a_failed_program(tmp_path):
    lines = recorded('guest-c-test.log')
    i = next(i for i, l in enumerate(lines) if l.startswith('ok 1 selftests: bpf_ksym: '))
    lines[i] = 'not ' + lines[i].rstrip('\n') + ' # exit=1\n'
    problems = read(tmp_path, lines, 'c').problems
    assert len(problems) == 1 and problems[0].endswith('failed: # exit=1')


def test_example_program_counts_by_its_result_line():
    example = 'selftests: bpf_ksym: kallsyms_query_example_addr'
    boot = boot_of(['1..1', '# ' + example, '# 0x1: vfs_read+0x0/0x190', 'ok 1 ' + example,
                    '=== KSELFTESTS DONE rc=0 ==='])
    results.Reader(boot, None).read()
    assert (boot.passed, boot.problems) == (1, [])


@pytest.mark.parametrize('variant, registry', [
    ('rust-cfi', 'rust'), ('rust-arm64-cfi', 'rust-arm64'), ('c-arm64', 'c-arm64'),
    ('rust-debug', 'rust-debug')])
def test_flavour_without_its_own_list_has_its_registrys(variant, registry):
    assert results.expected_skips(variant) == results.EXPECTED_SKIPS[registry]


def test_unknown_flavour_may_skip_nothing():
    assert results.expected_skips(None) == set()
    assert results.expected_skips('zig') == set()


def test_debug_kernel_needs_its_warning():
    lines = ['=== KSELFTESTS DONE rc=0 ===']
    assert results.debug_warning(boot_of(lines, 'rust-debug'))
    assert not results.debug_warning(boot_of(lines, 'rust-debug', warnings=1))
    assert not results.debug_warning(boot_of(lines, 'rust'))
    # Not a test boot: no KUnit ran.
    assert not results.debug_warning(boot_of(['=== DEMO END rc=0 ==='], 'rust-debug'))


def test_arm64_needs_pointer_authentication():
    assert results.pointer_auth(boot_of([], 'c-arm64-cfi'))
    assert not results.pointer_auth(boot_of(
        ['CPU features: detected: Address authentication (IMP DEF algorithm)'], 'c-arm64'))
    assert not results.pointer_auth(boot_of([], 'c'))


def test_faults_boot_needs_its_summary():
    assert results.faults_reported(boot_of(['=== FAULTS END rc=0 ===']))
    assert not results.faults_reported(boot_of(['FAULTS injected failslab=1 calls_failed=0 '
                                                'checked=1 wrong=0', '=== FAULTS END rc=0 ===']))


def test_kcsan_kernel_needs_its_selftest():
    assert results.kcsan_selftest(boot_of(['kcsan: enabled early',
                                           'kcsan: selftest: 2/3 tests passed']))
    assert not results.kcsan_selftest(boot_of(['kcsan: enabled early',
                                               'kcsan: selftest: 3/3 tests passed']))


SOAK = ['Command line: ksym_soak=120',
        '# SOAK END seconds=121 ops=9 checked=9 wrong=0 churned=1 checkpoints=2',
        '=== SOAK END rc=0']
ASKED = ', 120 s were asked for'


@pytest.mark.parametrize('old, new, problem', [
    (None, None, None),
    ('seconds=121', 'seconds=119', 'the soak ran 119 s with 2 checkpoints' + ASKED),
    ('checkpoints=2', 'checkpoints=3', 'the soak ran 121 s with 3 checkpoints' + ASKED),
    ('# SOAK END seconds', '# SOAK ENDS seconds',
     'the soak printed no summary (skipped or crashed)'),
])
def test_soak_length(old, new, problem):
    lines = [l.replace(old, new) for l in SOAK] if old else SOAK
    assert results.soak_length(boot_of(lines)) == ([problem] if problem else [])


def test_fuzz_boot_runs_the_inputs_asked_for():
    asked = ['Command line: ksym_fuzz=50', '=== FUZZ END rc=0 ===']
    assert not results.fuzz_inputs(boot_of(asked[:1] + ['FUZZ inputs=50 wrong=0'] + asked[1:]))
    assert results.fuzz_inputs(boot_of(asked[:1] + ['FUZZ inputs=49 wrong=0'] + asked[1:])) == \
        ['fuzz boot ran 49 inputs, 50 were asked for']
    assert results.fuzz_inputs(boot_of(asked)) == ['fuzz boot ran no inputs, 50 were asked for']


def test_rust_kernel_runs_its_own_suites():
    test_boot = ['=== KSELFTESTS DONE rc=0 ===']
    common = ('rust_doctests_kernel', 'rust_rbtree_latch', 'kallsyms_query')
    assert not results.kunit_suites(boot_of(test_boot, 'c', common))
    assert results.kunit_suites(boot_of(test_boot, 'rust', common)) == [
        'the bpf_ksym KUnit suite did not run', 'the kallsyms_iter KUnit suite did not run']
    # Only a test boot runs KUnit.
    assert not results.kunit_suites(boot_of(['=== SOAK END rc=0 ==='], 'rust'))


def test_unfinished_guest():
    assert results.finished(boot_of([], ended=False))
    assert not results.finished(boot_of([]))
