"""The fidelity table (tools/lib/bench_fidelity.py, tools/bench --suite fidelity and
--fidelity-table): cells from a recorded results.json, merging runs from several
files, failed runs and cells not run, and the suite's shape. Nothing boots."""
import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools", "lib"))
import bench_fidelity as bf  # noqa: E402

RECORDED = os.path.join(TOP, "tests", "tools", "data", "bench", "fidelity-2s-fairshare.json")


def recorded():
    with open(RECORDED) as f:
        return json.load(f)


def row(tag, label, tasks=None):
    return next(r for r in bf.rows() if r.tag == tag and r.label == label
                and (tasks is None or dict(r.point).get("tasks") == tasks))


class Cells(unittest.TestCase):
    def test_recorded_values_land_in_their_cells(self):
        cells = bf.collect([recorded()])
        jain13 = row(bf.FAIR_EQUAL, "fairshare jain", "13")
        self.assertEqual(bf.cell(cells, "2s", jain13, bf.FULCRUM_3_8), (0.978154, 1))
        self.assertEqual(bf.cell(cells, "2s", jain13, bf.LINUX_6_1), (0.984771, 1))
        self.assertEqual(bf.cell(cells, "2s", jain13, bf.LINUX_6_12), (0.989626, 1))
        dev9 = row(bf.FAIR_EQUAL, "fairshare worst_dev", "9")
        self.assertAlmostEqual(bf.cell(cells, "2s", dev9, bf.FULCRUM_3_8)[0], 27.0065)
        wait9 = row(bf.FAIR_EQUAL, "sched queued", "9")
        self.assertAlmostEqual(bf.cell(cells, "2s", wait9, bf.FULCRUM_3_8)[0], 0.11186302656190529)
        # Not in that run: Fulcrum linux-6.12, other presets, other workloads.
        self.assertEqual(bf.cell(cells, "2s", jain13, bf.FULCRUM_6_12), (None, 0))
        self.assertEqual(bf.cell(cells, "2s16", jain13, bf.LINUX_6_1), (None, 0))
        self.assertEqual(bf.presets_in(cells), ["2s"])

    def test_table_says_not_run_and_gives_ratios(self):
        lines = bf.table(bf.collect([recorded()]), "2s")
        self.assertTrue(lines[0].startswith("| figure | Fulcrum linux-3.8 | Linux 6.1 | ratio | "
                                            "Fulcrum linux-6.12 | Linux 6.12 | ratio | runs |"))
        line = next(ln for ln in lines if ln.startswith("| 13 tasks: Jain's index |"))
        self.assertEqual(line, "| 13 tasks: Jain's index | 0.9782 | 0.9848 | 0.99 | not run | 0.9896 | - "
                               "| 1/1/0/1 |")
        line = next(ln for ln in lines if ln.startswith("| 9 tasks: worst deviation"))
        self.assertIn("| 27.01 | 7.837 | 3.45 |", line)
        line = next(ln for ln in lines if ln.startswith("| 9 tasks: wait share |"))
        self.assertIn("| 11.2% | 11.5% |", line)
        line = next(ln for ln in lines if ln.startswith("| -g 2: time (s) |"))
        self.assertEqual(line, "| -g 2: time (s) | not run | not run | - | not run | not run | - | 0/0/0/0 |")
        self.assertEqual(bf.count_cells(bf.collect([recorded()])), (18, 4 * len(bf.rows())))

    def test_merge_later_run_replaces_and_adds(self):
        first = recorded()
        second = copy.deepcopy(first)
        # The second file: run 1 of fulcrum-3.8 at 13 tasks again, and a run 2 of it.
        second["runs"] = [r for r in second["runs"] if r["system"] == bf.FULCRUM_3_8
                          and r["point"] == {"tasks": "13"}]
        second["runs"][0]["figures"]["fairshare jain"][0] = 0.95
        run2 = copy.deepcopy(second["runs"][0])
        run2["run"] = 2
        run2["figures"]["fairshare jain"][0] = 0.97
        second["runs"].append(run2)
        # And a failed run, which must not count.
        bad = copy.deepcopy(run2)
        bad["run"], bad["error"] = 3, "timed out"
        second["runs"].append(bad)
        cells = bf.collect([first, second])
        jain13 = row(bf.FAIR_EQUAL, "fairshare jain", "13")
        mean, n = bf.cell(cells, "2s", jain13, bf.FULCRUM_3_8)
        self.assertEqual(n, 2)
        self.assertAlmostEqual(mean, (0.95 + 0.97) / 2)
        # The other systems' cells are the first file's.
        self.assertEqual(bf.cell(cells, "2s", jain13, bf.LINUX_6_1), (0.984771, 1))

    def test_experiments_outside_the_suite_are_ignored(self):
        doc = recorded()
        doc["experiments"][0]["title"] = "stock vs sbm"
        self.assertEqual(bf.collect([doc]), {})

    def test_preset_from_experiment_before_header(self):
        doc = recorded()
        doc["experiments"][0]["preset"] = "2s16"
        self.assertEqual(bf.presets_in(bf.collect([doc])), ["2s16"])

    def test_jain_summary_line(self):
        text = "\n".join(bf.markdown(bf.collect([recorded()])))
        self.assertIn("Jain's index, 13 equal spinners: Fulcrum linux-3.8 on 2s 0.9782 (1 run); "
                      "Linux 6.1 on 2s 0.9848 (1 run); Linux 6.12 on 2s 0.9896 (1 run)", text)


class Command(unittest.TestCase):
    def test_fidelity_table_merges_folders(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("a", "b"):
                os.makedirs(os.path.join(tmp, name))
                with open(os.path.join(tmp, name, "results.json"), "w") as f:
                    json.dump(recorded(), f)
            out = subprocess.run([sys.executable, os.path.join(TOP, "tools", "bench"), "--fidelity-table",
                                  os.path.join(tmp, "a"), os.path.join(tmp, "b")],
                                 capture_output=True, text=True, check=True).stdout
        self.assertIn("### 2s", out)
        self.assertIn("| 13 tasks: Jain's index | 0.9782 | 0.9848 |", out)
        self.assertIn(f"bench: 18 of {4 * len(bf.rows())} cells measured", out)

    def test_suite_shape(self):
        out = subprocess.run([sys.executable, os.path.join(TOP, "tools", "bench"), "--suite", "fidelity",
                              "--dry-run"], capture_output=True, text=True, check=True).stdout
        # 2 presets x (fairshare 6 points x 2 nice settings + hackbench 3 + pipebench + wakelat + tps),
        # 4 systems, 3 runs.
        self.assertIn(f"{2 * (6 * 2 + 3 + 3) * 4 * 3} boots", out)
        self.assertIn("fulcrum-6.12 Fulcrum  sched_model=linux-6.12 schedstat", out)
        self.assertIn("/bin/fairshare -s 2 -n 0,5 -t 5", out)

    def test_sweep_picks_a_part_of_the_suite(self):
        out = subprocess.run([sys.executable, os.path.join(TOP, "tools", "bench"), "--suite", "fidelity-quick",
                              "--preset", "2s16", "--sweep", "tasks=5,24", "--dry-run"],
                             capture_output=True, text=True, check=True).stdout
        # the two fairshare experiments (equal and mixed nice), 2 points, 4 systems, 1 run
        self.assertIn(f"{2 * 2 * 4} boots", out)
        self.assertIn("/bin/fairshare -s 2 -t 5", out)
        self.assertNotIn("hackbench", out)


if __name__ == "__main__":
    unittest.main()
