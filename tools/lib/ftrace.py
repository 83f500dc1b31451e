"""Reading scheduler traces in Linux's ftrace text format, for tools/fulcrum-trace.

Three sources print the same kind of line, `COMM-PID [CPU] FLAGS SECONDS: EVENT: FIELDS`:
tracefs's `trace` file (Linux, the Linux peer of tools/bench --linux --trace, Fulcrum's trace
channel), and `trace-cmd report`, which leaves out the flags column unless given -l and
prints sched_switch and the wake-up events in its plugins' shorter form
(`comm:pid [prio] S ==> comm:pid [prio]`, `comm:pid [prio] CPU:001`). All of them become
Event objects with the fields by Linux's names. A line that fits none of them is an error
that names the line and what was expected; a cut-off last line says the file is truncated.
"""
import re
from dataclasses import dataclass, field

# COMM-PID, an optional (TGID) column, [CPU], an optional flags column, SECONDS: EVENT: BODY.
# The comm may hold '-' and spaces: the pid is the last "-digits" before the CPU column.
LINE_RE = re.compile(r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+(?:\(\s*(?:\d+|-+)\)\s+)?\[(?P<cpu>\d+)\]\s+"
                     r"(?:(?P<flags>\S{1,8})\s+)?(?P<ts>\d+\.\d+):\s+(?P<event>[\w:]+):\s?(?P<body>.*)$")
# Lines that are not events: tracefs's and trace-cmd's headers and notes.
SKIP_RE = re.compile(r"^(#.*|\s*|cpus=\d+|version = \d+|CPU \d+ is empty|CPU:\d+ \[LOST \d+ EVENTS\]"
                     r"|\s*##### CPU \d+ buffer started ####)$")
KEY_RE = re.compile(r"(?:^|(?<=\s))([A-Za-z_]\w*)=")
# trace-cmd's plugin forms.
TC_SWITCH_RE = re.compile(r"^(?P<prev_comm>.+):(?P<prev_pid>\d+) \[(?P<prev_prio>-?\d+)\] (?P<prev_state>\S+)"
                          r" ==> (?P<next_comm>.+):(?P<next_pid>\d+) \[(?P<next_prio>-?\d+)\]$")
TC_WAKE_RE = re.compile(r"^(?P<comm>.+):(?P<pid>\d+) \[(?P<prio>-?\d+)\](?: success=\d+)? CPU:(?P<target_cpu>\d+)$")
WAKE_EVENTS = ("sched_waking", "sched_wakeup", "sched_wakeup_new")

# The fields the analyses read, per event; a line of one of these events without them is
# an error. Other events are kept with whatever fields they have.
REQUIRED = {
    "sched_switch": ("prev_comm", "prev_pid", "prev_state", "next_comm", "next_pid"),
    "sched_waking": ("comm", "pid", "target_cpu"),
    "sched_wakeup": ("comm", "pid", "target_cpu"),
    "sched_wakeup_new": ("comm", "pid", "target_cpu"),
    "sched_migrate_task": ("comm", "pid", "orig_cpu", "dest_cpu"),
    "sched_process_fork": ("comm", "pid", "child_comm", "child_pid"),
    "sched_process_exit": ("comm", "pid"),
    "cpu_idle": ("state", "cpu_id"),
    "sched_select": ("pid", "prev_cpu", "this_cpu", "target", "sd_level", "reason"),
    "sched_balance": ("cpu", "domain", "idle_type", "imbalance", "busiest", "moved", "result"),
}
# The fields that must be whole numbers (decimal) wherever they appear.
NUMERIC = {"pid", "prev_pid", "next_pid", "child_pid", "old_pid", "target_cpu", "orig_cpu", "dest_cpu",
           "prio", "prev_prio", "next_prio", "cpu_id", "state", "prev_cpu", "this_cpu", "target", "cpu",
           "moved"}
# cpu_idle's state when a CPU leaves idle: PWR_EVENT_EXIT, (u32)-1.
CPU_IDLE_EXIT = 4294967295
EXPECTED = "'COMM-PID [CPU] FLAGS SECONDS: EVENT: FIELDS'"


class TraceError(Exception):
    """A line that cannot be read: .line is its number (from 1), .path the file."""

    def __init__(self, line, message, path=None):
        super().__init__(message)
        self.line, self.message, self.path = line, message, path

    def __str__(self):
        return f"{self.path or '-'}:{self.line}: {self.message}"


@dataclass
class Event:
    line: int  # line number in the file, from 1
    comm: str  # the task running when the event was recorded
    pid: int
    cpu: int
    flags: str  # None when the source has no flags column
    ts: int  # nanoseconds
    name: str  # the event, e.g. sched_switch (a system prefix such as "sched:" is dropped)
    body: str  # the fields' text as printed
    fields: dict = field(default_factory=dict)  # name -> value (str)

    def num(self, key):
        return int(self.fields[key])


@dataclass
class Trace:
    events: list  # Event, in time order (lines with the same time keep their order)
    header: list  # the comment lines (without '#')
    tracer: str  # "# tracer: NAME", or None
    path: str = None
    warnings: list = field(default_factory=list)  # "line N: ..." notes that did not stop the reading


# Fulcrum's trailer after a final dump: the kernel's own wasted-CPU count per CPU over the
# trace (kernel/sched/stats.c samples it at each tick).
KERNEL_WASTED_RE = re.compile(r"^fulcrum wasted_idle_ns cpu=(\d+) ns=(\d+)\b")


def kernel_wasted(trace):
    """cpu -> ns from the trace's '# fulcrum wasted_idle_ns' lines; {} when it has none."""
    out = {}
    for line in trace.header:
        m = KERNEL_WASTED_RE.match(line)
        if m:
            out[int(m.group(1))] = int(m.group(2))
    return out


def lost_events(header):
    """Notes on events the trace lacks, from tracefs's entries line (fewer in the buffer than
    were written: the oldest were overwritten) and Fulcrum's '# fulcrum lost_events' lines."""
    out = []
    for line in header:
        m = re.match(r"entries-in-buffer/entries-written: (\d+)/(\d+)", line)
        if m and int(m.group(1)) < int(m.group(2)):
            out.append(f"the header says {int(m.group(2)) - int(m.group(1))} of {m.group(2)} events were "
                       "overwritten before the dump: the figures miss the oldest")
        m = re.match(r"fulcrum lost_events cpu=(\d+) overwritten=(\d+) refused=(\d+)", line)
        if m and (int(m.group(2)) or int(m.group(3))):
            out.append(f"CPU {m.group(1)} lost events: {m.group(2)} overwritten, {m.group(3)} refused "
                       "(buffer full): the figures miss them")
    return out


def parse_seconds(text):
    """'123.456789' (or with 9 digits) -> nanoseconds."""
    sec, frac = text.split(".")
    return int(sec) * 1000000000 + int((frac + "000000000")[:9])


def split_fields(body):
    """'a=1 b=x y c=2' -> {'a': '1', 'b': 'x y', 'c': '2'} (a value runs to the next key);
    sched_switch's '==>' is dropped."""
    body = body.replace(" ==> ", " ")
    keys = list(KEY_RE.finditer(body))
    out = {}
    for i, m in enumerate(keys):
        end = keys[i + 1].start() if i + 1 < len(keys) else len(body)
        out[m.group(1)] = body[m.end():end].strip()
    return out


def event_fields(name, body):
    if name == "sched_switch" and "prev_pid=" not in body:
        m = TC_SWITCH_RE.match(body)
        if m:
            return m.groupdict()
    if name in WAKE_EVENTS and "pid=" not in body:
        m = TC_WAKE_RE.match(body)
        if m:
            return m.groupdict()
    return split_fields(body)


def parse_line(text, number):
    """One event line -> Event; None for a header or blank line; TraceError otherwise."""
    if SKIP_RE.match(text):
        return None
    m = LINE_RE.match(text)
    if not m:
        raise TraceError(number, f"expected an event line {EXPECTED}, got {text[:80]!r}")
    name = m.group("event").split(":")[-1]
    body = m.group("body").rstrip()
    fields = event_fields(name, body.lstrip())  # trace-cmd pads the event name with spaces
    for key in REQUIRED.get(name, ()):
        if key not in fields:
            got = ", ".join(fields) or "none"
            raise TraceError(number, f"{name}: expected field {key}= (fields {', '.join(REQUIRED[name])}); "
                             f"got {got}")
    for key, value in fields.items():
        if key in NUMERIC and not re.fullmatch(r"-?\d+", value):
            raise TraceError(number, f"{name}: {key}= must be a whole number, got {value!r}")
    return Event(number, m.group("comm").strip(), int(m.group("pid")), int(m.group("cpu")), m.group("flags"),
                 parse_seconds(m.group("ts")), name, body, fields)


def parse_text(text, path=None):
    """A whole trace -> Trace. Raises TraceError for the first line that cannot be read; when
    that is the last line and the file does not end with a newline, it says truncated."""
    lines = text.split("\n")
    ends_clean = text.endswith("\n") or text == ""
    if ends_clean:
        lines = lines[:-1]
    events, header, tracer = [], [], None
    for i, line in enumerate(lines, 1):
        line = line.rstrip("\r")
        try:
            ev = parse_line(line, i)
        except TraceError as e:
            if i == len(lines) and not ends_clean:
                e = TraceError(i, f"the file ends in the middle of line {i} (truncated?): {e.message}")
            e.path = path
            raise e from None
        if ev is None:
            if line.startswith("#"):
                header.append(line[1:].strip())
                m = re.match(r"#\s*tracer:\s*(\S+)", line)
                if m and tracer is None:
                    tracer = m.group(1)
            continue
        events.append(ev)
    if not events:
        raise TraceError(len(lines), "no events in the file (expected lines " + EXPECTED + ")", path)
    events.sort(key=lambda e: e.ts)  # stable: equal times keep the file's order
    warnings = lost_events(header)
    if not ends_clean:
        warnings.append(f"line {len(lines)}: the file does not end with a newline: its last line may be cut off")
    return Trace(events, header, tracer, path, warnings)


def read(path):
    """Reads a trace file (tracefs text or trace-cmd report output) -> Trace."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return parse_text(f.read(), path)
