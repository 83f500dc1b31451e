"""A picture of each sweep, drawn by gnuplot (Debian package gnuplot-nox).

For one table: the sweep points along x, each system's average as a line
with its runs' lowest and highest value as an error bar. PNG through cairo
when this gnuplot has it, else SVG. Without gnuplot there are no plots and
the report says so.
"""
import os
import re
import shutil
import subprocess

import bench_stats as st


def gnuplot():
    return shutil.which("gnuplot")


def terminal(binary):
    """('pngcairo', '.png'), ('png', '.png') or ('svg', '.svg'): the best this gnuplot has."""
    p = subprocess.run([binary, "-e", "set terminal"], capture_output=True, text=True)
    out = p.stdout + p.stderr
    names = set(re.findall(r"^\s*(\w+)\s", out, re.M))
    for name, ext in (("pngcairo", ".png"), ("png", ".png")):
        if name in names:
            return name, ext
    return "svg", ".svg"


def slug(text):
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:80] or "plot"


def _quote(text):
    """A gnuplot double-quoted string (backslash escapes, so a newline is written \\n)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def script(table, datafile, outfile, term, subtitle=""):
    """The gnuplot script for one table (exposed for the tests)."""
    scale = 100 if table.percent else 1
    unit = "%" if table.percent else table.unit
    better = "lower is better" if table.lower_better else "higher is better"
    lines = [
        f"set terminal {term} size 900,560" + (" enhanced font ',10'" if term != "svg" else ""),
        f"set output {_quote(outfile)}",
        f"set title {_quote(table.title + (chr(10) + subtitle if subtitle else ''))} noenhanced",
        f"set xlabel {_quote(table.header)} noenhanced",
        f"set ylabel {_quote(f'{unit} ({better})')} noenhanced",
        "set key outside right top noenhanced",
        "set grid ytics",
        "set offsets 0.3, 0.3, 0, 0",
        "set yrange [0:*]",
        "set style data linespoints",
    ]
    tics = ", ".join(f"{_quote(label)} {i}" for i, (label, _) in enumerate(table.rows))
    lines.append(f"set xtics ({tics}) noenhanced")
    plots = []
    n = len(table.systems)
    for i, s in enumerate(table.systems):
        # columns per system: avg, min, max, starting at 2 + 3 i (column 1 is the x label);
        # each system a little to the side, so error bars at one point do not hide each other
        c = 2 + 3 * i
        shift = (i - (n - 1) / 2) * 0.06
        plots.append(f"{_quote(datafile)} using ($0{shift:+.2f}):{c}:{c + 1}:{c + 2} with yerrorlines "
                     f"title {_quote(s)}")
    lines.append("plot " + ", \\\n     ".join(plots))
    return "\n".join(lines) + "\n", scale


def data(table, scale=1):
    """The data file: x label, then avg, min, max of each system ('NaN' where missing)."""
    out = []
    for label, cols in table.rows:
        cells = [_quote(label)]
        for s in table.systems:
            vals = [v * scale for v in cols.get(s, []) if v is not None]
            if vals:
                cells += [repr(st.mean(vals)), repr(min(vals)), repr(max(vals))]
            else:
                cells += ["NaN"] * 3
        out.append(" ".join(cells))
    return "\n".join(out) + "\n"


def draw(table, outdir, name, subtitle=""):
    """Draws one table into outdir/name.png (or .svg); returns the path, or None with a
    reason as the second value."""
    binary = gnuplot()
    if not binary:
        return None, "gnuplot not found (Debian package gnuplot-nox; make deps installs it)"
    if not any(v is not None for _, cols in table.rows for vals in cols.values() for v in vals):
        return None, "no values to plot"
    term, ext = terminal(binary)
    os.makedirs(outdir, exist_ok=True)
    base = os.path.join(outdir, slug(name))
    text, scale = script(table, base + ".dat", base + ext, term, subtitle)
    with open(base + ".dat", "w") as f:
        f.write(data(table, scale))
    with open(base + ".gp", "w") as f:
        f.write(text)
    p = subprocess.run([binary, base + ".gp"], capture_output=True, text=True)
    if p.returncode != 0 or not os.path.exists(base + ext):
        return None, f"gnuplot failed: {(p.stderr or p.stdout).strip()[-300:]}"
    return base + ext, None
