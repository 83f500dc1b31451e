"""The real clients' own output read as figures (docs/benchmarks.md, "The real clients").

cyclictest, rt-tests' hackbench (/bin/rt-hackbench) and schbench print no
RESULT lines; each parser turns the program's output lines into the same
Result records bench_parse makes of RESULT lines, or raises LogError.
"""
import re

from bench_parse import LogError, Result

# cyclictest -q: "T: 0 ( 123) P:80 I:1000 C:   1000 Min:      5 Act:    8 Avg:    9 Max:     40"
CYCLIC = re.compile(r"T:\s*(\d+)\s+\(\s*\d+\)\s+P:\s*(\d+)\s+I:\s*(\d+)\s+C:\s*(\d+)\s+"
                    r"Min:\s*(\d+)\s+Act:\s*(\d+)\s+Avg:\s*(\d+)\s+Max:\s*(\d+)")
# schbench: "Wakeup Latencies percentiles (usec) runtime 2 (s) (765 total samples)", then
# "  * 99.0th: 4232       (69 samples)" and "  min=1, max=5170"; "average rps: 382.50".
SCH_BLOCK = re.compile(r"^(Wakeup|Request) Latencies percentiles \(usec\)")
SCH_PCT = re.compile(r"^\*?\s*(\d+\.\d)th:\s+(\d+)\s")
SCH_MAX = re.compile(r"^min=(\d+), max=(\d+)$")
SCH_RPS = re.compile(r"^average rps: (\d+(?:\.\d+)?)$")
TIME = re.compile(r"^Time: (\d+(?:\.\d+)?)$")


def cyclictest(lines):
    """Per thread its last report; figures: the threads' mean Avg, the largest Max, the
    smallest Min (usec)."""
    last = {}
    for line in lines:
        for m in CYCLIC.finditer(line):  # without -q a line holds escapes between reports
            last[int(m.group(1))] = m
    if not last:
        raise LogError("cyclictest printed no 'T: N (...) ... Max:' line")
    ms = [last[t] for t in sorted(last)]
    fields = {"threads": str(len(ms)), "prio": ms[0].group(2), "interval": ms[0].group(3),
              "loops": ms[0].group(4)}
    avg = sum(int(m.group(7)) for m in ms) / len(ms)
    figures = [("avg", avg), ("max", max(int(m.group(8)) for m in ms)),
               ("min", min(int(m.group(5)) for m in ms))]
    return [Result("cyclictest", dict(fields, metric=k), float(v), "usec", 0) for k, v in figures]


def schbench(lines):
    """The last Wakeup and Request blocks' p50, p99 and max (usec), and the average rps."""
    out, block = {}, None
    for line in (ln.strip() for ln in lines):
        b = SCH_BLOCK.match(line)
        if b:
            block = b.group(1).lower()
            continue
        p, x, r = SCH_PCT.match(line), SCH_MAX.match(line), SCH_RPS.match(line)
        if block and p and p.group(1) in ("50.0", "99.0"):
            out[f"{block}_p{p.group(1)[:2]}"] = (float(p.group(2)), "usec")
        elif block and x:
            out[f"{block}_max"] = (float(x.group(2)), "usec")
            block = None
        elif r:
            out["rps"] = (float(r.group(1)), "req/s")
    if "rps" not in out or "wakeup_p99" not in out:
        raise LogError("schbench printed no 'Wakeup Latencies' block or no 'average rps:' line")
    return [Result("schbench", {"metric": k}, v, u, 0) for k, (v, u) in out.items()]


def rt_hackbench(lines):
    """rt-tests' hackbench: its 'Time: S' line (s)."""
    for line in lines:
        m = TIME.match(line.strip())
        if m:
            return [Result("rt-hackbench", {"metric": "time"}, float(m.group(1)), "s", 0)]
    raise LogError("rt-hackbench printed no 'Time: S' line")


PARSERS = {"cyclictest": cyclictest, "schbench": schbench, "rt-hackbench": rt_hackbench}
