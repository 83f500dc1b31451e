"""The workload programs (user/hackbench.c, pipebench.c, compute.c, wakelat.c,
tps.c, fairshare.c, jbb.c, netrr.c) as built by `make` for Fulcrum, run on this host's Linux with small
parameters.

Each run must end with status 0 and print RESULT lines in the format of
docs/architecture.md ("Talking to the host") whose fields name the parameters
given, beside the human-readable lines of the tool the program mirrors; the
figures must agree with each other (usecs/op times loops is the total time,
percentiles rise, ...). With --inject-error each program spoils one of its
own results on purpose and must then fail loudly: exit status 1, a FAILED
message, no RESULT line. Bad command lines exit with status 2.

Nothing here asserts speed. The tests build nothing: a missing binary fails
with a hint to run `make` (FULCRUM_BUILD names another build directory).
"""
import os
import re
import subprocess
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("FULCRUM_BUILD", os.path.join(TOP, "build"))
BIN = os.path.join(BUILD, "user", "bin")

NUMBER = r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?"
RESULT_LINE = re.compile(rf"^RESULT name=(\w+)((?: [\w.]+=\S+)*) value=({NUMBER}) unit=(\S+)$")


def parse_results(out):
    """[(name, {field: value}, value, unit)] for every RESULT line; any other line starting
    with RESULT is an error."""
    results = []
    for line in out.splitlines():
        if not line.startswith("RESULT"):
            continue
        m = RESULT_LINE.match(line)
        if not m:
            raise AssertionError(f"malformed RESULT line: {line!r}")
        fields = dict(word.split("=", 1) for word in m.group(2).split())
        results.append((m.group(1), fields, float(m.group(3)), m.group(4)))
    return results


class WorkloadCase(unittest.TestCase):
    prog = None

    def run_prog(self, *args, expect=0, timeout=60):
        """Runs the built program; checks its exit status; returns (stdout, stderr)."""
        path = os.path.join(BIN, self.prog)
        if not os.path.exists(path):
            self.fail(f"{path} is missing: run `make` first (these tests build nothing; "
                      f"FULCRUM_BUILD names the build directory, default build/)")
        p = subprocess.run([path, *args], capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, expect,
                         f"{self.prog} {' '.join(args)}: status {p.returncode}, want {expect}\n"
                         f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}")
        return p.stdout, p.stderr

    def results(self, *args, **kw):
        """Runs with success expected; returns (stdout, {metric: (fields, value, unit)})."""
        out, _ = self.run_prog(*args, **kw)
        by_metric = {}
        for name, fields, value, unit in parse_results(out):
            self.assertEqual(name, self.prog)
            self.assertIn("metric", fields, f"RESULT line without metric=: {fields}")
            self.assertNotIn(fields["metric"], by_metric, f"metric {fields['metric']} twice")
            by_metric[fields["metric"]] = (fields, value, unit)
        self.assertTrue(by_metric, f"{self.prog} printed no RESULT line:\n{out}")
        return out, by_metric

    def assert_fails_loudly(self, *args):
        out, err = self.run_prog(*args, "--inject-error", expect=1)
        self.assertIn(f"{self.prog}: FAILED: ", err)
        self.assertNotIn("RESULT", out)
        return err

    def assert_usage_error(self, *args):
        _, err = self.run_prog(*args, expect=2)
        self.assertIn("--help", err)

    def assert_close(self, a, b, rel=0.02, what=""):
        """a and b agree within rel (for figures derived from one another, rounded)."""
        self.assertLessEqual(abs(a - b), rel * max(abs(a), abs(b)), f"{what}: {a} vs {b}")

    def test_help(self):
        out, _ = self.run_prog("--help")
        self.assertTrue(out.startswith(f"usage: {self.prog}"))


class Hackbench(WorkloadCase):
    prog = "hackbench"

    def check(self, args, groups, fds, loops, datasize, ipc, mode):
        out, res = self.results(*args)
        self.assertEqual(set(res), {"time"})
        fields, value, unit = res["time"]
        self.assertEqual(fields, {"groups": str(groups), "fds": str(fds), "loops": str(loops),
                                  "datasize": str(datasize), "ipc": ipc, "mode": mode,
                                  "metric": "time"})
        self.assertEqual(unit, "s")
        self.assertGreater(value, 0)
        self.assertIn(f"with {groups} groups using {2 * fds} file descriptors each "
                      f"(== {2 * fds * groups} tasks)", out)
        self.assertIn(f"Each sender will pass {loops} messages of {datasize} bytes", out)
        m = re.search(r"^Time: (\d+\.\d{3})$", out, re.M)
        self.assertIsNotNone(m, out)
        self.assertAlmostEqual(float(m.group(1)), value, delta=0.0006)

    def test_sockets_processes(self):
        self.check(["-g", "2", "-l", "5", "-f", "4"], 2, 4, 5, 100, "socket", "process")

    def test_pipes_threads(self):
        self.check(["--pipe", "--threads", "--groups", "2", "--loops", "5", "--fds", "3",
                    "--datasize", "4096"], 2, 3, 5, 4096, "pipe", "thread")

    def test_positional_form(self):
        self.check(["-pipe", "2", "thread", "3"], 2, 20, 3, 100, "pipe", "thread")
        self.check(["1", "process", "2", "-s", "8"], 1, 20, 2, 8, "socket", "process")

    def test_corruption_detected(self):
        for args in (["-g", "1", "-f", "2", "-l", "3"], ["-T", "-p", "-g", "1", "-f", "2", "-l", "3", "-s", "8"]):
            err = self.assert_fails_loudly(*args)
            self.assertRegex(err, r"receiver \d+: .*(corrupted|reordered)")

    def test_bad_arguments(self):
        for args in (["-g", "0"], ["-s", "7"], ["-s", "4097"], ["1", "fork"], ["1", "thread", "2", "3"],
                     ["--no-such-option"]):
            self.assert_usage_error(*args)


class Pipebench(WorkloadCase):
    prog = "pipebench"

    def check(self, args, loops, mode):
        out, res = self.results(*args)
        self.assertEqual(set(res), {"total_time", "usecs_per_op", "ops_per_sec"})
        for fields, value, _ in res.values():
            self.assertEqual((fields["loops"], fields["mode"]), (str(loops), mode))
            self.assertGreater(value, 0)
        total, per_op, ops = (res[k][1] for k in ("total_time", "usecs_per_op", "ops_per_sec"))
        self.assertEqual([res[k][2] for k in ("total_time", "usecs_per_op", "ops_per_sec")],
                         ["s", "usec", "ops/s"])
        self.assert_close(per_op * loops / 1e6, total, what="usecs/op x loops vs total time")
        self.assert_close(ops, loops / total, what="ops/sec vs loops / total time")
        self.assertIn(f"# Executed {loops} pipe operations between two "
                      f"{'threads' if mode == 'thread' else 'processes'}", out)
        self.assertRegex(out, r"(?m)^\s+Total time: \d+\.\d{3} \[sec\]$")
        self.assertRegex(out, r"(?m)^\s+\d+\.\d{6} usecs/op$")
        self.assertRegex(out, r"(?m)^\s+\d+ ops/sec$")

    def test_processes(self):
        self.check(["-l", "2000"], 2000, "process")

    def test_threads(self):
        self.check(["--threaded", "--loops", "2000"], 2000, "thread")

    def test_bad_token_detected(self):
        for args in (["-l", "100"], ["-T", "-l", "100"]):
            self.assertIn("round trip 50", self.assert_fails_loudly(*args))

    def test_bad_arguments(self):
        for args in (["-l", "0"], ["-l", "x"], ["extra"]):
            self.assert_usage_error(*args)


class Compute(WorkloadCase):
    prog = "compute"

    def test_jobs_per_minute(self):
        out, res = self.results("-t", "3", "-j", "2")
        self.assertEqual(set(res), {"jobs_per_min"})
        fields, jpm, unit = res["jobs_per_min"]
        self.assertEqual(fields, {"tasks": "3", "jobs": "2", "metric": "jobs_per_min"})
        self.assertEqual(unit, "jobs/min")
        m = re.search(r"^\s+3\s+(\d+\.\d\d)\s+(\d+\.\d{3})\s+(\d+\.\d{3})\s+\d+\.\d{4}$", out, re.M)
        self.assertIsNotNone(m, f"no table row for 3 tasks:\n{out}")
        self.assertAlmostEqual(float(m.group(1)), jpm, delta=0.06)
        real = float(m.group(2))
        if real >= 0.05:  # the table rounds Real to milliseconds
            self.assert_close(jpm, 3 * 2 * 60 / real, rel=0.05, what="jobs/min vs 60 x jobs / Real")

    def test_same_checksum_every_run(self):
        sums = {re.search(r"job checksum (0x[0-9a-f]{16})", self.run_prog("-t", "1", "-j", "1")[0]).group(1)
                for _ in range(2)}
        self.assertEqual(len(sums), 1, sums)

    def test_wrong_checksum_detected(self):
        err = self.assert_fails_loudly("-t", "2", "-j", "2")
        self.assertRegex(err, r"task 1: job 2 of 2 gave checksum 0x[0-9a-f]{16}, expected 0x[0-9a-f]{16}")
        self.assertIn("1 of 2 tasks failed", err)

    def test_bad_arguments(self):
        for args in (["-t", "0"], ["-j", "-1"], ["-t"]):
            self.assert_usage_error(*args)


class Wakelat(WorkloadCase):
    prog = "wakelat"
    METRICS = ["p50", "p90", "p99", "p99.9", "max"]

    def check(self, args, fields_want, requests=None):
        out, res = self.results(*args)
        self.assertEqual(set(res), set(self.METRICS) | {"rps"})
        for metric, (fields, value, unit) in res.items():
            self.assertEqual(fields, dict(fields_want, metric=metric))
            self.assertEqual(unit, "req/s" if metric == "rps" else "usec")
            self.assertGreaterEqual(value, 0)
        values = [res[m][1] for m in self.METRICS]
        self.assertEqual(values, sorted(values), "percentiles must not fall")
        m = re.search(r"^Requests per second: \d+ \((\d+) requests in (\d+\.\d{3}) s\)$", out, re.M)
        self.assertIsNotNone(m, out)
        done = int(m.group(1))
        if requests is not None:
            self.assertEqual(done, requests)
        self.assertGreater(done, 0)
        self.assertRegex(out, rf"Wakeup Latencies percentiles \(usec\) runtime \d+\.\d{{3}} \(s\) "
                              rf"\({done} total samples\)")
        for label in ("50.0th", "90.0th", "99.0th", "99.9th", "max"):
            self.assertRegex(out, rf"(?m)^\t  {re.escape(label)}: \d+\.\d$")
        if float(m.group(2)) >= 0.05:
            self.assert_close(res["rps"][1], done / float(m.group(2)), rel=0.05, what="rps")

    def test_futex_requests(self):
        self.check(["-m", "2", "-t", "3", "-n", "200"],
                   {"msg_threads": "2", "workers": "3", "requests": "200", "work": "1000", "wake": "futex"},
                   requests=2 * 3 * 200)

    def test_pipe_runtime(self):
        self.check(["--pipe", "-m", "1", "-t", "2", "-r", "0.2", "-w", "10"],
                   {"msg_threads": "1", "workers": "2", "runtime": "0.2", "work": "10", "wake": "pipe"})

    def test_negative_latency_detected(self):
        self.assertIn("wake-up latencies were negative", self.assert_fails_loudly("-n", "20"))

    def test_bad_arguments(self):
        for args in (["-m", "0"], ["-r", "1", "-n", "5"], ["-r", "-1"], ["-t", "x"]):
            self.assert_usage_error(*args)


class Tps(WorkloadCase):
    prog = "tps"

    def check(self, args, fields_want, clients, total=None):
        out, res = self.results(*args)
        self.assertEqual(set(res), {"tps", "latency_avg"})
        for metric, (fields, value, unit) in res.items():
            self.assertEqual(fields, dict(fields_want, metric=metric))
            self.assertGreater(value, 0)
        self.assertEqual((res["tps"][2], res["latency_avg"][2]), ("tx/s", "ms"))
        # pgbench's latency average: clients / tps.
        self.assert_close(res["latency_avg"][1], clients / res["tps"][1] * 1000, what="latency vs tps")
        m = re.search(r"^number of transactions actually processed: (\d+)(?:/(\d+))?$", out, re.M)
        self.assertIsNotNone(m, out)
        if total is not None:
            self.assertEqual((int(m.group(1)), int(m.group(2))), (total, total))
        self.assertRegex(out, r"(?m)^tps = \d+\.\d{6} \(without initial connection time\)$")
        self.assertIn(f"number of clients: {clients}\n", out)

    def test_one_server_per_client(self):
        self.check(["-c", "3", "-t", "200"],
                   {"clients": "3", "servers": "3", "work": "2000", "transactions": "200"}, 3, total=600)

    def test_shared_servers_for_a_time(self):
        self.check(["-c", "5", "-s", "2", "-T", "0.2", "-w", "100"],
                   {"clients": "5", "servers": "2", "work": "100", "duration": "0.2"}, 5)

    def test_wrong_answer_detected(self):
        err = self.assert_fails_loudly("-c", "2", "-t", "10")
        self.assertRegex(err, r"client 0: transaction 2: result 0x[0-9a-f]{16}, expected 0x[0-9a-f]{16}")

    def test_bad_arguments(self):
        for args in (["-c", "0"], ["-c", "2", "-s", "3"], ["-t", "5", "-T", "1"], ["-c", "401"]):
            self.assert_usage_error(*args)


class Fairshare(WorkloadCase):
    prog = "fairshare"

    def test_shares(self):
        out, res = self.results("-t", "3", "-c", "0", "-s", "0.2", "-n", "0,5")
        self.assertEqual(set(res), {"worst_dev", "jain", "cpu_used", "task_switches", "task_migrations"})
        for metric, (fields, value, unit) in res.items():
            self.assertEqual(fields, {"tasks": "3", "cpus": "1", "metric": metric})
            self.assertEqual(unit, {"worst_dev": "%", "jain": "index", "cpu_used": "%", "task_switches": "switches",
                                   "task_migrations": "migrations"}[metric])
        self.assertGreaterEqual(res["worst_dev"][1], 0)
        self.assertTrue(0 < res["jain"][1] <= 1.0000001, res["jain"])
        self.assertTrue(0 < res["cpu_used"][1] <= 110, res["cpu_used"])
        rows = re.findall(r"^\s+(\d+)\s+(-?\d+)\s+(\d+\.\d{3})\s+(\d+\.\d{3})\s+(\d+\.\d{3})$", out, re.M)
        self.assertEqual([(r[0], r[1]) for r in rows], [("0", "0"), ("1", "5"), ("2", "0")])
        cpu = [float(r[2]) for r in rows]
        ideal = [float(r[3]) for r in rows]
        # The ideal shares split what the tasks got together by nice weight (1024, 335, 1024).
        self.assert_close(sum(ideal), sum(cpu), rel=0.01, what="ideal vs actual total")
        self.assert_close(ideal[1] / ideal[0], 335 / 1024, rel=0.01, what="nice 5 : nice 0")
        worst = max(abs(c / i - 1) for c, i in zip(cpu, ideal)) * 100
        self.assertAlmostEqual(worst, res["worst_dev"][1], delta=0.2)

    def test_one_cpu_cap(self):
        # 2 tasks on 2 CPUs: each ideal is what they got together, halved, but never above the window.
        out, _ = self.results("-t", "2", "-s", "0.1", "-n", "0,5")
        ideal = [float(r) for r in re.findall(r"^\s+\d+\s+-?\d+\s+\d+\.\d{3}\s+(\d+\.\d{3})", out, re.M)]
        self.assertEqual(len(ideal), 2)
        self.assertTrue(all(i <= 100.001 for i in ideal), ideal)

    def test_accounting_error_detected(self):
        err = self.assert_fails_loudly("-t", "2", "-s", "0.1")
        self.assertRegex(err, r"task 0 used \d+\.\d{3} ms of CPU in a 100\.000 ms window")

    def test_bad_arguments(self):
        for args in (["-t", "0"], ["-c", "9999"], ["-c", "3-1"], ["-c", "x"], ["-n", "20"],
                     ["-s", "0"], ["extra"]):
            self.assert_usage_error(*args)


class Jbb(WorkloadCase):
    prog = "jbb"

    def test_throughput(self):
        out, res = self.results("-w", "3", "-n", "40", "-k", "2000", "-a", "500")
        self.assertEqual(set(res), {"bops", "wakeups"})
        fields, bops, unit = res["bops"]
        self.assertEqual(fields, {"warehouses": "3", "transactions": "40", "metric": "bops"})
        self.assertEqual(unit, "ops/s")
        self.assertGreater(bops, 0)
        m = re.search(r"^\s+3\s+(\d+\.\d\d)\s+(\d+\.\d{3})\s+(\d+)$", out, re.M)
        self.assertIsNotNone(m, f"no table row for 3 warehouses:\n{out}")
        self.assert_close(float(m.group(1)), bops, rel=0.001, what="table vs RESULT")
        wakeups = res["wakeups"][1]
        self.assertEqual(int(m.group(3)), wakeups)
        # At least the closing wake-up per warehouse, at most one per post plus that one.
        self.assertGreaterEqual(wakeups, 3)
        self.assertLessEqual(wakeups, 3 * 41)
        if float(m.group(2)) >= 0.05:
            self.assert_close(bops, 3 * 40 / float(m.group(2)), rel=0.05, what="ops/s vs 120 / Real")

    def test_one_warehouse(self):
        _, res = self.results("-w", "1", "-n", "5")
        self.assertEqual(res["bops"][0]["warehouses"], "1")

    def test_wrong_audit_detected(self):
        err = self.assert_fails_loudly("-w", "2", "-n", "10", "-k", "100", "-a", "100")
        self.assertIn("partner 0: audit of transaction 3 is wrong", err)
        self.assertIn("1 of 2 warehouses went wrong", err)

    def test_bad_arguments(self):
        for args in (["-w", "0"], ["-w", "257"], ["-n", "x"], ["-k", "0"], ["extra"]):
            self.assert_usage_error(*args)


class Netrr(WorkloadCase):
    prog = "netrr"

    def check(self, args, binding):
        out, res = self.results(*args)
        self.assertEqual(set(res), {"tps"})
        fields, tps, unit = res["tps"]
        self.assertEqual(fields, {"binding": binding, "transactions": "300", "size": fields["size"],
                                  "metric": "tps"})
        self.assertEqual(unit, "trans/s")
        m = re.search(rf"^{binding}\s+(\d+\.\d\d)\s+(\d+\.\d{{3}})\s+(\d+\.\d{{3}})$", out, re.M)
        self.assertIsNotNone(m, out)
        self.assert_close(float(m.group(1)), tps, rel=0.001, what="table vs RESULT")
        if float(m.group(2)) >= 0.05:
            self.assert_close(tps, 300 / float(m.group(2)), rel=0.05, what="trans/s vs 300 / Real")
        return out, fields

    def test_unpinned(self):
        out, fields = self.check(["-n", "300"], "unpinned")
        self.assertEqual(fields["size"], "1")
        self.assertIn("unpinned", out.splitlines()[0])

    def test_pinned_large(self):
        cpus = sorted(os.sched_getaffinity(0))
        a, b = cpus[0], cpus[1 % len(cpus)]
        out, fields = self.check(["-n", "300", "-s", "3000", "-b", "pinned", "-P", f"{a},{b}"], "pinned")
        self.assertEqual(fields["size"], "3000")
        self.assertIn(f"client on CPU {a}, server on CPU {b}", out)

    def test_wrong_answer_detected(self):
        self.assertIn("client: transaction 5: wrong answer", self.assert_fails_loudly("-n", "20"))

    def test_bad_arguments(self):
        for args in (["-b", "tied"], ["-P", "1"], ["-P", "a,1"], ["-s", "0"], ["-n", "0"], ["extra"]):
            self.assert_usage_error(*args)


del WorkloadCase  # the base class holds no tests of its own


if __name__ == "__main__":
    unittest.main()
