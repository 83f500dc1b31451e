"""The shape of Linux 6.1's tracefs lines, and a checker that holds another trace to it.

Written after tests/data/traces/linux-6.1-hackbench.trace, a trace of Debian 12's kernel
(tools/bench --linux --trace), and after the format strings Linux prints with:

  context  "%16s-%-7d [%03d] %5s %5lu.%06lu: %s: "  comm right-aligned in 16 columns, the pid
           left-aligned in 7, the CPU in 3 digits, 5 flag characters (irqs-off, need-resched,
           hardirq/softirq, preempt-depth, migrate-disable), seconds and microseconds
  fields   each event's own list below, in Linux's order; %d is a plain decimal, %03d a
           decimal of at least 3 digits with leading zeros (target_cpu=001), %u an unsigned
           decimal (cpu_idle's state: 4294967295 when the CPU leaves idle)

check() reports every event line whose event the reference trace has but whose shape is
not Linux's, one message per line, with its number, and the first line where the header
block differs from the reference's (its entries-in-buffer counts aside); then what no
Linux trace shows: time going backwards from one line to the next, a sched_switch not
recorded by its prev or whose prev is not what the CPU switched in last, a cpu_idle
recorded on another CPU than its cpu_id. Events the reference does not have
(Fulcrum's sched_select and sched_balance) are counted, not checked.
"""
import re

import ftrace

# The flags column of Linux 6.1 (trace_print_lat_fmt): irqs-off (d, D with BH off too, b BH
# off only, X not supported), need-resched (N, n, p), hard/soft irq (Z, z, H, h, s), the
# preempt depth and the migrate-disable depth ('.' for 0).
FLAGS_RE = re.compile(r"[dDbX.][Nnp.][ZzHhs.][0-9a-f.][0-9a-f.]")
STATE_RE = r"(?:R\+?|[SDTtXZPI](?:\|[SDTtXZPI])*)"

# Each event's fields as Linux 6.1 prints them (the TP_printk of include/trace/events/sched.h
# and power.h). Value kinds: s = a word without spaces, d = signed decimal, u = unsigned
# decimal, 03d = decimal padded to 3 digits, state = sched_switch's prev_state letters.
GRAMMAR = {
    "sched_switch": (("prev_comm", "s"), ("prev_pid", "d"), ("prev_prio", "d"), ("prev_state", "state"),
                     "==>", ("next_comm", "s"), ("next_pid", "d"), ("next_prio", "d")),
    "sched_waking": (("comm", "s"), ("pid", "d"), ("prio", "d"), ("target_cpu", "03d")),
    "sched_wakeup": (("comm", "s"), ("pid", "d"), ("prio", "d"), ("target_cpu", "03d")),
    "sched_wakeup_new": (("comm", "s"), ("pid", "d"), ("prio", "d"), ("target_cpu", "03d")),
    "sched_migrate_task": (("comm", "s"), ("pid", "d"), ("prio", "d"), ("orig_cpu", "d"), ("dest_cpu", "d")),
    "sched_process_fork": (("comm", "s"), ("pid", "d"), ("child_comm", "s"), ("child_pid", "d")),
    "sched_process_exec": (("filename", "s"), ("pid", "d"), ("old_pid", "d")),
    "sched_process_exit": (("comm", "s"), ("pid", "d"), ("prio", "d")),
    "cpu_idle": (("state", "u"), ("cpu_id", "u")),
}


def fields_text(name):
    """The event's fields as a format, e.g. 'comm=%s pid=%d prio=%d target_cpu=%03d'."""
    return " ".join(p if isinstance(p, str) else f"{p[0]}=%{'s' if p[1] == 'state' else p[1]}"
                    for p in GRAMMAR[name])


def value_problem(kind, value):
    """Why value is not printed the way Linux prints this kind, or None."""
    if kind == "s":
        return None if re.fullmatch(r"\S+", value) else "expected one word without spaces"
    if kind == "state":
        return None if re.fullmatch(STATE_RE, value) else \
            "expected Linux's task state letters: R, R+, or S D T t X Z P I joined by |"
    if kind in ("d", "u"):
        pattern = r"-?(?:0|[1-9]\d*)" if kind == "d" else r"0|[1-9]\d*"
        return None if re.fullmatch(pattern, value) else \
            f"expected a plain {'signed' if kind == 'd' else 'unsigned'} decimal (%{kind})"
    if kind == "03d":
        ok = re.fullmatch(r"\d+", value) and "%03d" % int(value) == value
        return None if ok else "expected a decimal padded to 3 digits (%03d, e.g. 001)"
    raise ValueError(kind)


def body_problems(name, body):
    """The differences between an event's field text and Linux's, as strings."""
    parts = GRAMMAR[name]
    keys = [p[0] for p in parts if not isinstance(p, str)]
    pattern = " ".join(r"==>" if isinstance(p, str) else re.escape(p[0]) + r"=(\S*)" for p in parts)
    m = re.fullmatch(pattern, body)
    if not m:
        got = [k.group(1) for k in ftrace.KEY_RE.finditer(body)]
        if got != keys:
            return [f"fields {' '.join(got) or '(none)'}, expected {' '.join(keys)} in that order "
                    f"('{fields_text(name)}')"]
        return [f"expected exactly '{fields_text(name)}' (single spaces"
                + (", ' ==> ' between prev and next" if "==>" in parts else "") + f"), got {body!r}"]
    out = []
    for (key, kind), value in zip([p for p in parts if not isinstance(p, str)], m.groups()):
        why = value_problem(kind, value)
        if why:
            out.append(f"{key}={value}: {why}")
    return out


# The leading columns split into the pieces Linux pads: comm, pid and its padding, CPU, flags,
# the timestamp with its padding.
CONTEXT_RE = re.compile(r"^(?P<comm>.*?)-(?P<pid>\d+)(?P<pad> *) \[(?P<cpu>\d+)\] (?:(?P<flags>\S+) )?"
                        r"(?P<ts> *\d+\.\d+): ")


def context_problems(ev, raw):
    """The differences between the line's leading columns and Linux's, as strings."""
    m = CONTEXT_RE.match(raw)
    if not m:
        return [f"expected the line to begin like '%16s-%-7d [%03d] %5s %5lu.%06lu: {ev.name}: '"]
    out = []
    if m.group("comm") != "%16s" % ev.comm:
        out.append(f"comm '{ev.comm}' is not right-aligned in 16 columns (%16s)")
    if m.group("pid") + m.group("pad") != "%-7d" % ev.pid:
        out.append(f"pid {ev.pid} is not left-aligned in 7 columns (%-7d) before ' [CPU]'")
    if m.group("cpu") != "%03d" % ev.cpu:
        out.append(f"CPU [{m.group('cpu')}]: expected 3 digits ([%03d])")
    flags = m.group("flags")
    if flags is None:
        out.append("no flags column: Linux 6.1 prints 5 flag characters after [CPU] (e.g. d..2.)")
    elif len(flags) != 5:
        out.append(f"flags '{flags}' are {len(flags)} characters: Linux 6.1 prints 5 "
                   "(irqs-off, need-resched, hardirq/softirq, preempt-depth, migrate-disable; e.g. d..2.)")
    elif not FLAGS_RE.fullmatch(flags):
        out.append(f"flags '{flags}': expected [dDbX.][Nnp.][ZzHhs.][0-9a-f.][0-9a-f.]")
    sec, usec = divmod(ev.ts // 1000, 1000000)
    if m.group("ts") != "%5d.%06d" % (sec, usec) or ev.ts % 1000:
        out.append(f"timestamp '{m.group('ts')}': expected seconds right-aligned in 5 columns and "
                   "6 digits of microseconds (%5lu.%06lu)")
    return out


def reference_events(trace):
    """The events of the reference trace that the grammar describes."""
    names = {ev.name for ev in trace.events}
    missing = sorted(n for n in names if n not in GRAMMAR)
    if missing:
        raise ValueError(f"the reference trace has events this checker has no grammar for: {', '.join(missing)}")
    return names


ENTRIES_RE = re.compile(r"# entries-in-buffer/entries-written: \d+/\d+   #P:\d+")


def reference_header(text):
    """The header block (the leading '#' lines) of a reference trace's text."""
    out = []
    for line in text.split("\n"):
        if not line.startswith("#"):
            break
        out.append(line.rstrip("\r"))
    return out


def header_problems(lines, header):
    """The first difference between a trace's leading lines and the reference's header
    (whose entries line may hold any counts), as [(line number, message)]."""
    for i, want in enumerate(header):
        got = lines[i].rstrip("\r") if i < len(lines) else None
        if got == want or (ENTRIES_RE.fullmatch(want) and got is not None and ENTRIES_RE.fullmatch(got)):
            continue
        if got is None:
            return [(i + 1, f"the file ends inside the tracefs header; expected {want!r}")]
        return [(i + 1, f"header line {i + 1}: expected {want!r}, got {got[:100]!r}")]
    return []


def check(text, reference_names, path=None, header=None):
    """Checks a trace's text. Returns (problems, counts): problems is a list of
    (line number, event or None, message); counts maps 'checked', 'unchecked' (a dict
    event -> lines) and 'lines'. Lines that cannot be read at all are problems too. With
    header (reference_header's lines) the leading lines must be that header; without it,
    the first line must be '# tracer: ...'."""
    problems, unchecked, checked = [], {}, 0
    lines = text.split("\n")
    if text.endswith("\n"):
        lines = lines[:-1]
    if header:
        problems += [(n, None, why) for n, why in header_problems(lines, header)]
    else:
        first = next((i for i, line in enumerate(lines, 1) if line.strip()), None)
        if first is None or not lines[first - 1].startswith("# tracer: "):
            problems.append((first or 1, None, "expected the tracefs header's first line '# tracer: nop'"))
    last_ts, on_cpu = None, {}
    for number, raw in enumerate(lines, 1):
        raw = raw.rstrip("\r")
        try:
            ev = ftrace.parse_line(raw, number)
        except ftrace.TraceError as e:
            problems.append((number, None, e.message))
            continue
        if ev is None:
            continue
        if last_ts is not None and ev.ts < last_ts:
            problems.append((number, ev.name, f"time {ev.ts / 1e9:.6f} s is before the line above's "
                             f"{last_ts / 1e9:.6f} s: tracefs prints every CPU's events merged in time order"))
        last_ts = ev.ts
        if ev.name not in reference_names:
            unchecked[ev.name] = unchecked.get(ev.name, 0) + 1
            continue
        checked += 1
        shape = context_problems(ev, raw) + body_problems(ev.name, ev.body)
        for why in shape or consistency_problems(ev, on_cpu):
            problems.append((number, ev.name, why))
    return problems, {"checked": checked, "unchecked": unchecked, "lines": len(lines)}


def consistency_problems(ev, on_cpu):
    """What in a well-formed line contradicts the lines before it or itself, as Linux's never
    do: a sched_switch is recorded by the task it switches out, which is the task the CPU's
    previous sched_switch switched in; cpu_idle is recorded on the CPU it names. on_cpu
    (cpu -> pid switched in last) is updated."""
    out = []
    if ev.name == "sched_switch":
        prev, nxt = ev.num("prev_pid"), ev.num("next_pid")
        if ev.pid != prev:
            out.append(f"recorded by pid {ev.pid}, but prev_pid={prev}: the task switched out records it")
        if ev.cpu in on_cpu and on_cpu[ev.cpu] != prev:
            out.append(f"prev_pid={prev}, but CPU {ev.cpu}'s previous sched_switch switched in "
                       f"pid {on_cpu[ev.cpu]}")
        on_cpu[ev.cpu] = nxt
    elif ev.name == "cpu_idle" and ev.num("cpu_id") != ev.cpu:
        out.append(f"cpu_id={ev.num('cpu_id')} on CPU {ev.cpu}'s line: a CPU records its own idle states")
    return out
