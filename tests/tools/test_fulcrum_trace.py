"""tools/fulcrum-trace and its libraries (tools/lib/ftrace.py, trace_grammar.py,
trace_sched.py, trace_plot.py) on recorded and hand-made traces.

- tests/data/traces/linux-6.1-hackbench.trace is real Linux (tools/bench --linux --trace):
  the grammar checker must pass it, and it must read, replay and plot;
- tests/tools/data/traces/wasted-gaps.trace is made by hand in Linux's format with known
  answers: 2 CPUs for 20 ms; CPU 1 idle 1.001-1.006 s while spin_b and then spin_a wait on
  CPU 0 (5 ms), CPU 0 idle 1.012-1.015 s while sleeper_c waits on CPU 1 (3 ms), CPU 0 idle
  1.0170-1.0174 s while worker_d waits on CPU 1 (0.4 ms); per task run, wait and wake-up
  latency worked out by hand in the comments of Summary;
- broken copies of them (cut off, garbled, a field missing) must fail with the line number.
Any other tests/data/traces/*.trace (a Fulcrum trace from the kernel's trace channel) must
pass the grammar check too.
"""
import glob
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools", "lib"))

import bench_linux  # noqa: E402
import bench_run  # noqa: E402
import ftrace  # noqa: E402
import trace_grammar  # noqa: E402
import trace_sched  # noqa: E402

TOOL = os.path.join(TOP, "tools", "fulcrum-trace")
LINUX = os.path.join(TOP, "tests", "data", "traces", "linux-6.1-hackbench.trace")
GAPS = os.path.join(TOP, "tests", "tools", "data", "traces", "wasted-gaps.trace")
MS = 1000000


def tool(*args):
    p = subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def read(path):
    with open(path) as f:
        return f.read()


def write_temp(test, text, suffix=".trace"):
    fd, path = tempfile.mkstemp(suffix=suffix)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    test.addCleanup(os.unlink, path)
    return path


def as_trace_cmd(text):
    """A tracefs trace rewritten the way `trace-cmd report` prints it: no header, no flags
    column, sched_switch and sched_wakeup in trace-cmd's plugin forms."""
    out = ["cpus=2"]
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = re.match(r"^(.*?\[\d+\]) \S+ (.*?: )(\w+): (.*)$", line)
        head, ts, event, body = m.groups()
        f = ftrace.split_fields(body)
        if event == "sched_switch":
            body = (f"{f['prev_comm']}:{f['prev_pid']} [{f['prev_prio']}] {f['prev_state']} ==> "
                    f"{f['next_comm']}:{f['next_pid']} [{f['next_prio']}]")
        elif event == "sched_wakeup":
            body = f"{f['comm']}:{f['pid']} [{f['prio']}] CPU:{f['target_cpu']}"
        out.append(f"{head} {ts}{event}:{' ' * (20 - len(event))}{body}")
    return "\n".join(out) + "\n"


class Parser(unittest.TestCase):
    def test_linux_trace_reads(self):
        t = ftrace.read(LINUX)
        self.assertEqual(t.tracer, "nop")
        names = {e.name for e in t.events}
        self.assertEqual(len(t.events), 388)  # the header says 388/388
        for name in ("sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new", "sched_migrate_task",
                     "sched_process_fork", "sched_process_exec", "sched_process_exit", "cpu_idle"):
            self.assertIn(name, names)
        self.assertEqual(sorted({e.cpu for e in t.events}), [0, 1])
        self.assertEqual(t.warnings, [])

    def test_fields_and_time(self):
        t = ftrace.read(GAPS)
        first = t.events[0]
        self.assertEqual((first.comm, first.pid, first.cpu, first.flags, first.ts), ("<idle>", 0, 0, "d..2.",
                                                                                     1000000000))
        self.assertEqual(first.fields["next_comm"], "spin_a")
        self.assertEqual(first.fields["prev_state"], "R")

    def test_truncated(self):
        text = read(GAPS)
        cut = text[:text.index("prev_pid=11")]  # in the middle of the 9th event's line
        line = cut.count("\n") + 1
        with self.assertRaises(ftrace.TraceError) as e:
            ftrace.parse_text(cut, "cut.trace")
        self.assertEqual(e.exception.line, line)
        self.assertIn("truncated", str(e.exception))
        self.assertIn(f"cut.trace:{line}:", str(e.exception))
        code, _, err = tool("summary", write_temp(self, cut))
        self.assertEqual(code, 2)
        self.assertIn(f":{line}: the file ends in the middle of line {line} (truncated?)", err)

    def test_cut_after_a_whole_field_warns(self):
        text = read(GAPS).rstrip("\n")
        t = ftrace.parse_text(text, "x")
        self.assertEqual(len(t.warnings), 1)
        self.assertIn("does not end with a newline", t.warnings[0])

    def test_garbled_line(self):
        lines = read(GAPS).splitlines(keepends=True)
        lines[15] = "          spin_a-10      [000] d..2. 1.oo4000: sched_switch: prev_comm=spin_a\n"
        with self.assertRaises(ftrace.TraceError) as e:
            ftrace.parse_text("".join(lines))
        self.assertEqual(e.exception.line, 16)
        self.assertIn("expected an event line 'COMM-PID [CPU] FLAGS SECONDS: EVENT: FIELDS'", str(e.exception))

    def test_missing_and_bad_fields(self):
        lines = read(GAPS).splitlines(keepends=True)
        wake = next(i for i, ln in enumerate(lines) if "sched_wakeup:" in ln)
        broken = lines[:wake] + [lines[wake].replace(" target_cpu=000", "")] + lines[wake + 1:]
        with self.assertRaises(ftrace.TraceError) as e:
            ftrace.parse_text("".join(broken))
        self.assertEqual(e.exception.line, wake + 1)
        self.assertIn("sched_wakeup: expected field target_cpu=", str(e.exception))
        broken = lines[:wake] + [lines[wake].replace("pid=11", "pid=eleven")] + lines[wake + 1:]
        with self.assertRaises(ftrace.TraceError) as e:
            ftrace.parse_text("".join(broken))
        self.assertIn("pid= must be a whole number, got 'eleven'", str(e.exception))

    def test_lost_events_warned(self):
        text = read(GAPS).replace("entries-written: 19/19", "entries-written: 19/25")
        text += "# fulcrum lost_events cpu=1 overwritten=0 refused=4\n"
        t = ftrace.parse_text(text)
        self.assertEqual(t.warnings, [
            "the header says 6 of 25 events were overwritten before the dump: the figures miss the oldest",
            "CPU 1 lost events: 0 overwritten, 4 refused (buffer full): the figures miss them"])
        code, _, err = tool("summary", write_temp(self, text))
        self.assertEqual(code, 0)
        self.assertIn("6 of 25 events were overwritten", err)

    def test_empty(self):
        with self.assertRaises(ftrace.TraceError) as e:
            ftrace.parse_text("# tracer: nop\n#\n")
        self.assertIn("no events", str(e.exception))

    def test_trace_cmd_report(self):
        """trace-cmd's form of the same trace gives the same figures."""
        a = trace_sched.replay(ftrace.read(GAPS))
        b = trace_sched.replay(ftrace.parse_text(as_trace_cmd(read(GAPS))))
        self.assertEqual(a.slices, b.slices)
        self.assertEqual(a.wakeups, b.wakeups)
        self.assertEqual(trace_sched.wasted_intervals(a), trace_sched.wasted_intervals(b))
        self.assertIsNone(ftrace.parse_text(as_trace_cmd(read(GAPS))).events[0].flags)


class Summary(unittest.TestCase):
    def test_hand_made_figures(self):
        r = trace_sched.replay(ftrace.read(GAPS))
        t = r.tasks
        # spin_a: CPU 0 1.000-1.004, preempted (R+), waits 1.004-1.0065, CPU 1 1.0065-1.015
        self.assertEqual((t[10].runtime, t[10].wait, t[10].latencies, t[10].migrations),
                         (12500000, 2500000, [], 1))
        # spin_b: woken 1.001 onto CPU 0 behind spin_a, runs 1.004-1.012
        self.assertEqual((t[11].runtime, t[11].wait, t[11].latencies), (8 * MS, 3 * MS, [3 * MS]))
        # sleeper_c: woken 1.010 onto CPU 1 behind spin_a, runs 1.015-1.020
        self.assertEqual((t[12].runtime, t[12].wait, t[12].latencies), (5 * MS, 5 * MS, [5 * MS]))
        # worker_d: woken 1.017 onto CPU 1, pulled to CPU 0 at 1.0174, runs 1.0175-1.020
        self.assertEqual((t[13].runtime, t[13].wait, t[13].latencies), (2500000, 500000, [500000]))
        self.assertEqual(trace_sched.cpu_times(r), {0: [14500000, 5500000], 1: [13500000, 6500000]})
        self.assertEqual(r.idle_state, {0: 5390000, 1: 0})
        self.assertEqual([(p, o, d, c) for _, p, o, d, c in r.migrations], [(10, 0, 1, "balance"),
                                                                            (13, 1, 0, "balance")])
        every = [x for task in t.values() for x in task.latencies]
        self.assertEqual([trace_sched.percentile(every, p) for p in (50, 90, 99, 100)],
                         [3 * MS, 5 * MS, 5 * MS, 5 * MS])

    def test_output(self):
        code, out, err = tool("summary", GAPS)
        self.assertEqual(code, 0, err)
        self.assertRegex(out, r"\n\s+11 spin_b\s+8\.000\s+3\.000\s+1\s+3000\.0\s+3000\.0\s+3000\.0\s+3000\.0\s+0\n")
        self.assertRegex(out, r"\n\s+all 4 tasks\s+28\.000\s+11\.000\s+3\s+3000\.0\s+5000\.0\s+5000\.0\s+5000\.0"
                         r"\s+2\n")
        self.assertRegex(out, r"\n\s+0\s+14\.500\s+5\.500\s+72\.5%\s+5\.390\s+5\n")
        self.assertIn("migrations (sched_migrate_task) by cause: 2 (balance 2;", out)
        self.assertIn("placement decisions (sched_select) by reason: prev 1 (0 to another CPU)", out)

    def test_side_by_side(self):
        code, out, err = tool("summary", GAPS, LINUX)
        self.assertEqual(code, 0, err)
        self.assertEqual(out.count("\ntrace: "), 1)  # both summaries, the first at the top
        self.assertRegex(out, r"\n  run ms, all tasks\s+28\.000\s+132\.181\n")
        self.assertRegex(out, r"\n  wake-up latency p90 us\s+5000\.0\s+\d+\.\d\n")
        self.assertRegex(out, r"\n  wasted ms \(any length\)\s+8\.400\s")

    def test_linux_trace(self):
        code, out, err = tool("summary", LINUX)
        self.assertEqual(code, 0, err)
        self.assertIn("388 events, 2 CPUs", out)
        self.assertRegex(out, r"\n\s+\d+ hackbench ")


class Wasted(unittest.TestCase):
    def test_known_gaps(self):
        r = trace_sched.replay(ftrace.read(GAPS))
        self.assertEqual([(c, s, e) for c, s, e, _ in trace_sched.wasted_intervals(r)],
                         [(1, 1001000000, 1006000000), (0, 1012000000, 1015000000), (0, 1017000000, 1017400000)])
        self.assertEqual(trace_sched.wasted_intervals(r)[0][3], [10, 11])

    def test_output_and_threshold(self):
        code, out, err = tool("wasted", GAPS)
        self.assertEqual(code, 0, err)
        self.assertIn("every task is taken to be allowed on every CPU", out)
        self.assertIn("cpu 1: 1.001000 to 1.006000 s, 5.000 ms idle while waiting: spin_a-10, spin_b-11", out)
        self.assertIn("total: 8.000 ms wasted in 2 stretches of at least 1 ms (8.400 ms in 3 stretches", out)
        code, out, _ = tool("wasted", "--min-ms", "0.3", GAPS)
        self.assertIn("total: 8.400 ms wasted in 3 stretches of at least 0.3 ms", out)
        code, out, _ = tool("wasted", "--min-ms", "4", GAPS)
        self.assertIn("total: 5.000 ms wasted in 1 stretches of at least 4 ms", out)

    def test_affinity_from_the_trace(self):
        """Fulcrum's sched_affinity lines narrow where a waiting task could have run; a forked
        child inherits its parent's mask; cpus_allowed_more= adds a later chunk of a mask."""
        def with_lines(*extra):
            head, sep, body = read(GAPS).partition("          <idle>-0       [000] d..2.     1.000000")
            pre = "".join(f"           kinit-1       [000] .....     1.000000: {e}\n" for e in extra)
            return head + pre + sep + body

        def stretches(text):
            r = trace_sched.replay(ftrace.parse_text(text))
            return r, [(c, s, e) for c, s, e, _ in trace_sched.wasted_intervals(r)]

        pins = ("sched_affinity: pid=10 cpus_allowed=0", "sched_affinity: pid=11 cpus_allowed=0",
                "sched_affinity: pid=20 cpus_allowed=1",
                "sched_process_fork: comm=kinit pid=20 child_comm=sleeper_c child_pid=12")
        r, got = stretches(with_lines(*pins))
        self.assertTrue(r.affinity_known)
        # CPU 1's stretch is gone (spin_a and spin_b may only run on CPU 0), and so is CPU 0's:
        # sleeper_c inherited CPU 1 only from its parent. worker_d has no mask: its 0.4 ms stays.
        self.assertEqual(got, [(0, 1017000000, 1017400000)])
        _, got = stretches(with_lines(*pins, "sched_affinity: pid=12 cpus_allowed_more=0"))
        self.assertEqual(got, [(0, 1012000000, 1015000000), (0, 1017000000, 1017400000)])

    def test_kernel_count_beside(self):
        """Fulcrum's trailer lines give the kernel's own count; both are printed per CPU."""
        text = read(GAPS) + ("# fulcrum wasted_idle_ns cpu=0 ns=4000000 since_boot=9000000\n"
                             "# fulcrum wasted_idle_ns cpu=1 ns=4000000 since_boot=4000000\n")
        self.assertEqual(ftrace.kernel_wasted(ftrace.parse_text(text)), {0: 4000000, 1: 4000000})
        code, out, err = tool("wasted", write_temp(self, text))
        self.assertEqual(code, 0, err)
        self.assertIn("  cpu 0: kernel 4.000 ms, trace 3.400 ms, difference 0.600 ms\n", out)
        self.assertIn("  cpu 1: kernel 4.000 ms, trace 5.000 ms, difference -1.000 ms\n", out)
        self.assertIn("  all: kernel 8.000 ms, trace 8.400 ms, difference -0.400 ms\n", out)

    def test_fulcrum_fields(self):
        """Fulcrum's own events read with their string fields (sd_level=MC, domain=NUMA)."""
        line = ("       hackbench-40      [003] d..3.     2.000000: sched_select: pid=41 prev_cpu=1 this_cpu=3 "
                "target=2 sd_level=MC reason=idle_sibling\n"
                "          <idle>-0       [002] d..2.     2.000100: sched_balance: cpu=2 domain=NUMA "
                "idle_type=newidle imbalance=1 busiest=-1 moved=0 result=balanced\n")
        evs = ftrace.parse_text("# tracer: nop\n" + line).events
        self.assertEqual(evs[0].fields["sd_level"], "MC")
        self.assertEqual(evs[1].num("busiest"), -1)

    def test_silent_cpus(self):
        """A CPU the header counts but no line comes from is unknown, or idle with
        --silent-idle; CPU 2 of 3 here would have been idle while spin_b waited."""
        text = read(GAPS).replace("#P:2", "#P:3")
        r = trace_sched.replay(ftrace.parse_text(text))
        self.assertEqual(r.cpus, [0, 1, 2])
        self.assertNotIn(2, [c for c, *_ in trace_sched.wasted_intervals(r)])
        self.assertIn("CPU 2: no event recorded there (the header counts 3 CPUs)", " ".join(r.notes))
        r = trace_sched.replay(ftrace.parse_text(text), silent_idle=True)
        self.assertIn((2, 1001000000, 1006000000), [(c, s, e) for c, s, e, _ in trace_sched.wasted_intervals(r)])
        self.assertEqual(trace_sched.cpu_times(r)[2], [0, 20 * MS])
        code, out, _ = tool("wasted", "--silent-idle", write_temp(self, text))
        self.assertIn("note: CPU 2: no event recorded there: taken as idle throughout (--silent-idle)", out)

    def test_affinity_from_trace(self):
        """A task whose cpus_allowed leaves the idle CPU out wastes nothing there."""
        text = read(GAPS).replace("comm=sleeper_c pid=12 prio=120 target_cpu=001\n",
                                  "comm=sleeper_c pid=12 prio=120 target_cpu=001 cpus_allowed=0x2\n", 1)
        r = trace_sched.replay(ftrace.parse_text(text))
        self.assertTrue(r.affinity_known)
        self.assertEqual([(c, s) for c, s, _, _ in trace_sched.wasted_intervals(r)],
                         [(1, 1001000000), (0, 1017000000)])


class Check(unittest.TestCase):
    def test_linux_trace_passes(self):
        code, out, err = tool("check", LINUX)
        self.assertEqual(code, 0, out + err)
        self.assertIn("check: 388 event lines checked", out)
        self.assertIn("0 lines differ", out)

    def test_hand_made_trace_passes(self):
        code, out, err = tool("check", GAPS)
        self.assertEqual(code, 0, out + err)
        self.assertIn("not in the Linux trace, not checked: sched_select 1", out)

    def test_garbled_lines_named(self):
        lines = read(LINUX).splitlines(keepends=True)

        def first(pattern, after=0):
            return next(i for i, ln in enumerate(lines) if i > after and re.search(pattern, ln))
        edits = {
            first(r"\] dNh2\. "): (lambda s: s.replace("] dNh2. ", "] dNh2 "), "flags 'dNh2' are 4 characters"),
            first(r"^\s+<idle>-0 .*cpu_idle"): (lambda s: re.sub(r"^\s+<idle>", "<idle>", s),
                                               "is not right-aligned in 16 columns"),
            first(r"prev_state=R "): (lambda s: s.replace("prev_state=R ", "prev_state=running "),
                                      "prev_state=running"),
            first(r"sched_waking:.*target_cpu=000"): (lambda s: s.replace("target_cpu=000", "target_cpu=0"),
                                                     "target_cpu=0: expected a decimal padded to 3 digits"),
            first(r"rcu_preempt-15      \["): (lambda s: s.replace("-15      [", "-15 ["),
                                               "not left-aligned in 7 columns"),
            first(r"sched_switch:.*prev_state=S "): (lambda s: s.replace(" prev_prio=120", ""),
                                                     "expected prev_comm prev_pid prev_prio"),
            first(r"cpu_idle: state=1 cpu_id=0"): (lambda s: s.replace("state=1 cpu_id=0", "cpu_id=0 state=1"),
                                                   "expected state cpu_id"),
        }
        self.assertEqual(len(edits), 7, "two edits picked the same line")
        for i, (fn, _) in edits.items():
            before = lines[i]
            lines[i] = fn(lines[i])
            self.assertNotEqual(before, lines[i], f"edit of line {i + 1} changed nothing")
        code, out, _ = tool("check", write_temp(self, "".join(lines)))
        self.assertEqual(code, 1)
        named = sorted({int(m) for m in re.findall(r"^\S+:(\d+): ", out, re.M)})
        self.assertEqual(named, sorted(i + 1 for i in edits))
        for i, (_, why) in edits.items():
            self.assertRegex(out, rf"(?m)^\S+:{i + 1}: .*{re.escape(why)}")
        self.assertIn(f"{len(edits)} lines differ", out)

    def test_order_and_consistency(self):
        """Well-formed lines that contradict each other: time going back, a switch out of a
        task the CPU did not run, a switch recorded by another task, idle on the wrong CPU.
        The recorded Linux trace has none (nor had three longer ones, up to 6,541 events on 8
        CPUs, taken for docs/trace-tool.md)."""
        lines = read(GAPS).splitlines(keepends=True)

        def first(pattern):
            return next(i for i, ln in enumerate(lines) if re.search(pattern, ln))
        edits = {
            first(r"1\.010000: sched_waking"): (lambda s: s.replace("1.010000", "1.003000"),
                                                "time 1.003000 s is before the line above's 1.006500 s"),
            first(r"1\.015000: sched_switch"): (lambda s: s.replace("prev_comm=spin_a prev_pid=10",
                                                                     "prev_comm=spin_b prev_pid=11")
                                                 .replace("spin_a-10 ", "spin_b-11 "),
                                                 "prev_pid=11, but CPU 1's previous sched_switch switched in "
                                                 "pid 10"),
            first(r"1\.012000: sched_switch"): (lambda s: s.replace("spin_b-11 ", "spin_a-10 "),
                                                "recorded by pid 10, but prev_pid=11"),
            first(r"1\.012010: cpu_idle"): (lambda s: s.replace("cpu_id=0", "cpu_id=1"),
                                            "cpu_id=1 on CPU 0's line"),
        }
        for i, (fn, _) in edits.items():
            before = lines[i]
            lines[i] = fn(lines[i])
            self.assertNotEqual(before, lines[i], f"edit of line {i + 1} changed nothing")
        code, out, _ = tool("check", write_temp(self, "".join(lines)))
        self.assertEqual(code, 1)
        for i, (_, why) in edits.items():
            self.assertRegex(out, rf"(?m)^\S+:{i + 1}: .*{re.escape(why)}")
        self.assertIn(f"{len(edits)} lines differ", out)

    def test_header_required(self):
        text = "".join(ln for ln in read(GAPS).splitlines(keepends=True) if not ln.startswith("#"))
        problems, _ = trace_grammar.check(text, trace_grammar.reference_events(ftrace.read(LINUX)))
        self.assertEqual(problems, [(1, None, "expected the tracefs header's first line '# tracer: nop'")])

    def test_header_block(self):
        """The 12 header lines must be Linux's; the counts on the entries line may differ."""
        lines = read(GAPS).splitlines(keepends=True)
        code, out, _ = tool("check", write_temp(self, "".join(lines)))
        self.assertEqual(code, 0, out)
        broken = lines[:8] + [lines[8][:30] + " " * 200 + lines[12]] + lines[9:12] + lines[13:]
        code, out, _ = tool("check", write_temp(self, "".join(broken)))
        self.assertEqual(code, 1)
        self.assertRegex(out, r"(?m)^\S+:9: header line 9: expected '#                              \|\|\| / _-=> "
                         r"migrate-disable', got ")
        self.assertIn("1 lines differ", out)  # the event glued onto line 9 is not read

    def test_recorded_fulcrum_traces(self):
        """Every other trace in tests/data/traces (Fulcrum's, from its trace channel) has
        Linux's shape wherever Linux has the event."""
        others = [p for p in sorted(glob.glob(os.path.join(TOP, "tests", "data", "traces", "*.trace")))
                  if os.path.abspath(p) != LINUX]
        if not others:
            self.skipTest("no Fulcrum trace in tests/data/traces yet")
        for path in others:
            with self.subTest(trace=os.path.basename(path)):
                code, out, err = tool("check", path)
                self.assertEqual(code, 0, out[-3000:] + err)

    def test_recorded_fulcrum_wasted_counts(self):
        """Where a Fulcrum trace carries the kernel's own wasted-CPU count, it agrees with the
        trace's to a tick per stretch: the kernel samples at each tick and counts the whole
        tick period when it finds a waiter, so a stretch costs it at most a tick more or less.
        A CPU that records no event is taken as idle throughout (--silent-idle): an idle
        Fulcrum CPU records nothing until it leaves idle; were it running one task instead,
        the kernel's count there would be 0 and the figures would disagree."""
        tick = 4000000  # 250 Hz
        found = 0
        for path in sorted(glob.glob(os.path.join(TOP, "tests", "data", "traces", "*.trace"))):
            trace = ftrace.read(path)
            kernel = ftrace.kernel_wasted(trace)
            if not kernel:
                continue
            found += 1
            r = trace_sched.replay(trace, silent_idle=True)
            for c, ns in kernel.items():
                runs = r.wasted.get(c, [])
                mine = sum(e - s for s, e, _ in runs)
                with self.subTest(trace=os.path.basename(path), cpu=c):
                    self.assertLessEqual(abs(ns - mine), tick * max(len(runs), 1))
        if not found:
            self.skipTest("no trace in tests/data/traces carries '# fulcrum wasted_idle_ns' lines yet")


class Plot(unittest.TestCase):
    def png_size(self, path):
        with open(path, "rb") as f:
            head = f.read(24)
        self.assertEqual(head[:8], b"\x89PNG\r\n\x1a\n")
        self.assertEqual(head[12:16], b"IHDR")
        return struct.unpack(">II", head[16:24])

    def test_size_and_svg(self):
        with tempfile.TemporaryDirectory() as d:
            base = os.path.join(d, "timeline")
            code, out, err = tool("plot", LINUX, "-o", base, "--size", "640x240")
            self.assertEqual(code, 0, err)
            self.assertEqual(self.png_size(base + ".png"), (640, 240))
            svg = read(base + ".svg")
            self.assertRegex(svg, r'<svg[^>]*width="640"[^>]*height="240"')
            self.assertIn("hackbench", svg)
            self.assertIn("migration", svg)

    def test_window(self):
        with tempfile.TemporaryDirectory() as d:
            base = os.path.join(d, "w")
            code, _, err = tool("plot", GAPS, "-o", base, "--from", "1.010", "--to", "1.016", "--size", "500x200")
            self.assertEqual(code, 0, err)
            self.assertEqual(self.png_size(base + ".png"), (500, 200))
            data = read(base + ".dat")
            # spin_a's second stretch on CPU 1, 1.0065-1.015, is cut to the window: 0 to 5 ms
            self.assertIn(" 1 0.000000 5.000000 ", data)
            code, _, err = tool("plot", GAPS, "-o", base, "--from", "1.02", "--to", "1.01")
            self.assertNotEqual(code, 0)
            self.assertIn("empty window", err)


class Json(unittest.TestCase):
    def test_flows(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "t.json")
            code, _, err = tool("json", GAPS, "-o", out)
            self.assertEqual(code, 0, err)
            with open(out) as f:
                doc = json.load(f)
        ev = doc["traceEvents"]
        starts = {e["id"]: e for e in ev if e["ph"] == "s"}
        ends = {e["id"]: e for e in ev if e["ph"] == "f"}
        self.assertEqual(len(starts), 3)  # spin_b, sleeper_c, worker_d are woken and run
        self.assertEqual(set(starts), set(ends))
        for i, s in starts.items():
            self.assertLessEqual(s["ts"], ends[i]["ts"])
        d_flow = next(i for i, s in starts.items() if "worker_d" in s["name"])
        self.assertEqual((starts[d_flow]["tid"], starts[d_flow]["ts"]), (1, 1017000.0))
        self.assertEqual((ends[d_flow]["tid"], ends[d_flow]["ts"]), (0, 1017500.0))
        slices = [e for e in ev if e["ph"] == "X"]
        self.assertIn({"ph": "X", "name": "idle", "cat": "idle", "pid": 1, "tid": 0, "ts": 1012000.0,
                       "dur": 5500.0, "args": {}}, slices)
        self.assertIn({"ph": "X", "name": "spin_b-11", "cat": "sched", "pid": 1, "tid": 0, "ts": 1004000.0,
                       "dur": 8000.0, "args": {"pid": 11, "comm": "spin_b"}}, slices)

    def test_linux_trace(self):
        code, out, err = tool("json", LINUX)
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        self.assertGreater(sum(1 for e in doc["traceEvents"] if e["ph"] == "s"), 10)


class BenchTrace(unittest.TestCase):
    """tools/bench --trace: the command lines, Fulcrum's channel, the Linux guest's init and
    the harness's cutting its trace out of the console log."""

    def test_command_lines(self):
        p = subprocess.run([sys.executable, os.path.join(TOP, "tools", "bench"), "--dry-run", "--trace", "--linux",
                            "--preset", "smt", "--variants", "stock=sched_select=stock", "--runs", "1"],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"(?m)^  stock +Fulcrum +sched_select=stock trace=sched schedstat qemu_exit ")
        self.assertRegex(p.stdout, r"(?m)^  linux +Linux +console=ttyS0 .* bench_trace=1 -- /bin/hackbench ")

    def test_fulcrum_channel(self):
        argv = bench_run.machine_argv("smt", "/x/fulcrum.iso", "tcg", False, trace="/x/stock-run1.trace")
        self.assertIn("file,id=fulcrum-trace,path=/x/stock-run1.trace", argv)
        self.assertIn("isa-debugcon,iobase=0xe9,chardev=fulcrum-trace", argv)
        self.assertEqual(sum("isa-debugcon" in a for a in argv), 1, argv)

    def test_init_enables_the_events(self):
        for event in bench_linux.TRACE_EVENTS:
            self.assertIn(f" {event}", bench_linux.INIT_SCRIPT)
        self.assertIn(bench_linux.TRACE_BEGIN, bench_linux.INIT_SCRIPT)
        self.assertIn(bench_linux.TRACE_END, bench_linux.INIT_SCRIPT)

    def test_trace_from_log(self):
        body = "# tracer: nop\r\n          <idle>-0       [000] d..2.     1.000000: x: y\r\n"
        log = f"boot\r\n{bench_linux.TRACE_BEGIN}\r\n{body}{bench_linux.TRACE_END}\r\ninit: done\r\n"
        self.assertEqual(bench_linux.trace_from_log(log), body.replace("\r\n", "\n"))
        self.assertIsNone(bench_linux.trace_from_log(log.split(bench_linux.TRACE_END)[0]))


if __name__ == "__main__":
    unittest.main()
