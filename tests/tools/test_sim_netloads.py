"""fulcrum-sim's request/response workloads (tools/sim/workloads_net.c): tps, wakelat,
jbb and netrr.

What is held here:
- Each one checks its own results and its figures are the ones the run implies: every
  transaction of every client answered, every wake-up measured, every posted transaction
  audited, every request of netrr answered; pinned netrr never migrates.
- Their RESULT lines are the guest programs' (build/user/bin/NAME run on this host's
  Linux with the same arguments): the same names, parameter words, metrics and units, in
  the same order, before the simulator's own scheduler figures.
- The same command gives the same bytes; the runs are clean under ASan/UBSan and under
  the kernel's invariant checks with both placement variants.
- The simulator's own options (--step-ns, --write-ns, --read-ns, --working-set) and bad
  values of them.
"""
import os
import re
import subprocess
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("FULCRUM_BUILD", os.path.join(TOP, "build"))
SIM = os.path.join(BUILD, "tools", "fulcrum-sim")
SIM_ASAN = os.path.join(BUILD, "tools", "fulcrum-sim-asan")
GUEST = os.path.join(BUILD, "user", "bin")

# The simulator's figures after the workload's own (tools/sim/workloads.c, sim_report_sched).
SCHED_METRICS = ("switches", "migrations", "wasted_cpu", "wait_share", "migrations_affine",
                 "migrations_idle_sibling", "migrations_balance", "migrations_newidle", "migrations_active")

CASES = {
    "tps": ("-c", "3", "-t", "50", "-w", "100"),
    "wakelat": ("-m", "2", "-t", "3", "-n", "40", "-w", "100"),
    "jbb": ("-w", "3", "-n", "30", "-k", "1000", "-a", "300"),
    "netrr": ("-n", "200",),
}

RESULT = re.compile(r"^RESULT name=(\S+) (.*) value=(\S+) unit=(\S+)$", re.M)


def run(*args, binary=SIM, timeout=120):
    return subprocess.run([binary, *args], capture_output=True, text=True, errors="replace",
                          timeout=timeout)


def result_shapes(out):
    """[(name, words, unit)] of the RESULT lines, without their values."""
    return [(m.group(1), m.group(2), m.group(4)) for m in RESULT.finditer(out)]


def results(out):
    return {re.search(r"metric=(\S+)", m.group(2)).group(1): float(m.group(3)) for m in RESULT.finditer(out)}


class Workloads(unittest.TestCase):
    def sim(self, *args, preset="2s16", binary=SIM):
        r = run("--preset", preset, "--", *args, binary=binary)
        self.assertEqual(r.returncode, 0, f"{args}: {r.stdout}{r.stderr}")
        return r.stdout

    def test_tps_every_transaction(self):
        out = self.sim("tps", "-c", "6", "-s", "2", "-t", "40")
        self.assertIn("number of transactions actually processed: 240/240", out)
        self.assertIn("number of servers: 2", out)
        res = results(out)
        # One transaction at a time per client: tps is clients over the mean latency.
        self.assertAlmostEqual(res["tps"], 6 / (res["latency_avg"] / 1000), delta=res["tps"] * 0.01)

    def test_tps_for_a_duration(self):
        out = self.sim("tps", "-c", "2", "-T", "0.01")
        self.assertRegex(out, r"number of transactions actually processed: [1-9]\d*\n")
        self.assertIn("duration=0.01 metric=tps", out)

    def test_wakelat_every_wakeup_measured(self):
        for pipe in ((), ("-p",)):
            out = self.sim("wakelat", "-m", "3", "-t", "5", "-n", "20", *pipe)
            self.assertIn("(300 total samples)", out)
            res = results(out)
            self.assertLessEqual(res["p50"], res["p90"])
            self.assertLessEqual(res["p99.9"], res["max"])
            self.assertGreater(res["p50"], 0)

    def test_jbb_every_transaction_audited(self):
        out = self.sim("jbb", "-w", "5", "-n", "20")
        res = results(out)
        self.assertEqual(res["bops"] > 0, True)
        # A wake-up per post that found the partner asleep, plus the close's: 1..21 each.
        self.assertGreaterEqual(res["wakeups"], 5)
        self.assertLessEqual(res["wakeups"], 5 * 21)

    def test_netrr_pinned_never_migrates(self):
        out = self.sim("netrr", "-n", "300", "-b", "pinned", "-P", "2,9")
        self.assertIn("client on CPU 2, server on CPU 9", out)
        self.assertEqual(results(out)["migrations"], 0)
        # Two sync wake-ups per transaction, and nothing else wakes.
        self.assertRegex(out, r"\(\d+ ticks, \d+ IPIs, 60[01] wake-ups\)")

    def test_same_command_same_bytes(self):
        for prog, args in CASES.items():
            a = run("--preset", "4n", "--seed", "3", "--", prog, *args)
            b = run("--preset", "4n", "--seed", "3", "--", prog, *args)
            self.assertEqual(a.returncode, 0, a.stderr)
            self.assertEqual(a.stdout, b.stdout, prog)

    def test_clean_under_sanitizers_and_invariants(self):
        for prog, args in CASES.items():
            self.sim(prog, *args, preset="4n", binary=SIM_ASAN)
            for sel in ("stock", "sbm"):
                r = run("--preset", "4n", "sched_features=SCHED_VERIFY", f"sched_select={sel}", "--", prog, *args)
                self.assertEqual(r.returncode, 0, f"{sel} {prog}: {r.stderr}")
                self.assertRegex(r.stdout, r"sched_verify: [1-9]\d* checks, 0 violations")

    def test_simulator_options(self):
        out = self.sim("tps", "-c", "2", "-t", "10", "--working-set", "22M", "--step-ns", "0.5")
        self.assertIn("working set 23068672 bytes", out)
        self.assertIn("steps of 0.500 ns", out)
        # The work costs what --step-ns says: a server's burst is read + work + write.
        slow = results(self.sim("netrr", "-n", "100", "--write-ns", "5000", "--read-ns", "5000"))
        fast = results(self.sim("netrr", "-n", "100"))
        self.assertLess(slow["tps"], fast["tps"])
        for bad in (("tps", "--working-set", "12X"), ("tps", "--step-ns", "-1"), ("jbb", "-w", "0"),
                    ("netrr", "-b", "sideways"), ("netrr", "-b", "pinned", "-P", "0,99"),
                    ("wakelat", "-n", "5", "-r", "1"), ("tps", "-c", "2", "-s", "3")):
            r = run("--preset", "2s16", "--", *bad)
            self.assertEqual(r.returncode, 2, f"{bad}: {r.stdout}{r.stderr}")


class SameResultLinesAsTheGuest(unittest.TestCase):
    def test_result_lines(self):
        for prog, args in CASES.items():
            path = os.path.join(GUEST, prog)
            self.assertTrue(os.access(path, os.X_OK), f"{path} is missing: run `make`")
            g = subprocess.run([path, *args], capture_output=True, text=True, timeout=120)
            self.assertEqual(g.returncode, 0, g.stderr)
            s = run("--preset", "2s16", "--", prog, *args)
            self.assertEqual(s.returncode, 0, s.stderr)
            sim = [r for r in result_shapes(s.stdout)
                   if re.search(r"metric=(\S+)", r[1]).group(1) not in SCHED_METRICS]
            self.assertEqual(sim, result_shapes(g.stdout), prog)
            self.assertTrue(sim, prog)


if __name__ == "__main__":
    unittest.main()
