"""A per-CPU timeline of a scheduler trace, drawn by gnuplot (Debian package gnuplot-nox).

One lane per CPU; each task's running stretches are boxes in its own colour (the tasks
that ran longest are named in the key, as many as its height holds, the rest share one
grey); idle time is the lane left white with a thin grey line, hatched black at the
bottom of the lane where the CPU was idle while a task it could run waited elsewhere
(trace_sched's wasted stretches); wake-ups are thin arrows from the waker's CPU at the
sched_waking to the woken task's lane where it starts running, migrations red arrows from
the old CPU's lane to the new one's. PNG through cairo (or libgd), and SVG.
"""
import os
import shutil
import subprocess

import bench_plot

# Colours a person can tell apart next to each other (Paul Tol's "muted" scheme and a few
# strong ones; no grey, which is the other tasks').
PALETTE = ("#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#882255", "#44aa99",
           "#999933", "#332288", "#e08214", "#8c510a", "#e7298a", "#222222", "#9467bd", "#a6d854")
OTHER = "#bbbbbb"
# Key entries besides the tasks': idle, wasted, wake-up, migration and the other tasks.
KEY_EXTRA = 5


def named_tasks(height):
    """How many tasks get a colour and a key entry of their own: as many as one column of
    the key holds at this height (about 16 pixels a line), at most one per colour."""
    return max(3, min(len(PALETTE), (height - 70) // 16 - KEY_EXTRA))


def _window(r, t_from, t_to):
    lo = r.start if t_from is None else t_from
    hi = r.end if t_to is None else t_to
    if hi <= lo:
        raise ValueError(f"empty window: --from {lo / 1e9:.6f} s is not before --to {hi / 1e9:.6f} s")
    return lo, hi


def files(r, base, t_from=None, t_to=None, named_max=len(PALETTE)):
    """Writes base.dat (gnuplot data blocks) and returns (the blocks' titles and colours,
    the window). Times in the data are milliseconds from the window's start."""
    lo, hi = _window(r, t_from, t_to)

    def ms(t):
        return (min(max(t, lo), hi) - lo) / 1e6

    busy = {}
    for c, pid, comm, s, e in r.slices:
        if pid and e > lo and s < hi:
            busy[pid] = busy.get(pid, 0) + min(e, hi) - max(s, lo)
    order = sorted(busy, key=lambda p: (-busy[p], p))
    named = order[:named_max]
    blocks, titles = [], []
    lanes = {c: i for i, c in enumerate(r.cpus)}
    for i, pid in enumerate(named + [None]):
        rows = []
        for c, p, comm, s, e in r.slices:
            if not p or e <= lo or s >= hi or (p in named) != (pid is not None) or (pid is not None and p != pid):
                continue
            y = lanes[c]
            rows.append(f"{(ms(s) + ms(e)) / 2:.6f} {y} {ms(s):.6f} {ms(e):.6f} {y - 0.35} {y + 0.35}")
        if pid is None:
            if not rows:
                continue
            title, colour = f"{len(order) - len(named)} other tasks", OTHER
        else:
            title, colour = f"{r.tasks[pid].comm}-{pid}", PALETTE[i % len(PALETTE)]
        blocks.append("\n".join(rows) or "NaN NaN NaN NaN NaN NaN")
        titles.append((title, colour))
    wake = [f"{ms(w):.6f} {lanes[wc]} {ms(s) - ms(w):.6f} {lanes[c] - lanes[wc]}"
            for w, wc, pid, s, c in r.wakeups if wc in lanes and lo <= w and s <= hi]
    mig = [f"{ms(t):.6f} {lanes[o]} 0 {lanes[d] - lanes[o]}" for t, pid, o, d, _ in r.migrations
           if lo <= t <= hi and o in lanes and d in lanes]
    idle = [f"{ms(s):.6f} {lanes[c]}\n{ms(e):.6f} {lanes[c]}\n" for c, p, _, s, e in r.slices
            if not p and e > lo and s < hi]
    wasted = []
    for c, runs in r.wasted.items():
        for s, e, _ in runs:
            if e > lo and s < hi and c in lanes:
                y = lanes[c]
                wasted.append(f"{(ms(s) + ms(e)) / 2:.6f} {y} {ms(s):.6f} {ms(e):.6f} {y + 0.25} {y + 0.45}")
    blocks += ["\n".join(wake) or "NaN NaN NaN NaN", "\n".join(mig) or "NaN NaN NaN NaN", "\n".join(idle) or "NaN NaN",
               "\n".join(wasted) or "NaN NaN NaN NaN NaN NaN"]
    with open(base + ".dat", "w") as f:
        f.write("\n\n\n".join(blocks) + "\n")
    return titles, (lo, hi)


def script(r, base, out, term, size, titles, window, title):
    """The gnuplot script: term is 'pngcairo', 'png' or 'svg'; size (width, height) pixels."""
    lo, hi = window
    w, h = size
    n = len(r.cpus)
    tics = ", ".join(f'"CPU {c}" {i}' for i, c in enumerate(r.cpus))
    extra = " enhanced font ',9'" if term != "svg" else " font 'sans,9'"
    lines = [
        f"set terminal {term} size {w},{h}{extra}",
        f"set output {bench_plot._quote(out)}",
        f"set title {bench_plot._quote(title)} noenhanced",
        f"set xlabel {bench_plot._quote(f'ms from {lo / 1e9:.6f} s (trace time)')}",
        f"set xrange [0:{(hi - lo) / 1e6:.6f}]",
        f"set yrange [{n - 0.5}:-0.5]",
        f"set ytics ({tics})",
        "set key outside right top noenhanced",
        "set style fill solid 1.0 noborder",
        "set grid xtics",
    ]
    dat = bench_plot._quote(base + ".dat")
    k = len(titles)
    plots = [f"{dat} index {k + 2} using 1:2 with lines lc rgb '#aaaaaa' lw 1 dt 2 title 'idle'",
             f"{dat} index {k + 3} using 1:2:3:4:5:6 with boxxyerror fs pattern 2 lc rgb '#000000' "
             "title 'idle while work waited'"]
    for i, (name, colour) in enumerate(titles):
        plots.append(f"{dat} index {i} using 1:2:3:4:5:6 with boxxyerror lc rgb '{colour}' "
                     f"title {bench_plot._quote(name)}")
    plots.append(f"{dat} index {k} using 1:2:3:4 with vectors head size screen 0.006,20 "
                 "lc rgb '#333333' lw 0.6 title 'wake-up'")
    plots.append(f"{dat} index {k + 1} using 1:2:3:4 with vectors head filled size screen 0.01,20 "
                 "lc rgb '#d62728' lw 1.5 title 'migration'")
    lines.append("plot " + ", \\\n     ".join(plots))
    return "\n".join(lines) + "\n"


def draw(r, out_base, size=(1200, 400), t_from=None, t_to=None, title="scheduler trace"):
    """Draws out_base.png and out_base.svg; returns their paths. Raises RuntimeError when
    gnuplot is missing or fails, ValueError for an empty window."""
    binary = shutil.which("gnuplot")
    if not binary:
        raise RuntimeError("gnuplot not found (Debian package gnuplot-nox; tools/install-deps installs it)")
    term, ext = bench_plot.terminal(binary)
    if ext != ".png":
        raise RuntimeError("this gnuplot has no PNG terminal (pngcairo or png)")
    d = os.path.dirname(os.path.abspath(out_base))
    os.makedirs(d, exist_ok=True)
    titles, window = files(r, out_base, t_from, t_to, named_tasks(size[1]))
    made = []
    for t, e in ((term, ".png"), ("svg", ".svg")):
        text = script(r, out_base, out_base + e, t, size, titles, window, title)
        with open(out_base + e + ".gp", "w") as f:
            f.write(text)
        p = subprocess.run([binary, out_base + e + ".gp"], capture_output=True, text=True)
        if p.returncode != 0 or not os.path.exists(out_base + e):
            raise RuntimeError(f"gnuplot failed: {(p.stderr or p.stdout).strip()[-300:]}")
        made.append(out_base + e)
    return made
