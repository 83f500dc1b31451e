"""fulcrum-sim's migrations per reason (tools/sim/engine.c, the summary's "migrations by
reason" line and its migrations_REASON RESULT lines).

What is held here: the reasons add up to the kernel's own migration count with nothing
left over ("other 0") for the workloads, balancers and placements below; and they are
the trace's: as many affine and idle_sibling moves as the kernel's sched_select lines
give those reasons, as many forks placed away as reason=idlest lines, as many wake-ups
kept as reason=prev lines less the forks that stayed, and as many balancer moves per
idle type as the sched_balance lines' moved= fields add up to.
"""
import os
import re
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("FULCRUM_BUILD", os.path.join(TOP, "build"))
SIM = os.path.join(BUILD, "tools", "fulcrum-sim")

LINE = re.compile(r"^sim: migrations by reason: affine (\d+), idle_sibling (\d+), balance (\d+), "
                  r"newidle (\d+), active (\d+), other (-?\d+); wake-ups that kept their CPU (\d+), "
                  r"forks placed off their parent's CPU \(idlest\) (\d+)$", re.M)
KEYS = ("affine", "idle_sibling", "balance", "newidle", "active", "other", "wake_prev", "fork_idlest")


def run(*args):
    r = subprocess.run([SIM, *args], capture_output=True, text=True, timeout=120)
    if r.returncode:
        raise AssertionError(f"{args}: status {r.returncode}\n{r.stderr}")
    return r.stdout


def reasons(out):
    m = LINE.search(out)
    if not m:
        raise AssertionError(f"no 'migrations by reason' line in:\n{out}")
    return dict(zip(KEYS, map(int, m.groups())))


def migrations(out):
    return int(float(re.search(r"metric=migrations value=(\S+)", out).group(1)))


class Reasons(unittest.TestCase):
    def test_reasons_add_up(self):
        for opts, args in (((), ("hackbench", "-g", "4", "-l", "100")),
                           (("sched_balance=modern",), ("hackbench", "-g", "4", "-l", "100")),
                           (("sched_select=sbm",), ("tps", "-c", "24", "-t", "50")),
                           ((), ("fairshare", "-t", "17", "-s", "1")),
                           ((), ("compute", "-t", "50", "-j", "20")),
                           (("sched_features=WAKE_AFFINE_ON_PREV",), ("jbb", "-w", "8", "-n", "50"))):
            out = run("--preset", "2s16", *opts, "--", *args)
            r = reasons(out)
            self.assertEqual(r["other"], 0, f"{opts} {args}: {r}")
            self.assertEqual(sum(r[k] for k in KEYS[:6]), migrations(out), f"{opts} {args}")
            for k in KEYS[:5]:
                self.assertRegex(out, rf"metric=migrations_{k} value={r[k]}(\.0)? unit=migrations")
        # Not every run is all zeros: hackbench wakes across CPUs and the balancers move.
        r = reasons(run("--preset", "2s16", "--", "hackbench", "-g", "4", "-l", "100"))
        self.assertGreater(r["affine"] + r["idle_sibling"], 0)
        self.assertGreater(r["newidle"], 0)

    def test_reasons_are_the_traces(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.trace")
            out = run("--preset", "2s16", "--trace", path, "--", "hackbench", "-g", "2", "-l", "50")
            with open(path) as f:
                trace = f.read()
        r = reasons(out)
        self.assertIn("entries-in-buffer/entries-written: ", trace)
        kept, written = map(int, re.search(r"entries-in-buffer/entries-written: (\d+)/(\d+)", trace).groups())
        self.assertEqual(kept, written, "the rings overflowed: make the run smaller")
        sel = re.findall(r"sched_select: pid=\d+ prev_cpu=(\d+) this_cpu=\d+ target=(\d+) \S+ reason=(\w+)",
                         trace)
        count = {k: sum(1 for _, _, why in sel if why == k) for k in ("affine", "idle_sibling", "idlest", "prev")}
        self.assertEqual(r["affine"], count["affine"])
        self.assertEqual(r["idle_sibling"], count["idle_sibling"])
        self.assertEqual(r["fork_idlest"], count["idlest"])
        forks = len(re.findall(r"sched_wakeup_new: comm=hackbench/", trace))  # not the stoppers
        self.assertEqual(r["wake_prev"], count["prev"] - (forks - count["idlest"]))
        moved = {"idle": 0, "busy": 0, "newidle": 0}
        for kind, n in re.findall(r"sched_balance: .* idle_type=(\w+) .* moved=(\d+) result=moved", trace):
            moved[kind] += int(n)
        self.assertEqual(r["newidle"], moved["newidle"])
        self.assertEqual(r["balance"], moved["idle"] + moved["busy"])
        self.assertGreater(r["affine"] + r["newidle"], 0)


if __name__ == "__main__":
    unittest.main()
