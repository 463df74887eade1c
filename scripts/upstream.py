#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read the guest logs of make test-upstream (upstream's test_progs) and compare registries.

Usage: upstream.py [--table OUT.md] [--summary] FLAVOUR=LOG ... (e.g. rust-upstream=build/...).
Prints one line per test and subtest that is not OK on every registry, then per
registry 'N passed, N failed, N skipped'; --table writes the whole per-test table
(Markdown, one column per registry) for docs/testing.md. A registry whose log is
missing is left out with a note, so one registry can be run alone.

Exit status 1 if a log did not finish, the kernel printed a splat, a test failed
on any registry, or the registries that ran disagree on a result. With --summary
(make test-upstream-all, where tests fail for want of hardware or config),
failed tests and disagreements are listed but do not change the exit status.
"""
import argparse
import fnmatch
import os
import re
import sys

from markers import UPSTREAM_END
from results import TS, Splats

# test_progs' print_test_result() and print_subtest_name(): "#12 name:OK",
# "#12/3 name/subtest:FAIL", "#12 name:OK (SKIP: 1/4)", "#12 name:SKIP (not built)".
RESULT = re.compile(r'^#(\d+(?:/\d+)?)\s+(\S.*?):(OK|FAIL|SKIP)\b(.*)$')
# Tests that skip themselves on this guest whatever the registry, with why; any
# other skip fails make test-upstream, as a test that did not run proves nothing.
EXPECTED_SKIPS = {
    'perf_event_stackmap': "QEMU's TCG CPU has no hardware cycles event",
    'get_branch_snapshot': 'no LBR: test_progs skips it under a hypervisor',
}
# test_progs goes on without the test module, skipping what needs it.
NO_TESTMOD = 'Selftests relying on bpf_testmod.ko will be skipped'
SUMMARY = re.compile(r'^Summary: (\d+)/(\d+) PASSED, (\d+) SKIPPED.*, (\d+)/(\d+) FAILED')
# The commit the initramfs was built from (scripts/upstream.sh), as the guest prints it.
TREE = re.compile(r'^=== upstream tree: (\S*) ===$')
# What a splat changes even when the log buffer lost its lines, before and after
# test_progs (scripts/guest/init): the taint flags, the counts of warnings and oopses.
COUNTERS = re.compile(r'^=== splat counters (before|after) test_progs: (.*) ===$')
COUNTER_NAMES = ('tainted', 'warn_count', 'oops_count')
# The taint flags a splat sets that no counter counts (Documentation/admin-guide/
# tainted-kernels.rst); loading bpf_testmod sets O and E, which say nothing of the kernel's
# health. Not W: every warning counts in warn_count, and W is set at boot on a lockdep
# kernel (our KUnit suite's expected WARNING), where it would hide later ones.
SPLAT_TAINTS = {5: 'B (bad page)', 7: 'D (oops)', 14: 'L (soft lockup)'}


def parse_counters(text):
    """{name: value} of a counters line; None if a counter is missing or not a number."""
    fields = dict(kv.split('=', 1) for kv in text.split() if '=' in kv)
    if any(not fields.get(n, '').isdigit() for n in COUNTER_NAMES):
        return None
    return {n: int(fields[n]) for n in COUNTER_NAMES}


def counter_problems(before, after):
    """What changed between the two counters lines that a splat changes."""
    problems = ['the kernel was tainted during test_progs: %s' % name
                for bit, name in sorted(SPLAT_TAINTS.items())
                if after['tainted'] >> bit & 1 and not before['tainted'] >> bit & 1]
    for name, what in (('warn_count', 'a warning'), ('oops_count', 'an oops')):
        if after[name] > before[name]:
            problems.append('%s rose from %d to %d during test_progs: %s' % (
                name, before[name], after[name], what))
    return problems


def scan(path):
    """Return ({name: result}, [problems], test_progs' exit status, the tree) for one log."""
    results, numbers, summary, ended, rc = {}, {}, None, False, None
    counters, tree = {}, None
    problems_early = []
    # Our KUnit suites run at boot; on this kernel (lockdep on) one provokes a WARNING.
    splats = Splats()
    for raw in open(path, errors='replace'):
        line = TS.sub('', raw.rstrip('\r\n'))
        splats.feed(line)
        m = RESULT.match(line)
        if m:
            number, name, res, rest = m.group(1), m.group(2), m.group(3), m.group(4)
            if res == 'SKIP' and 'not built' in rest:
                res = 'NOT BUILT'
            # Some tests print two subtests under one name (exceptions does): keep both.
            if numbers.setdefault(name, number) != number:
                name = '%s (#%s)' % (name, number)
            results[name] = res
        if SUMMARY.match(line):
            summary = line
        m = TREE.match(line)
        if m:
            tree = m.group(1) or 'unknown'
        m = COUNTERS.match(line)
        if m:
            counters[m.group(1)] = parse_counters(m.group(2))
        if NO_TESTMOD in line:
            problems_early.append('bpf_testmod.ko did not load: its tests were skipped')
        if line.startswith(UPSTREAM_END):
            ended = True
            rc = line[len(UPSTREAM_END):].strip(' =').replace('rc=', '')
    problems = problems_early + splats.finish()
    if ended and (not counters.get('before') or not counters.get('after')):
        problems.append('no splat counters before and after test_progs: a splat whose lines '
                        'were lost would go unseen')
    elif ended:
        problems += counter_problems(counters['before'], counters['after'])
    if not ended:
        problems.append('the guest did not finish (no "%s" line)' % UPSTREAM_END)
    elif summary is None:
        problems.append('test_progs printed no summary: it did not run to the end')
    if not results and ended:
        problems.append('no test ran: the allow list matched nothing')
    return results, problems, rc, tree


ALLOWLIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'upstream', 'ALLOWLIST')


def allow_patterns(path=ALLOWLIST):
    """The test-name globs of test_progs' allow list (one per line, '#' comments)."""
    with open(path) as f:
        return [line.split('#')[0].strip() for line in f if line.split('#')[0].strip()]


def unmatched(patterns, results):
    """Allow-list entries no result names: test_progs drops such an entry without a word."""
    tests = {n.split('/')[0].split(' (#')[0] for n in results}
    return [p for p in patterns if not fnmatch.filter(tests, p.split('/')[0])]


def per_test_table(runs):
    """One Markdown row per test: its result and its subtests' counts on each registry."""
    tests = sorted({n.split('/')[0] for results in runs.values() for n in results})
    lines = ['| test | %s |' % ' | '.join(runs), '|---|%s' % ('---|' * len(runs))]
    for test in tests:
        cells = []
        for results in runs.values():
            subs = [v for n, v in results.items() if n.startswith(test + '/')]
            cell = results.get(test, '-')
            if subs:
                cell += ' (%d/%d subtest%s OK%s)' % (
                    subs.count('OK'), len(subs), '' if len(subs) == 1 else 's',
                    ', %d skipped' % subs.count('SKIP') if 'SKIP' in subs else '')
            cells.append(cell)
        lines.append('| %s | %s |' % (test, ' | '.join(cells)))
    return '\n'.join(lines) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--table', help='write the per-test Markdown table here')
    ap.add_argument('--allowlist', default=ALLOWLIST,
                    help='the allow list the logs were run with (default: %(default)s)')
    ap.add_argument('--summary', action='store_true',
                    help='list failed tests without failing (the whole suite)')
    ap.add_argument('logs', nargs='+', metavar='FLAVOUR=LOG')
    args = ap.parse_args()
    runs, trees, failed = {}, {}, False
    for spec in args.logs:
        flavour, _, path = spec.partition('=')
        if not os.path.exists(path):
            print('== %s: no guest log %s (not run, or its build or boot failed)' % (flavour, path))
            continue
        results, problems, rc, tree = scan(path)
        if tree:
            trees[flavour] = tree
            print('== %s: tree %s' % (flavour, tree))
        if rc not in (None, '0') and not args.summary:
            problems.append('test_progs exited with status %s' % rc)
        if not args.summary and results:
            for name, res in results.items():
                if res == 'SKIP' and name.split('/')[0] not in EXPECTED_SKIPS:
                    problems.append('%s skipped: not an expected skip (upstream.py'
                                    "'s EXPECTED_SKIPS)" % name)
            for p in unmatched(allow_patterns(args.allowlist), results):
                problems.append('allow-list entry %r matched no test: misspelt, or not in '
                                'this test_progs' % p)
        runs[flavour] = results
        for p in problems:
            print('%s: PROBLEM %s' % (flavour, p))
            failed = True
    if not runs:
        print('no test_progs log to read: run make test-upstream')
        return 1
    names = sorted(set().union(*runs.values()), key=lambda n: (n.split('/')[0], n))
    rows = []
    for name in names:
        row = [runs[f].get(name, '-') for f in runs]
        rows.append((name, row))
        bad = [r for r in row if r not in ('OK', 'SKIP')]
        if bad or len(set(row)) > 1:
            failed = failed or not args.summary
            why = 'registries disagree' if len(set(row)) > 1 else 'failed'
            print('%-60s %s  (%s)' % (name, '  '.join('%s=%s' % p for p in zip(runs, row)), why))
    for f, results in runs.items():
        counts = {k: sum(1 for v in results.values() if v == k) for k in ('OK', 'FAIL', 'SKIP')}
        other = len(results) - sum(counts.values())
        print('%s: %d passed, %d failed, %d skipped%s (tests and subtests)' % (
            f, counts['OK'], counts['FAIL'] + other, counts['SKIP'],
            ', %d not built' % other if other else ''))
    if len(set(trees.values())) > 1:
        print('note: the registries ran different trees, so a difference may be the tree\'s')
    if args.table:
        with open(args.table, 'w') as out:
            if trees:
                out.write('Trees: %s\n\n' % ', '.join('%s %s' % t for t in trees.items()))
            out.write(per_test_table(runs))
            out.write('\n| test / subtest | %s |\n' % ' | '.join(runs))
            out.write('|---|%s\n' % ('---|' * len(runs)))
            for name, row in rows:
                out.write('| %s | %s |\n' % (name, ' | '.join(row)))
        print('table: %s (per test, then %d rows per test and subtest)' % (args.table, len(rows)))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
