"""The fidelity table (tools/bench --suite fidelity, docs/fidelity.md): each
Fulcrum model beside the Linux of its generation, figure by figure.

  Fulcrum sched_model=linux-3.8   against  Linux 6.1  (Debian bookworm)
  Fulcrum sched_model=linux-6.12  against  Linux 6.12 (bookworm-backports)

A suite run writes results.json; this module reads one or several of them
(runs of part of the suite, on another day or machine, merge: a later
file's run of the same preset, experiment, point, system and run number
replaces an earlier one's) and lays the table out in Markdown, one table
per preset. A cell is the mean over the runs that ended cleanly; a cell
with no such run says "not run", so a partial run never passes for a
whole one.
"""
import json
import math
import os
from dataclasses import dataclass

# The systems of the suite: name -> (kind, what it is). Fulcrum's are named for
# the model so that they do not clash with the Linux peers' names.
FULCRUM_3_8, FULCRUM_6_12, LINUX_6_1, LINUX_6_12 = "fulcrum-3.8", "fulcrum-6.12", "linux-6.1", "linux-6.12"
PAIRS = [(FULCRUM_3_8, LINUX_6_1), (FULCRUM_6_12, LINUX_6_12)]
SYSTEM_TITLES = {FULCRUM_3_8: "Fulcrum linux-3.8", LINUX_6_1: "Linux 6.1",
                 FULCRUM_6_12: "Fulcrum linux-6.12", LINUX_6_12: "Linux 6.12"}

# Experiment tags (a suite experiment's title is "fidelity TAG").
FAIR_EQUAL, FAIR_MIXED = "fairshare-equal", "fairshare-mixed"
TITLE_PREFIX = "fidelity "

# Fairshare's task counts: the 5, 9, 12, 16, 24 and the 13 of its Jain figure.
FAIR_TASKS = ["5", "9", "12", "13", "16", "24"]
MIXED_NICE = "0,5"  # fairshare -n: nice 0 and 5 alternating over the tasks


@dataclass
class Row:
    group: str  # what the rows of a block measure ("fairshare, equal nice")
    tag: str  # the experiment's tag
    label: str  # the figure: a RESULT label ("fairshare jain") or "sched KEY"
    point: tuple  # ((key, value), ...) as in results.json's runs, () for none
    text: str  # the row's own words ("9 tasks: Jain's index")
    lower: object  # True: lower is better; False: higher is; None: neither (a share)


def rows():
    """Every row of the table, in order."""
    out = []
    for tag, group in ((FAIR_EQUAL, "fairshare, equal nice"), (FAIR_MIXED, f"fairshare, nice {MIXED_NICE}")):
        for t in FAIR_TASKS:
            pt = (("tasks", t),)
            out.append(Row(group, tag, "fairshare worst_dev", pt, f"{t} tasks: worst deviation (%)", True))
            out.append(Row(group, tag, "fairshare jain", pt, f"{t} tasks: Jain's index", False))
            if tag == FAIR_EQUAL:
                out.append(Row(group, tag, "sched queued", pt, f"{t} tasks: wait share", None))
    out.append(Row("wakelat", "wakelat", "wakelat p50", (), "wake-up latency p50 (us)", True))
    out.append(Row("wakelat", "wakelat", "wakelat p99", (), "wake-up latency p99 (us)", True))
    for g in ("1", "2", "4"):
        out.append(Row("hackbench", "hackbench", "hackbench time", (("groups", g),), f"-g {g}: time (s)", True))
    out.append(Row("pipebench", "pipebench", "pipebench usecs_per_op", (), "round trip (us)", True))
    out.append(Row("tps", "tps", "tps tps", (), "transactions per second", False))
    return out


def preset_of(doc, exp):
    """An experiment's preset: its own field, else the report header's ("2s: 2 sockets ...")."""
    if exp.get("preset"):
        return exp["preset"]
    return doc.get("header", {}).get("preset", "?").split(":")[0]


def collect(docs, cells=None):
    """{(preset, tag, label, point, system): {run: value}} from results.json documents, in
    order (a later document's run replaces an earlier one's). Failed runs are skipped."""
    cells = {} if cells is None else cells
    for doc in docs:
        exps = doc.get("experiments", [])
        for r in doc.get("runs", []):
            n = r.get("experiment")
            if not n or n > len(exps) or r.get("error"):
                continue
            exp = exps[n - 1]
            if not exp.get("title", "").startswith(TITLE_PREFIX):
                continue
            tag = exp["title"][len(TITLE_PREFIX):].split(" ")[0]
            point = tuple(sorted(r.get("point", {}).items()))
            key = (preset_of(doc, exp), tag, point, r["system"])
            for label, (value, _unit) in r.get("figures", {}).items():
                cells.setdefault(key[:2] + (label,) + key[2:], {})[r["run"]] = value
            for skey, value in (r.get("sched") or {}).items():
                if value is not None:
                    cells.setdefault(key[:2] + (f"sched {skey}",) + key[2:], {})[r["run"]] = value
    return cells


def load(paths):
    """collect() over results.json files, or folders holding one."""
    docs = []
    for p in paths:
        path = os.path.join(p, "results.json") if os.path.isdir(p) else p
        with open(path) as f:
            docs.append(json.load(f))
    return collect(docs)


def cell(cells, preset, row, system):
    """(mean, runs) of one cell; (None, 0) when nothing ran."""
    runs = cells.get((preset, row.tag, row.label, tuple(sorted(row.point)), system), {})
    vals = [v for v in runs.values() if v is not None and not math.isnan(v)]
    if not vals:
        return None, 0
    return sum(vals) / len(vals), len(vals)


def fmt(value, label):
    if value is None:
        return "not run"
    if label == "sched queued":
        return f"{100 * value:.1f}%"
    if abs(value) >= 1000:
        return f"{value:.0f}"
    if abs(value) >= 100:
        return f"{value:.1f}"
    return f"{value:.4g}" if abs(value) < 10 else f"{value:.2f}"


def ratio_text(f, lx):
    if f is None or lx is None:
        return "-"
    if lx == 0:
        return "-"
    return f"{f / lx:.2f}"


def presets_in(cells):
    order = ["2s", "2s16"]
    found = sorted({k[0] for k in cells}, key=lambda p: (order.index(p) if p in order else 99, p))
    return found


def table(cells, preset):
    """The Markdown lines of one preset's table."""
    head = ["figure"]
    for f, lx in PAIRS:
        head += [SYSTEM_TITLES[f], SYSTEM_TITLES[lx], "ratio"]
    head.append("runs")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    group = None
    for row in rows():
        if row.group != group:
            group = row.group
            lines.append(f"| **{group}** |" + " |" * (len(head) - 1))
        cols, counts = [row.text], []
        for f, lx in PAIRS:
            fv, fn = cell(cells, preset, row, f)
            lv, ln = cell(cells, preset, row, lx)
            cols += [fmt(fv, row.label), fmt(lv, row.label), ratio_text(fv, lv)]
            counts += [fn, ln]
        cols.append("/".join(str(n) for n in counts))
        lines.append("| " + " | ".join(cols) + " |")
    return lines


def jain_summary(cells, tasks="13"):
    """{(preset, system): mean Jain's index} at `tasks` equal spinners, where it ran."""
    row = next(r for r in rows() if r.tag == FAIR_EQUAL and r.label == "fairshare jain"
               and dict(r.point)["tasks"] == tasks)
    out = {}
    for preset in presets_in(cells):
        for system in SYSTEM_TITLES:
            v, n = cell(cells, preset, row, system)
            if n:
                out[(preset, system)] = (v, n)
    return out


def markdown(cells):
    """The whole table text: per preset a table, then the 13-spinner Jain line."""
    out = []
    for preset in presets_in(cells):
        out += [f"### {preset}", ""] + table(cells, preset) + [""]
    jain = jain_summary(cells)
    if jain:
        out.append("Jain's index, 13 equal spinners: " + "; ".join(
            f"{SYSTEM_TITLES[s]} on {p} {v:.4f} ({n} run{'s' if n != 1 else ''})"
            for (p, s), (v, n) in sorted(jain.items(), key=lambda kv: (kv[0][0], list(SYSTEM_TITLES).index(kv[0][1])))))
        out.append("")
    return out


def count_cells(cells):
    """(cells with a value, all cells) over every preset present, for the report's summary."""
    have = total = 0
    for preset in presets_in(cells):
        for row in rows():
            for system in SYSTEM_TITLES:
                total += 1
                have += cell(cells, preset, row, system)[1] > 0
    return have, total
