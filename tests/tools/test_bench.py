"""tools/bench's parts: reading serial logs (recorded ones in data/bench/, whole, cut
short and garbled), the table arithmetic, sweeps and command lines, and the Linux
guest's pieces that need no network. Nothing here boots QEMU or asserts a speed."""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools", "lib"))
import bench_linux  # noqa: E402
import bench_parse as bp  # noqa: E402
import bench_plot  # noqa: E402
import bench_run  # noqa: E402
import bench_stats as st  # noqa: E402
import bench_table as tb  # noqa: E402
import bench_workloads as wl  # noqa: E402
import qemu_machine as qm  # noqa: E402

DATA = os.path.join(TOP, "tests", "tools", "data", "bench")


def log(name):
    with open(os.path.join(DATA, name), "rb") as f:
        return f.read().decode("utf-8", "replace")


class ParseRecordedLogs(unittest.TestCase):
    """The figures below were read off the files by hand or summed with awk, not by the parser."""

    def test_fulcrum_hackbench(self):
        r = bp.parse_run(log("fulcrum-hackbench-2s.log"))
        self.assertEqual((r.program, r.status), ("/bin/hackbench", 0))
        self.assertEqual(len(r.results), 1)
        res = r.results[0]
        self.assertEqual((res.name, res.value, res.unit, res.line), ("hackbench", 0.663497, "s", 41))
        self.assertEqual(res.fields, {"groups": "1", "fds": "20", "loops": "20", "datasize": "100",
                                      "ipc": "socket", "mode": "process", "metric": "time"})
        self.assertEqual(r.time_s, 0.663)
        self.assertEqual(wl.figure_key(res), "hackbench time")

    def test_fulcrum_schedstat_sums(self):
        s = bp.parse_run(log("fulcrum-hackbench-2s.log")).sched
        self.assertEqual(s.cpus, 8)
        self.assertEqual(s.wasted_ns, 109817617)  # the eight `wasted cpuN` lines
        self.assertEqual(s.run_ns, 5659540557)  # rq_cpu_time of the eight cpu lines
        self.assertEqual(s.delay_ns, 3074967334)  # run_delay
        self.assertEqual(s.pulled, 85)  # lb_gained of each idle type + alb_pushed, 24 domain lines
        self.assertAlmostEqual(s.queued_share, 3074967334 / (5659540557 + 3074967334))
        # 8 stoppers, kinit, init: the workload's tasks were reaped before the report
        self.assertEqual([t[1] for t in s.tasks][-2:], ["kinit", "init"])
        self.assertEqual(len(s.tasks), 10)
        # Recorded before the kernel kept a migrations total: none, and no error.
        self.assertIsNone(s.migrations)

    def test_fulcrum_task_lines_with_class_columns(self):
        # The same report as the kernel prints it since the real-time class: `class rtprio` at
        # the end of the header and of every task line. The tasks read the same.
        lines, in_tasks = [], False
        for line in log("fulcrum-hackbench-2s.log").splitlines():
            if line.rstrip().endswith("voluntary involuntary"):
                in_tasks = True
                line += " class  rtprio"
            elif in_tasks and line.split("]")[-1].split()[:1] and line.split("]")[-1].split()[0].isdigit():
                line += " fair       0" if "migration/" not in line else " stop       0"
            else:
                in_tasks = False
            lines.append(line)
        old = bp.parse_run(log("fulcrum-hackbench-2s.log")).sched
        new = bp.parse_run("\n".join(lines) + "\n").sched
        self.assertEqual(len(new.tasks), 10)
        self.assertEqual(new.tasks, old.tasks)

    def test_fulcrum_migrations_total(self):
        r = bp.parse_run(log("fulcrum-hackbench-migrations-2s.log"))
        self.assertEqual(r.time_s, 0.680)
        s = r.sched
        self.assertEqual(s.cpus, 8)
        self.assertEqual(s.migrations, 983)  # the eight `migrations cpuN` lines
        self.assertEqual(s.wasted_ns, 117120363)
        self.assertEqual(s.run_ns, 6479171270)
        self.assertEqual(s.delay_ns, 9929762970)
        self.assertEqual(s.pulled, 77)
        # The task lines are still read; the survivors never moved.
        self.assertEqual(len(s.tasks), 10)
        self.assertEqual(sum(t[2] for t in s.tasks), 0)

    def test_migrations_after_minus_before(self):
        text = log("fulcrum-hackbench-migrations-2s.log")
        lines = bp.clean_lines(text)
        start = lines.index("version 15")
        after = bp.parse_schedstat(lines, start)
        before = bp.parse_schedstat([ln.replace("migrations cpu3 85", "migrations cpu3 5") for ln in lines],
                                    start)
        self.assertEqual(after.minus(before).migrations, 80)
        old = bp.parse_run(log("fulcrum-hackbench-2s.log")).sched
        self.assertIsNone(after.minus(old).migrations)  # a total only one report has
        self.assertIsNone(old.minus(after).migrations)

    def test_fulcrum_wakelat_has_six_figures(self):
        r = bp.parse_run(log("fulcrum-wakelat-2s.log"))
        keys = [wl.figure_key(x) for x in r.results]
        self.assertEqual(keys, ["wakelat p50", "wakelat p90", "wakelat p99", "wakelat p99.9", "wakelat max",
                                "wakelat rps"])
        self.assertEqual((r.results[2].value, r.results[2].unit), (12222.5, "usec"))
        self.assertEqual((r.results[5].value, r.results[5].unit), (1652.2, "req/s"))

    def test_linux_schedstat_counts_the_workload_only(self):
        r = bp.parse_run(log("linux-pipebench-2s.log"), kind="linux", schedstat=False)
        self.assertEqual([x.fields["metric"] for x in r.results], ["total_time", "usecs_per_op", "ops_per_sec"])
        s = r.sched
        self.assertEqual(s.run_ns, 19215573098 - 15990746064)  # after minus before
        self.assertEqual(s.delay_ns, 411105603 - 308669414)
        self.assertEqual(s.pulled, 22 - 20)
        self.assertIsNone(s.wasted_ns)  # Linux has no such line
        self.assertIsNone(s.migrations)  # nor a task list

    def test_linux_612_schedstat_version_16(self):
        # Recorded from Debian's 6.12 guest (lean command line, icount): /proc/schedstat
        # says version 16, which has the same fields as 15 in another order of idle types.
        text = log("linux612-pipebench-2s.log")
        r = bp.parse_run(text, kind="linux", schedstat=False)
        self.assertIn("Linux 6.12.95+deb12-amd64, 8 CPUs online", text)
        self.assertEqual([x.fields["metric"] for x in r.results], ["total_time", "usecs_per_op", "ops_per_sec"])
        self.assertEqual(r.results[1].value, 131.278)
        s = r.sched
        self.assertEqual(s.cpus, 8)
        self.assertEqual(s.run_ns, 14565337300 - 14491419182)  # after minus before
        self.assertEqual(s.delay_ns, 7253670022 - 7253323934)
        self.assertEqual(s.pulled, 0)
        self.assertAlmostEqual(s.queued_share, 346088 / (73918118 + 346088))

    def test_unknown_schedstat_version_is_an_error(self):
        text = log("linux612-pipebench-2s.log").replace("version 16", "version 17")
        with self.assertRaises(bp.LogError) as cm:
            bp.parse_run(text, kind="linux", schedstat=False)
        self.assertIn("/proc/schedstat version 17 is not one this harness reads", str(cm.exception))

    SYSCOST = ["syscost getpid", "syscost fork_exit_wait", "syscost pipe_round_trip", "syscost socketpair_round_trip"]

    def syscost_figures(self, r):
        """The figures tools/bench tabulates by default for syscost: {label: (value, unit)}."""
        figures = wl.WORKLOADS["syscost"].figures
        return {wl.figure_key(x): (x.value, x.unit) for x in r.results if wl.wanted(wl.figure_key(x), figures)}

    def test_fulcrum_syscost(self):
        r = bp.parse_run(log("fulcrum-syscost-2s.log"))
        self.assertEqual((r.program, r.status), ("/bin/syscost", 0))
        self.assertEqual([x.line for x in r.results], [39, 40, 41, 42])
        self.assertEqual([x.fields["loops"] for x in r.results], ["20000", "200", "2000", "2000"])
        self.assertEqual(self.syscost_figures(r), dict(zip(self.SYSCOST, [(1381, "ns"), (6807534, "ns"),
                                                                          (1680155, "ns"), (997017, "ns")])))
        self.assertEqual(r.sched.cpus, 8)

    def test_linux_syscost(self):
        r = bp.parse_run(log("linux-syscost-2s.log"), kind="linux", schedstat=False)
        self.assertEqual((r.program, r.status), ("/bin/syscost", 0))
        self.assertEqual(self.syscost_figures(r), dict(zip(self.SYSCOST, [(2104, "ns"), (3720161, "ns"),
                                                                          (1472331, "ns"), (2514797, "ns")])))
        self.assertEqual(r.sched.run_ns, 27021683127 - 12789419520)  # the cpu lines' rq_cpu_time, after - before


class BrokenLogs(unittest.TestCase):
    """Cut-short, garbled and failed runs give an error that says what is wrong."""

    def assertLogError(self, name, *texts, **kw):
        with self.assertRaises(bp.LogError) as cm:
            bp.parse_run(log(name) if name.endswith(".log") else name, **kw)
        for t in texts:
            self.assertIn(t, str(cm.exception))
        return str(cm.exception)

    def test_empty(self):
        self.assertLogError("", "empty")
        self.assertLogError(" \r\n", "empty")

    def test_cut_before_the_workload_ended(self):
        msg = self.assertLogError("truncated-before-exit.log", "ends before the workload finished")
        self.assertIn("Each sender will pass 20 messages", msg)  # the last line is quoted

    def test_cut_in_the_schedstat_report(self):
        self.assertLogError("truncated-in-schedstat.log", "cpu lines for 8 CPUs but wasted lines for 2")

    def test_cut_in_the_migrations_lines(self):
        text = log("fulcrum-hackbench-migrations-2s.log")
        cut = text[:text.index("migrations cpu3")]
        self.assertLogError(cut, "cpu lines for 8 CPUs but migrations lines for 3")

    def test_garbled_migrations_line(self):
        text = log("fulcrum-hackbench-migrations-2s.log")
        for bad in ("migrations cpu5 12\ufffd6", "migrations cpu5", "migrations cpuX 126",
                    "migrations cpu5 126 7"):
            with self.subTest(bad=bad):
                self.assertLogError(text.replace("migrations cpu5 126", bad), "line 93",
                                    "schedstat migrations line should be 'migrations cpuN COUNT'")

    def test_cut_in_the_middle_of_a_line(self):
        self.assertLogError("truncated-mid-line.log", "line 60", "should have 36 counters")

    def test_garbled_value(self):
        self.assertLogError("garbled-result.log", "line 41", "malformed RESULT line", "is not a number")

    def test_kernel_line_inside_a_result_line(self):
        self.assertLogError("garbled-interleaved.log", "line 41", "malformed RESULT line", "'lo[' is not key=value")

    def test_line_noise(self):
        self.assertLogError("line-noise.log", "before Fulcrum finished booting")

    def test_kernel_crash(self):
        self.assertLogError("fulcrum-oops.log", "the kernel crashed", "BUG: unable to handle")

    def test_failed_workload_names_the_first_failure(self):
        self.assertLogError("fulcrum-hackbench-failed.log", "/bin/hackbench exited with status 1",
                            "FAILED: group 0 receiver 19: message 4 of sender 0",
                            "26 of 40 tasks failed")

    def test_linux_cut_short(self):
        self.assertLogError("linux-truncated.log", "ends before the workload finished", kind="linux",
                            schedstat=False)

    def test_missing_schedstat_report(self):
        text = log("fulcrum-hackbench-2s.log").replace("version 15", "versio 15")
        self.assertLogError(text, "no schedstat report")
        self.assertIsNone(bp.parse_run(log("linux-pipebench-2s.log").replace("version 15", "x"), kind="linux",
                                       schedstat=False).sched)

    def test_missing_halted_line(self):
        text = log("fulcrum-hackbench-2s.log").replace("fulcrum: halted", "fulcrum: stopped")
        self.assertLogError(text, "before Fulcrum halted")

    def test_killed_and_not_found(self):
        base = log("fulcrum-hackbench-2s.log")
        text = base.replace("init: /bin/hackbench exited with status 0",
                            "init: /bin/hackbench killed by signal 11 (SIGSEGV)")
        self.assertLogError(text, "killed by signal 11 (SIGSEGV)")
        text = base.replace("init: /bin/hackbench exited with status 0",
                            "init: /bin/hackbench: ENOENT (No such file or directory)")
        self.assertLogError(text, "could not be run: ENOENT")

    def test_no_result_lines(self):
        text = log("fulcrum-hackbench-2s.log").replace("RESULT name", "RESULTS: name").replace("Time:", "T:")
        self.assertLogError(text, "printed no RESULT lines")

    def test_time_line_alone_is_a_figure(self):
        text = log("fulcrum-hackbench-2s.log").replace("RESULT name", "result name")
        r = bp.parse_run(text)
        self.assertEqual((r.results, r.time_s), ([], 0.663))


class ResultLines(unittest.TestCase):
    def test_good_line(self):
        r = bp.parse_result("RESULT name=x a=1 b=two value=-1.5e3 unit=usecs/op", 7)
        self.assertEqual((r.name, r.fields, r.value, r.unit, r.line), ("x", {"a": "1", "b": "two"}, -1500.0,
                                                                       "usecs/op", 7))

    def test_bad_lines(self):
        for line, why in [("RESULT name=x value=1", "value=... unit=... last"),
                          ("RESULT value=1 name=x unit=s", "name=... first"),
                          ("RESULT name=x a=1 a=2 value=1 unit=s", "twice"),
                          ("RESULT name=x value=inf unit=s", "not finite"),
                          ("RESULT name=x value=nan unit=s", "not finite"),
                          ("RESULT name=x a= value=1 unit=s", "'a=' is not key=value"),
                          ("RESULT name=x value=1 unit=s extra", "not key=value")]:
            with self.assertRaises(bp.LogError) as cm:
                bp.parse_result(line, 3)
            self.assertIn(why, str(cm.exception), line)
            self.assertIn("line 3", str(cm.exception))

    def test_timestamps_escapes_and_carriage_returns_go(self):
        text = "\x1b[2J\x1b[0mSeaBIOS\r\n[   12.345678] fulcrum: ready in 1 s\r\nRESULT a\r\n"
        self.assertEqual(bp.clean_lines(text), ["SeaBIOS", "fulcrum: ready in 1 s", "RESULT a", ""])

    def test_figure_key_without_metric(self):
        r = bp.parse_result("RESULT name=x tasks=4 mode=thread value=1 unit=s", 1)
        self.assertEqual(wl.figure_key(r), "x mode=thread")


def runs_of(values, systems=("a", "b"), points=((("n", "1"),), (("n", "2"),))):
    """tb.Run records from {(point index, system): [value per run, None = failed]}."""
    out = []
    for (pi, s), vals in values.items():
        for i, v in enumerate(vals, 1):
            r = tb.Run("w", points[pi], s, i, log=f"logs/{s}-{i}.log")
            if v is None:
                r.error = "timed out"
            else:
                r.figures["w time"] = [v, "s"]
                r.sched = {"wasted_ms": v * 10, "migrations": 3, "pulled": 1, "queued": 0.25}
            out.append(r)
    return out


class Tables(unittest.TestCase):
    POINTS = [(("n", "1"),), (("n", "2"),)]

    def table(self):
        runs = runs_of({(0, "a"): [1.0, 2.0, 3.0], (0, "b"): [1.0, 1.0, 1.0],
                        (1, "a"): [4.0, None, 6.0], (1, "b"): [10.0, 20.0, 30.0]})
        return tb.build_table(runs, "w", "w time", "s", tb.figure_getter("w time"), ["a", "b"], self.POINTS, 3)

    def test_cells_average_spread_and_ratio(self):
        t = self.table()
        vals, avg, spread = t.cell("1", "a")
        self.assertEqual((vals, avg), ([1.0, 2.0, 3.0], 2.0))
        self.assertAlmostEqual(spread, 0.5)  # sd 1 over average 2
        self.assertAlmostEqual(t.ratio("1", "b", "a"), 0.5)
        vals, avg, _ = t.cell("2", "a")
        self.assertEqual((vals, avg), ([4.0, None, 6.0], 5.0))  # the failed run counts in no average
        self.assertAlmostEqual(t.ratio("2", "b", "a"), 4.0)
        self.assertTrue(t.lower_better)

    def test_text_layout(self):
        lines = tb.format_table(self.table())
        self.assertEqual(lines[0], "w time (s), lower is better; 3 runs each")
        self.assertEqual(lines[2].split(), ["n", "run1", "run2", "run3", "avg", "sd%", "run1", "run2", "run3", "avg",
                                            "sd%", "b/a"])
        self.assertEqual(lines[3].split(), ["1", "1.000", "2.000", "3.000", "2.000", "50.0%", "1.000", "1.000",
                                            "1.000", "1.000", "0.0%", "0.500"])
        self.assertEqual(lines[4].split(), ["2", "4.000", "-", "6.000", "5.000", "28.3%", "10.00", "20.00", "30.00",
                                            "20.00", "50.0%", "4.000"])
        widths = {len(ln) for ln in lines[2:]}
        self.assertEqual(len(widths), 1, lines)  # the columns line up

    def test_ratio_to_another_base_and_averages_only(self):
        lines = tb.format_table(self.table(), runs_for=["b"], ratio_base="b")
        self.assertEqual(lines[2].split(), ["n", "avg", "run1", "run2", "run3", "avg", "sd%", "a/b"])
        self.assertEqual(lines[3].split()[-1], "2.000")
        self.assertEqual(lines[4].split()[-1], "0.250")

    def test_sched_tables(self):
        runs = runs_of({(0, "a"): [1.0, 2.0], (0, "b"): [3.0, None]}, points=((("n", "1"),),))
        t = tb.build_table(runs, "w", "wasted", "ms", tb.sched_getter("wasted_ms"), ["a", "b"], [(("n", "1"),)], 2)
        self.assertEqual(t.cell("1", "a")[1], 15.0)
        self.assertEqual(t.cell("1", "b")[0], [30.0, None])
        q = tb.build_table(runs, "w", "queued", "fraction", tb.sched_getter("queued"), ["a"], [(("n", "1"),)], 2,
                           percent=True)
        self.assertIn("25.0%", tb.format_table(q, ratios=False)[3])
        m = tb.build_table(runs, "w", "migrations", "count", tb.sched_getter("migrations"), ["a"],
                           [(("n", "1"),)], 2)
        self.assertEqual(tb.format_table(m, ratios=False)[3].split(), ["1", "3", "3", "3.0", "0.0%"])
        for r in runs:  # a log from before the kernel's total: no figure, no error
            r.sched["migrations"] = None
        m = tb.build_table(runs, "w", "migrations", "count", tb.sched_getter("migrations"), ["a"],
                           [(("n", "1"),)], 2)
        self.assertFalse(tb.has_values(m))
        self.assertEqual(tb.format_table(m, ratios=False)[3].split(), ["1"] + ["-"] * 4)

    def test_missing_everything_shows_dashes(self):
        t = tb.build_table([], "w", "w time", "s", tb.figure_getter("w time"), ["a", "b"], self.POINTS, 2)
        self.assertFalse(tb.has_values(t))
        self.assertEqual(tb.format_table(t)[3].split(), ["1"] + ["-"] * 9)

    def test_csv_and_json(self):
        runs = runs_of({(0, "a"): [1.0, None]}, points=((("n", "1"),),))
        rows = tb.csv_text(runs).splitlines()
        self.assertEqual(rows[0].split(","), ["experiment", "workload", "parameters", "system", "kernel", "run",
                                              "figure", "value", "unit", "error", "seconds", "log"])
        self.assertEqual(rows[1], "0,w,n=1,a,fulcrum,1,w time,1.0,s,,,logs/a-1.log")
        self.assertEqual(len(rows), 1 + 5 + 1)  # the figure and four sched figures; the failed run
        self.assertEqual(rows[-1], "0,w,n=1,a,fulcrum,2,,,,timed out,,logs/a-2.log")
        t = self.table()
        j = tb.table_json(t)
        self.assertEqual(j["rows"][1]["systems"]["a"]["runs"], [4.0, None, 6.0])
        self.assertEqual(j["rows"][1]["ratio_to_a"]["b"], 4.0)
        self.assertEqual(tb.run_json(runs[0])["point"], {"n": "1"})


class Stats(unittest.TestCase):
    def test_mean_stdev_ratio(self):
        self.assertIsNone(st.mean([None, None]))
        self.assertIsNone(st.stdev([1.0]))
        self.assertAlmostEqual(st.stdev([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]), 2.138089935)
        self.assertIsNone(st.ratio(1.0, 0.0))
        self.assertIsNone(st.rel_spread([0.0, 0.0]))

    def test_which_way_is_better(self):
        for unit in ("s", "usec", "ms", "usecs/op", "ns"):
            self.assertTrue(st.lower_is_better(unit), unit)
        for unit in ("ops/s", "jobs/min", "tx/s", "req/s", "tps"):
            self.assertFalse(st.lower_is_better(unit), unit)

    def test_workload_says_which_way(self):
        # fairshare's worst deviation is a % where less is better; its CPU use is not.
        self.assertTrue(wl.lower_is_better("fairshare worst_dev"))
        self.assertIsNone(wl.lower_is_better("fairshare cpu_used"))
        self.assertIsNone(wl.lower_is_better("hackbench time"))
        for lower, want in ((True, True), (None, False)):  # None: the unit decides, and % is a rate
            t = tb.build_table([], "fairshare", "fairshare worst_dev", "%",
                               tb.figure_getter("fairshare worst_dev"), ["a"], [()], 1, lower_better=lower)
            self.assertEqual(t.lower_better, want)

    def test_formatting(self):
        self.assertEqual(st.fmt(0.663497), "0.6635")
        self.assertEqual(st.fmt(12222.5), "12222")
        self.assertEqual(st.fmt(3.0), "3.000")
        self.assertEqual(st.fmt(None, 4), "   -")
        self.assertEqual(st.fmt_ratio(0.9271), "0.927")
        self.assertEqual(st.fmt_pct(0.352), "35.2%")


class SweepsAndCommandLines(unittest.TestCase):
    def test_sweeps(self):
        self.assertEqual(wl.parse_sweep("groups=1,2,4"), wl.Sweep("groups", ["1", "2", "4"]))
        for bad in ("groups", "groups=", "groups=1,,2", "groups=1,1", "1x=2", "g=1 2"):
            with self.assertRaises(ValueError, msg=bad):
                wl.parse_sweep(bad)
        pts = wl.points([wl.Sweep("a", ["1", "2"]), wl.Sweep("b", ["x", "y"])])
        self.assertEqual(pts, [(("a", "1"), ("b", "x")), (("a", "1"), ("b", "y")), (("a", "2"), ("b", "x")),
                               (("a", "2"), ("b", "y"))])
        self.assertEqual(wl.points([]), [()])
        with self.assertRaises(ValueError):
            wl.points([wl.Sweep("a", ["1"]), wl.Sweep("a", ["2"])])

    def test_arguments(self):
        self.assertEqual(wl.command_args("hackbench", "-l 20", (("groups", "4"),)), "-l 20 -g 4")
        self.assertEqual(wl.command_args("hackbench", "-l {loops} -p", (("loops", "9"), ("groups", "2"))),
                         "-l 9 -p -g 2")
        self.assertEqual(wl.command_args("mine", "--n={n}", (("n", "3"),)), "--n=3")
        with self.assertRaises(ValueError) as cm:
            wl.command_args("hackbench", "", (("colour", "red"),))
        self.assertIn("groups", str(cm.exception))  # lists the flags it knows
        with self.assertRaises(ValueError):
            wl.command_args("hackbench", "-l {loops}", ())
        # syscost takes one -n: its default arguments are empty, so a swept scale is the only one
        self.assertEqual(wl.command_args("syscost", wl.WORKLOADS["syscost"].args, ()), "")
        self.assertEqual(wl.command_args("syscost", wl.WORKLOADS["syscost"].args, (("scale", "3"),)), "-n 3")

    def test_variants(self):
        self.assertEqual(wl.parse_variant("sbm=sched_select=sbm"), ("sbm", "sched_select=sbm"))
        self.assertEqual(wl.parse_variant("tuned=a=1  b=2"), ("tuned", "a=1 b=2"))
        self.assertEqual(wl.parse_variant("plain="), ("plain", ""))
        for bad in ("nocmdline", "=x", "a b=c", "linux=x"):
            with self.assertRaises(ValueError, msg=bad):
                wl.parse_variant(bad)

    def test_variants_alternate_run_by_run(self):
        order = [wl.run_order(["A", "B", "C"], r) for r in (1, 2, 3)]
        self.assertEqual(order, [["A", "B", "C"], ["C", "B", "A"], ["A", "B", "C"]])

    def test_fulcrum_command_line(self):
        self.assertEqual(bench_run.fulcrum_cmdline("sched_select=sbm", "/bin/hackbench", "-l 20  -g 1"),
                         "sched_select=sbm schedstat qemu_exit init=/bin/hackbench -- -l 20 -g 1")
        self.assertEqual(bench_run.fulcrum_cmdline("", "/bin/compute", ""), "schedstat qemu_exit init=/bin/compute")
        with self.assertRaises(ValueError) as cm:
            bench_run.fulcrum_cmdline("", "/bin/x", "-s 'a b'")
        self.assertIn("'", str(cm.exception))

    def test_icount_fixes_seed_and_clock(self):
        with mock.patch.object(qm, "host_has_hw_virt", return_value=False):
            argv = bench_run.machine_argv("2s", "x.iso", "auto", True, seed=3)
            plain = bench_run.machine_argv("2s", "x.iso", "auto", False, seed=3)
        s = " ".join(argv)
        self.assertIn("-icount shift=3,sleep=off", s)
        self.assertIn("tcg,thread=single", s)
        self.assertIn("-seed 3 -rtc base=2026-01-01,clock=vm", s)
        self.assertNotIn("-seed", plain)
        self.assertNotIn("-icount", plain)

    def test_fulcrum_boots_by_pvh_under_icount_only(self):
        isos = mock.Mock(elf="/b/fulcrum.elf", initrd="/b/initrd.cpio")
        isos.iso.return_value = "/b/x.iso"
        line = "schedstat qemu_exit init=/bin/fairshare -- -t 9"
        with mock.patch.object(qm, "host_has_hw_virt", return_value=False):
            pvh = bench_run.fulcrum_argv("2s", isos, line, "auto", True, seed=2)
            isos.iso.assert_not_called()
            cd = bench_run.fulcrum_argv("2s", isos, line, "auto", False, seed=2)
        i = pvh.index("-kernel")
        self.assertEqual(pvh[i:i + 6], ["-kernel", "/b/fulcrum.elf", "-append", line, "-initrd", "/b/initrd.cpio"])
        self.assertNotIn("-cdrom", pvh)
        self.assertIn("-seed 2 -rtc", " ".join(pvh))
        self.assertIn("/b/x.iso", cd)
        self.assertNotIn("-kernel", cd)

    def test_linux_argv_is_the_same_machine(self):
        with mock.patch.object(qm, "host_has_hw_virt", return_value=False):
            base = bench_run.machine_argv("2s", "linux.iso", "auto", False)
            argv = bench_run.linux_argv("2s", "/k/vmlinux", "/k/ir.gz", "console=ttyS0 -- /bin/x", "auto", False)
        self.assertNotIn("-cdrom", argv)
        self.assertNotIn("-boot", argv)
        i = argv.index("-kernel")
        self.assertEqual(argv[i:i + 6], ["-kernel", "/k/vmlinux", "-initrd", "/k/ir.gz", "-append",
                                         "console=ttyS0 -- /bin/x"])
        strip = [a for a in base if a not in ("-cdrom", "linux.iso", "-boot", "d")]
        self.assertEqual([a for a in argv if a not in argv[i:i + 6]], strip)


class LinuxGuest(unittest.TestCase):
    def test_metapackage_dependency(self):
        self.assertEqual(bench_linux.real_kernel_package("linux-image-6.1.0-57-amd64 (= 6.1.192-3)"),
                         "linux-image-6.1.0-57-amd64")
        self.assertEqual(bench_linux.real_kernel_package("foo, linux-image-6.12.9+bpo-amd64 (= 6.12.9-1~bpo12+1)"),
                         "linux-image-6.12.9+bpo-amd64")
        with self.assertRaises(bench_linux.LinuxUnavailable):
            bench_linux.real_kernel_package("linux-image-amd64-signed-template")

    def test_append_line(self):
        line = bench_linux.append_line("/bin/hackbench -g 2", "nosmt")
        self.assertTrue(line.startswith("console=ttyS0 "))
        self.assertTrue(line.endswith(" nosmt -- /bin/hackbench -g 2"))

    @unittest.skipUnless(shutil.which("cpio"), "cpio not installed")
    def test_initramfs_is_a_cpio_newc_archive(self):
        with tempfile.TemporaryDirectory() as tmp:
            bindir = os.path.join(tmp, "bin")
            os.makedirs(bindir)
            for name, mode in (("hackbench", 0o755), ("sh", 0o755), ("notes.d", 0o644)):
                with open(os.path.join(bindir, name), "w") as f:
                    f.write(name)
                os.chmod(os.path.join(bindir, name), mode)
            bb = os.path.join(tmp, "busybox")
            with open(bb, "wb") as f:
                f.write(b"\x7fELF fake busybox")
            path, progs = bench_linux.build_initramfs(tmp, bb, bindir)
            self.assertEqual(progs, ["hackbench"])  # not Fulcrum's sh, not the .d file
            again, _ = bench_linux.build_initramfs(tmp, bb, bindir)
            self.assertEqual(path, again)  # cached by content
            raw = subprocess.run(["gzip", "-dc", path], capture_output=True, check=True).stdout
            self.assertEqual(raw[:6], b"070701")
            self.assertEqual(len(raw) % 512, 0)
            names = subprocess.run(["cpio", "-it", "--quiet"], input=raw, capture_output=True,
                                   check=True).stdout.decode().split()
            self.assertEqual(sorted(names), ["bin", "bin/busybox", "bin/hackbench", "bin/sh", "dev", "init", "proc",
                                             "sys", "tmp"])
            listing = subprocess.run(["cpio", "-itv", "--quiet"], input=raw, capture_output=True,
                                     check=True).stdout.decode()
            self.assertIn("bin/sh -> busybox", listing)
            out = subprocess.run(["cpio", "-i", "--quiet", "--to-stdout", "init"], input=raw, capture_output=True,
                                 check=True).stdout.decode()
            self.assertEqual(out, bench_linux.INIT_SCRIPT)

    def test_init_script_reports_like_fulcrums_init(self):
        s = bench_linux.INIT_SCRIPT
        self.assertTrue(s.startswith("#!/bin/sh\n"))
        self.assertIn('echo "init: $1 exited with status $status"', s)
        self.assertEqual(s.count("cat /proc/schedstat"), 2)  # before and after the workload
        self.assertTrue(s.rstrip().endswith("poweroff -f"))

    def test_pvh_note(self):
        def elf(notes):
            desc = b"".join(struct.pack("<III", 4, 8, t) + b"Xen\0" + b"\0" * 8 for t in notes)
            ph = struct.pack("<IIQQQQQQ", 4, 4, 64 + 56, 0, 0, len(desc), len(desc), 4)
            head = b"\x7fELF\x02\x01\x01" + b"\0" * 9 + struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, 0, 64, 0, 0, 64,
                                                                      56, 1, 0, 0, 0)
            return head + ph + desc
        self.assertTrue(bench_linux.has_pvh_note(elf([5, 18])))
        self.assertFalse(bench_linux.has_pvh_note(elf([5, 6])))
        self.assertFalse(bench_linux.has_pvh_note(b"MZ not an elf"))

    def test_zstd_payload_after_a_false_gzip_magic(self):
        # 6.12's bzImage holds a zstd payload; a gzip magic number met by chance before it
        # raised zlib.error, which ended the unpacker.
        if not shutil.which("zstd"):
            self.skipTest("no zstd tool")
        inner = b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 8
        frame = subprocess.run(["zstd", "-c", "-q"], input=inner, capture_output=True, check=True).stdout
        blob = b"MZ" + b"\0" * 64 + b"\x1f\x8b\x08\x00garbage" + b"\0" * 32 + frame + b"\x12\x34\x56\x78"
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "vmlinuz")
            with open(path, "wb") as f:
                f.write(blob)
            self.assertEqual(bench_linux.unpack_vmlinux(path), inner)

    def test_612_comes_from_backports(self):
        calls = []

        def fake_run(argv, cwd=None, **kw):
            calls.append(argv)
            return subprocess.CompletedProcess(argv, 100, "", "E: Failed to fetch")
        with tempfile.TemporaryDirectory() as tmp, mock.patch.object(bench_linux.subprocess, "run", fake_run):
            with self.assertRaises(bench_linux.LinuxUnavailable) as cm:
                bench_linux.ensure_kernel(tmp, say=lambda *_: None, series="6.12")
        self.assertEqual(calls[0], ["apt-get", "download", "-t", "bookworm-backports", "linux-image-amd64"])
        self.assertIn("bookworm-backports", str(cm.exception))

    def test_612_refuses_the_61_package(self):
        def fake_run(argv, cwd=None, **kw):
            if argv[:2] == ["apt-get", "download"]:
                open(os.path.join(cwd, argv[-1] + "_1_amd64.deb"), "w").close()
                return subprocess.CompletedProcess(argv, 0, "", "")
            field = {"Depends": "linux-image-6.1.0-57-amd64 (= 6.1.192-3)", "Version": "6.1.192-3"}[argv[-1]]
            return subprocess.CompletedProcess(argv, 0, field + "\n", "")
        with tempfile.TemporaryDirectory() as tmp, mock.patch.object(bench_linux.subprocess, "run", fake_run):
            with self.assertRaises(bench_linux.LinuxUnavailable) as cm:
                bench_linux.ensure_kernel(tmp, say=lambda *_: None, series="6.12")
        self.assertIn("6.1.192-3 for Linux 6.12", str(cm.exception))

    def test_series(self):
        self.assertEqual(bench_linux.parse_series("6.1,6.12,6.1"), ["6.1", "6.12"])
        with self.assertRaises(ValueError):
            bench_linux.parse_series("5.4")
        self.assertEqual(bench_linux.series_cache("/c", "6.1"), "/c")
        self.assertEqual(bench_linux.series_cache("/c", "6.12"), "/c/6.12")

    def test_lean_command_line(self):
        line = bench_linux.append_line("/bin/hackbench -g 2")
        self.assertIn(" cryptomgr.notests lsm=capability init_on_alloc=0 psi=0 numa_balancing=disable "
                      "randomize_kstack_offset=off audit=0 cgroup_disable=memory nowatchdog -- /bin/hackbench", line)
        self.assertEqual(bench_linux.append_line("/bin/x", lean="nosmt"), bench_linux.LINUX_APPEND + " nosmt -- /bin/x")

    def test_icount_hides_erms_and_fsrm(self):
        with mock.patch.object(qm, "qemu_version", return_value=(10, 0, 2)):
            plain = bench_run.machine_argv("2s", "x.iso", "tcg", False)
            det = bench_run.machine_argv("2s", "x.iso", "tcg", True, seed=1)
        cpu = plain[plain.index("-cpu") + 1]
        self.assertNotIn("erms", cpu)
        self.assertEqual(det[det.index("-cpu") + 1], cpu + ",-erms,-fsrm")

    def test_no_network_is_a_plain_error(self):
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(bench_linux.subprocess, "run",
                                  return_value=subprocess.CompletedProcess([], 100, "",
                                                                           "W: x\nE: Failed to fetch http://deb")):
            with self.assertRaises(bench_linux.LinuxUnavailable) as cm:
                bench_linux.ensure_kernel(tmp, say=lambda *_: None)
        self.assertIn("apt-get download linux-image-amd64", str(cm.exception))
        self.assertIn("no network", str(cm.exception))
        self.assertIn("E: Failed to fetch", str(cm.exception))


class Plots(unittest.TestCase):
    def test_script_and_data(self):
        runs = runs_of({(0, "a"): [1.0, 3.0], (0, "b"): [None, None]}, points=((("n", "1"),),))
        t = tb.build_table(runs, "w", 'w "time"', "s", tb.figure_getter("w time"), ["a", "b"], [(("n", "1"),)], 2)
        text, scale = bench_plot.script(t, "/o/x.dat", "/o/x.png", "pngcairo", "2s, TCG")
        self.assertIn('set output "/o/x.png"', text)
        self.assertIn('set title "w \\"time\\"\\n2s, TCG"', text)
        self.assertIn('set xtics ("1" 0)', text)
        self.assertEqual(text.count("with yerrorlines"), 2)
        self.assertEqual(bench_plot.data(t, scale), '"1" 2.0 1.0 3.0 NaN NaN NaN\n')

    @unittest.skipUnless(shutil.which("gnuplot"), "gnuplot not installed")
    def test_gnuplot_draws(self):
        runs = runs_of({(0, "a"): [1.0, 3.0], (1, "a"): [2.0, 2.5], (0, "b"): [1.5, 1.0], (1, "b"): [2.0, 2.0]})
        t = tb.build_table(runs, "w", "w time", "s", tb.figure_getter("w time"), ["a", "b"], Tables.POINTS, 2)
        with tempfile.TemporaryDirectory() as tmp:
            path, why = bench_plot.draw(t, tmp, "w time", "test")
            self.assertIsNone(why)
            self.assertGreater(os.path.getsize(path), 0)


if __name__ == "__main__":
    unittest.main()
