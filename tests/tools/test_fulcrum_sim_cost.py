"""fulcrum-sim's cost model (--cost none|default|FILE, tools/sim/cost.c and engine.c).

What is held here:
- A task that moves pays the documented refill of its working set by how far it
  moved: nothing to the other thread of its core, llc_ns_per_kb per KiB to another
  core of its LLC, xllc_ns_per_kb x SLIT / 10 to another node (the path costs are
  set to 0 so that the refill is all that differs between the runs).
- Two busy threads of one core each run at smt_fraction of a core; two cores do not.
- With the kernel's path costs on, a run takes longer than with --cost none, and
  compute's own check (the kernel charged its tasks the jobs' CPU time plus what
  the cost model charged them) holds. Where both variants place the tasks alike
  (pipebench), sbm, which skips stock's walk up the domains, runs faster.
- A cost file's bad line is refused with FILE:LINE and why, and exit status 2.
- Determinism with costs on: the same command gives the same bytes; another seed
  another run. --cost none is the engine without costs (its other tests are in
  test_fulcrum_sim.py, unchanged).
"""
import os
import re
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("FULCRUM_BUILD", os.path.join(TOP, "build"))
SIM = os.path.join(BUILD, "tools", "fulcrum-sim")
SIM_ASAN = os.path.join(BUILD, "tools", "fulcrum-sim-asan")

# Only the refill: no path costs, full speed on SMT, 1000 KiB working sets that
# do not decay while a task is away for the few microseconds of a move.
REFILL_ONLY = "insn_ns = 0\nsmt_fraction = 1\nws_kb = 1000\ndecay_us = 1e12\n"


def run(*args, binary=SIM, timeout=120):
    return subprocess.run([binary, *args], capture_output=True, text=True, errors="replace",
                          timeout=timeout)


class CostFile:
    """A cost file of the given text, removed afterwards."""

    def __init__(self, text):
        self.text = text

    def __enter__(self):
        with tempfile.NamedTemporaryFile("w", suffix=".cost", delete=False) as f:
            f.write(self.text)
        self.path = f.name
        return self.path

    def __exit__(self, *exc):
        os.unlink(self.path)


def compute_real(out):
    """compute's Real column (seconds)."""
    m = re.search(r"^\s+\d+\s+[\d.]+\s+([\d.]+)\s+[\d.]+\s+[\d.]+$", out, re.M)
    return float(m.group(1))


class Refill(unittest.TestCase):
    def mover(self, second_cpu, ws=""):
        """rt-app's runtime (ms) of a thread that runs 20 ms on CPU 3, then 20 ms on second_cpu."""
        text = """{"tasks": {"mover": {"loop": 1, %s "phases": {
                    "a": {"cpus": [3], "run": 20000},
                    "b": {"cpus": [%d], "run": 20000}}}}}""" % (ws, second_cpu)
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write(text)
        try:
            with CostFile(REFILL_ONLY) as cost:
                r = run("--preset", "2s", "--cost", cost, "--", "rt-app", f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(r.returncode, 0, r.stderr)
        m = re.search(r"^RESULT name=rt-app .*task=mover metric=runtime value=(\S+) unit=ms$",
                      r.stdout, re.M)
        return float(m.group(1))

    def test_refill_by_distance(self):
        # 2s: CPUs 2 and 3 are the threads of socket 0's second core, 1 is on its first
        # core, 6 on the other socket and node (SLIT 21).
        stay = self.mover(3)
        self.assertAlmostEqual(self.mover(2) - stay, 0.0, places=6)  # smt_ns_per_kb = 0
        self.assertAlmostEqual(self.mover(1) - stay, 1000 * 40 / 1e6, places=6)
        self.assertAlmostEqual(self.mover(6) - stay, 1000 * 100 * 2.1 / 1e6, places=6)

    def test_rtapp_task_declares_its_working_set(self):
        stay = self.mover(3, '"ws_kb": 500,')
        self.assertAlmostEqual(self.mover(6, '"ws_kb": 500,') - stay, 500 * 100 * 2.1 / 1e6,
                               places=6)

    def test_no_refill_without_costs(self):
        text = """{"tasks": {"mover": {"loop": 1, "phases": {
                    "a": {"cpus": [3], "run": 20000}, "b": {"cpus": [6], "run": 20000}}}}}"""
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write(text)
        try:
            r = run("--preset", "2s", "--cost", "none", "--", "rt-app", f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("metric=runtime value=40 unit=ms", r.stdout)
        self.assertNotIn("cost:", r.stdout)


class Smt(unittest.TestCase):
    def real(self, shape, tasks):
        with CostFile("insn_ns = 0\nsmt_fraction = 0.5\nws_kb = 0\n") as cost:
            r = run(*shape.split(), "--cost", cost, "--", "compute", "-t", str(tasks), "-j", "1",
                    "--job-ms", "100")
        self.assertEqual(r.returncode, 0, r.stderr)
        return compute_real(r.stdout)

    def test_two_threads_of_a_core_each_run_at_the_fraction(self):
        smt = "--sockets 1 --cores 1 --threads 2"
        self.assertEqual(self.real(smt, 1), 0.100)
        self.assertEqual(self.real(smt, 2), 0.200)  # two jobs of 100 ms at half speed each

    def test_two_cores_run_at_full_speed(self):
        self.assertEqual(self.real("--sockets 1 --cores 2 --threads 1", 2), 0.100)


class PathCosts(unittest.TestCase):
    def test_costs_slow_the_run_and_compute_checks_its_books(self):
        args = ["--preset", "2s16", "--", "compute", "-t", "40", "-j", "5"]
        free = run(*args[:2], "--cost", "none", *args[2:], binary=SIM_ASAN)
        paid = run(*args[:2], "--cost", "default", *args[2:], binary=SIM_ASAN)
        self.assertEqual(free.returncode, 0, free.stderr)
        self.assertEqual(paid.returncode, 0, paid.stderr)
        self.assertGreater(compute_real(paid.stdout), compute_real(free.stdout))
        m = re.search(r"^cost: scheduler paths ([\d.]+) ms, cache refill ([\d.]+) ms", paid.stdout,
                      re.M)
        self.assertGreater(float(m.group(1)), 0)
        self.assertGreater(float(m.group(2)), 0)

    def test_the_variant_that_does_less_runs_faster(self):
        # pipebench's two tasks stay on the same CPUs under both variants; sbm's wake-up
        # skips stock's walk up the domains, and the wake-up is on the round trip's path
        # (its IPI leaves after it).
        def run_pb(variant, cost):
            r = run("--preset", "2s16", "--cost", cost, f"sched_select={variant}", "--",
                    "pipebench", "-l", "5000")
            self.assertEqual(r.returncode, 0, r.stderr)
            usecs = float(re.search(r"metric=usecs_per_op value=(\S+)", r.stdout).group(1))
            migrations = re.search(r"metric=migrations value=(\S+)", r.stdout).group(1)
            return usecs, migrations
        stock, sbm = run_pb("stock", "default"), run_pb("sbm", "default")
        self.assertEqual(stock[1], sbm[1])
        self.assertLess(sbm[0], stock[0])
        self.assertEqual(run_pb("stock", "none"), run_pb("sbm", "none"))

    def test_every_workload_runs_with_costs(self):
        for wl in (["hackbench", "-g", "2", "-l", "20"], ["pipebench", "-l", "500"],
                   ["fairshare", "-t", "12", "-s", "0.2"], ["compute", "-t", "20", "-j", "2"]):
            r = run("--preset", "2s", "--cost", "default", "sched_features=SCHED_VERIFY", "--",
                    *wl, binary=SIM_ASAN)
            self.assertEqual(r.returncode, 0, (wl, r.stderr))
            self.assertIn("0 violations", r.stdout, wl)
            self.assertIn("cost: scheduler paths", r.stdout, wl)


class CostFileErrors(unittest.TestCase):
    def refused(self, text, line, why):
        with CostFile(text) as cost:
            r = run("--preset", "2s", "--cost", cost, "--", "compute", binary=SIM_ASAN)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn(f"{cost}:{line}: ", r.stderr)
        self.assertIn(why, r.stderr)

    def test_unknown_key(self):
        self.refused("# a comment\n\nswitch_insn = 100\nswitch_ns = 5\n", 4,
                     "unknown key 'switch_ns'")

    def test_bad_value(self):
        self.refused("llc_ns_per_kb = fast\n", 1, "llc_ns_per_kb wants a number")

    def test_out_of_range(self):
        self.refused("insn_ns = 0.5\nsmt_fraction = 1.5\n", 2, "smt_fraction wants a number in")

    def test_not_key_value(self):
        self.refused("insn_ns 0.5\n", 1, "not a `key = value` line")

    def test_missing_file(self):
        r = run("--preset", "2s", "--cost", "/nonexistent/x.cost", "--", "compute")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--cost /nonexistent/x.cost", r.stderr)

    def test_keys_listed_as_a_cost_file_that_loads(self):
        keys = run("--cost-keys")
        self.assertEqual(keys.returncode, 0, keys.stderr)
        self.assertIn("switch_insn", keys.stdout)
        with CostFile(keys.stdout) as cost:
            a = run("--preset", "2s", "--cost", cost, "--", "hackbench", "-g", "1", "-l", "20")
        b = run("--preset", "2s", "--cost", "default", "--", "hackbench", "-g", "1", "-l", "20")
        self.assertEqual(a.returncode, 0, a.stderr)
        # The defaults written out give the same run as the defaults themselves.
        self.assertEqual(a.stdout.replace(cost, "default"), b.stdout)


class Determinism(unittest.TestCase):
    ARGS = ["--sockets", "2", "--cores", "4", "--threads", "2", "--nodes", "2", "--cost", "default"]

    def test_same_seed_same_bytes(self):
        for wl in (["hackbench", "-g", "2", "-l", "30"], ["compute", "-t", "50", "-j", "3"]):
            a = run(*self.ARGS, "--seed", "3", "--", *wl)
            b = run(*self.ARGS, "--seed", "3", "--", *wl)
            self.assertEqual(a.returncode, 0, a.stderr)
            self.assertEqual(a.stdout, b.stdout)

    def test_other_seed_other_run(self):
        a = run(*self.ARGS, "--seed", "1", "--", "hackbench", "-g", "2", "-l", "30")
        b = run(*self.ARGS, "--seed", "2", "--", "hackbench", "-g", "2", "-l", "30")
        self.assertNotEqual(a.stdout, b.stdout)

    def test_none_is_the_default(self):
        a = run("--preset", "2s", "--", "hackbench", "-g", "1", "-l", "20")
        b = run("--preset", "2s", "--cost", "none", "--", "hackbench", "-g", "1", "-l", "20")
        self.assertEqual(a.stdout, b.stdout)


if __name__ == "__main__":
    unittest.main()
