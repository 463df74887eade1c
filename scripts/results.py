#!/usr/bin/env python3
"""Count KUnit (KTAP) and kselftest (TAP) results in guest logs; flag splats.

Usage: results.py [--variant rust|c] LOG ... ; prints per-suite lines and, last, 'N passed, N failed'.
Exit status 1 if anything failed, a guest did not finish, or a log shows a splat.
"""
import re
import sys

TS = re.compile(r'^\[\s*\d+\.\d+\]\s?')
SPLAT = re.compile(r'(WARNING:|BUG:|Oops|Kernel panic|general protection fault|'
                   r'possible recursive locking|possible circular locking|'
                   r'rcu_.*detected stall|INFO: task .* blocked|KASAN:|UBSAN:|'
                   r'kmemleak: .* new suspected|TIMEOUT after)')
KUNIT_CASE = re.compile(r'^ {4}(not ok|ok) \d+ (\S+)(.*)$')
TAP_CASE = re.compile(r'^(not ok|ok) \d+ (\S+)(.*)$')


def scan(path, variant):
    passed, failed, skipped, problems = 0, 0, 0, []
    suites = set()
    lines = [TS.sub('', l.rstrip('\r\n')) for l in open(path, errors='replace')]
    in_tap = False
    suite = ''
    ended = False
    for i, line in enumerate(lines):
        if line.startswith('=== KSELFTEST BEGIN'):
            in_tap, planned, seen = True, None, 0
            binary = line.split()[3] if len(line.split()) > 4 else 'kselftest'
            continue
        if line.startswith('=== KSELFTEST END'):
            in_tap = False
            if planned is None or seen < planned:
                problems.append('%s reported %d of %s results (crashed?)' % (binary, seen, planned))
            continue
        if in_tap and (m := re.match(r'^1\.\.(\d+)$', line)):
            planned = int(m.group(1))
        if line.startswith('=== KSELFTESTS DONE') or line.startswith('=== DEMO END'):
            in_tap = False
            ended = True
            m = re.search(r'rc=(\d+)', line)
            if m and m.group(1) != '0' and 'DEMO' in line:
                problems.append('demo failed (rc=%s)' % m.group(1))
            continue
        if m := re.match(r'^ {4}# Subtest: (\S+)', line):
            suite = m.group(1)
            suites.add(suite)
        m = TAP_CASE.match(line) if in_tap else KUNIT_CASE.match(line)
        if m:
            if in_tap:
                seen += 1
            name = m.group(2) if in_tap else '%s.%s' % (suite, m.group(2))
            if '# SKIP' in m.group(3):
                skipped += 1
                print('  skip  %s' % name)
            elif m.group(1) == 'ok':
                passed += 1
                print('  pass  %s' % name)
            else:
                failed += 1
                print('  FAIL  %s' % name)
        if SPLAT.search(line):
            problems.append('splat: ' + line.strip())
    if variant == 'rust' and 'KSELFTEST' in ''.join(lines) and 'bpf_ksym' not in suites:
        problems.append('the bpf_ksym KUnit suite did not run')
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
    args, variant = sys.argv[1:], None
    while args:
        if args[0] == '--variant':
            variant, args = args[1], args[2:]
            continue
        path, args = args[0], args[1:]
        print('== %s (%s registry)' % (path, variant or '?'))
        for k, v in enumerate(scan(path, variant)):
            total[k] += v
    line = '%d passed, %d failed' % (total[0], total[1])
    if total[2]:
        line += ', %d skipped' % total[2]
    print(line)
    return 1 if total[1] else 0


if __name__ == '__main__':
    sys.exit(main())
