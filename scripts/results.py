#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count KUnit (KTAP) and kselftest (TAP) results in guest logs; flag splats.

Usage: results.py [--corpus OUT] [--variant rust|rust-debug|c] LOG ... ; prints per-suite lines and,
last, 'N passed, N failed'. --corpus collects the fuzzer's CORPUS lines into OUT.
Exit status 1 if anything failed, a guest did not finish, or a log shows a splat.
"""
import os
import re
import sys

from markers import DEMO_END, FAULTS_END, FUZZ_END, KSELFTESTS_DONE, SOAK_END, STRESS_END

TS = re.compile(r'^\[\s*\d+\.\d+\]\s?')
# Any stack dump counts: some reports (allocation failures) have no WARNING/BUG line.
SPLAT = re.compile(r'(WARNING:|BUG:|kernel BUG at|Call Trace:|Oops|Kernel panic|'
                   r'general protection fault|'
                   r'possible recursive locking|possible circular locking|'
                   r'rcu_.*detected stall|INFO: task .* blocked|KASAN:|UBSAN:|'
                   r'kmemleak: .* new suspected|unreferenced object|ODEBUG:|'
                   r'list_\w+ corruption|TIMEOUT after)')
KUNIT_CASE = re.compile(r'^ {4}(not ok|ok) \d+ (\S+)(.*)$')
# kselftest_harness names every case "fixture.test"; a KUnit suite re-run from a
# kselftest prints its own "ok N suite" lines into the same output.
TAP_CASE = re.compile(r'^(not ok|ok) \d+ (\S+\.\S+)(.*)$')
# run_kselftest.sh (kselftest/runner.sh): a header before each program, a result
# line after it, and the program's own output prefixed with "# " in between.
PROG_BEGIN = re.compile(r'^# selftests: bpf_ksym: (\S+)$')
PROG_END = re.compile(r'^(not ok|ok) \d+ selftests: bpf_ksym: (\S+)(.*)$')
# The KALLSYMS_QUERY reference's example programs are plain programs, not TAP:
# their exit status is their one result (0 passed; a skip, 4, is a failure here).
EXAMPLE = re.compile(r'^kallsyms_query_example_\w+$')
# Cases that skip for a reason of the kernel under test, by flavour (--variant);
# any other skip fails the run, as a test that did not run proves nothing.
EXPECTED_SKIPS = {
    'rust-debug': {
        # x86-64 kernels since 6.15 have no symbol at address 0 (zero-based
        # per-CPU symbols are gone).
        'global.symbol_at_address_zero_is_resolved',
    },
}
EXPECTED_SKIPS['rust'] = EXPECTED_SKIPS['rust-debug'] | {
    # Needs lockdep (debug kernels), else rcu_read_lock_held() is always true.
    'bpf_ksym.prog_ksym_find_warns_without_rcu',
}
EXPECTED_SKIPS['c'] = EXPECTED_SKIPS['rust'] | {
    # Mainline's index-based walk may miss or repeat symbols under churn.
    'global.listing_during_churn_has_no_duplicate_and_misses_no_live_symbol',
    # The bpf_ksym KUnit suite is the Rust registry's.
    'global.kunit_suite_passes_again_while_kallsyms_is_read',
} | {
    # kallsyms_iter_test compares the Rust iterator with mainline's: the C
    # registry's kernel has only mainline's.
    'scene.' + case for case in (
        'every_line_as_mainline_prints_it', 'short_reads_give_the_same_text',
        'lseek_gives_the_same_text', 'reading_again_after_lseek_gives_the_same_text',
        'lseek_into_the_bpf_section_gives_the_same_text',
        'hidden_addresses_are_zeroes_in_both', 'the_openers_privilege_decides')
}
# arm64 (flavours <registry>-arm64[-<extra>]): what x86-64 skips, and the stack
# from a function-entry kprobe, which on arm64 never holds the caller (its return
# address is in the link register); the fentry stack test covers the JIT frame.
for _base in ('rust', 'rust-debug', 'c'):
    _registry, _, _extra = _base.partition('-')
    EXPECTED_SKIPS['-'.join([_registry, 'arm64'] + ([_extra] if _extra else []))] = \
        EXPECTED_SKIPS[_base] | {'global.stack_trace_through_bpf_names_the_program'}


# KCSAN's reports (make test-kcsan): from "BUG: KCSAN: <kind> in <a> / <b>" to the "====="
# line closing it. Its stack lines are "<function>+0x<off>/0x<size>"; its other lines are
# KCSAN_LINE's. The console has no timestamps to tell them from the user space lines
# printed meanwhile (kept, with anything else).
KCSAN_BEGIN = re.compile(r'BUG: KCSAN: (.*)$')
KCSAN_END = re.compile(r'^={20,}\s*$')
KCSAN_FRAME = re.compile(r'^\s*(?:\+-> reordered to: )?([\w.$]+)\+0x[0-9a-f]+/0x[0-9a-f]+')
KCSAN_LINE = re.compile(r'^(\s*$|(read|write)(-write)?( \(marked\))?( \(reordered\))? to |'
                        r'race at unknown origin|value changed: |Reported by Kernel Concurrency|'
                        r'CPU: |Hardware name: |\s*\|\s*$|no locks held|\d+ locks? held|'
                        r'irq event stamp|hardirqs |softirqs )')
# This project's code: functions of its own (C or Rust: mangled Rust names start with _R, and
# the only Rust in these kernels is this work and the kernel crate it uses), and the upstream
# functions its patches add or change. A report with one of them in a stack, or in its title,
# is a problem in every case.
OUR_PREFIXES = re.compile(r'^_R|bpf_ksym|kallsyms_iter|kallsyms_query|kallsyms_ioctl|'
                          r'bpf_prog_kallsyms|bpf_image_ksym|bpf_address_lookup|'
                          r'is_bpf_text_address|bpf_prog_ksym_find|bpf_get_kallsym|get_ksymbol_|'
                          r'module_kallsyms_(change|generation)|latch_tree|rbtree_latch|'
                          r'rust_helper_')
OUR_FUNCTIONS = {
    # kernel/kallsyms.c: the /proc/kallsyms seq ops and the name expansion.
    's_show', 's_next', 's_start', 's_stop', 'update_iter', 'update_iter_mod',
    'kdb_update_iter', 'copy_token_words', 'copy_short_token', 'kallsyms_expand_symbol',
    '__kallsyms_expand_symbol', 'get_symbol_pos', 'get_symbol_pos_in', 'get_symbol_offset',
    'skip_symbols', 'kallsyms_lookup', 'kallsyms_lookup_buildid', 'kallsyms_lookup_size_offset',
    'put_answer',
    # kernel/module/main.c, kernel/bpf/syscall.c, the x86 trampoline's frame-pointer range.
    'module_set_state', 'bpf_prog_alloc_id', 'bpf_prog_free_id',
    '__arch_prepare_bpf_trampoline', 'bpf_has_frame_pointer',
}
KCSAN_KNOWN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'kcsan_known.txt')
KNOWN_SPLATS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'known_splats.txt')


def ours(function):
    """Whether @function (a stack line's name, maybe with a .cold or .isra.0 suffix) is ours."""
    return bool(OUR_PREFIXES.search(function)) or function.split('.')[0] in OUR_FUNCTIONS


def kcsan_known():
    """scripts/kcsan_known.txt: (title pattern, reason) for upstream's own reports."""
    known = []
    for n, line in enumerate(open(KCSAN_KNOWN), 1):
        if line.strip() and not line.startswith('#'):
            pattern, tab, reason = line.rstrip('\n').partition('\t')
            if not tab or not reason.strip():
                sys.exit('%s:%d: want "<pattern><tab><reason>"' % (KCSAN_KNOWN, n))
            known.append((re.compile(pattern), reason.strip()))
    return known


def split_kcsan(raw):
    """The lines of @raw without KCSAN's reports' lines, and the reports.

    Each report is (title, [functions of its stacks, those of the title first]).
    """
    kept, reports, report = [], [], None
    for line in raw:
        text = TS.sub('', line.rstrip('\r\n'))
        if report is None:
            m = KCSAN_BEGIN.search(text)
            if m:
                title = m.group(1)
                names = re.split(r' / ', title.split(' in ', 1)[-1])
                report = (title, [n.strip() for n in names])
                reports.append(report)
            else:
                kept.append(line)
        elif KCSAN_END.match(text):
            report = None
        elif m := KCSAN_FRAME.match(text):
            report[1].append(m.group(1))
        elif not KCSAN_LINE.match(text):
            kept.append(line)
    return kept, reports


def classify_kcsan(reports):
    """Problems for the reports in our code or not listed; prints the listed ones."""
    problems, known, listed = [], kcsan_known() if reports else [], 0
    for title, functions in reports:
        mine = [f for f in functions if ours(f)]
        reason = next((r for p, r in known if p.search(title)), None)
        if mine:
            problems.append('KCSAN in this project\'s code (%s): %s' % (mine[0], title))
        elif reason:
            listed += 1
            print('  info  KCSAN, upstream\'s own: %s (%s)' % (title, reason))
        else:
            problems.append('KCSAN report neither ours nor in scripts/kcsan_known.txt: %s '
                            '(stack: %s)' % (title, ' < '.join(functions[:8])))
    if reports:
        print('  info  KCSAN: %d reports, %d of them listed as upstream\'s own'
              % (len(reports), listed))
    return problems


# A WARNING's report, from the "cut here" line to its "end trace" line; its reliable
# frames (not those after "? ") in between.
CUT_HERE = re.compile(r'^-+\[ cut here \]-+$')
END_TRACE = re.compile(r'^---\[ end trace [0-9a-f]+ \]---$')
FRAME = re.compile(r'^\s*([\w.$]+)\+0x[0-9a-f]+/0x[0-9a-f]+')


def known_splats():
    """scripts/known_splats.txt: (title pattern, frames, reason) for upstream's own splats."""
    known = []
    for n, line in enumerate(open(KNOWN_SPLATS), 1):
        if line.strip() and not line.startswith('#'):
            fields = line.rstrip('\n').split('\t')
            if len(fields) != 3 or not all(f.strip() for f in fields):
                sys.exit('%s:%d: want "<pattern><tab><frames><tab><reason>"' % (KNOWN_SPLATS, n))
            frames = {f.strip() for f in fields[1].split(',')}
            known.append((re.compile(fields[0]), frames, fields[2].strip()))
    return known


def split_known_splats(lines):
    """@lines without the reports scripts/known_splats.txt lists, and those reports' reasons.

    A report counts as listed when its title matches an entry's pattern, every frame the
    entry names is among its reliable frames, and none of its frames is this work's.
    A report that never reaches its "end trace" line is kept whole.
    """
    known = None
    kept, reasons, i = [], [], 0
    while i < len(lines):
        if not CUT_HERE.match(lines[i]):
            kept.append(lines[i])
            i += 1
            continue
        end = next((j for j in range(i + 1, min(len(lines), i + 200))
                    if END_TRACE.match(lines[j])), None)
        if end is None:
            kept.append(lines[i])
            i += 1
            continue
        report = lines[i + 1:end]
        title = next((l for l in report if l.startswith(('WARNING:', 'BUG:'))), '')
        frames = {m.group(1).split('.')[0] for l in report if (m := FRAME.match(l))}
        if known is None:
            known = known_splats()
        reason = next((r for p, f, r in known if title and p.search(title) and f <= frames
                       and not any(ours(x) for x in frames)), None)
        if reason:
            reasons.append('%s (%s)' % (title, reason))
        else:
            kept.extend(lines[i:end + 1])
        i = end + 1
    return kept, reasons


# What warn_alloc() prints when an allocation without __GFP_NOWARN fails, before a stack
# dump (slab_out_of_memory() prints no stack, and needs no exception). Under make
# test-faults they are the injected faults' doing; anywhere else, a problem.
ALLOC_FAILURE = re.compile(r': vmalloc error: |page allocation failure: ')


class Splats:
    """The splats in a log's lines, fed one at a time, but for a WARNING provoked on purpose.

    A test that provokes one brackets it with "expected WARNING begins/ends" lines;
    there, bpf_prog_ksym_find()'s own WARNING and its stack dump are expected (and
    required); any other splat, there or elsewhere, is a problem. With
    @alloc_failures_expected (a fault injection boot), an allocation failure's report
    and the one stack dump after it are expected too.
    """

    def __init__(self, alloc_failures_expected=False):
        self.expecting, self.seen, self.brackets, self.problems = False, False, 0, []
        self.alloc_failures_expected, self.alloc_report = alloc_failures_expected, False

    def feed(self, line):
        if line.endswith('expected WARNING begins'):
            self.expecting, self.seen = True, False
            self.brackets += 1
        elif line.endswith('expected WARNING ends'):
            if not self.seen:
                self.problems.append('no WARNING where a test expected one: ' + line.strip())
            self.expecting = False
        elif self.expecting and 'WARNING:' in line and not self.seen and \
                ('bpf_prog_ksym_find' in line or 'bpf_ksym/exports.rs' in line):
            self.seen = True
        elif self.expecting and self.seen and 'Call Trace:' in line:
            pass
        elif self.alloc_failures_expected and ALLOC_FAILURE.search(line):
            self.alloc_report = True
        elif self.alloc_report and 'Call Trace:' in line:
            self.alloc_report = False
        elif SPLAT.search(line):
            self.problems.append('splat: ' + line.strip())

    def finish(self):
        """The problems found, once every line has been fed."""
        if self.expecting:
            self.problems.append('a test expected a WARNING and did not say it ended')
        return self.problems


def scan(path, variant, corpus=None):
    passed, failed, skipped, problems = 0, 0, 0, []
    suites = set()
    raw, kcsan = split_kcsan(open(path, errors='replace'))
    lines = [TS.sub('', l.rstrip('\r\n')) for l in raw]
    lines, listed = split_known_splats(lines)
    for reason in listed:
        print('  info  splat listed as upstream\'s own: %s' % reason)
    # Test boots run KUnit (the other boots pass kunit.enable=0); its passes count
    # once per kernel, in the test boot.
    count_kunit = any(l.startswith(KSELFTESTS_DONE) for l in lines)
    # A flavour without its own list (rust-cfi, rust-arm64-cfi) has its registry's on its
    # architecture.
    parts = (variant or '').split('-')
    fallback = parts[0] + ('-arm64' if 'arm64' in parts[1:] else '')
    expected_skips = EXPECTED_SKIPS.get(variant, EXPECTED_SKIPS.get(fallback, set()))
    in_tap = False
    splats = Splats(alloc_failures_expected=any(l.startswith(FAULTS_END) for l in lines))
    suite = ''
    ended = False
    runner_planned, programs = None, 0
    planned, seen, binary, last_said = None, 0, None, 'no output'
    for i, raw in enumerate(lines):
        line = raw
        if m := PROG_BEGIN.match(raw):
            in_tap, planned, seen, binary = True, None, 0, m.group(1)
            last_said = 'no output'
            continue
        if m := PROG_END.match(raw):
            in_tap = False
            programs += 1
            # "# exit=N", "# TIMEOUT N seconds", or "# SKIP" for a program that
            # skipped as a whole (its cases are counted, and checked, below).
            if m.group(2) != binary:
                problems.append('result of %s without its header (its cases went uncounted)'
                                % m.group(2))
            elif EXAMPLE.match(binary) and not seen:
                if m.group(1) == 'ok' and not m.group(3).strip():
                    passed += 1
                    print('  pass  %s (example): %s' % (binary, last_said))
                else:
                    problems.append('example %s failed:%s: %s' % (binary, m.group(3), last_said))
                planned, seen, binary, last_said = None, 0, None, 'no output'
                continue
            elif m.group(1) == 'not ok':
                problems.append('%s failed:%s' % (m.group(2), m.group(3)))
            elif not seen:
                problems.append('%s ran no case (%s): %s' % (m.group(2), m.group(3).strip() or
                                                             'exit 0', last_said))
            if planned is None or seen < planned:
                problems.append('%s reported %d of %s results (crashed?)' % (m.group(2), seen, planned))
            planned, seen, binary, last_said = None, 0, None, 'no output'
            continue
        if not in_tap and (m := re.match(r'^1\.\.(\d+)$', raw)):
            runner_planned = int(m.group(1))
        # Inside a program, its own lines have the runner's "# "; the others are
        # the kernel's console (splats, a KUnit suite the program re-runs).
        console = in_tap and not raw.startswith('# ')
        if in_tap and not console:
            line = raw[2:]
            last_said = line
            if m := re.match(r'^1\.\.(\d+)', line):
                planned = int(m.group(1))
        if line.startswith((KSELFTESTS_DONE, DEMO_END, FUZZ_END, FAULTS_END, SOAK_END,
                            STRESS_END)):
            in_tap = False
            ended = True
            m = re.search(r'rc=(\d+)', line)
            if m and m.group(1) != '0':
                problems.append('%s failed (rc=%s)' % (line.split()[1].lower(), m.group(1)))
            elif line.startswith(DEMO_END):
                passed += 1
                print('  pass  demo: programs in /proc/kallsyms and in perf call chains')
            if line.startswith(KSELFTESTS_DONE) and (not programs or
                                                          programs != runner_planned):
                problems.append('run_kselftest.sh planned %s programs, %d reported'
                                % (runner_planned, programs))
            continue
        if m := re.match(r'^ {4}# Subtest: (\S+)', line):
            suite = m.group(1)
            suites.add(suite)
        if not in_tap and (m := re.match(r'^not ok \d+ (\S+)', line)):
            problems.append('%s failed' % m.group(1))
        m = None if console else TAP_CASE.match(line) if in_tap else KUNIT_CASE.match(line)
        if m and not in_tap and not count_kunit and m.group(1) == 'ok':
            m = None
        if m:
            if in_tap:
                seen += 1
            name = m.group(2) if in_tap else '%s.%s' % (suite, m.group(2))
            if '# SKIP' in m.group(3):
                skipped += 1
                print('  skip  %s' % name)
                if name not in expected_skips:
                    problems.append('%s skipped:%s' % (name, m.group(3).split('# SKIP', 1)[1]))
            elif m.group(1) == 'ok':
                passed += 1
                print('  pass  %s' % name)
            else:
                failed += 1
                print('  FAIL  %s' % name)
        # Inside a kselftest the harness's ok line counts it already.
        m = not in_tap and re.match(r'^FUZZ inputs=(\d+) wrong=(\d+) outcomes=(\d+)', line)
        if m:
            if m.group(2) == '0':
                passed += 1
                print('  pass  KALLSYMS_QUERY fuzz: %s inputs, %s outcomes, 0 wrong'
                      % (m.group(1), m.group(3)))
            else:
                failed += 1
                print('  FAIL  KALLSYMS_QUERY fuzz: %s of %s inputs answered wrongly'
                      % (m.group(2), m.group(1)))
        # make test-faults: every kind must have injected something, and nothing be wrong.
        m = not in_tap and re.match(r'^FAULTS injected (.*) calls_failed=(\d+) checked=(\d+) '
                                    r'wrong=(\d+)$', line)
        if m:
            kinds = dict(kv.split('=') for kv in m.group(1).split())
            idle = [k for k, v in kinds.items() if v == '0']
            summary = '%s; %s calls failed, %s checks' % (
                ', '.join('%s %s' % kv for kv in kinds.items()), m.group(2), m.group(3))
            if m.group(4) == '0' and not idle:
                passed += 1
                print('  pass  faults injected: %s, 0 wrong' % summary)
            else:
                failed += 1
                print('  FAIL  faults injected: %s, %s wrong%s' % (
                    summary, m.group(4), ''.join('; none of ' + k for k in idle)))
        # make soak: the summary after the last checkpoint (soak_test's own checks set rc).
        m = not in_tap and re.match(r'^# SOAK END seconds=(\d+) ops=(\d+) checked=(\d+) '
                                    r'wrong=(\d+) (.*)$', line)
        if m:
            summary = '%s s, %s operations, %s checks, %s wrong; %s' % m.groups()
            if m.group(4) == '0':
                passed += 1
                print('  pass  soak: ' + summary)
            else:
                failed += 1
                print('  FAIL  soak: ' + summary)
        if not in_tap and line.startswith('# WRONG '):
            print('  ' + line[2:])
        if line.startswith('# faults: '):
            print('  info  ' + line[2:])
        if line.startswith('CORPUS ') and corpus is not None:
            corpus.append(line)
        if line.startswith(('# STRESS ', '# FUZZ ')):
            print('  info  ' + line[2:])
        splats.feed(line)
    problems += splats.finish() + classify_kcsan(kcsan)
    warnings_expected = splats.brackets
    # The lockdep kernel exists to run prog_ksym_find_warns_without_rcu, which
    # passes without a word when lockdep has turned itself off: require its warning.
    if (variant or '').endswith('-debug') and count_kunit and not warnings_expected:
        problems.append('no expected WARNING on the debug kernel: lockdep off, or the case did not run')
    text = '\n'.join(lines)
    # arm64 boots run with pointer authentication (-cpu max): the JIT signs the return
    # addresses its images push, which the stack tests then unwind and name. A boot
    # without it would pass those tests while testing less.
    if 'arm64' in parts[1:] and 'CPU features: detected: Address authentication' not in text:
        problems.append('arm64 guest without pointer authentication (QEMU -cpu max has it)')
    # A test boot runs the in-kernel benchmark on 1 .. 1000 symbols; it checks every answer.
    if 'bpf_ksym_bench.max_n=' in text:
        wrong = [l for l in lines if 'bpf_ksym_bench: WRONG' in l]
        if 'bpf_ksym_bench: done' in text and not wrong:
            passed += 1
            print('  pass  bpf_ksym_bench (lookups and add/del on 1..1000 symbols answer right)')
        else:
            failed += 1
            print('  FAIL  bpf_ksym_bench: %s' % (wrong[0] if wrong else 'did not finish'))
    if FAULTS_END in text and not re.search(r'^FAULTS injected ', text, re.M):
        problems.append('the fault injection test printed no summary (skipped or crashed)')
    # A KCSAN kernel that reports nothing proves something only if its detector works: its
    # boot selftest (CONFIG_KCSAN_SELFTEST) makes races and must have seen each.
    if 'kcsan: enabled' in text and not re.search(r'^kcsan: selftest: (\d+)/\1 tests passed',
                                                  text, re.M):
        problems.append('KCSAN\'s boot selftest did not pass: its silence proves nothing')
    # A soak must have run the seconds its command line asked for, a checkpoint a minute.
    if SOAK_END in text:
        asked = re.search(r'Command line:.*\bksym_soak=(\d+)', text)
        done = re.findall(r'^# SOAK END seconds=(\d+) .*checkpoints=(\d+)', text, re.M)
        if not done:
            problems.append('the soak printed no summary (skipped or crashed)')
        elif asked and (int(done[-1][0]) < int(asked.group(1)) or
                        int(done[-1][1]) != int(asked.group(1)) // 60):
            problems.append('the soak ran %s s with %s checkpoints, %s s were asked for'
                            % (done[-1] + (asked.group(1),)))
    # A fuzz boot must have run exactly the inputs its command line asked for.
    if FUZZ_END in text:
        asked = re.search(r'Command line:.*\bksym_fuzz=(\d+)', text)
        done = re.findall(r'^FUZZ inputs=(\d+)', text, re.M)
        if not done or (asked and done[-1] != asked.group(1)):
            problems.append('fuzz boot ran %s inputs, %s were asked for'
                            % (done[-1] if done else 'no', asked.group(1) if asked else 'some'))
    # Suites every test kernel runs, and those only the Rust registry has.
    wanted = ['rust_doctests_kernel', 'rust_rbtree_latch', 'kallsyms_query']
    if variant and variant.startswith('rust'):
        wanted += ['bpf_ksym', 'kallsyms_iter']
    for want in wanted:
        if count_kunit and want not in suites:
            problems.append('the %s KUnit suite did not run' % want)
    if not ended:
        problems.append('guest did not finish its run (hang or panic)')
    if problems:
        failed += 1
        print('%s:' % path)
        for p in problems[:10]:
            print('  PROBLEM ' + p)
        print('  --- last lines of the guest log ---')
        for l in lines[-25:]:
            print('  | ' + l)
    return passed, failed, skipped


def main():
    total = [0, 0, 0]
    args, variant, corpus_path, corpus = sys.argv[1:], None, None, []
    while args:
        if args[0] == '--corpus':
            corpus_path, args = args[1], args[2:]
            continue
        if args[0] == '--variant':
            variant, args = args[1], args[2:]
            continue
        path, args = args[0], args[1:]
        print('== %s (%s registry)' % (path, variant or '?'))
        if not os.path.exists(path):
            print('  PROBLEM no guest log: the build or the boot before it failed (see above)')
            total[1] += 1
            continue
        for k, v in enumerate(scan(path, variant, corpus)):
            total[k] += v
    if corpus_path and corpus:
        os.makedirs(os.path.dirname(corpus_path), exist_ok=True)
        with open(corpus_path, 'w') as f:
            f.write('\n'.join(corpus) + '\n')
        print('fuzz corpus: %d inputs in %s (copy to tools/testing/selftests/bpf_ksym/'
              'kallsyms_query.corpus to keep them)' % (len(corpus), corpus_path))
    line = '%d passed, %d failed' % (total[0], total[1])
    if total[2]:
        line += ', %d skipped' % total[2]
    print(line)
    return 1 if total[1] else 0


if __name__ == '__main__':
    sys.exit(main())
