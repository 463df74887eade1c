# SPDX-License-Identifier: GPL-2.0
"""Draws build/bench/bench.svg for make bench: one panel per workload, cost
against the number of BPF symbols (log-log), C and Rust side by side, a solid
line for the mode the workload is judged in and a dashed one for the other.
Plain SVG, so nothing needs installing."""
import math

COLORS = {'c': '#c0392b', 'rust': '#2471a3'}
DASH = {'icount': '', 'tcg': '6,4'}
W, H = 300, 220          # one panel
LEFT, TOP, PW, PH = 58, 34, 222, 140   # plot area inside a panel
COLS = 5


def _log_ticks(lo, hi):
    """Powers of ten covering [lo, hi], at least two."""
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    if a == b:
        b += 1
    return [10 ** e for e in range(a, b + 1)]


def _fmt(v):
    return ('%g' % v) if v < 1e5 else '1e%d' % round(math.log10(v))


def _panel(out, x0, y0, workload, rows, ns):
    unit = rows[0]['unit']
    values = [r[v] for r in rows for v in ('c', 'rust') if r[v] > 0]
    yt = _log_ticks(min(values), max(values))
    xt = _log_ticks(min(ns), max(ns))

    def px(n):
        return x0 + LEFT + PW * (math.log10(n) - math.log10(xt[0])) / (
            math.log10(xt[-1]) - math.log10(xt[0]))

    def py(v):
        return y0 + TOP + PH - PH * (math.log10(v) - math.log10(yt[0])) / (
            math.log10(yt[-1]) - math.log10(yt[0]))

    out.append('<text x="%d" y="%d" font-weight="bold">%s (%s)</text>'
               % (x0 + LEFT, y0 + 20, workload, unit))
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>'
               % (x0 + LEFT, y0 + TOP, PW, PH))
    for t in yt:
        out.append('<text x="%d" y="%.1f" text-anchor="end" font-size="10">%s</text>'
                   % (x0 + LEFT - 4, py(t) + 3, _fmt(t)))
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eee"/>'
                   % (x0 + LEFT, x0 + LEFT + PW, py(t), py(t)))
    for t in xt:
        out.append('<text x="%.1f" y="%d" text-anchor="middle" font-size="10">%s</text>'
                   % (px(t), y0 + TOP + PH + 14, _fmt(t)))
    for mode in DASH:
        for variant in COLORS:
            pts = sorted((r['n'], r[variant]) for r in rows if r['mode'] == mode)
            if not pts:
                continue
            path = ' '.join('%.1f,%.1f' % (px(n), py(v)) for n, v in pts)
            out.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2" '
                       'stroke-dasharray="%s"/>' % (path, COLORS[variant], DASH[mode]))


def write_svg(records, order, path, info):
    workloads = [w for w in order if any(r['workload'] == w for r in records)]
    ns = sorted({r['n'] for r in records})
    rows = (len(workloads) + COLS - 1) // COLS
    width, height = COLS * W, rows * H + 60
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="20" font-size="14">bpf_ksym: cost against the number of BPF '
           'symbols (log-log; lower is better). Kernel %s, %s</text>'
           % (info['kernel'], info['qemu']),
           '<text x="10" y="40">'
           '<tspan fill="%s">C (mainline)</tspan>   <tspan fill="%s">Rust</tspan>   '
           'solid: icount mode, dashed: tcg mode</text>' % (COLORS['c'], COLORS['rust'])]
    for i, w in enumerate(workloads):
        _panel(out, (i % COLS) * W, 50 + (i // COLS) * H, w,
               [r for r in records if r['workload'] == w], ns)
    out.append('</svg>')
    with open(path, 'w') as f:
        f.write('\n'.join(out) + '\n')
