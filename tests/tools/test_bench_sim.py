"""tools/bench --sim: simulated sweeps run as jobs through GNU parallel on this machine, and the
merge step that reads their result files into the report (tools/lib/bench_sim.py).

The sweeps are small (compute on 2s, 2 points x 2 runs x 2 variants: 8 jobs of a few
milliseconds of host time each). They need build/tools/fulcrum-sim (make) and GNU parallel
(Debian package parallel; tools/install-deps); a missing one fails the tests.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("FULCRUM_BUILD", os.path.join(TOP, "build"))
BENCH = os.path.join(TOP, "tools", "bench")
sys.path.insert(0, os.path.join(TOP, "tools", "lib"))
import bench_parse  # noqa: E402
import bench_sim  # noqa: E402

SWEEP = ["--sim", "--preset", "2s", "--workload", "compute", "--args", "-j 2", "--sweep", "tasks=1,10",
         "--runs", "2", "--figures", "all"]


def bench(*args):
    return subprocess.run([sys.executable, BENCH, "--build", BUILD, *args], capture_output=True, text=True,
                          timeout=600, stdin=subprocess.DEVNULL)


def figures(folder):
    """{(experiment, point, system, run): {figure: value}} of a sweep's results.json."""
    with open(os.path.join(folder, "results.json")) as f:
        doc = json.load(f)
    out = {}
    for r in doc["runs"]:
        key = (r["experiment"], tuple(sorted(r["point"].items())), r["system"], r["run"])
        out[key] = {k: v[0] for k, v in r["figures"].items()}
        out[key].update({"sched " + k: v for k, v in (r["sched"] or {}).items()})
        out[key]["error"] = r["error"]
    return out, doc


class Sweeps(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        why = bench_sim.gnu_parallel_missing()
        if why:
            raise AssertionError(why)
        sim = os.path.join(BUILD, "tools", "fulcrum-sim")
        if not os.access(sim, os.X_OK):
            raise AssertionError(f"{sim} is missing: make {os.path.relpath(sim, TOP)}")
        cls.tmp = tempfile.mkdtemp(prefix="bench-sim-")
        cls.first = os.path.join(cls.tmp, "first")
        cls.second = os.path.join(cls.tmp, "second")
        cls.runs = [bench(*SWEEP, "--jobs", "2", "--out", d) for d in (cls.first, cls.second)]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_every_point_merged(self):
        p = self.runs[0]
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("8 simulation jobs through GNU parallel, --jobs 2", p.stdout)
        got, doc = figures(self.first)
        want = {(1, (("tasks", t),), s, r) for t in ("1", "10") for s in ("stock", "sbm") for r in (1, 2)}
        self.assertEqual(set(got), want)
        for key, figs in got.items():
            self.assertIsNone(figs["error"], key)
            self.assertIn("compute jobs_per_min", figs, key)
            self.assertIn("sched migrations", figs, key)
        # One task on its own CPU: 2 jobs of 10 ms in 20 ms, 6,000 jobs a minute.
        self.assertAlmostEqual(got[(1, (("tasks", "1"),), "stock", 1)]["compute jobs_per_min"], 6000, delta=5)
        table = next(t for t in doc["experiments"][0]["tables"] if t["title"] == "compute jobs_per_min")
        self.assertEqual([row["point"] for row in table["rows"]], ["1", "10"])
        for row in table["rows"]:
            self.assertEqual(sorted(row["systems"]), ["sbm", "stock"])
            self.assertEqual([len(v["runs"]) for v in row["systems"].values()], [2, 2])
        with open(os.path.join(self.first, "report.txt")) as f:
            report = f.read()
        self.assertIn("compute jobs_per_min (jobs/min), higher is better; 2 runs each", report)
        self.assertNotIn("failed", report)

    def test_same_sweep_same_figures(self):
        self.assertEqual(self.runs[1].returncode, 0, self.runs[1].stdout + self.runs[1].stderr)
        a, _ = figures(self.first)
        b, _ = figures(self.second)
        self.assertEqual(a, b)

    def test_runs_have_their_own_seeds(self):
        with open(os.path.join(self.first, "sweep.json")) as f:
            jobs = json.load(f)["jobs"]
        for job in jobs:
            self.assertIn(f"--seed {job['run']} ", job["command"])
        got, _ = figures(self.first)
        # Ten tasks on eight CPUs: where the ticks fall (the seed) changes the run.
        one, two = (got[(1, (("tasks", "10"),), "stock", r)]["compute jobs_per_min"] for r in (1, 2))
        self.assertNotEqual(one, two)

    def test_merge_reads_the_result_files_again(self):
        folder = os.path.join(self.tmp, "copy")
        shutil.copytree(self.first, folder)
        for name in ("report.txt", "results.json", "results.csv"):
            os.remove(os.path.join(folder, name))
        m = bench("--merge", folder)
        self.assertEqual(m.returncode, 0, m.stdout + m.stderr)
        self.assertEqual(figures(folder)[0], figures(self.first)[0])
        with open(os.path.join(folder, "report.txt")) as f, open(os.path.join(self.first, "report.txt")) as g:
            self.assertEqual(f.read(), g.read())

    def test_missing_or_failed_job_is_a_failed_run(self):
        folder = os.path.join(self.tmp, "broken")
        shutil.copytree(self.first, folder)
        os.remove(os.path.join(folder, "results", "3.out"))
        with open(os.path.join(folder, "results", "5.out"), "w") as f:
            f.write("fulcrum-sim: compute: FAIL: task 3 did 1 of 2 jobs\nsim-exit 1\n")
        m = bench("--merge", folder)
        self.assertEqual(m.returncode, 1, m.stdout + m.stderr)
        self.assertIn("2 run(s) failed:", m.stdout)
        self.assertIn("no result file results/3.out", m.stdout)
        self.assertIn("fulcrum-sim exit status 1; it printed: fulcrum-sim: compute: FAIL", m.stdout)

    def test_sshloginfile_passes_through(self):
        # ':' in an sshlogin file is GNU parallel's name for this machine, without ssh.
        logins = os.path.join(self.tmp, "logins")
        with open(logins, "w") as f:
            f.write("2/:\n")
        folder = os.path.join(self.tmp, "ssh")
        p = bench(*SWEEP, "--sshloginfile", logins, "--out", folder)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn(f"across the machines of {logins}", p.stdout)
        self.assertEqual(figures(folder)[0], figures(self.first)[0])

    def test_plan_then_run_each_line_as_slurm_would(self):
        folder = os.path.join(self.tmp, "slurm")
        p = bench(*SWEEP, "--sim-plan", "--out", folder)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(os.listdir(os.path.join(folder, "results")), [])
        with open(os.path.join(folder, "jobs.txt")) as f:
            n = len(f.read().splitlines())
        self.assertEqual(n, 8)
        script = os.path.join(TOP, "tools", "sim", "slurm-sweep.sh")
        for task in range(1, n + 1):
            env = dict(os.environ, SLURM_ARRAY_TASK_ID=str(task))
            subprocess.run(["sh", script, folder], env=env, check=True, timeout=120)
        m = bench("--merge", folder)
        self.assertEqual(m.returncode, 0, m.stdout + m.stderr)
        self.assertEqual(figures(folder)[0], figures(self.first)[0])


class ParseOutput(unittest.TestCase):
    def test_cut_short(self):
        with self.assertRaisesRegex(bench_parse.LogError, "no 'sim-exit N' line"):
            bench_sim.parse_output("RESULT name=compute metric=x value=1 unit=s\n")

    def test_refused_option(self):
        with self.assertRaisesRegex(bench_parse.LogError, "exit status 2; it printed: fulcrum-sim: unknown"):
            bench_sim.parse_output("fulcrum-sim: unknown boot option 'bogus'\nsim-exit 2\n")

    def test_no_schedstat(self):
        with self.assertRaisesRegex(bench_parse.LogError, "no schedstat report"):
            bench_sim.parse_output("RESULT name=compute metric=x value=1 unit=s\nsim-exit 0\n")


class BesideQemu(unittest.TestCase):
    """--with-sim: one invocation boots the variant in QEMU and runs it on the simulator, and
    one table holds both columns (a short boot under icount on one CPU)."""

    def test_one_table_both_columns(self):
        with tempfile.TemporaryDirectory() as out:
            p = bench("--preset", "up", "--icount", "--with-sim", "--workload", "fairshare", "--args",
                      "-t 2 -s 0.2 -n 0,5", "--runs", "1", "--variants", "stock=sched_select=stock",
                      "--out", out)
            self.assertEqual(p.returncode, 0, p.stdout[-2000:] + p.stderr[-2000:])
            runs, doc = figures(out)
            shares = {}
            for (_, _, system, _), f in runs.items():
                self.assertIsNone(f["error"], system)
                shares[system] = f["fairshare cpu_used"]
            self.assertEqual(sorted(shares), ["sim:stock", "stock"])
            # Both ran the same two spinners on one CPU: each uses all of it.
            for system, used in shares.items():
                self.assertAlmostEqual(used, 100, delta=2, msg=system)
            self.assertTrue(os.path.exists(os.path.join(out, "sim", "joblog.txt")))
            self.assertRegex(p.stdout, r"(?m)^  point +run1 +avg +run1 +avg +sim:stock/stock$")


if __name__ == "__main__":
    unittest.main()
