"""QEMU machines for Fulcrum: topology presets, accelerator choice and the
command line, shared by tools/qemu-run, the boot tests and the benchmarks.

A preset names a machine shape (sockets x cores x threads, NUMA nodes,
memory). The accelerator is KVM only when the host CPU has hardware
virtualization (vmx/svm in /proc/cpuinfo) and /dev/kvm is usable; a
/dev/kvm without them is a software KVM far slower than TCG, so TCG is used.
"""
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field

QEMU = os.environ.get("QEMU", "qemu-system-x86_64")

# QEMU exits with (status << 1) | 1 when the kernel writes status to isa-debug-exit.
EXIT_PASS, EXIT_FAIL, EXIT_PANIC = 1, 3, 5
EXIT_NAMES = {EXIT_PASS: "pass", EXIT_FAIL: "fail", EXIT_PANIC: "panic"}


@dataclass
class Preset:
    name: str
    sockets: int
    cores: int
    threads: int
    nodes: int
    memory_mib: int
    summary: str
    cpu: str = "max,vendor=GenuineIntel"  # Intel leaves: QEMU (TCG) gives AMD no topoext
    # SLIT entries as {(i, j): distance} for i < j (symmetric); empty: QEMU builds no SLIT
    distances: dict = field(default_factory=dict)

    @property
    def cpus(self):
        return self.sockets * self.cores * self.threads


RING4 = {(0, 1): 20, (1, 2): 20, (2, 3): 20, (0, 3): 20, (0, 2): 30, (1, 3): 30}

PRESETS = {p.name: p for p in [
    Preset("default", 2, 2, 2, 2, 512, "2 sockets x 2 cores x 2 threads, 2 NUMA nodes (one per socket)"),
    Preset("2s", 2, 2, 2, 2, 512, "the default machine under its short name"),
    Preset("up", 1, 1, 1, 1, 256, "one CPU, one node"),
    Preset("2s16", 2, 4, 2, 2, 1024, "2 sockets x 4 cores x 2 threads, 2 NUMA nodes"),
    Preset("4n", 4, 2, 2, 4, 1024, "4 sockets x 2 cores x 2 threads, 4 NUMA nodes in a ring (SLIT 10/20/30)",
           distances=RING4),
]}


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


def numa_args(p):
    """Memory split evenly over the nodes; CPUs by socket groups over the nodes."""
    if p.nodes <= 1:
        return []
    args = []
    per_node_mem = p.memory_mib // p.nodes
    for n in range(p.nodes):
        args += ["-object", f"memory-backend-ram,id=mem{n},size={per_node_mem}M",
                 "-numa", f"node,nodeid={n},memdev=mem{n}"]
    for s in range(p.sockets):
        args += ["-numa", f"cpu,node-id={node_of_socket(p, s)},socket-id={s}"]
    for (i, j), d in sorted(p.distances.items()):
        args += ["-numa", f"dist,src={i},dst={j},val={d}", "-numa", f"dist,src={j},dst={i},val={d}"]
    return args


def node_of_socket(p, socket):
    """Sockets are spread over nodes in equal consecutive groups."""
    return min(socket // max(1, p.sockets // p.nodes), p.nodes - 1)


def distance(p, a, b):
    """The SLIT distance QEMU reports between nodes a and b (10/20 when it builds no SLIT)."""
    if a == b:
        return 10
    return p.distances.get((min(a, b), max(a, b)), 20)


def expected_cpus(p):
    """Each CPU as QEMU numbers it: index -> (apic_id, package, core, thread, node).

    QEMU gives CPU index i socket i // (cores * threads), core (i // threads) % cores,
    thread i % threads, and an APIC ID with each field in the fewest bits that hold it.
    """
    def bits(n):
        return (n - 1).bit_length()
    out = []
    for i in range(p.cpus):
        sock, core, thr = i // (p.cores * p.threads), (i // p.threads) % p.cores, i % p.threads
        apic = (sock << (bits(p.cores) + bits(p.threads))) | (core << bits(p.threads)) | thr
        out.append((apic, sock, core, thr, node_of_socket(p, sock)))
    return out


@dataclass
class Run:
    """One QEMU invocation."""
    preset: Preset
    iso: str
    accel: str = "auto"
    memory_mib: int = 0  # 0: the preset's
    gdb: bool = False
    interactive: bool = False  # serial and monitor on the terminal (Ctrl-A X quits)
    extra: list = field(default_factory=list)

    def argv(self):
        p = self.preset
        accel = choose_accel(self.accel)
        mem = self.memory_mib or p.memory_mib
        if self.memory_mib and p.nodes > 1:
            p = Preset(p.name, p.sockets, p.cores, p.threads, p.nodes, mem, p.summary, p.cpu, p.distances)
        args = [QEMU, "-machine", "q35", "-accel", accel,
                "-cpu", "host" if accel == "kvm" else p.cpu,
                "-smp", f"{p.cpus},sockets={p.sockets},cores={p.cores},threads={p.threads}",
                "-m", f"{mem}M"]
        args += numa_args(p)
        args += ["-cdrom", self.iso, "-boot", "d", "-nic", "none", "-no-reboot",
                 "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
        if self.interactive:
            args += ["-nographic"]
        else:
            args += ["-display", "none", "-serial", "stdio", "-monitor", "none"]
        if self.gdb:
            args += ["-s", "-S"]
        return args + list(self.extra)
