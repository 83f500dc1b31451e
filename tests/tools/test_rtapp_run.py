"""rt-app workloads played by fulcrum-sim: `fulcrum-sim -- rt-app FILE` (tools/sim/rtapp_run.c).

Each test plays a small file on the ASan/UBSan build and checks what rt-app's
semantics decide, in counts and simulated time, never host time: every
event of every thread done once per loop, the CPU time the kernel charged
equal to what the run events ask, a mutex serialising its holders, a
barrier holding every round to its slowest thread, runtime ending by the
clock while run ends by work done, a shared timer dividing its period among
its threads, a phase's nice value applying from that phase on, a fork from
a thread on CPU 0 leaving that thread's accounting whole, and the same
command giving the same bytes twice. Real-time policies are refused with
exit status 2, as are files the parser refuses.

`make test` builds build/tools/fulcrum-sim-asan first.
"""
import os
import re
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("FULCRUM_BUILD", os.path.join(TOP, "build"))
SIM = os.path.join(BUILD, "tools", "fulcrum-sim-asan")
DATA = os.path.join(TOP, "tests", "data", "rtapp")

# task threads runtime_ms queued_ms timeslices exited loops events
TASK_ROW = re.compile(r"^(\S+)\s+(\d+)\s+(\d+\.\d+)\s+\d+\.\d+\s+\d+\s+(\d+)\s+(\d+)\s+(\d+)$",
                      re.M)
SIMULATED = re.compile(r"^sim: .* ([\d.]+) s simulated$", re.M)


def play(path, preset="2s", *extra, program="rt-app"):
    return subprocess.run([SIM, "--preset", preset, *extra, "--", program, path],
                          capture_output=True, text=True, errors="replace", timeout=300)


def play_text(text, preset="2s", *extra):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(text)
    try:
        return play(f.name, preset, *extra)
    finally:
        os.unlink(f.name)


class Play(unittest.TestCase):
    def check(self, res):
        for bad in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
            self.assertNotIn(bad, res.stderr)
        self.assertEqual(res.returncode, 0, res.stdout[-2000:] + res.stderr)
        tasks = {m[0]: {"threads": int(m[1]), "cpu_ms": float(m[2]), "exited": int(m[3]),
                        "loops": int(m[4]), "events": int(m[5])}
                 for m in TASK_ROW.findall(res.stdout)}
        simulated = float(SIMULATED.search(res.stdout).group(1))
        return tasks, simulated

    def run_file(self, path, preset="2s"):
        return self.check(play(path, preset))

    def run_text(self, text, preset="2s"):
        return self.check(play_text(text, preset))

    def test_every_event_of_the_handoff_example(self):
        # producer: a 10 ms sleep, 8 x (lock, run 1, signal, run 0.5, unlock, run 20,
        # resume, timer), barrier, fork; consumer: 8 x (lock, wait, unlock, run 5,
        # suspend, run 1), barrier; the forked reporter: run 0.3.
        tasks, _ = self.run_file(os.path.join(DATA, "handoff.json"))
        self.assertEqual(tasks["producer"], {"threads": 1, "exited": 1, "loops": 1,
                                             "events": 1 + 8 * 8 + 2, "cpu_ms": 8 * 21.5})
        self.assertEqual(tasks["consumer"], {"threads": 1, "exited": 1, "loops": 1,
                                             "events": 8 * 6 + 1, "cpu_ms": 8 * 6.0})
        self.assertEqual(tasks["reporter"], {"threads": 1, "exited": 1, "loops": 1,
                                             "events": 1, "cpu_ms": 0.3})

    def test_rtapp_is_an_alias(self):
        path = os.path.join(DATA, "handoff.json")
        self.assertEqual(play(path, program="rtapp").stdout, play(path).stdout)

    def test_repeated_keys_all_run(self):
        tasks, _ = self.run_file(os.path.join(DATA, "repeated-keys.json"))
        # 12 events a loop, 2 loops; runs of 0.1 + 0.3 + 0.5 + 0.6 ms and a 0.7 ms runtime.
        self.assertEqual(tasks["worker"]["events"], 24)
        self.assertEqual(tasks["worker"]["cpu_ms"], 4.4)

    def test_timers_unique_and_shared(self):
        tasks, simulated = self.run_file(os.path.join(DATA, "periodic.json"))
        self.assertEqual(simulated, 3.0)
        light, heavy = tasks["light"], tasks["heavy"]
        # Unique timers: each of the 4 threads runs 1 ms every 10 ms, 300 periods in
        # 3 s (the last loop may still be waiting on its timer when the run ends).
        self.assertEqual(light["cpu_ms"], 4 * 300 * 1.0)
        self.assertTrue(4 * 299 <= light["loops"] <= 4 * 300, light)
        # One shared timer: each use moves it one period on, so its 2 threads
        # take turns and each wakes every 20 ms, 150 times in 3 s.
        self.assertTrue(2 * 149 <= heavy["loops"] <= 2 * 150, heavy)

    def test_mutex_serialises_its_holders(self):
        tasks, simulated = self.run_text(
            '{"tasks": {"w": {"instance": 4, "loop": 10, "lock": "m", "run": 1000, '
            '"unlock": "m"}}}')
        self.assertEqual(tasks["w"]["exited"], 4)
        self.assertEqual(tasks["w"]["cpu_ms"], 40.0)
        # 8 CPUs, but only one holder at a time: 40 critical sections of 1 ms.
        self.assertGreaterEqual(simulated, 0.040)

    def test_barrier_waits_for_the_slowest(self):
        tasks, simulated = self.run_text(
            '{"tasks": {"fast": {"instance": 3, "loop": 5, "run": 1000, "barrier": "b"},\n'
            '"slow": {"loop": 5, "run": 5000, "barrier": "b"}}}')
        self.assertEqual(tasks["fast"]["exited"], 3)
        # Inline events: "loop" counts their phase, and the task goes through it once.
        self.assertEqual((tasks["fast"]["loops"], tasks["fast"]["events"]), (3, 3 * 5 * 2))
        self.assertEqual((tasks["slow"]["loops"], tasks["slow"]["events"]), (1, 5 * 2))
        # Five rounds, each as long as the slow thread's 5 ms, on 8 idle CPUs.
        self.assertGreaterEqual(simulated, 0.025)
        self.assertLess(simulated, 0.030)

    def test_runtime_ends_by_the_clock_run_by_the_work(self):
        tasks, _ = self.run_text(
            '{"tasks": {"a": {"loop": 1, "runtime": 10000}, "b": {"loop": 1, "run": 10000}}}',
            preset="up")
        self.assertEqual(tasks["b"]["cpu_ms"], 10.0)
        # On one CPU shared with b, 10 ms of wall time hold less than 10 ms of CPU.
        self.assertLess(tasks["a"]["cpu_ms"], 9.0)
        self.assertGreater(tasks["a"]["cpu_ms"], 1.0)

    def test_phase_priority_applies_from_its_phase(self):
        # a turns itself to nice 19 for its second 10 ms; b spins 20 ms beside it on one CPU.
        res = play_text('{"tasks": {"a": {"loop": 1, "phases": {"hi": {"run": 10000},\n'
                        '"lo": {"priority": 19, "run": 10000}}},\n"b": {"loop": 1, "run": 20000}}}',
                        "up", "schedstat")
        self.assertEqual(res.returncode, 0, res.stderr)
        rows = {m[0]: (int(m[1]), int(m[2]), int(m[3])) for m in re.findall(
            r"^\[[ \d.]+\]\s+\d+ ([ab])-0\s+\d+ \w+\s+(-?\d+)\s+(\d+)\s+(\d+)", res.stdout, re.M)}
        self.assertEqual(rows["a"][0], 19)
        self.assertEqual(rows["b"][0], 0)
        self.assertEqual(rows["a"][1], rows["b"][1])  # both got all their CPU time
        self.assertGreater(rows["a"][2], rows["b"][2])  # a waited longer once it was nice 19

    def test_fork_on_cpu0_keeps_the_forker_running(self):
        # All on CPU 0: the nice-19 parent resumes the nice -20 sleeper (which asks for
        # CPU 0) and then forks, in one system call. The fork must not reschedule CPU 0
        # inside that call: that would switch to the sleeper under the parent, charge the
        # parent's next burst to the sleeper and replay the parent's events. (The rtapp
        # branch's engine did so; with that fork path this test saw 36 parent events, 9
        # children of which 7 exited, and 22.5 ms charged to the sleeper.)
        tasks, _ = self.run_text(
            '{"tasks": {"parent": {"loop": 3, "cpus": [0], "priority": 19, "run": 2000,\n'
            '"resume": "sleeper", "fork": "child", "run1": 1000},\n'
            '"sleeper": {"loop": 3, "cpus": [0], "priority": -20, "suspend": "sleeper",\n'
            '"run": 500},\n'
            '"child": {"instance": 0, "loop": 1, "cpus": [0], "run": 500}}}')
        self.assertEqual(tasks["parent"], {"threads": 1, "exited": 1, "loops": 1,
                                           "events": 3 * 4, "cpu_ms": 3 * 3.0})
        self.assertEqual(tasks["sleeper"], {"threads": 1, "exited": 1, "loops": 1,
                                            "events": 3 * 2, "cpu_ms": 3 * 0.5})
        self.assertEqual(tasks["child"], {"threads": 3, "exited": 3, "loops": 3,
                                          "events": 3, "cpu_ms": 3 * 0.5})

    def test_phase_cpus_moves_the_thread(self):
        # The rtapp branch's interpreter refused a phase's cpus; this one moves the thread
        # (docs/simulator.md), so the file plays and the thread does all its work.
        tasks, _ = self.run_text('{"tasks": {"t": {"loop": 1, "phases": {"p": {"cpus": [1], '
                                 '"run": 1000}}}}}')
        self.assertEqual(tasks["t"], {"threads": 1, "exited": 1, "loops": 1, "events": 1,
                                      "cpu_ms": 1.0})

    def test_events_that_take_no_time_are_charged(self):
        # 2,000 rounds of lock and unlock take no time; every 1,000 events done in a row
        # cost 1 us of CPU (the 4,000th ends the thread first), so a loop of them forever
        # cannot hold the clock still (without the charge such a file with a duration
        # never ended: the run was stuck at one instant). Without it this was 0.000 ms.
        tasks, _ = self.run_text('{"tasks": {"t": {"loop": 2000, "lock": "m", "unlock": "m"}}}')
        self.assertEqual(tasks["t"], {"threads": 1, "exited": 1, "loops": 1, "events": 4000,
                                      "cpu_ms": 0.003})

    def test_same_command_same_bytes(self):
        path = os.path.join(DATA, "handoff.json")
        self.assertEqual(play(path).stdout, play(path).stdout)

    def test_refused(self):
        # Here the refusal names the task, not the phase, for a phase's SCHED_FIFO too.
        for name, task in (("phases", "rt"), ("every-event", "producer")):
            with self.subTest(example=name):
                res = play(os.path.join(DATA, name + ".json"))
                self.assertEqual(res.returncode, 2)
                self.assertRegex(res.stderr, 'task "%s" asks for SCHED_FIFO or SCHED_RR' % task)
        res = play_text('{"tasks": {"t": {"run": 1,\n"yield": ""}}}')
        self.assertEqual(res.returncode, 2)
        self.assertRegex(res.stderr, r":2: unsupported event 'yield'")

    def test_a_wait_nothing_ends_fails(self):
        # The signal comes before anyone waits and is lost, as in rt-app: the waiter
        # never wakes, and the run fails at the time limit instead of hanging.
        res = play_text('{"tasks": {"s": {"loop": 1, "signal": "c"},\n'
                        '"w": {"loop": 1, "delay": 1000, "lock": "m", '
                        '"wait": {"ref": "c", "mutex": "m"}, "unlock": "m"}}}', "2s",
                        "--limit", "1")
        self.assertEqual(res.returncode, 1)
        self.assertRegex(res.stderr, r"time limit passed")


if __name__ == "__main__":
    unittest.main()
