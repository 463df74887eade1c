# SPDX-License-Identifier: GPL-2.0
"""make bench's workloads and the Markdown table of their records.

bench.py writes the table to build/bench/<name>.md and bench_docs.py into docs/benchmarks.md,
both from here, so that the two print the same; bench.py measures the workloads in ORDER,
which also orders the table, and judges each in the mode JUDGED names, which the table sets
in bold. A module of its own because bench.py needs bench_docs.py (to publish a run) and
bench_docs.py this table: neither imports the other for it.
"""

# Where each workload is judged (the rule): lookups and add/del by
# instruction count, the full read by wall time.
JUDGED = {'lookup_hit': 'icount', 'lookup_miss': 'icount', 'lookup_boundary': 'icount',
          'address_lookup': 'icount', 'add_del': 'icount', 'kallsyms_read_core': 'icount',
          'iter_ksym_read_core': 'icount', 'kallsyms_read': 'tcg'}
ORDER = ['lookup_hit', 'lookup_miss', 'lookup_boundary', 'address_lookup', 'add_del',
         'kallsyms_read_core', 'iter_ksym_read_core', 'kallsyms_read', 'query_by_addr_bpf',
         'query_by_addr_core', 'query_by_symbol', 'prog_load_unload']
# Workloads measured at one N whatever BENCH_N says: the core read has no BPF symbol.
FIXED_N = {'kallsyms_read_core': 0, 'iter_ksym_read_core': 0}


def render_markdown(records):
    """Rust/C per workload and N (spread in brackets), judged mode first."""
    ns = sorted({r['n'] for r in records if r['workload'] not in FIXED_N})
    # Absolute figures at the second-largest N (the largest is C's slowest corner).
    mid_n = ns[-2] if len(ns) > 1 else ns[-1]
    out = ['| workload | mode | unit | C at %s | Rust at %s | %s |' % (
               '{:,}'.format(mid_n), '{:,}'.format(mid_n),
               ' | '.join('Rust/C N={:,}'.format(n) for n in ns)),
           '|---|---|---|---|---|' + '---|' * len(ns)]
    for w in ORDER:
        modes = sorted({r['mode'] for r in records if r['workload'] == w},
                       key=lambda m: m != JUDGED.get(w, 'tcg'))
        for mode in modes:
            rows = {r['n']: r for r in records if r['workload'] == w and r['mode'] == mode}
            if not rows:
                continue
            mid = rows.get(mid_n) or next(iter(rows.values()))
            cells = []
            for n in ns:
                r = rows.get(n)
                if r is None:
                    # A fixed-N workload: its one figure under every N.
                    r = mid
                ratio = r['rust'] / r['c']
                mark = '**' if JUDGED.get(w) == mode else ''
                # Big wins read better as "1/34" than as "0.03".
                inv = 1 / ratio
                shown = ('%.2f' % ratio if ratio >= 0.5 else
                         '1/%.1f' % inv if inv < 10 else '1/%.0f' % inv)
                cells.append('%s%s%s (%.0f%%)' % (mark, shown, mark, 100 * r['spread']))
            out.append('| %s | %s | %s | %.4g | %.4g | %s |' % (
                w, mode, mid['unit'], mid['c'], mid['rust'], ' | '.join(cells)))
    return '\n'.join(out) + '\n'
