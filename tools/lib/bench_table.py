"""Benchmark tables as the LKML threads print them, and the same data as CSV and JSON.

One table per workload and figure: a row per sweep point, and for each
system (a Fulcrum variant, or Linux) every run, the average and the spread,
then the ratio of each system's average to the baseline's (the first
system). Failed runs show as '-' and count in no average.
"""
import csv
import io
from dataclasses import asdict, dataclass, field

import bench_stats as st


@dataclass
class Run:
    """One boot: a workload at one sweep point on one system."""
    workload: str
    point: tuple  # ((key, value), ...): the sweep point, values as strings
    system: str  # variant name, or "linux"
    run: int  # 1-based
    figures: dict = field(default_factory=dict)  # label -> [value, unit]
    sched: dict = field(default_factory=dict)  # wasted_ms, migrations, pulled, queued (None: not reported)
    error: str = None
    seconds: float = None  # wall-clock time of the whole boot
    log: str = None
    kernel: str = "fulcrum"  # "fulcrum" or "linux"
    experiment: int = 0  # which experiment of a suite it belongs to (from 1)


# The balancing figures of a run, from the kernel's schedstat report.
SCHED_FIGURES = (
    ("wasted_ms", "wasted CPU (idle while a task waited elsewhere)", "ms"),
    ("migrations", "task migrations (moves to another CPU, by wake-up or balancer)", "count"),
    ("pulled", "tasks moved by the load balancer", "count"),
    ("queued", "share of runnable time spent queued", "fraction"),
)


def point_label(point):
    return " ".join(v for _, v in point) if point else "-"


def point_header(point):
    return " ".join(k for k, _ in point) if point else "point"


@dataclass
class Table:
    title: str
    unit: str
    lower_better: bool
    systems: list  # column groups, the baseline first
    runs: int
    header: str  # the sweep keys
    rows: list = field(default_factory=list)  # (label, {system: [value or None per run]})
    percent: bool = False  # values are shares, shown as percentages

    def cell(self, label, system):
        """(values, average, relative spread) of one system at one point."""
        for lab, cols in self.rows:
            if lab == label:
                vals = cols.get(system, [])
                return vals, st.mean(vals), st.rel_spread(vals)
        raise KeyError(label)

    def ratio(self, label, system, base):
        return st.ratio(self.cell(label, system)[1], self.cell(label, base)[1])


def build_table(runs, workload, title, unit, getter, systems, points, nruns, lower_better=None,
                percent=False):
    """The table of one figure: getter(run) -> value or None, for each run of workload."""
    if lower_better is None:
        lower_better = st.lower_is_better(unit)
    t = Table(title, unit, lower_better, list(systems), nruns,
              point_header(points[0]) if points else "point", percent=percent)
    index = {(r.point, r.system, r.run): r for r in runs if r.workload == workload}
    for point in points:
        cols = {}
        for s in systems:
            vals = []
            for i in range(1, nruns + 1):
                r = index.get((point, s, i))
                vals.append(None if r is None or r.error else getter(r))
            cols[s] = vals
        t.rows.append((point_label(point), cols))
    return t


def figure_getter(label):
    return lambda r: (r.figures.get(label) or [None])[0]


def sched_getter(key):
    return lambda r: (r.sched or {}).get(key)


def has_values(table):
    return any(v is not None for _, cols in table.rows for vals in cols.values() for v in vals)


def format_table(t, runs_for=None, ratio_base=None, ratios=True):
    """The table as text lines. runs_for: the systems whose single runs are shown (default
    all; the others show their average only). ratio_base: the system the ratios divide by
    (default the first); ratios=False leaves the ratio columns out."""
    base = ratio_base or t.systems[0]
    runs_for = t.systems if runs_for is None else runs_for
    if t.percent:
        num = avg = st.fmt_pct
    elif t.unit == "count":  # whole numbers; their average to one decimal
        num = lambda v, w: "-".rjust(w) if v is None else f"{v:.0f}".rjust(w)  # noqa: E731
        avg = lambda v, w: "-".rjust(w) if v is None else f"{v:.1f}".rjust(w)  # noqa: E731
    else:
        num = avg = st.fmt
    width = 9
    first = max([len(t.header)] + [len(lab) for lab, _ in t.rows])
    groups = []
    for s in t.systems:
        cols = ([f"run{i}" for i in range(1, t.runs + 1)] if s in runs_for else []) + ["avg"]
        cols += ["sd%"] if s in runs_for and t.runs > 1 else []
        groups.append((s, cols))
    others = [s for s in t.systems if s != base] if ratios else []
    ratio_cols = [f"{s}/{base}" for s in others]

    better = ", lower is better" if t.lower_better else ", higher is better"
    unit = "" if t.percent else f" ({t.unit})"
    out = [f"{t.title}{unit}{better if ratios else ''}; {t.runs} run{'s' if t.runs != 1 else ''} each"]
    line1 = " " * first
    line2 = t.header.ljust(first)
    for s, cols in groups:
        span = len(cols) * (width + 1)
        line1 += "  " + s[:span].ljust(span - 1)
        line2 += "  " + " ".join(c.rjust(width) for c in cols)
    if ratio_cols:
        rw = max(width, *(len(c) for c in ratio_cols))
        line1 += "  " + " ".join("ratio".rjust(rw) for _ in ratio_cols)
        line2 += "  " + " ".join(c.rjust(rw) for c in ratio_cols)
    out += [line1.rstrip(), line2.rstrip()]
    for label, cols in t.rows:
        line = label.ljust(first)
        for s, names in groups:
            vals = cols[s]
            cells = [num(v, width) for v in vals] if s in runs_for else []
            cells.append(avg(st.mean(vals), width))
            if s in runs_for and t.runs > 1:
                cells.append(st.fmt_pct(st.rel_spread(vals), width))
            line += "  " + " ".join(cells)
        if ratio_cols:
            line += "  " + " ".join(st.fmt_ratio(t.ratio(label, s, base), rw) for s in others)
        out.append(line.rstrip())
    return out


def csv_text(runs):
    """Every run's every figure, one row each (long format: easy to load anywhere)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["experiment", "workload", "parameters", "system", "kernel", "run", "figure", "value", "unit",
                "error", "seconds", "log"])
    for r in runs:
        params = " ".join(f"{k}={v}" for k, v in r.point)
        common = [r.experiment, r.workload, params, r.system, r.kernel, r.run]
        tail = [f"{r.seconds:.1f}" if r.seconds is not None else "", r.log or ""]
        if r.error:
            w.writerow(common + ["", "", "", r.error] + tail)
            continue
        for label, (value, unit) in r.figures.items():
            w.writerow(common + [label, repr(value), unit, ""] + tail)
        for key, _, unit in SCHED_FIGURES:
            v = (r.sched or {}).get(key)
            if v is not None:
                w.writerow(common + [f"sched {key}", repr(v), unit, ""] + tail)
    return buf.getvalue()


def table_json(t):
    rows = []
    base = t.systems[0]
    for label, cols in t.rows:
        rows.append({
            "point": label,
            "systems": {s: {"runs": vals, "avg": st.mean(vals), "rel_spread": st.rel_spread(vals)}
                        for s, vals in cols.items()},
            "ratio_to_" + base: {s: t.ratio(label, s, base) for s in t.systems[1:]},
        })
    return {"title": t.title, "unit": t.unit, "lower_is_better": t.lower_better, "sweep": t.header,
            "systems": t.systems, "runs": t.runs, "rows": rows}


def run_json(r):
    d = asdict(r)
    d["point"] = dict(r.point)
    return d
