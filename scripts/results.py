#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count KUnit (KTAP) and kselftest (TAP) results in guest logs; flag splats.

Usage: results.py [--corpus OUT] [--variant rust|rust-debug|c] LOG ... ; prints per-suite lines and,
last, 'N passed, N failed[, N skipped]'. --corpus collects the fuzzer's CORPUS lines into OUT.
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
                ('bpf_prog_ksym_find' in line or 'kernel/bpf/ksym/exports.rs' in line):
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


# The lines that end a guest's run (scripts/markers.py); a log without one did not finish.
END_MARKERS = (KSELFTESTS_DONE, DEMO_END, FUZZ_END, FAULTS_END, SOAK_END, STRESS_END)


def arm64(variant):
    """Whether @variant (<registry>[-arm64][-<extra>]) is a flavour of arm64's."""
    return 'arm64' in (variant or '').split('-')[1:]


def expected_skips(variant):
    """The cases @variant's kernel may skip. A flavour without its own list (rust-cfi,
    rust-arm64-cfi) has its registry's on its architecture."""
    fallback = (variant or '').split('-')[0] + ('-arm64' if arm64(variant) else '')
    return EXPECTED_SKIPS.get(variant, EXPECTED_SKIPS.get(fallback, set()))


class Boot:
    """What one guest log says, read once (Reader) for the checks to judge (CHECKS).

    Its results (cases, programs, summaries) are counted and printed as they are read, so
    that the output follows the log; problems found while reading (a failed program, a
    splat, an end marker's rc) are kept, in the order read, with the other facts the
    checks need: the suites that ran, whether the run ended, the expected WARNINGs.
    """

    def __init__(self, path, variant, lines, kcsan):
        self.path, self.variant, self.lines, self.kcsan = path, variant, lines, kcsan
        self.text = '\n'.join(lines)
        self.passed, self.failed, self.skipped, self.problems = 0, 0, 0, []
        self.suites, self.ended, self.warnings_expected = set(), False, 0
        # Test boots run KUnit (the other boots pass kunit.enable=0); its passes count
        # once per kernel, in the test boot.
        self.count_kunit = any(l.startswith(KSELFTESTS_DONE) for l in lines)

    def result(self, ok, what):
        """Count and print one result the boot reports."""
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print('  %s  %s' % ('pass' if ok else 'FAIL', what))


def read_log(path, variant, corpus=None):
    """The Boot of the guest log at @path, its results printed; KCSAN's reports and the
    splats scripts/known_splats.txt lists are set apart (the latter printed as such)."""
    with open(path, errors='replace') as f:
        raw, kcsan = split_kcsan(f)
    lines = [TS.sub('', l.rstrip('\r\n')) for l in raw]
    lines, listed = split_known_splats(lines)
    for reason in listed:
        print('  info  splat listed as upstream\'s own: %s' % reason)
    boot = Boot(path, variant, lines, kcsan)
    Reader(boot, corpus).read()
    return boot


class Reader:
    """Reads a Boot's lines in order, filling it in.

    run_kselftest.sh (kselftest/runner.sh) nests its programs' output: a header before
    each, its own lines prefixed with "# ", a result line after it; the console's lines
    (splats, a KUnit suite the program re-runs) come in between without the prefix. So
    reading keeps state: the program running, its plan, the cases it reported, the last
    thing it said, and the KUnit suite being read.
    """

    def __init__(self, boot, corpus):
        self.boot, self.corpus = boot, corpus
        self.expected_skips = expected_skips(boot.variant)
        self.splats = Splats(alloc_failures_expected=any(l.startswith(FAULTS_END)
                                                         for l in boot.lines))
        self.in_tap, self.console, self.suite = False, False, ''
        self.runner_planned, self.programs = None, 0
        self.program(None)

    def program(self, binary):
        """Start reading the output of the kselftest program @binary (None: between them)."""
        self.planned, self.seen, self.binary, self.last_said = None, 0, binary, 'no output'

    def read(self):
        for raw in self.boot.lines:
            self.feed(raw)
        self.boot.problems += self.splats.finish()
        self.boot.warnings_expected = self.splats.brackets

    def feed(self, raw):
        """One line: a program's header or result, an end marker, or anything else."""
        if m := PROG_BEGIN.match(raw):
            self.in_tap = True
            self.program(m.group(1))
            return
        if m := PROG_END.match(raw):
            self.in_tap = False
            self.programs += 1
            self.program_result(*m.groups())
            self.program(None)
            return
        line = self.own_text(raw)
        if line.startswith(END_MARKERS):
            self.end(line)
            return
        self.kunit(line)
        self.case(line)
        if not self.in_tap:
            # Inside a kselftest the harness's ok line counts these already.
            self.fuzz_summary(line)
            self.faults_summary(line)
            self.soak_summary(line)
        self.info(line)
        self.splats.feed(line)

    def own_text(self, raw):
        """@raw as its writer printed it: a program's own lines without the runner's "# "
        (noting its plan and what it said last); the runner's plan, the console as is."""
        if not self.in_tap and (m := re.match(r'^1\.\.(\d+)$', raw)):
            self.runner_planned = int(m.group(1))
        self.console = self.in_tap and not raw.startswith('# ')
        if not self.in_tap or self.console:
            return raw
        line = raw[2:]
        self.last_said = line
        if m := re.match(r'^1\.\.(\d+)', line):
            self.planned = int(m.group(1))
        return line

    def program_result(self, result, name, rest):
        """run_kselftest.sh's result line of a program: "# exit=N", "# TIMEOUT N seconds",
        or "# SKIP" for a program that skipped as a whole (its cases are counted, and
        checked, as read)."""
        problems = self.boot.problems
        if name != self.binary:
            problems.append('result of %s without its header (its cases went uncounted)' % name)
        elif EXAMPLE.match(self.binary) and not self.seen:
            if result == 'ok' and not rest.strip():
                self.boot.result(True, '%s (example): %s' % (self.binary, self.last_said))
            else:
                problems.append('example %s failed:%s: %s' % (self.binary, rest, self.last_said))
            return
        elif result == 'not ok':
            problems.append('%s failed:%s' % (name, rest))
        elif not self.seen:
            problems.append('%s ran no case (%s): %s' % (name, rest.strip() or 'exit 0',
                                                         self.last_said))
        if self.planned is None or self.seen < self.planned:
            problems.append('%s reported %d of %s results (crashed?)' % (name, self.seen,
                                                                        self.planned))

    def end(self, line):
        """The marker that ends the guest's run, with the exit status of what it ran."""
        boot = self.boot
        self.in_tap = False
        boot.ended = True
        m = re.search(r'rc=(\d+)', line)
        if m and m.group(1) != '0':
            boot.problems.append('%s failed (rc=%s)' % (line.split()[1].lower(), m.group(1)))
        elif line.startswith(DEMO_END):
            boot.result(True, 'demo: programs in /proc/kallsyms and in perf call chains')
        if line.startswith(KSELFTESTS_DONE) and (not self.programs or
                                                 self.programs != self.runner_planned):
            boot.problems.append('run_kselftest.sh planned %s programs, %d reported'
                                 % (self.runner_planned, self.programs))

    def kunit(self, line):
        """A KUnit suite's start, and a failed top-level result (a suite's, a program's)."""
        if m := re.match(r'^ {4}# Subtest: (\S+)', line):
            self.suite = m.group(1)
            self.boot.suites.add(self.suite)
        if not self.in_tap and (m := re.match(r'^not ok \d+ (\S+)', line)):
            self.boot.problems.append('%s failed' % m.group(1))

    def case(self, line):
        """A case's result: a KUnit case (its passes only in a test boot) or, inside a
        program, a kselftest_harness case; a skip not expected of the kernel is a problem."""
        boot = self.boot
        m = None if self.console else TAP_CASE.match(line) if self.in_tap else \
            KUNIT_CASE.match(line)
        if not m or (not self.in_tap and not boot.count_kunit and m.group(1) == 'ok'):
            return
        if self.in_tap:
            self.seen += 1
        name = m.group(2) if self.in_tap else '%s.%s' % (self.suite, m.group(2))
        if '# SKIP' in m.group(3):
            boot.skipped += 1
            print('  skip  %s' % name)
            if name not in self.expected_skips:
                boot.problems.append('%s skipped:%s' % (name, m.group(3).split('# SKIP', 1)[1]))
        else:
            boot.result(m.group(1) == 'ok', name)

    def fuzz_summary(self, line):
        """The fuzzer's summary: inputs, outcomes and wrong answers."""
        m = re.match(r'^FUZZ inputs=(\d+) wrong=(\d+) outcomes=(\d+)', line)
        if not m:
            return
        inputs, wrong, outcomes = m.groups()
        if wrong == '0':
            self.boot.result(True, 'KALLSYMS_QUERY fuzz: %s inputs, %s outcomes, 0 wrong'
                             % (inputs, outcomes))
        else:
            self.boot.result(False, 'KALLSYMS_QUERY fuzz: %s of %s inputs answered wrongly'
                             % (wrong, inputs))

    def faults_summary(self, line):
        """make test-faults: every kind must have injected something, and nothing be wrong."""
        m = re.match(r'^FAULTS injected (.*) calls_failed=(\d+) checked=(\d+) wrong=(\d+)$', line)
        if not m:
            return
        kinds = dict(kv.split('=') for kv in m.group(1).split())
        idle = [k for k, v in kinds.items() if v == '0']
        summary = '%s; %s calls failed, %s checks' % (
            ', '.join('%s %s' % kv for kv in kinds.items()), m.group(2), m.group(3))
        self.boot.result(m.group(4) == '0' and not idle, 'faults injected: %s, %s wrong%s' % (
            summary, m.group(4), ''.join('; none of ' + k for k in idle)))

    def soak_summary(self, line):
        """make soak: the summary after the last checkpoint (soak_test's own checks set rc)."""
        m = re.match(r'^# SOAK END seconds=(\d+) ops=(\d+) checked=(\d+) wrong=(\d+) (.*)$', line)
        if m:
            self.boot.result(m.group(4) == '0', 'soak: %s s, %s operations, %s checks, %s '
                             'wrong; %s' % m.groups())

    def info(self, line):
        """Lines passed on as they are: wrong answers, progress, the fuzzer's corpus."""
        if not self.in_tap and line.startswith('# WRONG '):
            print('  ' + line[2:])
        if line.startswith('# faults: '):
            print('  info  ' + line[2:])
        if line.startswith('CORPUS ') and self.corpus is not None:
            self.corpus.append(line)
        if line.startswith(('# STRESS ', '# FUZZ ')):
            print('  info  ' + line[2:])


def judge_bench(boot):
    """A test boot runs the in-kernel benchmark on 1 .. 1000 symbols; it checks every
    answer. Its verdict is a result, not a problem."""
    if 'bpf_ksym_bench.max_n=' not in boot.text:
        return
    wrong = [l for l in boot.lines if 'bpf_ksym_bench: WRONG' in l]
    if 'bpf_ksym_bench: done' in boot.text and not wrong:
        boot.result(True, 'bpf_ksym_bench (lookups and add/del on 1..1000 symbols answer right)')
    else:
        boot.result(False, 'bpf_ksym_bench: %s' % (wrong[0] if wrong else 'did not finish'))


# The per-boot checks: each takes a Boot and returns its problems.

def debug_warning(boot):
    """The lockdep kernel exists to run prog_ksym_find_warns_without_rcu, which passes
    without a word when lockdep has turned itself off: require its warning."""
    if (boot.variant or '').endswith('-debug') and boot.count_kunit and \
            not boot.warnings_expected:
        return ['no expected WARNING on the debug kernel: lockdep off, or the case did not run']
    return []


def pointer_auth(boot):
    """arm64 boots run with pointer authentication (-cpu max): the JIT signs the return
    addresses its images push, which the stack tests then unwind and name. A boot without
    it would pass those tests while testing less."""
    if arm64(boot.variant) and \
            'CPU features: detected: Address authentication' not in boot.text:
        return ['arm64 guest without pointer authentication (QEMU -cpu max has it)']
    return []


def faults_reported(boot):
    """A fault injection boot must print its summary: without it, it checked nothing."""
    if FAULTS_END in boot.text and not re.search(r'^FAULTS injected ', boot.text, re.M):
        return ['the fault injection test printed no summary (skipped or crashed)']
    return []


def kcsan_selftest(boot):
    """A KCSAN kernel that reports nothing proves something only if its detector works: its
    boot selftest (CONFIG_KCSAN_SELFTEST) makes races and must have seen each."""
    if 'kcsan: enabled' in boot.text and \
            not re.search(r'^kcsan: selftest: (\d+)/\1 tests passed', boot.text, re.M):
        return ['KCSAN\'s boot selftest did not pass: its silence proves nothing']
    return []


def soak_length(boot):
    """A soak must have run the seconds its command line asked for, a checkpoint a minute."""
    if SOAK_END not in boot.text:
        return []
    asked = re.search(r'Command line:.*\bksym_soak=(\d+)', boot.text)
    done = re.findall(r'^# SOAK END seconds=(\d+) .*checkpoints=(\d+)', boot.text, re.M)
    if not done:
        return ['the soak printed no summary (skipped or crashed)']
    if asked and (int(done[-1][0]) < int(asked.group(1)) or
                  int(done[-1][1]) != int(asked.group(1)) // 60):
        return ['the soak ran %s s with %s checkpoints, %s s were asked for'
                % (done[-1] + (asked.group(1),))]
    return []


def fuzz_inputs(boot):
    """A fuzz boot must have run exactly the inputs its command line asked for."""
    if FUZZ_END not in boot.text:
        return []
    asked = re.search(r'Command line:.*\bksym_fuzz=(\d+)', boot.text)
    done = re.findall(r'^FUZZ inputs=(\d+)', boot.text, re.M)
    if not done or (asked and done[-1] != asked.group(1)):
        return ['fuzz boot ran %s inputs, %s were asked for'
                % (done[-1] if done else 'no', asked.group(1) if asked else 'some')]
    return []


def kunit_suites(boot):
    """A test boot runs the suites every test kernel has, and the Rust registry's own."""
    wanted = ['rust_doctests_kernel', 'rust_rbtree_latch', 'kallsyms_query']
    if boot.variant and boot.variant.startswith('rust'):
        wanted += ['bpf_ksym', 'kallsyms_iter']
    return ['the %s KUnit suite did not run' % want for want in wanted
            if boot.count_kunit and want not in boot.suites]


def finished(boot):
    """A guest that printed no end marker hung or panicked."""
    return [] if boot.ended else ['guest did not finish its run (hang or panic)']


CHECKS = (debug_warning, pointer_auth, faults_reported, kcsan_selftest, soak_length,
          fuzz_inputs, kunit_suites, finished)


def report(boot, problems):
    """The problems (the first 10) and the log's last lines, to see where it stopped."""
    print('%s:' % boot.path)
    for p in problems[:10]:
        print('  PROBLEM ' + p)
    print('  --- last lines of the guest log ---')
    for l in boot.lines[-25:]:
        print('  | ' + l)


def scan(path, variant, corpus=None):
    """Read and judge the guest log at @path, printing its results and problems; returns
    (passed, failed, skipped), any problem counting as one more failure. --corpus's lines
    go to @corpus."""
    boot = read_log(path, variant, corpus)
    problems = boot.problems + classify_kcsan(boot.kcsan)
    judge_bench(boot)
    for check in CHECKS:
        problems += check(boot)
    if problems:
        boot.failed += 1
        report(boot, problems)
    return boot.passed, boot.failed, boot.skipped


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
