"""The workloads tools/bench knows, and how a sweep point becomes a command line.

Each workload is a static program in user/ (/bin/<name> in the initrd, the
same file in the Linux guest) that prints RESULT lines with a `metric=`
field (docs/benchmarks.md, "Workloads"). A sweep key is either a {key}
placeholder in the argument template or one of the workload's flags below,
named as its RESULT lines name the parameter (`groups`, `loops`, ...).
"""
import itertools
import re
from dataclasses import dataclass


@dataclass
class Workload:
    name: str
    args: str  # default arguments: small enough for a quick run under TCG
    flags: dict  # sweep key -> the program's option
    figures: tuple  # metrics shown in the tables by default (all are in the CSV/JSON)
    doc: str = ""
    lower: tuple = ()  # metrics where less is better whatever the unit says (a % deviation)


WORKLOADS = {w.name: w for w in [
    Workload("hackbench", "-l 20", {"groups": "-g", "loops": "-l", "fds": "-f", "datasize": "-s"},
             ("time",), "G groups of 20 senders and 20 receivers over socketpairs (-p: pipes, "
             "-T: threads); seconds for the whole exchange"),
    Workload("pipebench", "-l 5000", {"loops": "-l"}, ("usecs_per_op",),
             "two tasks pass a token over two pipes (perf bench sched pipe); usecs per round trip"),
    Workload("compute", "-j 2", {"tasks": "-t", "jobs": "-j"}, ("jobs_per_min",),
             "T processes each run J fixed CPU-bound jobs (aim7 compute); jobs per minute"),
    Workload("wakelat", "-n 300", {"msg_threads": "-m", "workers": "-t", "requests": "-n",
                                   "runtime": "-r", "work": "-w"}, ("p99", "rps"),
             "M message threads wake W workers each (schbench); wake-up latency percentiles (usec) "
             "and requests per second"),
    Workload("tps", "-t 1000", {"clients": "-c", "servers": "-s", "transactions": "-t", "duration": "-T",
                                "work": "-w"}, ("tps",),
             "C clients send requests to server processes (pgbench/tbench-like); transactions per second"),
    Workload("syscost", "", {"scale": "-n"},
             ("getpid", "fork_exit_wait", "pipe_round_trip", "socketpair_round_trip"),
             "one raw getpid, fork+_exit+wait4, a one-byte round trip between two processes over "
             "pipes and over a socketpair (docs/user-space.md); ns per operation"),
    Workload("jbb", "-n 200", {"warehouses": "-w", "transactions": "-n", "work": "-k", "audit": "-a"},
             ("bops",), "W warehouse threads run N CPU-bound transactions, each posted to a partner "
             "thread woken by futex to audit it (specjbb-like, seed 003); transactions per second"),
    Workload("netrr", "-n 2000", {"binding": "-b", "transactions": "-n", "size": "-s", "pin": "-P"},
             ("tps",), "a client and a server process exchange one request and response at a time over "
             "a socket pair (netperf TCP_RR), unpinned or pinned (-P A,B); transactions per second"),
    Workload("fairshare", "-s 2", {"tasks": "-t", "cpus": "-c", "seconds": "-s", "nice": "-n"},
             ("worst_dev", "jain"),
             "T CPU-bound tasks on a CPU set: each one's CPU time against its fair share; worst "
             "deviation (%), Jain's index, CPU used (%)", lower=("worst_dev",)),
]}


@dataclass
class Sweep:
    key: str
    values: list


def parse_sweep(text):
    """'groups=1,2,4' -> Sweep('groups', ['1', '2', '4'])."""
    key, eq, values = text.partition("=")
    vals = [v.strip() for v in values.split(",")]
    if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) or not all(vals) or \
            any(re.search(r"\s", v) for v in vals):
        raise ValueError(f"a sweep is KEY=V1,V2,... (no blanks), not {text!r}")
    if len(set(vals)) != len(vals):
        raise ValueError(f"sweep {key} names a value twice: {text!r}")
    return Sweep(key, vals)


def points(sweeps):
    """Every combination of the sweeps' values, the first sweep varying slowest:
    [((key, value), ...), ...]; one empty point without sweeps."""
    if not sweeps:
        return [()]
    keys = [s.key for s in sweeps]
    if len(set(keys)) != len(keys):
        raise ValueError(f"a key is swept twice: {', '.join(keys)}")
    return [tuple(zip(keys, combo)) for combo in itertools.product(*(s.values for s in sweeps))]


def command_args(workload, template, point):
    """The workload's arguments at one sweep point: {key} placeholders in the template
    filled in, other keys added as the workload's flags."""
    w = WORKLOADS.get(workload)
    args = template
    extra = []
    for key, value in point:
        if "{" + key + "}" in args:
            args = args.replace("{" + key + "}", value)
        elif w and key in w.flags:
            extra += [w.flags[key], value]
        else:
            known = f"; {workload}'s flags: {', '.join(sorted(w.flags))}" if w else ""
            raise ValueError(f"sweep key {key!r} is neither a {{{key}}} placeholder in the arguments "
                             f"nor a flag the harness knows for {workload}{known}")
    left = re.findall(r"\{(\w+)\}", args)
    if left:
        raise ValueError(f"the arguments name {{{left[0]}}}, which no --sweep gives")
    return " ".join(args.split() + extra)


def parse_variant(text):
    """'sbm=sched_select=sbm' -> ('sbm', 'sched_select=sbm'); the name before the first '='."""
    name, eq, cmdline = text.partition("=")
    if not eq or not re.fullmatch(r"[A-Za-z0-9_.+-]+", name):
        raise ValueError(f"a variant is NAME=KERNEL-COMMAND-LINE (NAME of letters, digits, _ . + -), "
                         f"not {text!r}")
    if name == "linux":
        raise ValueError("'linux' names the Linux guest (--linux); pick another variant name")
    return name, " ".join(cmdline.split())


def figure_key(result):
    """The figure a RESULT line gives: "<name> <metric>", or without a metric field the name
    and every non-numeric field (numeric ones are parameters)."""
    if "metric" in result.fields:
        return f"{result.name} {result.fields['metric']}"
    words = [f"{k}={v}" for k, v in result.fields.items() if not re.fullmatch(r"-?[\d.]+", v)]
    return " ".join([result.name] + words)


def lower_is_better(label):
    """True when the workload says a smaller value of this figure ("<workload> <metric>") is
    better whatever its unit; None leaves it to the unit (bench_stats.lower_is_better)."""
    name, _, metric = label.partition(" ")
    w = WORKLOADS.get(name)
    if w and metric in w.lower:
        return True
    return None


def wanted(label, figures):
    """Does the table list include this figure? figures: metric names, full labels, or 'all'."""
    if "all" in figures:
        return True
    metric = label.split(" ", 1)[-1]
    return label in figures or metric in figures


def run_order(systems, run):
    """The order the systems boot in for run number `run` (1-based): as given on odd runs,
    reversed on even ones (A B, B A, A B, ...), so drift in the host's speed during a
    sweep point hits every system alike."""
    return list(systems) if run % 2 == 1 else list(reversed(systems))
