"""tools/lib/bench_clients.py: the real clients' output, recorded from the programs
themselves (tests/tools/data/clients/), read as figures."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "lib"))
import bench_clients  # noqa: E402
import bench_parse  # noqa: E402

DATA = os.path.join(HERE, "data", "clients")


def read(name):
    with open(os.path.join(DATA, name), errors="replace") as f:
        return f.read()


def figures(results):
    return {r.fields["metric"]: r.value for r in results}


class SchbenchTest(unittest.TestCase):
    def test_host_output(self):  # schbench -m 1 -t 2 -r 2 on the host's Linux
        f = figures(bench_clients.schbench(read("schbench-host.txt").splitlines()))
        self.assertEqual(f, {"wakeup_p50": 30, "wakeup_p99": 4232, "wakeup_max": 5170,
                             "request_p50": 4280, "request_p99": 11344, "request_max": 25309,
                             "rps": 382.5})

    def test_fulcrum_run_log(self):  # tools/bench --workload schbench on Fulcrum's 2s
        run = bench_parse.parse_run(read("schbench-fulcrum.log"))
        f = figures(run.results)
        self.assertEqual((f["wakeup_p99"], f["rps"]), (15280, 27.5))

    def test_no_block_is_an_error(self):
        with self.assertRaises(bench_parse.LogError):
            bench_clients.schbench(["average rps: 3.00"])


class RtHackbenchTest(unittest.TestCase):
    def test_fulcrum_run_log(self):
        run = bench_parse.parse_run(read("rt-hackbench-fulcrum.log"))
        self.assertEqual(figures(run.results), {"time": 1.475})

    def test_no_time_is_an_error(self):
        with self.assertRaises(bench_parse.LogError):
            bench_clients.rt_hackbench(["Running in process mode with 2 groups"])


class CyclictestTest(unittest.TestCase):
    def test_last_report_per_thread(self):
        lines = ["T: 0 ( 90) P:80 I:1000 C:     10 Min:      5 Act:    8 Avg:    9 Max:     40",
                 "T: 0 ( 90) P:80 I:1000 C:   1000 Min:      4 Act:    8 Avg:   10 Max:     50",
                 "T: 1 ( 91) P:79 I:1500 C:    667 Min:      6 Act:    7 Avg:   20 Max:    300"]
        rs = bench_clients.cyclictest(lines)
        self.assertEqual(figures(rs), {"avg": 15, "max": 300, "min": 4})
        self.assertEqual(rs[0].fields["threads"], "2")

    def test_fulcrum_run_log(self):  # -t 4 -i 1000 -l 1000 -p 80 -m -q, icount, 2s
        run = bench_parse.parse_run(read("cyclictest-fulcrum-icount.log"))
        self.assertEqual(figures(run.results), {"avg": 16, "max": 63, "min": 11})
        self.assertEqual(run.results[0].fields["prio"], "80")

    def test_linux_run_log(self):  # the same command on Linux 6.1 (tools/bench --linux 6.1)
        run = bench_parse.parse_run(read("cyclictest-linux61-icount.log"), kind="linux", schedstat=False)
        self.assertEqual(figures(run.results), {"avg": 31.5, "max": 451, "min": 23})

    def test_no_report_is_an_error(self):
        with self.assertRaises(bench_parse.LogError):
            bench_clients.cyclictest(["unable to get scheduler parameters"])


if __name__ == "__main__":
    unittest.main()
