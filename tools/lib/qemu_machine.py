"""QEMU machines for Fulcrum: topology presets, accelerator choice and the
command line, shared by tools/qemu-run, the boot tests and the benchmarks.

A preset names a machine shape (sockets x cores x threads, NUMA nodes and
which CPUs sit on which, SLIT distances, memory, CPU model and APIC mode).
The accelerator is KVM only when the host CPU has hardware virtualization
(vmx/svm in /proc/cpuinfo) and /dev/kvm is usable; a /dev/kvm without them
is a software KVM far slower than TCG, so TCG is used. Under KVM the CPU is
`-cpu host`, so the vendor presets (`amd`) only mean something under TCG.

The second half of this file says what Fulcrum should make of a preset: each
CPU's APIC ID, package, core, thread and node as QEMU lays them out, the
sched-domain levels, every CPU's domain chain and balance map. It is worked
out from the preset's own parameters with the rules of docs/linux-scheduler-facts.md
sections 16-20 (as kernel/sched/topology.c states them), never from the kernel's
output, so the boot tests can hold the kernel to it.
"""
import dataclasses
import os
import re
import shutil
import subprocess
from collections import namedtuple
from dataclasses import dataclass, field

QEMU = os.environ.get("QEMU", "qemu-system-x86_64")

# QEMU exits with (status << 1) | 1 when the kernel writes status to isa-debug-exit.
EXIT_PASS, EXIT_FAIL, EXIT_PANIC = 1, 3, 5
EXIT_NAMES = {EXIT_PASS: "pass", EXIT_FAIL: "fail", EXIT_PANIC: "panic"}

# Under TCG, `-cpu max` is AMD-flavoured: no leaf 4 cache topology, AMD's extended leaves.
# With vendor=GenuineIntel QEMU describes the whole sockets x cores x threads layout in
# leaves 0xB/0x1F and an L3 (leaf 4) shared by the socket.
INTEL_CPU = "max,vendor=GenuineIntel"
AMD_CPU = "max"
X2APIC_TCG_QEMU = (8, 1, 0)  # the first QEMU that emulates x2APIC under TCG


@dataclass
class Preset:
    name: str
    sockets: int
    cores: int  # per socket
    threads: int  # per core
    nodes: int  # NUMA nodes (memory split evenly over them); 1: no SRAT at all
    memory_mib: int
    summary: str  # the shape in words
    cpu: str = INTEL_CPU  # -cpu under TCG, without the x2apic flag
    # SLIT entries as {(i, j): distance} for i < j (symmetric; a pair left out is 20);
    # empty: QEMU builds no SLIT and the kernel takes 10 local, 20 remote
    distances: dict = field(default_factory=dict)
    purpose: str = ""  # what the preset is for
    # Explicit CPU placement, as QEMU's `-numa cpu`: (node, socket, core, thread) with
    # None for "every core / thread of it"; empty: sockets spread over the nodes in equal
    # consecutive groups. Nodes no entry names have memory only.
    placement: tuple = ()
    x2apic: bool = False  # local APICs in x2APIC mode (else the CPU hides x2APIC: xAPIC)

    @property
    def cpus(self):
        return self.sockets * self.cores * self.threads

    @property
    def shape(self):
        return f"{self.sockets}x{self.cores}x{self.threads}"

    @property
    def vendor(self):
        return "Intel" if "vendor=GenuineIntel" in self.cpu else "AMD"


RING4 = {(0, 1): 20, (1, 2): 20, (2, 3): 20, (0, 3): 20, (0, 2): 30, (1, 3): 30}

# asym: socket 0 is split into two interleaved sub-NUMA nodes, 0 (cores 0 and 2) and
# 2 (cores 1 and 3), 11 apart; node 1 has memory only; socket 1 is node 3, 21 from
# node 0 but 31 from node 2 (beyond RECLAIM_DISTANCE: no wake-affine, no exec/fork
# balancing at that level).
ASYM_PLACEMENT = ((0, 0, 0, 0), (2, 0, 1, 0), (0, 0, 2, 0), (2, 0, 3, 0), (3, 1, None, None))
ASYM_DISTANCES = {(0, 1): 21, (0, 2): 11, (0, 3): 21, (1, 2): 21, (1, 3): 21, (2, 3): 31}

_2S = dict(sockets=2, cores=2, threads=2, nodes=2, memory_mib=512, distances={(0, 1): 21})

PRESET_LIST = [
    Preset("up", 1, 1, 1, 1, 256, "1 CPU, one node",
           purpose="the uniprocessor paths: no APs, no SRAT, no sched domains"),
    Preset("smt", 1, 2, 2, 1, 256, "1 socket x 2 cores x 2 threads, one node",
           purpose="SMT and MC levels only, no NUMA"),
    Preset("2s", **_2S, summary="2 sockets x 2 cores x 2 threads, 2 NUMA nodes (one per socket, SLIT 21)",
           purpose="the default machine: every level from SMT to NUMA"),
    Preset("2s16", 2, 4, 2, 2, 1024, "2 sockets x 4 cores x 2 threads, 2 NUMA nodes, no SLIT",
           purpose="16 CPUs: bring-up time, wider MC groups; the kernel's 10/20 fallback without a SLIT"),
    Preset("2s12", 2, 3, 2, 2, 512, "2 sockets x 3 cores x 2 threads, 2 NUMA nodes (one per socket, SLIT 21)",
           distances={(0, 1): 21},
           purpose="12 CPUs, seed 001's \"12 cpu X86 server\" (docs/seeds.md); xAPIC, so it runs under icount"),
    Preset("4n", 4, 2, 2, 4, 1024, "4 sockets x 2 cores x 2 threads, 4 NUMA nodes in a ring (SLIT 10/20/30)",
           distances=RING4, purpose="two NUMA levels with overlapping groups"),
    Preset("asym", 2, 4, 1, 4, 512,
           "2 sockets x 4 cores x 1 thread; nodes 0 and 2 interleaved in socket 0, 1 memory-only, "
           "3 = socket 1",
           distances=ASYM_DISTANCES, placement=ASYM_PLACEMENT,
           purpose="asymmetric NUMA: a memory-only node, a node whose CPUs are not contiguous, "
           "CPUs of one package with different domains, a level beyond RECLAIM_DISTANCE"),
    Preset("x2apic", 2, 3, 2, 2, 512,
           "2 sockets x 3 cores x 2 threads (sparse APIC IDs), 2 NUMA nodes (SLIT 21), x2APIC",
           distances={(0, 1): 21}, x2apic=True,
           purpose="local APICs in x2APIC mode (QEMU 8.1 or later under TCG); APIC IDs with holes"),
    Preset("amd", **_2S, cpu=AMD_CPU, summary="the 2s machine with the AMD-flavoured -cpu max",
           purpose="CPUID topology under AMD's leaves (no leaf 4: LLC per package)"),
]
ALIASES = {"default": "2s"}

# Every name, aliases included (an alias maps to its preset's object).
PRESETS = {p.name: p for p in PRESET_LIST}
PRESETS.update({alias: PRESETS[target] for alias, target in ALIASES.items()})


def host_has_hw_virt():
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read()
    except OSError:
        return False
    return re.search(r"^flags\s*:.*\b(vmx|svm)\b", flags, re.M) is not None


def choose_accel(requested="auto"):
    """'kvm' or 'tcg'; 'auto' takes KVM only with real hardware virtualization."""
    if requested in ("kvm", "tcg"):
        return requested
    if host_has_hw_virt() and os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "kvm"
    return "tcg"


def qemu_version():
    """(major, minor, micro) of the QEMU binary, or None if it is missing."""
    if not shutil.which(QEMU):
        return None
    out = subprocess.run([QEMU, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"version (\d+)\.(\d+)\.(\d+)", out)
    return tuple(int(x) for x in m.groups()) if m else None


def version_notes(version):
    """What an old QEMU cannot do, in words for the user."""
    notes = []
    if version and version < (8, 1, 0):
        notes.append("QEMU %d.%d.%d: -icount with more than one CPU livelocks before 8.1, "
                     "so deterministic multi-CPU runs are skipped" % version)
        notes.append("QEMU before 8.1 emulates no x2APIC under TCG: x2APIC mode is not exercised")
    return notes


def unavailable(p, version, accel="tcg"):
    """Why preset p cannot run on this QEMU, or None if it can."""
    if p.x2apic and accel == "tcg" and version and version < X2APIC_TCG_QEMU:
        return ("QEMU %d.%d.%d emulates no x2APIC under TCG (8.1 or later does)" % version)
    return None


def cpu_option(p, accel="tcg"):
    """The -cpu value: the preset's model under TCG, the host's under KVM; x2APIC
    hidden unless the preset wants it, so the kernel runs its xAPIC (MMIO) driver."""
    model = "host" if accel == "kvm" else p.cpu
    return model if p.x2apic else model + ",-x2apic"


def node_memory(p, memory_mib=None):
    """Each node's MiB: an even split, the remainder on node 0."""
    total = memory_mib or p.memory_mib
    sizes = [total // p.nodes] * p.nodes
    sizes[0] += total - sum(sizes)
    return sizes


def numa_args(p, memory_mib=None):
    """Memory over the nodes; CPUs by the preset's placement, else by socket groups; the SLIT."""
    if p.nodes <= 1:
        return []
    args = []
    for n, size in enumerate(node_memory(p, memory_mib)):
        args += ["-object", f"memory-backend-ram,id=mem{n},size={size}M",
                 "-numa", f"node,nodeid={n},memdev=mem{n}"]
    if p.placement:
        for node, sock, core, thr in p.placement:
            spec = f"cpu,node-id={node},socket-id={sock}"
            spec += "" if core is None else f",core-id={core}"
            spec += "" if thr is None else f",thread-id={thr}"
            args += ["-numa", spec]
    else:
        for s in range(p.sockets):
            args += ["-numa", f"cpu,node-id={node_of_socket(p, s)},socket-id={s}"]
    if p.distances:
        for i in range(p.nodes):
            for j in range(i + 1, p.nodes):
                d = distance(p, i, j)
                args += ["-numa", f"dist,src={i},dst={j},val={d}", "-numa", f"dist,src={j},dst={i},val={d}"]
    return args


def node_of_socket(p, socket):
    """Sockets are spread over nodes in equal consecutive groups."""
    return min(socket // max(1, p.sockets // p.nodes), p.nodes - 1)


def node_of(p, socket, core, thread):
    """The node QEMU puts a CPU on: the first placement entry naming it (None if none does)."""
    if not p.placement:
        return node_of_socket(p, socket) if p.nodes > 1 else 0
    for node, s, c, t in p.placement:
        if s == socket and c in (None, core) and t in (None, thread):
            return node
    return None


def distance(p, a, b):
    """The SLIT distance QEMU reports between nodes a and b (10/20 when it builds no SLIT)."""
    if a == b:
        return 10
    return p.distances.get((min(a, b), max(a, b)), 20)


def preset_problems(p):
    """What QEMU would refuse or the tests could not model; [] for a good preset."""
    problems = []
    if min(p.sockets, p.cores, p.threads, p.nodes) < 1:
        problems.append("sockets, cores, threads and nodes must be at least 1")
        return problems
    if p.memory_mib < p.nodes:
        problems.append(f"{p.memory_mib} MiB cannot be split over {p.nodes} nodes")
    if (p.placement or p.distances) and p.nodes < 2:
        problems.append("placement and distances need 2 nodes or more")
    for (i, j), d in p.distances.items():
        if not (0 <= i < j < p.nodes):
            problems.append(f"distance key {(i, j)} is not (i, j) with i < j < {p.nodes}")
        if not (10 < d <= 254):
            problems.append(f"distance {d} between {i} and {j} is outside 11..254")
    for node, s, c, t in p.placement:
        if not (0 <= node < p.nodes and 0 <= s < p.sockets and (c is None or 0 <= c < p.cores)
                and (t is None or 0 <= t < p.threads)):
            problems.append(f"placement entry {(node, s, c, t)} is outside the machine")
    for i in range(p.cpus):
        s, c, t = cpu_position(p, i)
        hits = [e for e in p.placement if e[1] == s and e[2] in (None, c) and e[3] in (None, t)]
        if p.placement and len(hits) != 1:
            problems.append(f"CPU {i} (socket {s}, core {c}, thread {t}) is placed {len(hits)} times")
    return problems


# ---------------------------------------------------------------- what the kernel should see

ExpectedCpu = namedtuple("ExpectedCpu", "apic_id package core thread node llc")


def cpu_position(p, i):
    """(socket, core, thread) of QEMU's CPU index i: socket-major, then core, then thread."""
    return i // (p.cores * p.threads), (i // p.threads) % p.cores, i % p.threads


def _bits(n):
    return (n - 1).bit_length()


def apic_id(p, socket, core, thread):
    """QEMU's APIC ID: thread, core and socket fields, each in the fewest bits that hold it."""
    return (socket << (_bits(p.cores) + _bits(p.threads))) | (core << _bits(p.threads)) | thread


def expected_cpus(p):
    """Each CPU as QEMU numbers it: index -> ExpectedCpu(apic_id, package, core, thread, node, llc).

    QEMU lists the CPUs in the MADT in index order and Fulcrum keeps that order (the boot
    CPU, index 0, first). The last-level cache is the socket's under both vendors: QEMU's
    Intel-flavoured L3 is shared by the socket, and without an AMD cache leaf Fulcrum
    takes one LLC per package.
    """
    out = []
    for i in range(p.cpus):
        sock, core, thr = cpu_position(p, i)
        out.append(ExpectedCpu(apic_id(p, sock, core, thr), sock, core, thr, node_of(p, sock, core, thr), sock))
    return out


def kernel_nodes(p):
    """How many nodes the kernel sees: every QEMU node (each has memory) once there is an SRAT."""
    return p.nodes if p.nodes > 1 else 1


def memory_only_nodes(p):
    with_cpus = {c.node for c in expected_cpus(p)}
    return [n for n in range(kernel_nodes(p)) if n not in with_cpus]


LOCAL_DISTANCE, RECLAIM_DISTANCE = 10, 30
FIXED_LEVELS = ("SMT", "MC", "PKG", "NODE")

Level = namedtuple("Level", "index name distance")  # distance: 0 for the fixed levels


def expected_levels(p):
    """The level table: SMT, MC, PKG, NODE, then NUMA(d) for each distinct SLIT
    distance above 10 anywhere in the matrix (memory-only nodes' rows too), ascending."""
    n = kernel_nodes(p)
    dists = sorted({distance(p, i, j) for i in range(n) for j in range(n)} - {LOCAL_DISTANCE})
    levels = [Level(i, name, 0) for i, name in enumerate(FIXED_LEVELS)]
    return levels + [Level(len(FIXED_LEVELS) + k, "NUMA", d) for k, d in enumerate(dists)]


def levels_line(p, generation=1):
    parts = [f"{lv.index}:{lv.name}" + (f"({lv.distance})" if lv.distance else "") for lv in expected_levels(p)]
    return f"sched-domain levels (generation {generation}): " + " ".join(parts)


def level_mask(p, cpus, level, c):
    """The CPUs level puts with c: same core; same LLC; same package; same node; nodes
    within the level's distance of c's node."""
    me = cpus[c]
    if level.name == "NUMA":
        return frozenset(j for j, o in enumerate(cpus) if distance(p, me.node, o.node) <= level.distance)

    def key(o):
        return {"SMT": (o.package, o.core), "MC": o.llc, "PKG": o.package, "NODE": o.node}[level.name]
    return frozenset(j for j, o in enumerate(cpus) if key(o) == key(me))


def built_chain(p, c):
    """c's domains before degenerate ones go: [(Level, span)], bottom-up. A span takes in
    its child's; the chain stops at the first span holding every CPU."""
    cpus = expected_cpus(p)
    everything = frozenset(range(len(cpus)))
    chain, child = [], frozenset()
    for level in expected_levels(p):
        span = level_mask(p, cpus, level, c) | {c} | child
        chain.append((level, span))
        child = span
        if span == everything:
            break
    return chain


def expected_domains(p, c):
    """c's attached chain: a level spanning one CPU, or the same CPUs as the level kept
    below it, is degenerate and dropped."""
    kept = []
    for level, span in built_chain(p, c):
        if len(span) > 1 and (not kept or span != kept[-1][1]):
            kept.append((level, span))
    return kept


def balances(level):
    """SD_BALANCE_EXEC/FORK and SD_WAKE_AFFINE: every fixed level, NUMA ones up to RECLAIM_DISTANCE."""
    return level.name != "NUMA" or level.distance <= RECLAIM_DISTANCE


def expected_balance_map(p, c):
    """{type: [Level]}: the levels of c's chain that balance exec, fork and wake (none: no
    level has SD_BALANCE_WAKE)."""
    levels = [lv for lv, _ in expected_domains(p, c) if balances(lv)]
    return {"exec": levels, "fork": list(levels), "wake": []}


def expected_affine_map(p, c):
    """[(cpus, Level or None)]: for each domain of c's chain, bottom-up, the CPUs whose lowest
    wake-affine domain spanning them and c it is; last the CPUs with none."""
    left = set(range(p.cpus))
    out = []
    for level, span in expected_domains(p, c):
        if not balances(level):
            continue
        mine = left & span
        if mine:
            out.append((frozenset(mine), level))
            left -= mine
    if left:
        out.append((frozenset(left), None))
    return out


def cpulist(cpus):
    """Linux's list format: "0-3,8,10-11"."""
    runs, out = [], []
    for c in sorted(cpus):
        if runs and c == runs[-1][1] + 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    for a, b in runs:
        out.append(str(a) if a == b else f"{a}-{b}")
    return ",".join(out)


def balance_map_line(p, c):
    bm = expected_balance_map(p, c)
    parts = [f"{t}=" + (",".join(f"{lv.index}:{lv.name}" for lv in bm[t]) or "none")
             for t in ("exec", "fork", "wake")]
    return f"CPU{c} balance map: " + " ".join(parts)


def affine_map_line(p, c):
    parts = [f"{cpulist(cpus)} " + (f"{lv.index}:{lv.name}" if lv else "none")
             for cpus, lv in expected_affine_map(p, c)]
    return f"CPU{c} affine map: " + ", ".join(parts)


def _n(count, word):
    return f"{count} {word}" + ("" if count == 1 else "s")


def topology_line(p):
    return (f"topology: {_n(p.sockets, 'package')}, {_n(kernel_nodes(p), 'node')}, "
            f"{_n(p.sockets * p.cores, 'core')}, {_n(p.cpus, 'thread')}, LLC per package")


def acpi_line(p):
    """The kernel's summary of QEMU's tables: no SRAT for one node, no SLIT without distances."""
    srat = f"SRAT {p.nodes} nodes" if p.nodes > 1 else "no SRAT (1 node)"
    slit = f"SLIT {p.nodes}x{p.nodes}" if p.distances else "no SLIT (distances 10/20)"
    return f"ACPI: MADT {p.cpus} CPUs (0 disabled), {srat}, {slit}; using {p.cpus} CPUs"


def apic_mode_line(p):
    return "apic: x2APIC mode" if p.x2apic else "apic: xAPIC mode"


# 2^3 ns of guest time per instruction; sleep=off: halted CPUs skip ahead to the next timer.
ICOUNT = "shift=3,sleep=off"


def icount_supported(version, cpus):
    """QEMU before 8.1 livelocks with -icount and more than one CPU."""
    return cpus == 1 or (version is not None and version >= (8, 1, 0))


def icount_unavailable(p, version):
    """Why preset p cannot run under TCG with -icount on this QEMU, or None if it can.
    x2APIC mode never can: QEMU does not treat RDMSR/WRMSR as I/O under -icount, so the
    first APIC timer MSR access reads the virtual clock mid-block and QEMU exits with
    "Bad icount read" (status 1, the same as the kernel's pass status)."""
    if not icount_supported(version, p.cpus):
        return "-icount with several CPUs needs QEMU 8.1 or later"
    if p.x2apic:
        return "-icount aborts QEMU in x2APIC mode (\"Bad icount read\" at the APIC timer MSRs)"
    return None


# Debian's ovmf package: UEFI firmware for QEMU, as two flash images (4 MiB layout).
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"


def ovmf_vars_copy(path):
    """Writes a fresh copy of OVMF's variable store to path (each UEFI boot gets its own, so
    no run sees what another wrote) and returns path."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    shutil.copyfile(OVMF_VARS, path)
    return path


def uefi_unavailable():
    """Why a UEFI boot cannot run here, or None."""
    for f in (OVMF_CODE, OVMF_VARS):
        if not os.path.exists(f):
            return f"{f} missing (Debian package ovmf; make deps)"
    return None


@dataclass
class Run:
    """One QEMU invocation."""
    preset: Preset
    iso: str
    accel: str = "auto"
    memory_mib: int = 0  # 0: the preset's
    gdb: bool = False
    interactive: bool = False  # serial and monitor on the terminal (Ctrl-A X quits)
    # Deterministic time under TCG: one TCG thread, guest time from instructions
    # executed (see docs/architecture.md, "Clocks and what they can show"); no effect under KVM.
    icount: bool = False
    # A host file for the kernel's trace channel: QEMU's isa-debugcon at port 0xe9 writes
    # every byte the guest sends there into it (docs/tracing.md). None: no channel.
    trace: str = None
    extra: list = field(default_factory=list)
    # The firmware: "bios" (QEMU's SeaBIOS) or "uefi" (Debian's OVMF: the code read-only,
    # uefi_vars a writable copy of its variable store, see ovmf_vars_copy()).
    firmware: str = "bios"
    uefi_vars: str = None
    machine: str = "q35"  # or "pc" (i440FX, the old PC)
    # How self.iso is attached: "cdrom", "usb" (a USB stick, the image as a disk), or "pvh":
    # self.iso is then the kernel's ELF, which QEMU's -kernel starts at its PVH entry note with
    # self.initrd as its module and self.append as its command line. Nothing is read from a
    # disk before the kernel runs, so under icount the kernel starts at the same instruction
    # every time (a CD boot's reads complete at host-timed moments; docs/benchmarks.md).
    media: str = "cdrom"
    initrd: str = None
    append: str = ""

    def boot_media_args(self):
        if self.media == "pvh":
            return (["-kernel", self.iso, "-append", self.append]
                    + (["-initrd", self.initrd] if self.initrd else []))
        if self.media == "usb":
            return ["-drive", f"if=none,id=stick,format=raw,readonly=on,file={self.iso}",
                    "-device", "qemu-xhci,id=xhci", "-device", "usb-storage,bus=xhci.0,drive=stick,bootindex=0"]
        return ["-cdrom", self.iso, "-boot", "d"]

    def firmware_args(self):
        if self.firmware != "uefi":
            return []
        if not self.uefi_vars:
            raise ValueError("UEFI boot needs uefi_vars: a writable copy of OVMF's variables")
        return ["-drive", f"if=pflash,format=raw,unit=0,readonly=on,file={OVMF_CODE}",
                "-drive", f"if=pflash,format=raw,unit=1,file={self.uefi_vars}"]

    def argv(self):
        p = self.preset
        accel = choose_accel(self.accel)
        if self.memory_mib:
            p = dataclasses.replace(p, memory_mib=self.memory_mib)
        accel_arg = accel
        if self.icount and accel == "tcg":
            accel_arg = "tcg,thread=single"
        args = [QEMU, "-machine", self.machine, "-accel", accel_arg,
                "-cpu", cpu_option(p, accel),
                "-smp", f"{p.cpus},sockets={p.sockets},cores={p.cores},threads={p.threads}",
                "-m", f"{p.memory_mib}M"]
        args += numa_args(p)
        if self.icount and accel == "tcg":
            args += ["-icount", ICOUNT]
        args += self.firmware_args() + self.boot_media_args()
        args += ["-nic", "none", "-no-reboot", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
        if self.trace:
            args += ["-chardev", f"file,id=fulcrum-trace,path={self.trace}",
                     "-device", "isa-debugcon,iobase=0xe9,chardev=fulcrum-trace"]
        if self.interactive:
            args += ["-nographic"]
        else:
            args += ["-display", "none", "-serial", "stdio", "-monitor", "none"]
        if self.gdb:
            args += ["-s", "-S"]
        return args + list(self.extra)
