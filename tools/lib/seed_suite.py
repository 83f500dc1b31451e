"""The seed experiments (issue 15, docs/seeds.md): which Fulcrum runs answer which seed
table, the seed's table printed in the harness's layout beside Fulcrum's, the ratio
chart, and the verdicts.

tools/bench --suite seeds (make seeds) runs them; --suite seeds-quick, one point per
experiment, is what `make test` runs. An experiment is a bench Experiment with a
SeedLink: the seed table it answers, which Fulcrum system plays which of the seed's
kernels, which figure is compared, and how a Fulcrum sweep point is named in the seed.
Fulcrum's ratio divides as the seed's does (the seed's numerator system over its
denominator), so the two can be judged by seed_verdict.
"""
import csv
import io
import os
from dataclasses import dataclass, field

import bench_stats as st
import bench_table as tb
import seed_data as sd
import seed_verdict as sv

SIM = os.path.join("tools", "fulcrum-sim")  # under the build folder


@dataclass
class SeedLink:
    seed: str  # "001"
    table: str  # the seed table's name in tests/data/seeds/<seed>-*.txt
    figure: str  # Fulcrum's figure label: "<workload> <metric>"
    systems: dict  # seed system key -> Fulcrum system name
    points: dict = field(default_factory=dict)  # Fulcrum point label -> seed point (default: same)
    note: str = ""  # why the experiment is shaped as it is (printed with it)
    qemu: bool = True  # run in QEMU (False: the machine is too big; the simulator only)
    why_not_qemu: str = ""
    sim_machine: list = None  # fulcrum-sim's machine options (None: the experiment's preset's shape)
    qemu_points: list = None  # the point labels QEMU runs (None: all; the simulator runs all)
    sim_args: str = ""  # the simulator program's own options after the guest's (--working-set 22M)

    def seed_point(self, label):
        return self.points.get(label, label)

    def qemu_runs(self, label):
        """Whether QEMU runs the point labelled so (the simulator runs every point)."""
        return self.qemu and (self.qemu_points is None or label in self.qemu_points)


def seed_table(link):
    return sd.load(link.seed).table(link.table)


def seed_ratio(t, row):
    """The seed's ratio at a row: the printed one, else computed from the printed figures
    (numerator over denominator); (value, printed?)."""
    if row.ratio is not None:
        return float(row.ratio), True
    num, den = t.ratio
    return float(row.avg[num] / row.avg[den]), False


# ------------------------------------------------------------------ the seed's table

def format_seed_table(seed, t):
    """The seed's table in tools/bench's layout (bench_table.format_table): per system its
    runs and printed average, then the printed ratio; '-' where the thread prints none, '*'
    after a ratio computed here from the printed figures."""
    width = 9
    runs = max(len(r.runs[k]) for r in t.rows for k, _ in t.systems)
    first = max([len(t.param)] + [len(r.point) for r in t.rows])
    num, den = t.ratio
    better = "lower is better" if t.lower_better else "higher is better"
    out = [f"seed {seed.number}: {t.title} ({t.unit}), {better}; {seed.author}, {seed.date}"]
    if t.knobs:
        out.append(f"  knobs: {t.knobs}")
    line1, line2 = " " * first, t.param.ljust(first)
    for key, label in t.systems:
        cols = [f"run{i}" for i in range(1, runs + 1)] + ["avg"] if runs else ["figure"]
        span = len(cols) * (width + 1)
        line1 += "  " + label[:span].ljust(span - 1)
        line2 += "  " + " ".join(c.rjust(width) for c in cols)
    rname = f"{num}/{den}"
    rw = max(width, len(rname))
    out += [(line1 + "  " + "ratio".rjust(rw)).rstrip(), line2 + "  " + rname.rjust(rw)]
    for r in t.rows:
        line = r.point.ljust(first)
        for key, _ in t.systems:
            cells = [str(v).rjust(width) for v in r.runs[key]]
            cells += ["-".rjust(width)] * (runs - len(r.runs[key]))
            cells.append(str(r.avg[key]).rjust(width))
            line += "  " + " ".join(cells)
        value, printed = seed_ratio(t, r)
        line += "  " + (f"{value:.3f}" + ("" if printed else "*")).rjust(rw)
        out.append(line)
    if any(r.ratio is None for r in t.rows):
        out.append(f"  (* computed here from the printed figures; the thread prints no ratio there)")
    return out


# ------------------------------------------------------------------ Fulcrum's side

def fulcrum_ratios(link, table, prefix=""):
    """{Fulcrum point label: ratio} from Fulcrum's bench_table.Table of link.figure, dividing
    as the seed does; None where a side has no value. prefix: the systems' prefix in the
    table ("sim:" for the simulator's)."""
    t = seed_table(link)
    num, den = (prefix + link.systems[k] for k in t.ratio)
    out = {}
    for label, _ in table.rows:
        out[label] = st.ratio(table.cell(label, num)[1], table.cell(label, den)[1])
    return out


def verdict_pairs(link, ratios_by_source):
    """[(label, seed ratio, Fulcrum ratio)] over the seed table's points. ratios_by_source:
    {"qemu": {fulcrum label: ratio}, "sim": {...}}; the verdict judges the simulator's ratio
    where there is one, else QEMU's (the issue's order: the simulator has the seed's
    machine), and a point Fulcrum did not measure is not judged."""
    t = seed_table(link)
    by_seed_point = {}
    for source in ("qemu", "sim"):
        for label, r in (ratios_by_source.get(source) or {}).items():
            by_seed_point.setdefault(link.seed_point(label), {})[source] = r
    pairs = []
    for row in t.rows:
        seed_r, _ = seed_ratio(t, row)
        mine = by_seed_point.get(row.point, {})
        f = mine.get("sim") if mine.get("sim") is not None else mine.get("qemu")
        pairs.append((f"{t.name} {row.point}", seed_r, f))
    return pairs


def ratio_table(link, ratios_by_source):
    """A bench_table.Table of the ratio curves (seed, Fulcrum in QEMU, the simulator) over
    the seed's points, for the plot."""
    t = seed_table(link)
    num, den = t.ratio
    systems = ["seed"] + [name for name, src in (("Fulcrum in QEMU", "qemu"), ("simulator", "sim"))
                          if ratios_by_source.get(src)]
    out = tb.Table(f"seed {link.seed} {t.name}: ratio {t.label(num)} / {t.label(den)}", "ratio", False,
                   systems, 1, t.param)
    inverse = {}
    for src in ("qemu", "sim"):
        for label, r in (ratios_by_source.get(src) or {}).items():
            inverse.setdefault(link.seed_point(label), {})[src] = r
    for row in t.rows:
        cols = {"seed": [seed_ratio(t, row)[0]]}
        for name, src in (("Fulcrum in QEMU", "qemu"), ("simulator", "sim")):
            if name in systems:
                cols[name] = [inverse.get(row.point, {}).get(src)]
        out.rows.append((row.point, cols))
    return out


def seed_verdicts(entries):
    """One Verdict per seed over [(link, ratios_by_source)] in order of first appearance."""
    by_seed = {}
    for link, ratios in entries:
        by_seed.setdefault(link.seed, []).extend(verdict_pairs(link, ratios))
    return [sv.verdict(seed, pairs) for seed, pairs in by_seed.items()]


def verdict_csv(verdicts):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["seed", "point", "seed_ratio", "fulcrum_ratio", "seed_band", "fulcrum_band", "agrees"])
    for v in verdicts:
        for p in v.points:
            w.writerow([v.seed, p.label, "" if p.seed is None else f"{float(p.seed):.4f}",
                        "" if p.fulcrum is None else f"{p.fulcrum:.4f}", p.seed_band or "",
                        p.fulcrum_band or "", {True: "yes", False: "no", None: ""}[p.agrees]])
    return buf.getvalue()


# ------------------------------------------------------------------ the simulator

def sim_binary(build):
    path = os.path.join(build, SIM)
    return path if os.access(path, os.X_OK) else None


def sim_machine_args(preset):
    """fulcrum-sim's machine options for a preset's shape, spelled out (the simulator's own
    preset table may be older than this one)."""
    args = ["--sockets", str(preset.sockets), "--cores", str(preset.cores), "--threads",
            str(preset.threads), "--nodes", str(preset.nodes)]
    remote = set(preset.distances.values())
    if len(remote) == 1 and preset.nodes > 1 and not preset.placement:
        args += ["--distance", str(remote.pop())]
    return args


def sim_argv(binary, machine_args, cmdline, program, args, seed):
    """fulcrum-sim [MACHINE] --seed N [NAME=VALUE...] -- PROGRAM ARGS."""
    return [binary, *machine_args, "--seed", str(seed), *cmdline.split(), "--", program, *args.split()]
