#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench-query: KALLSYMS_QUERY against parsing /proc/kallsyms, in the guest.

Boots the Rust kernel (plain TCG) with the guest side, bench_query, which runs
each client as a fresh process (text: parse the file into a sorted table, then
look up; ioctl: one query per distinct address, cached; batch: the distinct
addresses in KALLSYMS_QUERY_BY_ADDR_BATCH calls; scan: a program's id by
walking every loaded program, as blazesym does; blazesym_text and blazesym_kq:
blazesym 0.2.7 through its C API as published and with tools/blazesym's
patches (tools/blazesym/capi_bench.c says what each workload times, and why
the _warm ones); ioctl_cached: bpftrace's pattern as single queries with a
cache), 11 interleaved
runs per workload, median. Prints a table and writes build/bench/query.json (with
QEMU_EXTRA's -icount: query-icount.json): one object per workload with workload,
n, unit and a number per client that applies; keeps them in docs/bench/ and
renders the documentation's tables from them (scripts/bench_docs.py).
--report publishes the last run's records again.
"""
import datetime
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get('BPF_KSYM_BUILD') or os.path.join(ROOT, 'build')
if (os.environ.get('ARCH') or 'x86_64') != 'x86_64':
    sys.exit('bench-query: x86-64 only; run it without ARCH=%s' % os.environ['ARCH'])
sys.path.insert(0, os.path.join(ROOT, 'scripts'))
import bench  # noqa: E402 (its versions(): what the figures were measured on)
import bench_docs  # noqa: E402
LINE = re.compile(r'BENCH query workload=(\w+) n=(\d+) unit=(\w+)((?: \w+=[\d.]+)+)')
CLIENTS = ('text', 'ioctl', 'batch', 'scan', 'blazesym_text', 'blazesym_kq', 'ioctl_cached')
WORKLOADS = ('blazesym_heap_0_progs', 'profile', 'by_name_cold', 'by_addr_cold',
             'cold_distinct', 'bpf_prog_id', 'blazesym_first', 'blazesym_cold',
             'blazesym_first_warm', 'blazesym_cold_warm', 'blazesym_bpf_first',
             'blazesym_bpf_info', 'blazesym_steady', 'blazesym_steady_miss_us',
             'blazesym_steady_hit_us', 'blazesym_steady_syscalls_miss_max',
             'blazesym_steady_syscalls_miss_mean', 'blazesym_steady_syscalls_hit_max',
             'blazesym_steady_syscalls_hit_mean', 'blazesym_steady_heap_kib', 'blazesym_bpf_gone',
             'blazesym_bpf_gone_syscalls_max', 'blazesym_bpf_gone_syscalls_mean',
             'blazesym_bpf_gone_named', 'blazesym_late', 'blazesym_late_syscalls',
             'blazesym_late_named', 'rss_kib', 'rss_end_kib', 'blazesym_rss_kib',
             'blazesym_rss_growth_kib', 'churn_single', 'churn_batch',
             'blazesym_heap_30000_progs')
# Rows with idle and churn latencies instead of a figure per client.
CHURN = ('churn_single', 'churn_batch')
# The ratios docs/benchmarks.md reports, where both clients ran: (numerator, denominator).
RATIOS = (('text', 'ioctl'), ('text', 'batch'), ('ioctl', 'batch'), ('scan', 'ioctl'),
          ('blazesym_text', 'blazesym_kq'), ('blazesym_kq', 'ioctl_cached'))
# Memory ratios too, where both sides are one symbolizer's (not peak against end).
KIB_RATIOS = (('blazesym_text', 'blazesym_kq'),)


def parse(log):
    records = []
    for line in open(log, errors='replace'):
        m = LINE.search(line)
        if m:
            r = {'workload': m.group(1), 'n': int(m.group(2)), 'unit': m.group(3)}
            for kv in m.group(4).split():
                k, v = kv.split('=')
                r[k] = float(v)
            records.append(r)
    return records


def main():
    icount = '-icount' in os.environ.get('QEMU_EXTRA', '')
    name = 'query-icount' if icount else 'query'
    out = os.path.join(BUILD, 'bench', name + '.json')
    info_out = os.path.join(BUILD, 'bench', name + '-info.json')
    if sys.argv[1:] == ['--report']:
        # Publish the last run's records again (docs/bench/, the documentation's tables).
        if not os.path.exists(info_out):
            sys.exit('bench-query: no %s (when and on what the last run was made): run '
                     'make bench-query again' % info_out)
        with open(out) as f, open(info_out) as g:
            bench_docs.publish(name, json.load(f), json.load(g))
        return
    info = {'mode': 'icount' if icount else 'tcg', 'runs': 11, 'tree': bench_docs.tree(),
            'date': datetime.date.today().isoformat()}
    env = dict(os.environ, BPF_KSYM='rust', EXTRA_CONFIG='', GUEST_TIMEOUT='1500')
    subprocess.run(['bash', os.path.join(ROOT, 'scripts/boot.sh'), 'bench-query'],
                   env=env, check=True)
    log = os.path.join(BUILD, 'guest-rust-bench-query.log')
    info.update(bench.versions(open(log, errors='replace').read()))
    records = parse(log)
    if [r['workload'] for r in records] != list(WORKLOADS):
        sys.exit('bench-query: expected the figures of %s from the guest, got %s; see %s'
                 % (', '.join(WORKLOADS), [r['workload'] for r in records], log))
    widths = [max(10, len(c)) for c in CLIENTS]
    print('\n%-24s %6s %4s %s  %s' % ('workload', 'n', 'unit',
                                     ' '.join('%*s' % (w, c) for w, c in zip(widths, CLIENTS)),
                                     'ratios'))
    for r in records:
        if r['workload'] in CHURN:
            print('%-24s %6d %4s idle p99 %.1f max %.1f, churn p99 %.1f (%.2fx) max %.1f (%.1fx '
                  'idle p99)' % (r['workload'], r['n'], r['unit'], r['idle_p99'], r['idle_max'],
                                 r['churn_p99'], r['churn_p99'] / r['idle_p99'], r['churn_max'],
                                 r['churn_max'] / r['idle_p99']))
            continue
        cells = ['%*s' % (w, '%.3f' % r[c] if c in r else '-') for w, c in zip(widths, CLIENTS)]
        ratios = ['%s/%s %.1fx' % (a, b, r[a] / r[b])
                  for a, b in (KIB_RATIOS if r['unit'] == 'KiB' else RATIOS)
                  if a in r and b in r and r[b]]
        print('%-24s %6d %4s %s  %s' % (r['workload'], r['n'], r['unit'], ' '.join(cells),
                                       ', '.join(ratios)))
    os.makedirs(os.path.join(BUILD, 'bench'), exist_ok=True)
    with open(out, 'w') as f:
        json.dump(records, f, indent=1)
    with open(info_out, 'w') as f:
        json.dump(info, f, indent=1)
    bench_docs.publish(name, records, info)
    print('\n(%s; each client times itself from its first touch of /proc/kallsyms to its '
          'last answer; bpf_prog_id per lookup; blazesym_bpf_info per address; medians of 11 '
          'interleaved runs)\nwrote %s' % (
              'icount: a nanosecond of guest time is one instruction' if icount else 'plain TCG',
              out))


if __name__ == '__main__':
    main()
