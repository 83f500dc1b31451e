"""What a scheduler trace says happened: who ran where, who waited, and for how long.

replay() walks a trace's events (ftrace.Trace) in time order and keeps, per CPU, the task
on it, and per task its state: running on a CPU, runnable on a CPU's queue (woken, or
preempted: sched_switch's prev_state R or R+) or sleeping. From that it records
  - slices: (cpu, pid, comm, start, end) for every stretch a task (pid 0: idle) ran;
  - per task its run time, its wait time (runnable, not running) and its wake-up
    latencies, from sched_waking (or sched_wakeup when there is no waking) to the
    sched_switch that runs it;
  - wake-up edges (waker's CPU and time -> the woken task's switch-in), migrations
    (sched_migrate_task) and Fulcrum's placement decisions (sched_select);
  - wasted stretches: a CPU idle (idle task on it, its queue empty) while a task allowed
    on it waited on another CPU's queue behind the task running there (Lozi et al., "The
    Linux Scheduler: a Decade of Wasted Cores", EuroSys 2016).
Before a CPU's first sched_switch its task is taken to be that switch's prev, from the
trace's first event on; what a task did before the trace began is not known.
"""
import math
import re
from dataclasses import dataclass, field

import ftrace


@dataclass
class Task:
    pid: int
    comm: str
    runtime: int = 0  # ns
    wait: int = 0  # ns runnable but not running
    latencies: list = field(default_factory=list)  # ns, waking -> running
    migrations: int = 0
    switches_in: int = 0
    state: str = "unknown"  # running, runnable, sleeping, dead, unknown
    cpu: int = None  # where it runs or is queued
    since: int = None  # when it became runnable
    waking: int = None  # the pending wake-up's time
    waker_cpu: int = None
    allowed: frozenset = None  # CPUs it may run on, when the trace says


@dataclass
class Replay:
    start: int
    end: int
    cpus: list
    tasks: dict  # pid -> Task
    slices: list  # (cpu, pid, comm, start, end)
    wakeups: list  # (waking ts, waker cpu, pid, switch-in ts, cpu)
    migrations: list  # (ts, pid, orig, dest, cause)
    selects: list  # the sched_select Events
    balances: list  # the sched_balance Events
    idle_state: dict  # cpu -> ns in a cpu_idle state (enter to exit)
    wasted: dict  # cpu -> [(start, end, [waiting pids])]
    affinity_known: bool
    has_wakeup: bool
    notes: list


def parse_cpulist(text):
    """'0-3,6' or a hex mask '0x4f' -> frozenset of CPUs."""
    text = text.strip()
    if text.startswith("0x") or text.startswith("0X"):
        mask = int(text, 16)
        return frozenset(i for i in range(mask.bit_length()) if mask >> i & 1)
    out = set()
    for part in filter(None, text.split(",")):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return frozenset(out)


def trace_cpus(trace):
    cpus = set()
    for ev in trace.events:
        cpus.add(ev.cpu)
        for key in ("target_cpu", "orig_cpu", "dest_cpu", "cpu_id"):
            if key in ev.fields:
                cpus.add(ev.num(key))
    return sorted(cpus)


def header_cpus(trace):
    """The number of CPUs tracefs's header counts ('#P:8'), or 0."""
    for line in trace.header:
        m = re.search(r"#P:(\d+)", line)
        if m:
            return int(m.group(1))
    return 0


def replay(trace, silent_idle=False):
    """Replays the trace. A CPU with no sched_switch but cpu_idle lines ran its idle task
    throughout; one that records no event at all (counted only by the header's #P) is
    unknown, or idle throughout with silent_idle."""
    evs = trace.events
    cpus = sorted(set(trace_cpus(trace)) | set(range(header_cpus(trace))))
    recorded = {ev.cpu for ev in evs}
    idle_lines = {ev.cpu for ev in evs if ev.name == "cpu_idle"}
    start, end = evs[0].ts, evs[-1].ts
    tasks = {}
    has_wakeup = any(ev.name in ("sched_wakeup", "sched_wakeup_new") for ev in evs)
    affinity_known = any("cpus_allowed" in ev.fields for ev in evs)

    def task(pid, comm=None):
        t = tasks.get(pid)
        if t is None:
            t = tasks[pid] = Task(pid, comm or "?")
        elif comm and comm not in ("<...>", "?"):
            t.comm = comm
        return t

    # Each CPU's task before its first switch: that switch's prev.
    curr, since = {}, {}
    for ev in evs:
        if ev.name == "sched_switch" and ev.cpu not in curr:
            curr[ev.cpu], since[ev.cpu] = ev.num("prev_pid"), start
            t = task(ev.num("prev_pid"), ev.fields["prev_comm"])
            t.state, t.cpu = "running", ev.cpu
    inferred = [c for c in cpus if c not in curr and c in idle_lines]
    silent = [c for c in cpus if c not in curr and c not in recorded]
    for c in inferred + (silent if silent_idle else []):
        curr[c], since[c] = 0, start
        task(0, "swapper")
    slices, wakeups, migrations, selects, balances = [], [], [], [], []
    idle_state, idle_since = {c: 0 for c in cpus}, {}
    wasted = {c: [] for c in cpus}
    last = start

    def waiting_now():
        """(idle CPUs with an empty queue, {cpu: [pids waiting behind its running task]})."""
        queued = {}
        for t in tasks.values():
            if t.state == "runnable" and t.pid != 0:
                queued.setdefault(t.cpu, []).append(t.pid)
        idle = [c for c in cpus if curr.get(c) == 0 and not queued.get(c)]
        behind = {c: pids for c, pids in queued.items() if curr.get(c) not in (None, 0)}
        return idle, behind

    def account(upto):
        """The state since the previous event holds until upto: add it to wasted."""
        if upto <= last:
            return
        idle, behind = waiting_now()
        for c in idle:
            pids = sorted(p for d, ps in behind.items() if d != c for p in ps
                          if tasks[p].allowed is None or c in tasks[p].allowed)
            if not pids:
                continue
            runs = wasted[c]
            if runs and runs[-1][1] == last:
                runs[-1] = (runs[-1][0], upto, sorted(set(runs[-1][2]) | set(pids)))
            else:
                runs.append((last, upto, pids))

    def make_runnable(t, cpu, ts):
        if t.state in ("running", "runnable"):
            return
        t.state, t.cpu, t.since = "runnable", cpu, ts

    for ev in evs:
        account(ev.ts)
        last = ev.ts
        f = ev.fields
        if "cpus_allowed" in f and "pid" in f:
            task(ev.num("pid")).allowed = parse_cpulist(f["cpus_allowed"])
        if "cpus_allowed_more" in f and "pid" in f:  # Fulcrum's later chunks of a large mask
            t = task(ev.num("pid"))
            t.allowed = (t.allowed or frozenset()) | parse_cpulist(f["cpus_allowed_more"])
        if ev.name == "sched_switch":
            c, prev_pid, next_pid = ev.cpu, ev.num("prev_pid"), ev.num("next_pid")
            prev = task(prev_pid, f["prev_comm"])
            slices.append((c, prev_pid, prev.comm, since[c], ev.ts))
            if prev_pid != 0:
                prev.runtime += ev.ts - since[c]
                state = f["prev_state"]
                if state.startswith("R"):
                    prev.state, prev.cpu, prev.since = "runnable", c, ev.ts
                else:
                    prev.state = "dead" if ("X" in state or "Z" in state) else "sleeping"
            nxt = task(next_pid, f["next_comm"])
            if next_pid != 0:
                if nxt.state == "runnable" and nxt.since is not None:
                    nxt.wait += ev.ts - nxt.since
                if nxt.waking is not None:
                    nxt.latencies.append(ev.ts - nxt.waking)
                    wakeups.append((nxt.waking, nxt.waker_cpu, next_pid, ev.ts, c))
                nxt.switches_in += 1
            nxt.state, nxt.cpu, nxt.since, nxt.waking = "running", c, None, None
            curr[c], since[c] = next_pid, ev.ts
        elif ev.name in ftrace.WAKE_EVENTS:
            t = task(ev.num("pid"), f["comm"])
            if t.state in ("running", "runnable") and ev.name != "sched_wakeup_new":
                continue  # already on a CPU or a queue: nothing to wait for
            if t.waking is None:
                t.waking, t.waker_cpu = ev.ts, ev.cpu
            if ev.name != "sched_waking" or not has_wakeup:
                make_runnable(t, ev.num("target_cpu"), ev.ts)
                t.cpu = ev.num("target_cpu")
        elif ev.name == "sched_migrate_task":
            t = task(ev.num("pid"), f["comm"])
            t.migrations += 1
            # in a wake-up: between sched_waking and the wake-up that queues the task
            if t.waking is not None and t.state not in ("runnable", "running"):
                cause = "wake-up"
            else:
                cause = "balance" if t.state in ("runnable", "running") else "other"
            migrations.append((ev.ts, t.pid, ev.num("orig_cpu"), ev.num("dest_cpu"), cause))
            if t.state == "runnable" or t.waking is not None:
                t.cpu = ev.num("dest_cpu")
        elif ev.name == "sched_process_fork":
            parent = task(ev.num("pid"), f["comm"])
            child = task(ev.num("child_pid"), f["child_comm"])
            if child.allowed is None:
                child.allowed = parent.allowed  # a child inherits its parent's affinity
        elif ev.name == "sched_process_exit":
            task(ev.num("pid"), f["comm"])
        elif ev.name == "cpu_idle":
            c, state = ev.num("cpu_id"), ev.num("state")
            if state == ftrace.CPU_IDLE_EXIT:
                if c in idle_since:
                    idle_state[c] = idle_state.get(c, 0) + ev.ts - idle_since.pop(c)
            else:
                idle_since.setdefault(c, ev.ts)
        elif ev.name == "sched_select":
            selects.append(ev)
        elif ev.name == "sched_balance":
            balances.append(ev)
    for c in cpus:
        if c in since:
            t = tasks[curr[c]]
            slices.append((c, t.pid, t.comm, since[c], end))
            if t.pid != 0:
                t.runtime += end - since[c]
        if c in idle_since:
            idle_state[c] += end - idle_since[c]
    for t in tasks.values():  # still waiting at the end
        if t.state == "runnable" and t.since is not None and t.pid != 0:
            t.wait += end - t.since
    notes = []
    def listed(cs):
        return ", ".join(map(str, cs))
    if inferred:
        notes.append(f"CPU {listed(inferred)}: no sched_switch, only cpu_idle lines: idle throughout")
    if silent and silent_idle:
        notes.append(f"CPU {listed(silent)}: no event recorded there: taken as idle throughout (--silent-idle)")
    elif silent:
        notes.append(f"CPU {listed(silent)}: no event recorded there (the header counts {header_cpus(trace)} CPUs): "
                     "what ran there is unknown; --silent-idle takes them as idle throughout")
    missing = [c for c in cpus if c not in since and c not in silent]
    if missing:
        notes.append(f"CPU {listed(missing)}: no sched_switch in the trace: its tasks are unknown")
    return Replay(start, end, cpus, tasks, slices, wakeups, migrations, selects, balances, idle_state, wasted,
                  affinity_known, has_wakeup, notes)


def percentile(values, p):
    """The nearest-rank percentile: the smallest value with at least p % of the values at or
    below it; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def cpu_times(r):
    """cpu -> (busy ns, idle ns): time with a task on it, time with the idle task."""
    out = {c: [0, 0] for c in r.cpus}
    for c, pid, _, s, e in r.slices:
        out[c][0 if pid else 1] += e - s
    return out


def wasted_intervals(r, min_ns=0):
    """[(cpu, start, end, pids)] of the wasted stretches at least min_ns long, by start."""
    out = [(c, s, e, pids) for c, runs in r.wasted.items() for s, e, pids in runs if e - s >= min_ns]
    return sorted(out, key=lambda x: (x[1], x[0]))
