#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The documentation's figures: the benchmark tables written by the benchmarks, never by
hand, and every other figure stated once.

`make bench` and `make bench-query` keep their last run's records in docs/bench/<name>.json
(committed: the one source of every benchmark figure) and render them, through this module,
into the blocks of README.md and docs/benchmarks.md marked

    <!-- generated: <block> (scripts/bench_docs.py from docs/bench/); do not edit -->
    ...
    <!-- end generated: <block> -->

`bench_docs.py render` rewrites every block from the committed records. `bench_docs.py
check` (make lint's `figures` line) fails when

- a block differs from what its records render (an edit by hand, or records changed
  without rendering them);
- a figure of a generated table is typed again in the prose of any document doc_figures.py
  reads (README.md, HACKING.md, docs/, Documentation/), in the table's unit: as it is, or
  rounded on a line that names the table row's workload. A copy goes stale without anyone
  noticing: say it in words, or point at the table;
- a measured figure is stated in two places (doc_figures.duplicates());
- the README's headline names a tree that is no commit of HEAD's history, or one after
  which the kernel code changed, unless the README says which change its figures predate
  (doc_figures.stale_trees()), or a note of that kind outlived its tree
  (doc_figures.orphan_notes()). doc_figures.py's docstring has the rules of these three.
"""
import datetime
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_markdown  # noqa: E402 (bench.py's own table, so that both print the same)
import doc_figures  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, 'docs', 'bench')
# The documents with generated blocks, and the blocks each must have.
DOCS = {'README.md': ('headline',),
        'docs/benchmarks.md': ('bench', 'bench-arm64', 'query', 'query-blazesym', 'query-churn',
                               'query-icount', 'query-blazesym-icount', 'query-steady-icount',
                               'query-steady'),
        'tools/blazesym/cover-letter.md': ('query-blazesym-icount', 'query-steady-icount')}
BEGIN = re.compile(r'^<!-- generated: ([\w-]+) \(scripts/bench_docs\.py from docs/bench/\); '
                   r'do not edit -->$', re.M)
END = '<!-- end generated: %s -->'

# Rows of the bench-query tables: workload -> what it measures.
QUERY_ROWS = {
    'profile': 'profile: Zipf(1.1) samples over 2,000 text addresses, cold start included',
    'by_name_cold': 'by_name_cold: one lookup by name in a new process',
    'by_addr_cold': 'by_addr_cold: one lookup by address in a new process',
    'cold_distinct': 'cold_distinct: 2,000 distinct addresses, once each',
    'bpf_prog_id': "bpf_prog_id: a JIT address to its program's id, 1,000 programs loaded "
                   '(per lookup)',
    'rss_kib': 'rss_kib: peak RSS of the profile client (`ru_maxrss`)',
    'rss_end_kib': 'rss_end_kib: exact RSS after the last answer',
}
QUERY_CLIENTS = ('text', 'ioctl', 'batch', 'scan')
QUERY_RATIOS = (('text', 'batch'), ('text', 'ioctl'), ('ioctl', 'batch'), ('scan', 'ioctl'))
BLAZESYM_ROWS = {
    'blazesym_first': "blazesym_first: a new symbolizer's first kernel address, in a fresh "
                      'process (as a tool\'s first stack pays it)',
    'blazesym_cold': 'blazesym_cold: 2,000 distinct addresses in one `symbolize()`, in a fresh '
                     'process',
    'blazesym_first_warm': 'blazesym_first_warm: blazesym_first in a process that has run it '
                           'once before',
    'blazesym_cold_warm': 'blazesym_cold_warm: blazesym_cold in a process that has run it once '
                          'before',
    'blazesym_bpf_first': "blazesym_bpf_first: a symbolizer's first JIT address, 1,000 "
                          'programs loaded',
    'blazesym_bpf_info': "blazesym_bpf_info: each JIT address after it to its program's "
                         'information (per address)',
    'blazesym_rss_kib': "blazesym_rss_kib: peak RSS of blazesym_cold's process (`ru_maxrss`)",
    'blazesym_rss_growth_kib': 'blazesym_rss_growth_kib: how far the symbolizer raised it '
                               '(`VmHWM` before and after)',
}
# Rows of the steady tables (bpftrace's pattern): workload -> what it measures.
STEADY_ROWS = {
    'blazesym_steady': 'a call, of 10,000 over 2,000 distinct addresses',
    'blazesym_steady_miss_us': "a miss: an address's first call",
    'blazesym_steady_hit_us': 'a hit: an address asked before',
    'blazesym_steady_syscalls_miss_max': 'system calls of a miss, at most',
    'blazesym_steady_syscalls_miss_mean': 'system calls of a miss, on average',
    'blazesym_steady_syscalls_hit_max': 'system calls of a hit, at most',
    'blazesym_steady_syscalls_hit_mean': 'system calls of a hit, on average',
    'blazesym_steady_heap_kib': "the heap the symbolizer took over a pass (glibc's "
                                '`mallinfo2()`)',
    'blazesym_heap_0_progs': 'the same, no BPF program loaded',
    'blazesym_heap_30000_progs': 'the same, 30,000 BPF programs loaded',
    'blazesym_bpf_gone': 'the address of a program closed after the symbolizer first read the '
                         "kernel's symbols, asked again and again (1,000 programs loaded)",
    'blazesym_bpf_gone_syscalls_max': 'its system calls, at most',
    'blazesym_bpf_gone_syscalls_mean': 'its system calls, on average',
    'blazesym_bpf_gone_named': 'named (1: wrongly) or not (0)',
    'blazesym_late': "a program loaded after the symbolizer's first use, asked once",
    'blazesym_late_syscalls': 'its system calls',
    'blazesym_late_named': 'named right (1) or not (0)',
}
STEADY_CLIENTS = ('ioctl_cached', 'blazesym_text', 'blazesym_kq')
# The goals of blazesym_kq (patched blazesym): the most system calls of a hit and of a miss,
# and its time per call against ioctl_cached's (icount).
STEADY_SYSCALL_GOALS = {'blazesym_steady_syscalls_hit_max': 1,
                        'blazesym_steady_syscalls_miss_max': 2, 'blazesym_late_syscalls': 2}
STEADY_TIME_GOAL = 2
# blazesym_text / blazesym_kq at least this (icount).
GONE_GOAL = 1000
# blazesym_kq's heap with 30,000 programs loaded against none, at most this: it grows with
# the addresses asked, not with the kernel's symbols.
HEAP_GOAL = 1.05

# Rows of the churn table: workload -> what it measures.
CHURN_ROWS = {
    'churn_single': 'churn_single: one `BY_ADDR` of a JIT address',
    'churn_batch': 'churn_batch: 4,096 JIT and text addresses, answered in full (each call '
                   'continued from the prefix the one before answered)',
}
# Under churn, p99 at most this many times idle p99, and max at most that many times.
CHURN_GOALS = (3, 20)
# The goals each blazesym row is held to (text/kq at least this), where it has one.
BLAZESYM_GOALS = {'blazesym_first': 100, 'blazesym_cold': 10, 'blazesym_bpf_info': 1000,
                  'blazesym_rss_kib': 3}
# The patched blazesym against the bare C client doing the same (icount): workload ->
# (the C client's workload, client, goal: kq / C at most, or None).
BLAZESYM_VS_C = {'blazesym_first': ('by_addr_cold', 'ioctl', 3),
                 'blazesym_cold': ('cold_distinct', 'batch', 3),
                 'blazesym_first_warm': ('by_addr_cold', 'ioctl', None),
                 'blazesym_cold_warm': ('cold_distinct', 'batch', None)}


def load(name):
    """docs/bench/<name>.json: {'info': {...}, 'records': [...]}, or None."""
    path = os.path.join(DATA, name + '.json')
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


# What the benchmarks write themselves: a change there is no change to what they measure.
WRITTEN = ('docs/bench/', 'Documentation/bpf/bpf_ksym_bench.svg') + tuple(DOCS)


def tree():
    """The commit the measured tree was built from, '+' if it had local changes (other than
    the benchmarks' own output)."""
    def git(*args):
        return subprocess.run(['git', '-C', ROOT] + list(args), capture_output=True,
                              text=True).stdout
    head = git('rev-parse', '--short=7', 'HEAD').strip() or '?'
    changed = [line[3:] for line in git('status', '--porcelain', '--untracked-files=no')
               .splitlines()]
    return head + ('+' if any(not p.startswith(WRITTEN) for p in changed) else '')


def publish(name, records, info):
    """Keep a run's records as docs/bench/<name>.json and re-render the documentation."""
    info = dict(info)
    info.setdefault('date', datetime.date.today().isoformat())
    info.setdefault('tree', tree())
    os.makedirs(DATA, exist_ok=True)
    with open(os.path.join(DATA, name + '.json'), 'w') as f:
        json.dump({'info': info, 'records': records}, f, indent=1)
        f.write('\n')
    render_all()


def num(v, unit=''):
    """A figure as the tables print it: 4 significant digits, thousands separated."""
    if v >= 1000:
        s = '{:,.0f}'.format(v)
    else:
        s = '%.4g' % v
        if 'e' in s:
            s = '%.0f' % v
    return s + (' ' + unit if unit else '')


def shown(v, unit, mode):
    """A time as the tables print it; in icount mode as the instructions it counts (a
    nanosecond of guest time is one instruction)."""
    if mode != 'icount' or unit not in ('ms', 'us', 'ns'):
        return num(v, unit)
    instructions = v * {'ms': 1e6, 'us': 1e3, 'ns': 1}[unit]
    for scale, suffix in ((1e9, 'G'), (1e6, 'M'), (1e3, 'k'), (1, '')):
        if instructions >= scale:
            return num(instructions / scale, (suffix + ' instructions').strip())
    return num(instructions, 'instructions')


def ratio(a, b):
    r = a / b
    return ('{:,.0f}'.format(r) if r >= 100 else '%.1f' % r if r >= 10 else '%.2f' % r) + 'x'


def by_workload(data):
    return {r['workload']: r for r in data['records']}


def missing(names, how):
    return 'No records in %s yet: run `%s`.\n' % (
        ' and '.join('`docs/bench/%s.json`' % n for n in names.split()), how)


def render_query(data, name):
    if data is None:
        return missing(name, 'make bench-query' + (
            ' QEMU_EXTRA="-icount shift=0 -smp 1"' if name == 'query-icount' else ''))
    recs = by_workload(data)
    i = data['info']
    out = ['`make bench-query`, %s, tree `%s`, %s; medians of %s interleaved runs; host %s; '
           'kernel %s built by %s; %s.' % (
               i['date'], i['tree'], 'plain TCG' if i.get('mode') != 'icount' else
               'icount (a nanosecond of guest time is one instruction)', i.get('runs', 11),
               i.get('host', '?'), i.get('kernel', '?'), i.get('kernel_compiler', '?'),
               i.get('qemu', '?')),
           '',
           '| workload | n | %s | ratio |' % ' | '.join(QUERY_CLIENTS),
           '|---|---|%s---|' % ('---|' * len(QUERY_CLIENTS))]
    for w, what in QUERY_ROWS.items():
        r = recs.get(w)
        if r is None:
            continue
        cells = [shown(r[c], r['unit'], i.get('mode')) if c in r else ''
                 for c in QUERY_CLIENTS]
        ratios = ['%s/%s %s' % (a, b, ratio(r[a], r[b])) for a, b in QUERY_RATIOS
                  if r['unit'] != 'KiB' and a in r and b in r and r[b]]
        out.append('| %s | %s | %s | %s |' % (what, '{:,}'.format(r['n']), ' | '.join(cells),
                                               ', '.join(ratios)))
    return '\n'.join(out) + '\n'


def render_churn(data, name):
    recs = by_workload(data) if data else {}
    rows = [(w, what, recs[w]) for w, what in CHURN_ROWS.items() if w in recs]
    if not rows:
        return missing(name, 'make bench-query')
    p99_goal, max_goal = CHURN_GOALS
    out = ['| workload | n | idle p99 | idle max | churn p99 | churn max | '
           'churn p99 / idle p99 | churn max / idle p99 | goal |',
           '|---|---|---|---|---|---|---|---|---|']
    for _w, what, r in rows:
        p99, mx = r['churn_p99'] / r['idle_p99'], r['churn_max'] / r['idle_p99']
        verdict = 'p99 %s %dx, max %s %dx' % ('met:' if p99 <= p99_goal else 'short of',
                                               p99_goal, 'met:' if mx <= max_goal
                                               else 'short of', max_goal)
        out.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            what, '{:,}'.format(r['n']), num(r['idle_p99'], 'us'), num(r['idle_max'], 'us'),
            num(r['churn_p99'], 'us'), num(r['churn_max'], 'us'), ratio(r['churn_p99'],
                                                                         r['idle_p99']),
            ratio(r['churn_max'], r['idle_p99']), verdict))
    out += ['', '{:,} programs loaded and closed by the churners during the churn phase.'.format(
        int(rows[0][2].get('churned', 0)))]
    return '\n'.join(out) + '\n'


def render_blazesym(data, name):
    if data is None:
        return missing(name, 'make bench-query')
    recs = by_workload(data)
    out = ['| workload | n | blazesym_text | blazesym_kq | text/kq | goal |',
           '|---|---|---|---|---|---|']
    for w, what in BLAZESYM_ROWS.items():
        r = recs.get(w)
        if r is None:
            continue
        text, kq = r['blazesym_text'], r['blazesym_kq']
        goal = BLAZESYM_GOALS.get(w)
        verdict = '' if goal is None else '%s %dx' % (
            'met:' if text / kq >= goal else 'short of', goal)
        out.append('| %s | %s | %s | %s | %s | %s |' % (
            what, '{:,}'.format(r['n']), num(text, r['unit']), num(kq, r['unit']),
            ratio(text, kq), verdict))
    return '\n'.join(out) + '\n'


def render_blazesym_icount(data, name):
    """The patched blazesym against 0.2.7 and against the bare C client of the same work."""
    if data is None:
        return missing(name, 'make bench-query QEMU_EXTRA="-icount shift=0 -smp 1"')
    recs = by_workload(data)
    out = ['`make bench-query`, %s: icount.' % provenance(data['info'], ['icount']), '',
           '| workload | n | blazesym_text (0.2.7) | blazesym_kq (patched) | text / kq | '
           'C client | kq / C | goal |',
           '|---|---|---|---|---|---|---|---|']
    for w, (c_workload, client, goal) in BLAZESYM_VS_C.items():
        r, c = recs.get(w), recs.get(c_workload, {}).get(client)
        if r is None or c is None:
            continue
        text, kq = r['blazesym_text'], r['blazesym_kq']
        verdict = '' if goal is None else '%s within %dx' % (
            'met:' if kq <= goal * c else 'not met:', goal)
        out.append('| %s | %s | %s | %s | %s | %s (%s %s) | %s | %s |' % (
            w, '{:,}'.format(r['n']), shown(text, r['unit'], 'icount'),
            shown(kq, r['unit'], 'icount'), ratio(text, kq), shown(c, r['unit'], 'icount'),
            client, c_workload, ratio(kq, c), verdict))
    return '\n'.join(out) + '\n'


def render_steady(data, name):
    """bpftrace's pattern, blazesym through its C API against a lean C client; the goals
    judged on the figures they are about: system calls in any mode, time in icount."""
    recs = by_workload(data) if data else {}
    if 'blazesym_steady' not in recs:
        return 'No blazesym_steady records in `docs/bench/%s.json` yet: run `%s`.\n' % (
            name, 'make bench-query' + (' QEMU_EXTRA="-icount shift=0 -smp 1"'
                                        if name == 'query-icount' else ''))
    mode = data['info'].get('mode')
    out = ['`make bench-query`, %s: %s.' % (provenance(data['info'], [mode or 'tcg']),
                                            'icount' if mode == 'icount' else 'plain TCG'),
           '',
           '| what (per call) | ioctl_cached (C) | blazesym_text (0.2.7) | blazesym_kq (patched) | '
           'kq / ioctl_cached | text / kq | goal |',
           '|---|---|---|---|---|---|---|']
    for w, what in STEADY_ROWS.items():
        r = recs.get(w)
        if r is None:
            continue
        cells = ['' if c not in r else shown(r[c], r['unit'], mode) if r['unit'] != 'calls'
                 else num(r[c]) for c in STEADY_CLIENTS]
        kq, c, text = r['blazesym_kq'], r.get('ioctl_cached'), r['blazesym_text']
        verdict = ''
        if w in STEADY_SYSCALL_GOALS:
            goal = STEADY_SYSCALL_GOALS[w]
            verdict = '%s at most %d' % ('met:' if kq <= goal else 'not met:', goal)
        elif w == 'blazesym_late_named':
            verdict = 'met' if kq == 1 else 'not met'
        elif w == 'blazesym_bpf_gone_named':
            verdict = 'met' if kq == 0 else 'not met'
        elif w == 'blazesym_steady' and mode == 'icount':
            verdict = '%s within %dx' % ('met:' if kq <= STEADY_TIME_GOAL * c else 'not met:',
                                         STEADY_TIME_GOAL)
        elif w == 'blazesym_heap_30000_progs' and 'blazesym_heap_0_progs' in recs:
            none = recs['blazesym_heap_0_progs']['blazesym_kq']
            verdict = '%s at most %.2fx of none (%s)' % (
                'met:' if kq <= HEAP_GOAL * none else 'not met:', HEAP_GOAL, ratio(kq, none))
        elif w == 'blazesym_bpf_gone' and mode == 'icount':
            verdict = '%s %dx' % ('met:' if text >= GONE_GOAL * kq else 'not met:', GONE_GOAL)
        out.append('| %s | %s | %s | %s | %s |' % (
            what, ' | '.join(cells), ratio(kq, c) if c else '',
            ratio(text, kq) if kq and r['unit'] != 'calls' else '', verdict))
    return '\n'.join(out) + '\n'


def render_bench(data, name):
    if data is None:
        return missing(name, 'make bench' + (' ARCH=' + name.split('-', 1)[1] if '-' in name else ''))
    i = data['info']
    modes = {r['mode'] for r in data['records']}
    head = ('`make bench%s` (`BENCH_RUNS=%s`, modes %s), %s; host %s; kernel %s '
            'built by %s; %s; %s. Rust/C per number of BPF symbols N, spread in brackets; '
            '**bold** where the row is judged. Costs, lower is better.' % (
                ' ARCH=' + name.split('-', 1)[1] if '-' in name else '', i.get('runs', '?'),
                '/'.join(sorted(modes)), provenance(i, modes), i['host'], i['kernel'],
                i['kernel_compiler'], i['rustc'], i['qemu']))
    return head + '\n\n' + bench_markdown.render_markdown(data['records'])


def measured(info, mode):
    """{'date', 'tree'} of @mode's records: a merged run (BENCH_MERGE) has its modes' own."""
    return info.get('modes', {}).get(mode) or {'date': info.get('date', '?'),
                                               'tree': info.get('tree', '?')}


def provenance(info, modes):
    """'<date>, tree `<tree>`' of a run, or of each of its @modes where they differ."""
    each = {mode: measured(info, mode) for mode in sorted(modes)}
    if len({(m['date'], m['tree']) for m in each.values()}) <= 1:
        m = next(iter(each.values()), {'date': info['date'], 'tree': info['tree']})
        return '%s, tree `%s`' % (m['date'], m['tree'])
    return ', '.join('%s %s, tree `%s`' % (mode, m['date'], m['tree']) for mode, m in each.items())


def largest_tcg_read(data):
    """The full read's tcg record at the largest N of a `make bench` run, or None."""
    read = [r for r in data['records'] if r['workload'] == 'kallsyms_read' and r['mode'] == 'tcg'] \
        if data else []
    return max(read, key=lambda r: r['n']) if read else None


def headline_blazesym_row(what, f_icount, f_tcg):
    """blazesym's headline row: instructions (icount, where a fresh process's cost is
    judged), with TCG's wall time beside each figure when a TCG run has the row too."""
    tcg = {c: '; TCG ' + num(f_tcg[c], f_tcg['unit']) if f_tcg else ''
           for c in ('blazesym_text', 'blazesym_kq')}
    gain = ratio(f_icount['blazesym_text'], f_icount['blazesym_kq'])
    if f_tcg:
        gain += ' (TCG %s)' % ratio(f_tcg['blazesym_text'], f_tcg['blazesym_kq'])
    return '| %s | %s (0.2.7 as published%s) | %s (with `tools/blazesym`%s) | %s |' % (
        what, shown(f_icount['blazesym_text'], f_icount['unit'], 'icount'), tcg['blazesym_text'],
        shown(f_icount['blazesym_kq'], f_icount['unit'], 'icount'), tcg['blazesym_kq'], gain)


def render_headline(_data, name):
    b, q, arm = load('bench'), load('query'), load('bench-arm64')
    qi = load('query-icount')
    if b is None or q is None:
        return missing('bench query', 'make bench` and `make bench-query')
    read, arm_read = largest_tcg_read(b), largest_tcg_read(arm)
    qr = by_workload(q)
    p, f = qr.get('profile'), qr.get('blazesym_first')
    f_icount = by_workload(qi).get('blazesym_first') if qi else None
    blazesym = "blazesym (bpftrace's symbolizer): a new symbolizer's first kernel address"
    # (what, the record, its "before" and "after" client, and how each is named)
    rows = [
        ('read all of `/proc/kallsyms` with {:,} BPF programs loaded'.format(read['n'])
         if read else '', read, 'c', 'mainline C registry', 'rust', 'Rust registry'),
        ('symbolize a {:,}-sample profile (2,000 distinct addresses)'.format(p['n'])
         if p else '', p, 'text', 'parse the text', 'batch', '`KALLSYMS_QUERY` batches'),
        (blazesym, None if f_icount else f, 'blazesym_text', '0.2.7 as published',
         'blazesym_kq', 'with `tools/blazesym`'),
        ('the same full read in an arm64 guest, {:,} BPF programs'.format(arm_read['n'])
         if arm_read else '', arm_read, 'c', 'mainline C registry', 'rust', 'Rust registry'),
    ]
    out = ['| what (x86-64 guest under QEMU unless said) | before | with this tree | gain |',
           '|---|---|---|---|']
    for what, r, before, before_is, after, after_is in rows:
        if what == blazesym and f_icount:
            out.append(headline_blazesym_row(what, f_icount, f))
        elif r:
            out.append('| %s | %s (%s) | %s (%s) | %s |' % (
                what, num(r[before], r['unit']), before_is, num(r[after], r['unit']), after_is,
                ratio(r[before], r[after])))
    sources = []
    if read:
        sources.append('the full read from `make bench` (%s)' % provenance(b['info'], ['tcg']))
    if p or f:
        sources.append('the symbolizers from `make bench-query` (%s, tree `%s`)' % (
            q['info']['date'], q['info']['tree']))
    if arm_read:
        sources.append('the arm64 read from `make bench ARCH=arm64` (%s)'
                       % provenance(arm['info'], ['tcg']))
    joined = ', '.join(sources[:-1]) + ' and ' + sources[-1] if len(sources) > 2 else \
        ' and '.join(sources)
    out += ['', 'Wall time under TCG, QEMU\'s emulation of the CPU in software (no KVM): %s.'
            % joined]
    if f_icount:
        out[-1] += (' blazesym\'s row counts the guest\'s instructions instead (`make bench-query` '
                    'with icount, %s, tree `%s`), in which a fresh process is judged: TCG charges '
                    'it for translating every new page of code, which hardware does not.' % (
                        qi['info']['date'], qi['info']['tree']))
    return '\n'.join(out) + '\n'


# Block name -> (renderer, the records it reads).
BLOCKS = {
    'headline': (render_headline, None),
    'bench': (render_bench, 'bench'),
    'bench-arm64': (render_bench, 'bench-arm64'),
    'query': (render_query, 'query'),
    'query-icount': (render_query, 'query-icount'),
    'query-blazesym': (render_blazesym, 'query'),
    'query-blazesym-icount': (render_blazesym_icount, 'query-icount'),
    'query-churn': (render_churn, 'query'),
    'query-steady-icount': (render_steady, 'query-icount'),
    'query-steady': (render_steady, 'query'),
}


def render(block):
    fn, src = BLOCKS[block]
    return fn(load(src) if src else None, src or block)


def blocks(text):
    """(name, start of the content, end of the content) of each generated block in text."""
    for m in BEGIN.finditer(text):
        end = text.find('\n' + END % m.group(1), m.end())
        if end < 0:
            raise ValueError('block %s has no "%s" line' % (m.group(1), END % m.group(1)))
        yield m.group(1), m.end() + 1, end + 1


def rewrite(text):
    """text with every block re-rendered."""
    out, pos = [], 0
    for name, start, end in blocks(text):
        if name not in BLOCKS:
            raise ValueError('unknown generated block %s' % name)
        out += [text[pos:start], render(name)]
        pos = end
    return ''.join(out) + text[pos:]


def render_all():
    for doc in DOCS:
        path = os.path.join(ROOT, doc)
        text = open(path).read()
        new = rewrite(text)
        if new != text:
            with open(path, 'w') as f:
                f.write(new)
            print('bench_docs: re-rendered the figures of %s' % doc)


SPREAD = re.compile(r'\(\d+%\)')


def figures(text):
    """The figures of prose that look measured (a decimal part, a ratio, a unit, or 3 or
    more digits; of 2 significant digits or more: "2x" says a size, not a measurement), as
    (digits, rounded, kind, unit): '4,271 ms' -> ('4271', True, 'time', 'ms'), '48x' and
    '1/48' -> ('48', False, 'ratio', 'x'), '88.8' -> ('88.8', False, None, None). rounded
    says a copy may have rounded them (a ratio or a unit, from 3 significant digits on:
    fewer match too much by chance)."""
    found = set()
    for fig in doc_figures.figures(text):
        digits, frac = fig.whole, fig.frac
        if not (frac or fig.kind or len(digits) >= 3):
            continue
        sig = len((digits + frac[1:]).lstrip('0'))
        if sig < 2:
            continue
        found.add((fig.value, bool(fig.kind) and sig >= 3, fig.kind, fig.unit))
    return found


def copied(prose_figure, table, line):
    """Whether a figure of a prose line is one of the table's (digits, kind, unit,
    workload): as typed, or rounded on a line that names the row's workload; and in the
    same unit where both have one: "2.09 M" instructions is not a table's 2.09 ms, nor its
    2.09x. A bare number is not a ratio either: prose writes ratios with their "x", and
    "rustc 1.95" is a version, not a table's 1.95x."""
    text, rounded, kind, unit = prose_figure
    decimals = len(text.partition('.')[2])
    for t_text, t_kind, t_unit, workload in table:
        if kind and t_kind and (kind, unit) != (t_kind, t_unit):
            continue
        if kind is None and t_kind == 'ratio':
            continue
        if text == t_text:
            return True
        # "338 ms" for the profile's 338.2, "130 ms" for 129.7, said of that workload.
        if rounded and round(float(t_text), decimals) == float(text) and workload and \
                re.search(r'\b%s\b' % re.escape(workload), line):
            return True
    return False


# Table columns that hold no measurement.
NOT_FIGURES = ('workload', 'what', 'n', 'mode', 'unit', 'goal')


def table_figures(block_text):
    """The measured figures of a block's tables, as (digits, kind, unit, workload): their
    data cells, but for the columns that name, count or judge (NOT_FIGURES) and spreads
    ("(15%)"); the workload is the name its row's first cell starts with ("profile: ...").
    A number without a unit of its own is a ratio in a column of ratios ("Rust/C N=1"), and
    otherwise in the unit its row's `unit` column gives."""
    out, skip, header = set(), (), []
    lines = block_text.splitlines()
    for i, line in enumerate(lines):
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if not line.startswith('|') or set(cells[0]) <= set('-'):
            continue
        if i + 1 < len(lines) and lines[i + 1].startswith('|---'):
            header = cells
            skip = [j for j, c in enumerate(cells) if c.split(' ')[0] in NOT_FIGURES]
            continue
        workload = re.match(r'[\w-]*', cells[0]).group(0)
        row_unit = (None, None)
        if 'unit' in header and header.index('unit') < len(cells):
            row_unit = doc_figures.unit_of(cells[header.index('unit')])
        for j, cell in enumerate(cells):
            if j in skip:
                continue
            for fig in doc_figures.figures(SPREAD.sub('', cell)):
                kind, unit = fig.kind, fig.unit
                if kind is None:
                    kind, unit = ('ratio', 'x') if j < len(header) and '/' in header[j] \
                        else row_unit
                out.add((fig.value, kind, unit, workload))
    return out


def check():
    errors, generated = [], set()
    for doc in DOCS:
        text = open(os.path.join(ROOT, doc)).read()
        try:
            spans = list(blocks(text))
        except ValueError as e:
            errors.append('%s: %s' % (doc, e))
            continue
        for name in DOCS[doc]:
            if name not in [n for n, _, _ in spans]:
                errors.append('%s: the generated block %s is missing' % (doc, name))
        for name, start, end in spans:
            if name not in BLOCKS:
                errors.append('%s: unknown generated block %s' % (doc, name))
                continue
            want = render(name)
            if text[start:end] != want:
                errors.append('%s: block %s is not what docs/bench/ renders (edited by hand, or '
                              'the records changed): run scripts/bench_docs.py render' % (doc, name))
            generated |= table_figures(want)
    # The prose of every document, as doc_figures.py reads it.
    for doc in doc_figures.documents(ROOT):
        text = doc_figures.read(ROOT, doc)
        spans = doc_figures.spans_of(text, blocks)
        if spans is None:
            continue  # broken blocks: said above
        for lineno, line in doc_figures.prose_lines(text, spans, doc):
            line = doc_figures.stated(line)
            found = sorted(f[0] for f in figures(line) if copied(f, generated, line))
            if found:
                errors.append('%s:%d: %s copied from a generated table: point at the table '
                              'instead' % (doc, lineno, ', '.join(found)))
    errors += doc_figures.duplicates(ROOT, blocks) + doc_figures.stale_trees(ROOT, blocks) + \
        doc_figures.orphan_notes(ROOT, blocks)
    for e in errors:
        print('bench_docs: ' + e, file=sys.stderr)
    return 1 if errors else 0


def main():
    cmd = sys.argv[1:]
    if cmd == ['check']:
        return check()
    if cmd == ['render']:
        render_all()
        return 0
    print('usage: bench_docs.py check|render', file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
