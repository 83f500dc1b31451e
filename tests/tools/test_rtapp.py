"""fulcrum-sim's rt-app front end, through build/tools/rtapp-dump.

Examples: every tests/data/rtapp/NAME.json (written for these tests in the
shapes of rt-app's documentation: its template, its tutorial's producer and
consumer, phases, repeated keys) parses to exactly NAME.expected.
Events: each supported event and setting, from a small file, becomes the
description rt-app's semantics give it (times in ns, defaults, file order).
Refused: every rt-app event and setting the simulator lacks is refused by
name with its line; malformed JSON with its line and column; semantic errors
(unknown references, unbalanced locks, waits nothing ends, negative times,
CPUs beyond the machine) with a message saying what is wrong. Garbage never
crashes the parser (the tool is built with ASan and UBSan).

`make test` builds build/tools/rtapp-dump first; a missing binary fails
these tests rather than skipping them.
"""
import os
import random
import re
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("FULCRUM_BUILD", os.path.join(TOP, "build"))
TOOL = os.path.join(BUILD, "tools", "rtapp-dump")
DATA = os.path.join(TOP, "tests", "data", "rtapp")

# rt-app events the simulator does not have, and rt-app settings it refuses.
UNSUPPORTED_EVENTS = ("yield", "mem", "memrun", "iorun", "sync", "sem_post", "sem_wait")
UNSUPPORTED_SETTINGS = ("dl-runtime", "dl-period", "dl-deadline", "period", "deadline",
                        "util_min", "util_max", "nodes_membind", "taskgroup")


def run_tool(path, cpus=None):
    argv = [TOOL] + (["--cpus", str(cpus)] if cpus else []) + [path]
    return subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=60)


class Tool(unittest.TestCase):
    def dump(self, text, cpus=None):
        """Runs the tool on text; returns (exit code, stdout, stderr)."""
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write(text)
        try:
            res = run_tool(f.name, cpus)
        finally:
            os.unlink(f.name)
        for bad in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
            self.assertNotIn(bad, res.stderr)
        return res.returncode, res.stdout, res.stderr.replace(f.name, "FILE")

    def parsed(self, text, cpus=None):
        code, out, err = self.dump(text, cpus)
        self.assertEqual(code, 0, err)
        self.assertEqual(err, "")
        return out.splitlines()

    def refused(self, text, line, pattern, cpus=None):
        """text must be refused with one message at line matching pattern."""
        code, out, err = self.dump(text, cpus)
        self.assertEqual(code, 1, f"accepted:\n{text}")
        self.assertEqual(out, "")
        self.assertRegex(err.strip(), rf"^rtapp-dump: FILE:{line}: .*{pattern}")
        return err

    def events(self, lines):
        """The event lines of a dump, without their indentation and (line N) suffix."""
        return [re.sub(r" \(line \d+\)$", "", l.strip()) for l in lines if l.startswith("      ")]


def task(body):
    """A file with one task "t" whose inline events are body (starting on line 3)."""
    return '{"tasks": {\n"t": {\n' + body + '\n}}}\n'


class Examples(Tool):
    def test_tool_built(self):
        self.assertTrue(os.access(TOOL, os.X_OK), f"{TOOL} missing: make {TOOL}")

    def test_examples_parse_to_expected(self):
        names = sorted(n[:-5] for n in os.listdir(DATA) if n.endswith(".json"))
        self.assertGreaterEqual(len(names), 5)
        for name in names:
            with self.subTest(example=name):
                res = run_tool(os.path.join(DATA, name + ".json"))
                self.assertEqual(res.returncode, 0, res.stderr)
                with open(os.path.join(DATA, name + ".expected")) as f:
                    self.assertEqual(res.stdout, f.read())

    def test_every_supported_event_in_the_examples(self):
        seen = set()
        for name in os.listdir(DATA):
            if name.endswith(".expected"):
                with open(os.path.join(DATA, name)) as f:
                    seen |= {l.split()[0] for l in f if l.startswith("      ")}
        self.assertEqual(seen, {"run", "runtime", "sleep", "timer", "barrier", "lock", "unlock",
                                "wait", "signal", "broad", "suspend", "resume", "fork"})


class Events(Tool):
    def test_times_are_microseconds_in_ns(self):
        out = self.parsed(task('"run": 10, "runtime": 20, "sleep": 0'))
        self.assertEqual(self.events(out), ["run 10000 ns", "runtime 20000 ns", "sleep 0 ns"])

    def test_repeated_and_numbered_keys_keep_file_order(self):
        out = self.parsed(task('"run": 1, "sleep": 2, "run": 3,\n"run7": 4, "sleep_x": 5, '
                               '"runtime9": 6, "run": 7'))
        self.assertEqual(self.events(out), ["run 1000 ns", "sleep 2000 ns", "run 3000 ns",
                                            "run 4000 ns", "sleep 5000 ns", "runtime 6000 ns",
                                            "run 7000 ns"])

    def test_event_lines(self):
        out = self.parsed(task('"run": 1,\n\n"sleep": 2'))
        self.assertEqual([l.strip() for l in out if l.startswith("      ")],
                         ["run 1000 ns (line 3)", "sleep 2000 ns (line 5)"])

    def test_timer_modes_and_sharing(self):
        out = self.parsed(task('"timer": {"ref": "a", "period": 5},\n'
                               '"timer1": {"ref": "unique", "period": 6, "mode": "absolute"},\n'
                               '"timer2": {"ref": "a", "period": 7, "mode": "relative"}'))
        self.assertIn('resource 0 timer "a" shared relative', out)
        self.assertIn('resource 1 timer "unique" per-thread absolute', out)
        self.assertEqual(self.events(out), ['timer 0 "a" period 5000 ns',
                                            'timer 1 "unique" period 6000 ns',
                                            'timer 0 "a" period 7000 ns'])

    def test_locks_conditions(self):
        out = self.parsed('{"tasks": {\n"w": {"lock": "m", "wait": {"ref": "c", "mutex": "m"}, '
                          '"unlock": "m"},\n"s": {"signal": "c", "broad": "c"}}}')
        self.assertEqual(out[1:3], ['resource 0 mutex "m"', 'resource 1 cond "c"'])
        self.assertEqual(self.events(out), ['lock 0 "m"', 'wait cond 1 "c" mutex 0 "m"',
                                            'unlock 0 "m"', 'signal 1 "c"', 'broad 1 "c"'])

    def test_barrier_counts_threads_of_every_task_naming_it(self):
        out = self.parsed('{"tasks": {\n"a": {"instance": 3, "barrier": "b"},\n'
                          '"c": {"barrier": "b"}, "d": {"run": 1}}}')
        self.assertIn('resource 0 barrier "b" users 4', out)

    def test_suspend_resume_fork(self):
        out = self.parsed('{"tasks": {\n"a": {"suspend": "a", "run": 1},\n'
                          '"b": {"resume": "a", "fork": "c"},\n"c": {"instance": 0, "suspend": ""},'
                          '\n"d": {"resume": "c"}}}')
        self.assertIn('resource 0 suspend "a" task 0', out)
        self.assertIn('resource 1 suspend "c" task 2', out)
        self.assertEqual(self.events(out), ['suspend 0 "a"', "run 1000 ns", 'resume 0 "a"',
                                            'fork task 2 "c"', 'suspend 1 "c"', 'resume 1 "c"'])

    def test_task_settings_and_defaults(self):
        out = self.parsed('{"global": {"duration": 4, "default_policy": "SCHED_RR"}, "tasks": {\n'
                          '"a": {"instance": 2, "loop": 7, "delay": 3, "cpus": [5, 1, 5], '
                          '"run": 1},\n"b": {"policy": "SCHED_OTHER", "priority": -20, "run": 1},'
                          '\n"c": {"priority": 99, "phases": {"x": {"run": 1}}}}}')
        self.assertEqual(out[0], "global duration 4000000000 ns default_policy SCHED_RR "
                                 "calibration 0 ns")
        tasks = [l for l in out if l.startswith("task ")]
        self.assertEqual(tasks, [
            'task 0 "a" instances 2 loop 1 delay 3000 ns policy SCHED_RR priority 10 cpus 1,5',
            'task 1 "b" instances 1 loop forever delay 0 ns policy SCHED_OTHER priority -20 '
            'cpus all',
            'task 2 "c" instances 1 loop forever delay 0 ns policy SCHED_RR priority 99 cpus all'])
        # Inline events: "loop" counts the one phase, and the task goes through it once.
        self.assertIn('  phase 0 "" loop 7', out)
        self.assertIn('  phase 0 "x" loop 1', out)

    def test_phase_settings_apply_from_that_phase(self):
        out = self.parsed('{"tasks": {"t": {"policy": "SCHED_FIFO", "loop": 2, "phases": {\n'
                          '"a": {"run": 1},\n"b": {"priority": 60, "cpus": [0], "run": 1},\n'
                          '"c": {"policy": "SCHED_BATCH", "run": 1},\n"d": {"loop": 3, "run": 1}'
                          '}}}}')
        phases = [l.strip() for l in out if l.startswith("  phase")]
        self.assertEqual(phases, ['phase 0 "a" loop 1',
                                  'phase 1 "b" loop 1 cpus 0 policy SCHED_FIFO priority 60',
                                  'phase 2 "c" loop 1 policy SCHED_BATCH priority 0',
                                  'phase 3 "d" loop 3'])

    def test_cpus_within_the_machine(self):
        self.parsed(task('"cpus": [3], "run": 1'), cpus=4)
        self.refused(task('"cpus": [4], "run": 1'), 3, r"CPU 4 in 'cpus' is beyond the machine",
                     cpus=4)


class Refused(Tool):
    def test_unsupported_events_by_name_and_line(self):
        for name in UNSUPPORTED_EVENTS:
            for key in (name, name + "3"):
                with self.subTest(key=key):
                    self.refused(task(f'"run": 1,\n"{key}": 1'), 4,
                                 rf"unsupported event '{key}'")

    def test_unsupported_settings_by_name_and_line(self):
        for name in UNSUPPORTED_SETTINGS:
            with self.subTest(key=name):
                self.refused(task(f'"run": 1,\n"{name}": 1'), 4, rf"unsupported key '{name}'")
                self.refused('{"tasks": {"t": {"phases": {"p": {"run": 1,\n'
                             f'"{name}": 1' + '}}}}}', 2, rf"unsupported key '{name}'")

    def test_unsupported_policies_and_global_keys(self):
        self.refused(task('"policy": "SCHED_DEADLINE", "run": 1'), 3, "SCHED_DEADLINE")
        self.refused('{"global": {\n"default_policy": "SCHED_DEADLINE"}, "tasks": {"t": '
                     '{"run": 1}}}', 2, "SCHED_DEADLINE")
        for key, value in (("io_device", '"/dev/null"'), ("mem_buffer_size", "4096"),
                           ("pi_enabled", "true")):
            with self.subTest(key=key):
                self.refused('{"global": {\n"' + key + '": ' + value + '}, "tasks": {"t": '
                             '{"run": 1}}}', 2, f"unsupported.*'{key}'")
        self.refused('{\n"resources": {}, "tasks": {"t": {"run": 1}}}', 2,
                     "unsupported key 'resources'")

    def test_unknown_keys(self):
        self.refused(task('"run": 1,\n"bogus": 2'), 4, "unknown key 'bogus' in task 't'")
        self.refused('{"tasks": {"t": {"run": 1}},\n"extra": 1}', 2, "unknown key 'extra'")
        self.refused('{"global": {\n"durration": 1}, "tasks": {"t": {"run": 1}}}', 2,
                     "unknown key 'durration'")
        self.refused(task('"timer": {"ref": "a",\n"perod": 1}'), 4, "unknown .*'perod'")

    def test_malformed_json_line_and_column(self):
        code, out, err = self.dump('{"tasks": {\n  "t": {\n    "run": ,\n  }}}')
        self.assertEqual(code, 1)
        self.assertRegex(err, r"^rtapp-dump: FILE:3:12: malformed JSON: ")
        code, out, err = self.dump('{"tasks": {"t": {"run": 1}}\n\n')
        self.assertRegex(err, r"^rtapp-dump: FILE:3:0: malformed JSON: ")
        code, out, err = self.dump('{"tasks": {"t": {"run": "1\n}}}')
        self.assertRegex(err, r"^rtapp-dump: FILE:1:\d+: malformed JSON: ")
        self.refused('{"tasks": {"t": {"run": 1}}}\n/* never\nends', 2, "comment never ends")
        self.refused('[{"tasks": {}}]', 1, "one JSON object")
        self.refused('', r"1:0", "malformed JSON")

    def test_rtapp_dialect_is_not_an_error(self):
        self.parsed('// comment\n{"tasks": {"t": {/* c */ "run": 1, "sleep": 2,},},}\n')

    def test_semantic_errors(self):
        cases = [
            (task('"run": -1'), 3, r"'run' is -1: a time cannot be negative"),
            (task('"sleep": -5'), 3, r"'sleep' is -5: a time cannot be negative"),
            (task('"delay": -5, "run": 1'), 3, r"'delay' is -5: a time cannot be negative"),
            (task('"timer": {"ref": "a", "period": -2}'), 3, r"'period' is -2"),
            (task('"run": 1.5'), 3, r"'run' must be an integer"),
            (task('"run": "10"'), 3, r"'run' must be an integer"),
            (task('"fork": "nobody"'), 3, r"task 'nobody', which the file does not define"),
            (task('"resume": "nobody"'), 3, r"task 'nobody', which the file does not define"),
            (task('"unlock": "m"'), 3, r"unlock of 'm' without a lock"),
            (task('"lock": "m",\n"lock": "m"'), 4, r"'m' is locked again"),
            (task('"lock": "m", "run": 1'), 3, r"'m' is still locked when phase"),
            ('{"tasks": {"t": {"phases": {"a": {"lock": "m"},\n"b": {"unlock": "m"}}}}}', 1,
             r"'m' is still locked"),
            (task('"wait": {"ref": "c", "mutex": "m"}'), 3, r"which this phase has not locked"),
            ('{"tasks": {"t": {\n"lock": "m", "wait": {"ref": "c", "mutex": "m"}, "unlock": "m"'
             '}}}', 2, r"nothing signals or broadcasts condition 'c'"),
            (task('"suspend": "t"'), 3, r"no event resumes task 't'"),
            ('{"tasks": {"t": {"suspend": "u", "run": 1},\n"u": {"resume": "t"}}}', 1,
             r"a thread can only suspend itself"),
            ('{"tasks": {"a": {"fork": "b"},\n"b": {"instance": 0, "fork": "a"}}}', 2,
             r"task 'b' forks 'a', which leads back to 'b'"),
            (task('"barrier": "x",\n"barrier": "x"'), 4, r"names barrier 'x' twice"),
            ('{"tasks": {"a": {"fork": "b"},\n"b": {"instance": 0,\n"barrier": "x"}}}', 3,
             r"task 'b' is forked \(line 1\) and uses a barrier"),
            (task('"timer": {"ref": "a", "period": 1},\n"timer": {"ref": "a", "period": 1, '
                  '"mode": "absolute"}'), 4, r"timer 'a' is absolute here but relative"),
            (task('"timer": {"ref": "a"}'), 3, r"a timer needs"),
            (task('"loop": 1,\n"loop": 2, "run": 1'), 4, r"'loop' given twice in task 't'"),
            (task('"loop": 0, "run": 1'), 3, r"'loop' is 0"),
            (task('"priority": 20, "run": 1'), 3, r"'priority' is 20, outside -20..19"),
            (task('"policy": "SCHED_FIFO", "priority": 0, "run": 1'), 3,
             r"'priority' is 0, outside 1..99"),
            (task('"policy": "SCHED_OTHERS", "run": 1'), 3, r"unknown policy 'SCHED_OTHERS'"),
            (task('"cpus": [], "run": 1'), 3, r"'cpus' must be a non-empty array"),
            (task('"cpus": [-1], "run": 1'), 3, r"'cpus' is -1"),
            (task('"instance": 0, "run": 1'), 1, r"every \"instance\" is 0"),
            (task('"loop": 2'), 2, r"task 't' has neither events nor \"phases\""),
            (task('"run": 1, "phases": {"p": {"run": 1}}'), 3, r"events beside \"phases\""),
            ('{"tasks": {"t": {"phases": {\n"p": {"loop": -1, "run": 1}}}}}', 2,
             r"a phase cannot loop forever"),
            ('{"tasks": {"t": {"phases": {\n"p": {"delay": 1, "run": 1}}}}}', 2,
             r"'delay' is a task setting"),
            ('{"tasks": {"t": {"phases": {\n"p": {"loop": 2}}}}}', 2, r"phase 'p' of task 't' "
                                                                     r"has no events"),
            ('{"tasks": {"t": {"run": 1},\n"t": {"run": 2}}}', 2, r"task 't' is defined twice"),
            ('{"tasks": {"t": {"run": 1}},\n"tasks": {"u": {"run": 1}}}', 2,
             r"\"tasks\" given twice \(first on line 1\)"),
            ('{"global": {"duration": 1}}', 1, r"no \"tasks\" object"),
            ('{"global": {\n"duration": 0}, "tasks": {"t": {"run": 1}}}', 2, r"'duration' is 0"),
        ]
        for text, line, pattern in cases:
            with self.subTest(text=text):
                self.refused(text, line, pattern)

    def test_garbage_never_crashes(self):
        rng = random.Random(14)
        with open(os.path.join(DATA, "every-event.json")) as f:
            good = f.read()
        for i in range(60):
            cut = rng.randrange(len(good))
            if i % 3 == 0:
                text = good[:cut]
            elif i % 3 == 1:
                text = good[:cut] + rng.choice('{}[],:"/*0-x\\') + good[cut + 1:]
            else:
                text = "".join(chr(rng.randrange(1, 128)) for _ in range(rng.randrange(1, 200)))
            code, out, err = self.dump(text)
            self.assertIn(code, (0, 1), text)
            if code:
                self.assertRegex(err, r"^rtapp-dump: FILE(:\d+)*: ")


if __name__ == "__main__":
    unittest.main()
