# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/results.py on recorded guest logs (make lint runs them).

logs/ holds two real test boots, the kselftests run by run_kselftest.sh: the debug kernel
(Rust registry, with the expected WARNING of prog_ksym_find_warns_without_rcu) and the C
registry's kernel. Each test changes one thing in a copy and checks that the count
moves, or that the log is refused.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from logedit import recorded, replace_first, scan  # noqa: E402


# Each recorded log passes as it is, so a test that finds it refused after a
# change proves the change was noticed, not that the log was bad already.
@pytest.fixture
def debug_log(tmp_path):
    lines = recorded('guest-rust-debug-test.log')
    assert scan(tmp_path, lines, 'rust-debug')[1] == 0
    return lines


@pytest.fixture
def c_log(tmp_path):
    lines = recorded('guest-c-test.log')
    assert scan(tmp_path, lines, 'c')[1] == 0
    return lines


def drop(lines, text):
    kept = [line for line in lines if text not in line]
    assert len(kept) < len(lines), 'not in the recorded log: %r' % text
    return kept


# What the recorded boots gave, which the tests below move.
DEBUG_COUNTS = (480, 0, 1)
C_PASSED, C_SKIPPED = 418, 9


def test_recorded_debug_boot_counts(tmp_path, debug_log):
    assert scan(tmp_path, debug_log, 'rust-debug') == DEBUG_COUNTS


def test_recorded_c_boot_counts(tmp_path, c_log):
    assert scan(tmp_path, c_log, 'c') == (C_PASSED, 0, C_SKIPPED)


def test_c_boot_is_not_a_rust_boot(tmp_path, c_log):
    # The C registry's kernel has no bpf_ksym suite, which a Rust kernel must run.
    assert scan(tmp_path, c_log, 'rust')[1] == 1


def test_failed_kunit_case_counts(tmp_path, debug_log):
    lines = replace_first(debug_log, '    ok 1 add_find_del_with_boundaries',
                          '    not ok 1 add_find_del_with_boundaries')
    passed, failed, _ = scan(tmp_path, lines, 'rust-debug')
    assert (passed, failed) == (DEBUG_COUNTS[0] - 1, 1)


def test_failed_kselftest_case_counts(tmp_path, c_log):
    i = next(i for i, l in enumerate(c_log) if l.startswith('# selftests: bpf_ksym: '))
    j = next(k for k in range(i, len(c_log)) if c_log[k].startswith('# ok '))
    c_log[j] = '# not ' + c_log[j][2:]
    passed, failed, _ = scan(tmp_path, c_log, 'c')
    assert (passed, failed) == (C_PASSED - 1, 1)


def test_failed_kselftest_program_fails(tmp_path, c_log):
    # run_kselftest.sh's verdict on a program (its exit status) counts on its own.
    lines = replace_first(c_log, 'ok 1 selftests: bpf_ksym: ', 'not ok 1 selftests: bpf_ksym: ')
    lines = [l.replace('selftests: bpf_ksym: ksym_test\n', 'selftests: bpf_ksym: ksym_test # exit=1\n')
             if l.startswith('not ok 1 ') else l for l in lines]
    assert scan(tmp_path, lines, 'c')[1] == 1


def test_missing_kselftest_program_fails(tmp_path, c_log):
    # A program run_kselftest.sh planned but never reported (the guest died in it).
    i = next(i for i, l in enumerate(c_log) if l.startswith('ok 2 selftests: bpf_ksym: '))
    del c_log[i]
    assert scan(tmp_path, c_log, 'c')[1] == 1


def test_unexpected_skip_fails(tmp_path, c_log):
    # A case that skips proves nothing: only the listed reasons are accepted.
    i = next(i for i, l in enumerate(c_log) if l.startswith('# ok ') and 'SKIP' not in l)
    c_log[i] = c_log[i].rstrip('\n') + ' # SKIP no such tool\n'
    passed, failed, skipped = scan(tmp_path, c_log, 'c')
    assert (failed, skipped) == (1, C_SKIPPED + 1)


PAC_LINE = '[    0.000000] CPU features: detected: Address authentication (IMP DEF algorithm)\n'


def as_arm64(log):
    """The log as an arm64 boot prints it: pointer authentication detected at boot, the
    kprobe stack case skipped."""
    log = replace_first(log, '# ok 4 global.stack_trace_through_bpf_names_the_program',
                        '# ok 4 global.stack_trace_through_bpf_names_the_program'
                        ' # SKIP arm64: a stack from a function-entry kprobe does not hold'
                        ' the caller')
    return log[:1] + [PAC_LINE] + log[1:]


@pytest.mark.parametrize('variant', ['c-arm64', 'c-arm64-cfi'])
def test_arm64_may_skip_the_kprobe_stack_case(tmp_path, c_log, variant):
    passed, failed, skipped = scan(tmp_path, as_arm64(c_log), variant)
    assert (failed, skipped) == (0, C_SKIPPED + 1)


def test_x86_may_not_skip_the_kprobe_stack_case(tmp_path, c_log):
    passed, failed, skipped = scan(tmp_path, as_arm64(c_log), 'c')
    assert (failed, skipped) == (1, C_SKIPPED + 1)


def test_arm64_boot_without_pointer_authentication_fails(tmp_path, c_log):
    log = [line for line in as_arm64(c_log) if line != PAC_LINE]
    assert scan(tmp_path, log, 'c-arm64')[1] == 1


def test_unfinished_guest_fails(tmp_path, debug_log):
    assert scan(tmp_path, drop(debug_log, '=== KSELFTESTS DONE'), 'rust-debug')[1] == 1


def test_program_skipped_as_a_whole_fails(tmp_path, c_log):
    # A program that skips before any case (no root, say) tested nothing.
    i = next(i for i, l in enumerate(c_log) if l.startswith('# selftests: bpf_ksym: ksym_test'))
    j = next(k for k in range(i, len(c_log)) if c_log[k].startswith('ok 1 selftests: '))
    c_log[i + 1:j + 1] = ['# 1..0 # SKIP the bpf_ksym tests need root\n',
                          'ok 1 selftests: bpf_ksym: ksym_test # SKIP\n']
    assert scan(tmp_path, c_log, 'c')[1] == 1


def test_empty_run_fails(tmp_path, c_log):
    # An install without programs: the runner plans none and reports none.
    i = next(i for i, l in enumerate(c_log) if l.startswith('# selftests: bpf_ksym: '))
    j = max(i for i, l in enumerate(c_log) if l.startswith('ok 9 selftests: '))
    lines = [l.replace('1..9', '1..0') if l.strip() == '1..9' else l for l in c_log[:i]]
    assert scan(tmp_path, lines + c_log[j + 1:], 'c')[1] == 1


def test_debug_kernel_must_not_skip_the_lockdep_case(tmp_path, debug_log):
    # The warning case exists for the lockdep kernel: there it may not skip.
    i = next(i for i, l in enumerate(debug_log)
             if l.startswith('    ok 7 prog_ksym_find_warns_without_rcu'))
    debug_log[i] = '    ok 7 prog_ksym_find_warns_without_rcu # SKIP\n'
    assert scan(tmp_path, debug_log, 'rust-debug')[1] == 1


def test_debug_kernel_without_the_warning_fails(tmp_path, debug_log):
    # Lockdep off: the case passes silently, without its markers or warning.
    lines = [l for l in debug_log if 'expected WARNING' not in l]
    assert scan(tmp_path, lines, 'rust-debug')[1] == 1


def test_program_without_cases_fails(tmp_path, c_log):
    # "1..0" and exit 0: nothing ran, though the runner says ok.
    i = next(i for i, l in enumerate(c_log) if l.startswith('# selftests: bpf_ksym: ksym_test'))
    j = next(k for k in range(i, len(c_log)) if c_log[k].startswith('ok 1 selftests: '))
    c_log[i + 1:j] = ['# 1..0\n']
    assert scan(tmp_path, c_log, 'c')[1] == 1


def example_run(c_log, result):
    """c_log with a run of a reference example, ending with @result, after ksym_test."""
    i = next(i for i, l in enumerate(c_log) if l.startswith('ok 1 selftests: bpf_ksym: ksym_test'))
    run = ['# timeout set to 1800\n', '# selftests: bpf_ksym: kallsyms_query_example_addr\n',
           '# 0xffffffff812bbdc0: vfs_read+0x0/0x190 kind vmlinux generation 2\n',
           result + ' 2 selftests: bpf_ksym: kallsyms_query_example_addr\n']
    lines = c_log[:i + 1] + run + c_log[i + 1:]
    # The runner's plan, the last before its first program, counts the example too.
    k = max(k for k in range(i) if lines[k].startswith('1..'))
    lines[k] = '1..%d\n' % (int(lines[k][3:]) + 1)
    return lines


def test_example_counts_by_its_exit_status(tmp_path, c_log):
    passed = scan(tmp_path, c_log, 'c')[0]
    assert scan(tmp_path, example_run(c_log, 'ok'), 'c')[:2] == (passed + 1, 0)
    assert scan(tmp_path, example_run(c_log, 'not ok'), 'c')[1] == 1
    assert scan(tmp_path, example_run(c_log, 'ok # SKIP'), 'c')[1] == 1


def test_result_without_its_header_fails(tmp_path, c_log):
    # A lost header would leave the program's cases unchecked.
    lines = drop(c_log, '# selftests: bpf_ksym: ksym_kinds_test')
    assert scan(tmp_path, lines, 'c')[1] == 1


def test_crashed_kselftest_fails(tmp_path, c_log):
    # A program that stops before its plan is done.
    i = next(i for i, l in enumerate(c_log) if l.startswith('ok 1 selftests: bpf_ksym: '))
    j = max(k for k in range(i) if c_log[k].startswith('# ok '))
    del c_log[j]
    assert scan(tmp_path, c_log, 'c')[1] == 1


def test_splat_fails(tmp_path, debug_log):
    lines = debug_log[:100] + ['[   9.000000] BUG: KASAN: slab-use-after-free in x\n'] + \
        debug_log[100:]
    assert scan(tmp_path, lines, 'rust-debug')[1] == 1


def test_expected_warning_is_required(tmp_path, debug_log):
    lines = drop(debug_log, 'WARNING: kernel/bpf/ksym/exports.rs')
    assert scan(tmp_path, lines, 'rust-debug')[1] == 1


def test_other_warning_between_markers_fails(tmp_path, debug_log):
    i = next(i for i, l in enumerate(debug_log) if 'WARNING: kernel/bpf/ksym/exports.rs' in l)
    debug_log[i] = 'WARNING: mm/slub.c:100 at kmalloc+0x1/0x20, CPU#0: kunit_try_catch/789\n'
    assert scan(tmp_path, debug_log, 'rust-debug')[1] == 1


def test_missing_suite_fails(tmp_path, debug_log):
    lines = drop(debug_log, '# Subtest: rust_rbtree_latch')
    assert scan(tmp_path, lines, 'rust-debug')[1] == 1


# The deadline server's WARNING of 7.3, as make soak met it (scripts/known_splats.txt).
DL_SERVER_WARNING = [
    '------------[ cut here ]------------',
    'WARNING: kernel/time/hrtimer.c:1098 at hrtimer_forward+0x9e/0xc0, CPU#1: soak_test/123',
    'Modules linked in:',
    'CPU: 1 UID: 0 PID: 123 Comm: soak_test Not tainted 7.3.4 #1 PREEMPT(voluntary)',
    'RIP: 0010:hrtimer_forward+0x9e/0xc0',
    'Call Trace:',
    ' <IRQ>',
    ' dl_task_timer+0x1a5/0x2d0',
    ' ? __pfx_dl_task_timer+0x10/0x10',
    ' __hrtimer_run_queues+0x112/0x2a0',
    ' hrtimer_interrupt+0xfa/0x230',
    ' __sysvec_apic_timer_interrupt+0x55/0x100',
    ' </IRQ>',
    ' <TASK>',
    ' smp_call_function_many_cond+0x13f/0x560',
    ' smp_text_poke_batch_finish+0x2b1/0x3c0',
    ' ftrace_modify_all_code+0x5c/0x130',
    ' </TASK>',
    '---[ end trace 0000000000000000 ]---',
]


def with_report(lines, report):
    return lines[:100] + ['[  100.000000] %s\n' % l for l in report] + lines[100:]


def test_listed_upstream_splat_passes(tmp_path, debug_log):
    lines = with_report(debug_log, DL_SERVER_WARNING)
    assert scan(tmp_path, lines, 'rust-debug') == DEBUG_COUNTS


@pytest.mark.parametrize('old, new', [
    # Another caller of hrtimer_forward(): not the listed bug.
    (' dl_task_timer+0x1a5/0x2d0', ' tick_nohz_handler+0x1a5/0x2d0'),
    # The listed caller only as an unreliable frame.
    (' dl_task_timer+0x1a5/0x2d0', ' ? dl_task_timer+0x1a5/0x2d0'),
    # A frame of this work's code anywhere in the report.
    (' ftrace_modify_all_code+0x5c/0x130', ' kallsyms_query_ioctl+0x5c/0x130'),
    # Another WARN_ON of hrtimer.c.
    ('hrtimer.c:1098', 'hrtimer.c:1290'),
])
def test_unlisted_splat_fails(tmp_path, debug_log, old, new):
    report = [l.replace(old, new) for l in DL_SERVER_WARNING]
    assert report != DL_SERVER_WARNING
    assert scan(tmp_path, with_report(debug_log, report), 'rust-debug')[1] == 1


def test_listed_splat_cut_short_fails(tmp_path, debug_log):
    lines = with_report(debug_log, DL_SERVER_WARNING[:-1])
    assert scan(tmp_path, lines, 'rust-debug')[1] == 1
