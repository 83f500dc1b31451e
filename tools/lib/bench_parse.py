"""Reading one benchmark run's serial log, Fulcrum's or the Linux guest's.

A run's log holds the workload's `RESULT name=<bench> key=value ...
value=<number> unit=<unit>` lines (docs/architecture.md, "Talking to the host"),
init's line saying how the workload ended, and, when the kernel was booted
with `schedstat`, its end-of-run scheduler report: /proc/schedstat version
15 lines (Linux 6.12 prints version 16, read the same way), `wasted cpuN <ns>`, `migrations cpuN <count>` (logs from before
that line existed lack it) and one line per task. parse_run() turns a log
into a RunLog, or raises LogError saying plainly what is wrong with it (cut
short, garbled, a crash, a workload that failed), so no half-read run ever
reaches a table.
"""
import math
import os
import re
from dataclasses import dataclass, field

# Printk's "[    1.234567] " prefix, terminal escapes (SeaBIOS, GRUB) and carriage returns.
STAMP = re.compile(r"^\[\s*\d+\.\d+\] ")
ESCAPE = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|[@-Z\\-_])")

# init's report (user/init.c; the Linux guest's /init prints the same words).
EXITED = re.compile(r"^init: (\S+) exited with status (\d+)$")
KILLED = re.compile(r"^init: (\S+) killed by signal (\d+)(?: \((\w+)\))?$")
NOT_RUN = re.compile(r"^init: (\S+): (\w+) \((.*)\)$")
TIME = re.compile(r"^Time: (\d+(?:\.\d+)?)$")
CRASH = ("Kernel panic", "BUG: ", "Oops: ")  # at the start of a line

FULCRUM_READY = "fulcrum: ready"
FULCRUM_HALTED = "fulcrum: halted"

# The /proc/schedstat versions read: 15 (Fulcrum, Linux 3.8 to 6.11) and 16 (Linux 6.12),
# which only swapped the first two idle types' columns; the sums below use all three.
# Any other version line fails the run instead of being passed over.
SCHEDSTAT_VERSIONS = ("version 15", "version 16")
VERSION_LINE = re.compile(r"^version \d+$")
# A /proc/schedstat version 15 domain line: the mask, then 36 counters. Per idle type
# (idle, busy, newly idle; version 16: busy, idle, newly idle) 8 counters, lb_gained 5th;
# then alb_count, alb_failed, alb_pushed, sbe_*, sbf_*, ttwu_wake_remote,
# ttwu_move_affine, ttwu_move_balance.
DOMAIN_FIELDS = 36
LB_GAINED = (4, 12, 20)
ALB_PUSHED = 26
CPU_FIELDS = 9  # yld_count, 0, sched_count, sched_goidle, ttwu_count, ttwu_local,
RQ_CPU_TIME, RUN_DELAY = 6, 7  # rq_cpu_time, run_delay, pcount
TASK_HEADER = ("pid", "name", "cpu", "state", "nice", "runtime_ns", "wait_ns", "timeslices",
               "migrations", "voluntary", "involuntary")
TASK_CLASS_COLUMNS = ("class", "rtprio")  # since the real-time class: two more at the end


class LogError(Exception):
    """A run's log that cannot be used; the message says why, in words for the user."""


@dataclass
class Result:
    name: str
    fields: dict  # the key=value pairs between name and value, in order
    value: float
    unit: str
    line: int  # 1-based line number in the log


@dataclass
class SchedStat:
    """The kernel's end-of-run report, summed over CPUs (None: the report lacks it)."""
    cpus: int = 0
    run_ns: int = 0  # sum of rq_cpu_time: time tasks ran
    delay_ns: int = 0  # sum of run_delay: time tasks waited on a runqueue
    wasted_ns: int = None  # sum of `wasted cpuN`: idle while an allowed task waited elsewhere
    pulled: int = 0  # load balancer moves: lb_gained (every idle type) + alb_pushed, all domains
    migrations: int = None  # sum of `migrations cpuN`: every task moved to another CPU
    tasks: list = field(default_factory=list)  # the task lines: (pid, name, migrations)

    def minus(self, before):
        """The counters' growth since an earlier report (the Linux guest prints one before
        the workload starts, so the boot's share comes out). A total only one of the two
        reports has cannot be split, so it is None."""
        migrations = None
        if self.migrations is not None and before.migrations is not None:
            migrations = self.migrations - before.migrations
        return SchedStat(self.cpus, self.run_ns - before.run_ns, self.delay_ns - before.delay_ns,
                         self.wasted_ns, self.pulled - before.pulled, migrations, self.tasks)

    @property
    def queued_share(self):
        """The share of runnable time spent queued behind another task."""
        total = self.run_ns + self.delay_ns
        return self.delay_ns / total if total else None


@dataclass
class RunLog:
    program: str
    status: int
    results: list  # [Result]
    time_s: float = None  # hackbench's "Time: X.XXX", if printed
    sched: SchedStat = None
    lines: int = 0


def clean_lines(text):
    """The log as lines without printk timestamps, escapes and carriage returns."""
    text = ESCAPE.sub("", text.replace("\r", ""))
    return [STAMP.sub("", line, count=1) for line in text.split("\n")]


def parse_result(line, number):
    """One RESULT line -> Result; LogError naming the line if it is malformed."""
    def bad(why):
        return LogError(f"line {number}: malformed RESULT line ({why}): {line.strip()!r}")
    words = line.split()
    if words[0] != "RESULT":
        raise bad("does not start with RESULT")
    pairs = []
    for w in words[1:]:
        key, eq, value = w.partition("=")
        if not eq or not key or not value:
            raise bad(f"{w!r} is not key=value")
        pairs.append((key, value))
    keys = [k for k, _ in pairs]
    if len(pairs) < 3 or keys[0] != "name" or keys[-2:] != ["value", "unit"]:
        raise bad("expected name=... first and value=... unit=... last")
    if len(set(keys)) != len(keys):
        raise bad("a key appears twice")
    try:
        value = float(pairs[-2][1])
    except ValueError:
        raise bad(f"value {pairs[-2][1]!r} is not a number") from None
    if not math.isfinite(value):
        raise bad(f"value {pairs[-2][1]!r} is not finite")
    return Result(pairs[0][1], dict(pairs[1:-2]), value, pairs[-1][1], number)


def _ints(words, n, what, number):
    if len(words) != n or not all(w.isdigit() for w in words):
        raise LogError(f"line {number}: schedstat {what} line should have {n} counters, got "
                       f"{' '.join(words)!r}")
    return [int(w) for w in words]


def parse_schedstat(lines, start):
    """The report from its `version 15` (or 16) line (index start) on -> SchedStat."""
    s = SchedStat()
    wasted, migrations = {}, {}
    cpus = set()
    in_tasks = class_columns = False
    for i in range(start + 1, len(lines)):
        line, number = lines[i].strip(), i + 1
        words = line.split()
        if not words:
            if in_tasks:
                break
            continue
        head = words[0]
        if line.startswith("timestamp "):
            continue
        if re.fullmatch(r"cpu\d+", head):
            c = _ints(words[1:], CPU_FIELDS, "cpu", number)
            cpus.add(int(head[3:]))
            s.run_ns += c[RQ_CPU_TIME]
            s.delay_ns += c[RUN_DELAY]
        elif re.fullmatch(r"domain\d+", head) and len(words) > 1:
            d = _ints(words[2:], DOMAIN_FIELDS, "domain", number)
            s.pulled += sum(d[k] for k in LB_GAINED) + d[ALB_PUSHED]
        elif head == "wasted" and len(words) == 3 and re.fullmatch(r"cpu\d+", words[1]):
            if not words[2].isdigit():
                raise LogError(f"line {number}: schedstat wasted line has no number: {line!r}")
            wasted[int(words[1][3:])] = int(words[2])
        elif head == "migrations" and not in_tasks:
            if len(words) != 3 or not re.fullmatch(r"cpu\d+", words[1]) or not words[2].isdigit():
                raise LogError(f"line {number}: schedstat migrations line should be 'migrations cpuN "
                               f"COUNT', got {line!r}")
            migrations[int(words[1][3:])] = int(words[2])
        elif tuple(words) in (TASK_HEADER, TASK_HEADER + TASK_CLASS_COLUMNS):
            in_tasks = True
            class_columns = len(words) > len(TASK_HEADER)
        elif in_tasks:
            if class_columns:
                words = words[:-len(TASK_CLASS_COLUMNS)]
            # pid name cpu state nice, then six counters; the name may hold spaces.
            if len(words) < 11 or not words[0].isdigit() or not words[-9].isdigit() or \
                    not all(re.fullmatch(r"-?\d+", w) for w in words[-7:]):
                break
            s.tasks.append((int(words[0]), " ".join(words[1:-9]), int(words[-3])))
        else:
            break
    if not cpus:
        raise LogError(f"line {start + 1}: the schedstat report has no cpu lines (cut short?)")
    s.cpus = len(cpus)
    if wasted:
        if set(wasted) != cpus:
            raise LogError(f"the schedstat report has cpu lines for {len(cpus)} CPUs but wasted lines for "
                           f"{len(wasted)} (cut short?)")
        s.wasted_ns = sum(wasted.values())
    if migrations:
        if set(migrations) != cpus:
            raise LogError(f"the schedstat report has cpu lines for {len(cpus)} CPUs but migrations lines "
                           f"for {len(migrations)} (cut short?)")
        s.migrations = sum(migrations.values())
    return s


def parse_run(text, kind="fulcrum", schedstat=True):
    """A run's serial log -> RunLog. kind: "fulcrum" or "linux"; schedstat: the kernel was
    asked for its end-of-run report (Fulcrum's `schedstat`), so it must be there whole.
    Raises LogError when the log is empty, cut short, garbled, shows a crash or a failed
    workload."""
    if not text.strip():
        raise LogError("the log is empty: QEMU printed nothing (did it start?)")
    lines = clean_lines(text)
    last = next((ln for ln in reversed(lines) if ln.strip()), "")
    for number, line in enumerate(lines, 1):
        if line.startswith(CRASH):
            raise LogError(f"line {number}: the kernel crashed: {line.strip()!r}")
    if kind == "fulcrum" and not any(ln.startswith(FULCRUM_READY) for ln in lines):
        raise LogError(f"the log ends before Fulcrum finished booting (no {FULCRUM_READY!r} line); "
                       f"last line: {last!r}")

    end = None  # index of init's line about the workload
    for i, line in enumerate(lines):
        m = EXITED.match(line) or KILLED.match(line) or NOT_RUN.match(line)
        if m:
            end = (i, m)
    if end is None:
        raise LogError(f"the log ends before the workload finished (no 'init: PROGRAM exited "
                       f"with status N' line); last line: {last!r}")
    i, m = end
    program = m.group(1)
    if m.re is KILLED:
        raise LogError(f"line {i + 1}: {program} was killed by signal {m.group(2)}"
                       + (f" ({m.group(3)})" if m.group(3) else "") + _tail(lines, i))
    if m.re is NOT_RUN:
        raise LogError(f"line {i + 1}: {program} could not be run: {m.group(2)} ({m.group(3)})")
    status = int(m.group(2))
    if status != 0:
        raise LogError(f"line {i + 1}: {program} exited with status {status}" + _tail(lines, i))

    results, time_s = [], None
    for number, line in enumerate(lines[:i], 1):
        stripped = line.strip()
        if stripped.startswith("RESULT "):
            results.append(parse_result(stripped, number))
        elif "RESULT name=" in line:
            raise LogError(f"line {number}: a RESULT line run into other output (garbled): {stripped!r}")
        else:
            t = TIME.match(stripped)
            if t:
                time_s = float(t.group(1))
    from bench_clients import PARSERS as CLIENT_PARSERS  # here: it imports this module
    client = os.path.basename(program)
    if not results and client in CLIENT_PARSERS:  # a real client: its own output read
        start = next((j for j in range(i - 1, -1, -1)
                      if lines[j].startswith(("init: starting", "bench-init: "))), -1)
        results = CLIENT_PARSERS[client](lines[start + 1:i])
    if not results and time_s is None:
        raise LogError(f"{program} exited with status 0 but printed no RESULT lines")

    sched = None
    for j, line in enumerate(lines):
        if VERSION_LINE.match(line.strip()) and line.strip() not in SCHEDSTAT_VERSIONS:
            raise LogError(f"line {j + 1}: /proc/schedstat {line.strip()} is not one this harness reads "
                           f"({' and '.join(SCHEDSTAT_VERSIONS)})")
    starts = [j for j in range(i, len(lines)) if lines[j].strip() in SCHEDSTAT_VERSIONS]
    if schedstat and not starts:
        raise LogError(f"no schedstat report after the workload ended (no 'version 15' line; "
                       f"cut short?); last line: {last!r}")
    if starts:
        sched = parse_schedstat(lines, starts[-1])
        before = [j for j in range(i) if lines[j].strip() in SCHEDSTAT_VERSIONS]
        if before:
            sched = sched.minus(parse_schedstat(lines, before[-1]))
    if kind == "fulcrum" and not any(ln.startswith(FULCRUM_HALTED) for ln in lines[i:]):
        raise LogError(f"the log ends before Fulcrum halted (no {FULCRUM_HALTED!r} line; cut short?); "
                       f"last line: {last!r}")
    return RunLog(program, status, results, time_s, sched, len(lines))


def _tail(lines, end):
    """Why the workload failed, from its output before init's verdict: its first line
    saying FAIL (the cause, usually) and its last line."""
    start = next((j for j in range(end - 1, -1, -1)
                  if lines[j].startswith(("init: starting", "bench-init: "))), -1)
    out = [ln.strip() for ln in lines[start + 1:end] if ln.strip()]
    if not out:
        return ""
    first = next((ln for ln in out if "FAIL" in ln), None)
    shown = [first] if first else []
    if out[-1] != first:
        shown.append(out[-1])
    return "; it printed: " + " ... ".join(shown)
