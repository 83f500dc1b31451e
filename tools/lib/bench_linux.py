"""Linux as a peer: a Linux guest built from Debian packages, run on the same QEMU machine.

The kernel comes from Debian's linux-image-amd64 metapackage of one suite
(SERIES: 6.1 from bookworm, 6.12 from bookworm-backports, which apt must
be told to take it from with -t): its dependency names the real package
(linux-image-<abi>-amd64), which is downloaded with `apt-get download` and
unpacked, not installed; only its boot/ files are taken. The compressed
bzImage (xz for 6.1, zstd for 6.12, unpacked with the zstd tool) is
unpacked again into the ELF vmlinux, which QEMU boots directly through the
PVH entry point: that skips the decompressor, about 6 s per boot under TCG. The initramfs (cpio
newc, gzip) holds busybox-static's busybox, the workload binaries (the same
static musl files Fulcrum runs) and a small /init that runs the command
line given after "--" on the kernel command line, reports its end in the
words of Fulcrum's init and powers off; it prints /proc/schedstat before and
after the workload, so the harness can take the boot's share out. With
bench_trace=1 on the command line (tools/bench --trace) it also records the
scheduler's trace events in tracefs during the workload and prints the
trace file on the console between two marker lines.

Everything lands in the cache directory (build/linux/ by default; one
folder per series, busybox shared) and is reused: the network is only
needed the first time.
"""
import gzip
import hashlib
import io
import json
import lzma
import os
import re
import stat
import struct
import subprocess
import tarfile
import zlib

META_PACKAGE = "linux-image-amd64"
BUSYBOX_PACKAGE = "busybox-static"

# The kernel command line besides the workload: the serial console, no boot chatter,
# exit on panic (-no-reboot ends QEMU); schedstats counts the balancer's moves.
# mitigations=off: Fulcrum has no Spectre/Meltdown mitigations either, so system
# calls and switches pay the same kind of cost on both kernels.
LINUX_APPEND = "console=ttyS0 quiet panic=-1 schedstats=enable mitigations=off"

# The lean peer: what tools/bench adds to LINUX_APPEND unless --linux-cmdline says
# otherwise. Debian's kernels run work a scheduler comparison should not pay for:
# the crypto self-tests (6.12 runs them after /init, during the workload), LSM hooks
# beyond capabilities, zeroing of every allocation, pressure stall accounting, NUMA
# balancing's page faults, the random stack offset of each system call, the audit
# subsystem, the memory cgroup's accounting and the lockup watchdogs.
LEAN_CMDLINE = ("cryptomgr.notests lsm=capability init_on_alloc=0 psi=0 numa_balancing=disable "
                "randomize_kstack_offset=off audit=0 cgroup_disable=memory nowatchdog")

# The Linux series tools/bench --linux knows: the Debian suite each comes from (None:
# apt's default release) and the upstream version its package must start with.
SERIES = {"6.1": None, "6.12": "bookworm-backports"}
DEFAULT_SERIES = "6.1"

INIT_SCRIPT = """#!/bin/sh
# The Linux guest's /init, written by tools/bench (tools/lib/bench_linux.py):
# run the workload given after "--" on the kernel command line, say how it
# ended in the words of Fulcrum's init, power off. /proc/schedstat is printed
# before and after, so the harness counts the workload's part only.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
echo "bench-init: Linux $(uname -r), $(nproc) CPUs online: $*"
if [ $# -eq 0 ]; then
	echo "bench-init: no workload after -- on the kernel command line"
	poweroff -f
fi
# bench_trace=1 before "--" (tools/bench --trace) reaches /init as an environment
# variable: record the sched events and power:cpu_idle in tracefs while the workload
# runs, then print the trace file between two marker lines.
tr=/sys/kernel/tracing
if [ -n "$bench_trace" ]; then
	mount -t tracefs tracefs $tr
	echo 0 > $tr/tracing_on
	echo 2048 > $tr/buffer_size_kb
	for e in TRACE_EVENTS; do
		echo 1 > $tr/events/$e/enable || echo "bench-init: no trace event $e"
	done
	echo > $tr/trace
	echo 1 > $tr/tracing_on
fi
cat /proc/schedstat
"$@"
status=$?
if [ -n "$bench_trace" ]; then
	echo 0 > $tr/tracing_on
	echo "TRACE_BEGIN"
	cat $tr/trace
	echo "TRACE_END"
fi
if [ $status -gt 128 ]; then
	echo "init: $1 killed by signal $((status - 128))"
else
	echo "init: $1 exited with status $status"
fi
cat /proc/schedstat
poweroff -f
"""


# The events tools/bench --linux --trace enables: Linux's scheduler events that
# Fulcrum's trace carries too, and the idle state changes.
TRACE_EVENTS = ("sched/sched_switch", "sched/sched_waking", "sched/sched_wakeup", "sched/sched_wakeup_new",
                "sched/sched_migrate_task", "sched/sched_process_fork", "sched/sched_process_exec",
                "sched/sched_process_exit", "power/cpu_idle")
# The lines around the trace file on the console; each is printed on its own line.
TRACE_BEGIN = "bench-trace: begin of /sys/kernel/tracing/trace"
TRACE_END = "bench-trace: end of /sys/kernel/tracing/trace"
INIT_SCRIPT = INIT_SCRIPT.replace("TRACE_EVENTS", " ".join(TRACE_EVENTS)) \
    .replace("TRACE_BEGIN", TRACE_BEGIN).replace("TRACE_END", TRACE_END)


def trace_from_log(text):
    """The tracefs text the guest printed between the markers (console line ends made
    plain "\\n"), or None when the log has no complete trace."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    try:
        start = lines.index(TRACE_BEGIN)
        end = lines.index(TRACE_END, start)
    except ValueError:
        return None
    return "".join(line + "\n" for line in lines[start + 1:end])


class LinuxUnavailable(Exception):
    """The Linux guest cannot be built (no network, no apt, ...); says why."""


def _run(argv, cwd=None, what=None):
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        errors = [ln for ln in (p.stderr + p.stdout).splitlines() if not ln.startswith("W:")]
        raise LinuxUnavailable(f"{what or ' '.join(argv)} failed (exit {p.returncode}): "
                               + (" ".join(errors[-2:]) or "no message"))
    return p.stdout


def apt_download(package, directory, release=None):
    """`apt-get download package` into directory, from the suite release when one is
    given (`-t release`: the default release for this download); returns the .deb's path."""
    os.makedirs(directory, exist_ok=True)
    before = set(os.listdir(directory))
    argv = ["apt-get", "download"] + (["-t", release] if release else []) + [package]
    try:
        _run(argv, cwd=directory,
             what=f"{' '.join(argv)} (no network, or no Debian package lists"
             + (f" for {release}?)" if release else "?)"))
    except FileNotFoundError:
        raise LinuxUnavailable("apt-get not found: the Linux guest is built from Debian packages") from None
    new = [f for f in set(os.listdir(directory)) - before if f.endswith(".deb")]
    mine = [f for f in os.listdir(directory) if f.startswith(package + "_") and f.endswith(".deb")]
    found = sorted(new) or sorted(mine)
    if not found:
        raise LinuxUnavailable(f"apt-get download {package} left no .deb in {directory}")
    return os.path.join(directory, found[-1])


def real_kernel_package(depends):
    """The linux-image-<abi>-amd64 package a metapackage's Depends field names."""
    for alt in re.split(r"[,|]", depends):
        name = alt.strip().split(" ")[0]
        if re.fullmatch(r"linux-image-\d[\w.+-]*-amd64(-unsigned)?", name):
            return name
    raise LinuxUnavailable(f"{META_PACKAGE}'s Depends names no linux-image-<version>-amd64: {depends!r}")


def deb_field(deb, name):
    return _run(["dpkg-deb", "-f", deb, name]).strip()


def extract_files(deb, directory, prefix):
    """The package's regular files under prefix (e.g. "boot/") into directory, flat; the
    rest stays packed (the kernel's modules: a guest without devices needs none)."""
    os.makedirs(directory, exist_ok=True)
    proc = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb], stdout=subprocess.PIPE)
    found = []
    with tarfile.open(fileobj=proc.stdout, mode="r|*") as tar:
        for member in tar:
            name = member.name.lstrip("./")
            if name.startswith(prefix) and member.isfile():
                data = tar.extractfile(member).read()
                path = os.path.join(directory, os.path.basename(name))
                with open(path, "wb") as f:
                    f.write(data)
                found.append(path)
    proc.wait()
    if proc.returncode != 0:
        raise LinuxUnavailable(f"dpkg-deb --fsys-tarfile {deb} failed")
    return found


# Magic numbers of the compressed payload inside a bzImage, and how to unpack each.
PAYLOADS = ((b"\xfd7zXZ\x00", "xz"), (b"\x28\xb5\x2f\xfd", "zstd"), (b"\x1f\x8b\x08", "gzip"))


def unzstd(blob):
    """What the zstd tool makes of blob's first frame (the standard library has no zstd).
    A bzImage's payload is followed by its size and more, which zstd calls an unknown
    format and exits 1 for: the output counts, not the status."""
    try:
        p = subprocess.run(["zstd", "-d", "-c", "-q"], input=blob, capture_output=True)
    except FileNotFoundError:
        raise LinuxUnavailable("the kernel is zstd-compressed and the zstd tool is missing "
                               "(tools/install-deps installs it)") from None
    return p.stdout


def unpack_vmlinux(vmlinuz):
    """The ELF kernel inside a bzImage (xz, zstd or gzip payload), or None if none is found.
    A magic number can also occur by chance elsewhere in the file: each occurrence is
    tried, and one that does not unpack to an ELF file is passed over."""
    with open(vmlinuz, "rb") as f:
        blob = f.read()
    for magic, kind in PAYLOADS:
        start = blob.find(magic)
        while start >= 0:
            try:
                if kind == "xz":
                    out = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(blob[start:])
                elif kind == "zstd":
                    out = unzstd(blob[start:])
                else:
                    out = gzip.GzipFile(fileobj=io.BytesIO(blob[start:])).read()
            except (lzma.LZMAError, zlib.error, OSError, EOFError):
                out = b""
            if out.startswith(b"\x7fELF"):
                return out
            start = blob.find(magic, start + 1)
    return None


def has_pvh_note(elf):
    """True if the ELF kernel has Xen's PHYS32_ENTRY note (type 18), which QEMU needs to
    boot it with -kernel."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2:  # 64-bit
        return False
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    for i in range(phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", elf, phoff + i * phentsize)
        if p_type != 4:  # PT_NOTE
            continue
        off, end = p_offset, p_offset + p_filesz
        while off + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from("<III", elf, off)
            name = elf[off + 12:off + 12 + namesz].rstrip(b"\0")
            if name == b"Xen" and ntype == 18:
                return True
            off += 12 + (namesz + 3) // 4 * 4 + (descsz + 3) // 4 * 4
    return False


def parse_series(text):
    """tools/bench --linux's value ("6.1", "6.1,6.12") -> the series, checked and in order."""
    out = []
    for name in (x.strip() for x in text.split(",")):
        if name not in SERIES:
            raise ValueError(f"unknown Linux series {name!r}: known are {', '.join(SERIES)}")
        if name not in out:
            out.append(name)
    if not out:
        raise ValueError("--linux needs a series, such as 6.1 or 6.1,6.12")
    return out


def series_cache(cache, series):
    """The folder of one series' kernel: the cache itself for 6.1 (as before series
    existed), cache/<series> for the others."""
    return cache if series == DEFAULT_SERIES else os.path.join(cache, series)


def ensure_kernel(cache, refresh=False, say=print, series=DEFAULT_SERIES):
    """The Linux kernel of one series to boot, downloading and unpacking it on first use.
    Returns a dict: series, package, version, uname (the release), kernel (the file for
    -kernel), how ("pvh" or "bzimage")."""
    release = SERIES[series]
    cache = series_cache(cache, series)
    info_path = os.path.join(cache, "kernel.json")
    if not refresh and os.path.exists(info_path):
        with open(info_path) as f:
            info = json.load(f)
        if os.path.exists(info.get("kernel", "")):
            info.setdefault("series", series)
            return info
    debs = os.path.join(cache, "debs")
    say(f"bench: fetching Debian's {META_PACKAGE}" + (f" from {release}" if release else "")
        + f" (apt-get download) into {debs}")
    meta = apt_download(META_PACKAGE, debs, release)
    package = real_kernel_package(deb_field(meta, "Depends"))
    deb = apt_download(package, debs, release)
    version = deb_field(deb, "Version")
    if not re.match(re.escape(series) + r"\.", version):
        raise LinuxUnavailable(f"apt-get took {package} {version} for Linux {series} "
                               f"(is {release or 'the default suite'} in the package lists?)")
    say(f"bench: unpacking {os.path.basename(deb)} (boot files only)")
    files = extract_files(deb, os.path.join(cache, "boot"), "boot/")
    vmlinuz = next((f for f in files if os.path.basename(f).startswith("vmlinuz-")), None)
    if not vmlinuz:
        raise LinuxUnavailable(f"{package} has no boot/vmlinuz-*")
    uname = os.path.basename(vmlinuz)[len("vmlinuz-"):]
    kernel, how = vmlinuz, "bzimage"
    elf = unpack_vmlinux(vmlinuz)
    if elf and has_pvh_note(elf):
        kernel, how = os.path.join(cache, "boot", f"vmlinux-{uname}"), "pvh"
        with open(kernel, "wb") as f:
            f.write(elf)
    info = {"series": series, "package": package, "version": version, "uname": uname, "kernel": kernel,
            "how": how, "vmlinuz": vmlinuz}
    with open(info_path, "w") as f:
        json.dump(info, f, indent=1)
    return info


def ensure_busybox(cache, refresh=False, say=print):
    """busybox-static's static busybox (only bin/busybox is unpacked), in cache/bin/."""
    path = os.path.join(cache, "bin", "busybox")
    if os.path.exists(path) and not refresh:
        return path
    say(f"bench: fetching Debian's {BUSYBOX_PACKAGE} (apt-get download)")
    deb = apt_download(BUSYBOX_PACKAGE, os.path.join(cache, "debs"))
    extract_files(deb, os.path.join(cache, "bin"), "bin/busybox")
    if not os.path.exists(path):
        raise LinuxUnavailable(f"{os.path.basename(deb)} has no bin/busybox")
    os.chmod(path, 0o755)
    return path


# ------------------------------------------------------------------ the initramfs

def _newc_entry(ino, name, mode, data):
    name_b = name.encode() + b"\0"
    fields = (ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name_b), 0)
    head = b"070701" + b"".join(b"%08X" % v for v in fields) + name_b
    head += b"\0" * (-len(head) % 4)
    return head + data + b"\0" * (-len(data) % 4)


def cpio_newc(entries):
    """A cpio newc archive of (name, mode, data) entries (directories: data b"", symlinks:
    data = the target), owner root, mtime 0: the same input gives the same bytes."""
    out = [_newc_entry(i, name, mode, data) for i, (name, mode, data) in enumerate(entries, 1)]
    out.append(_newc_entry(0, "TRAILER!!!", 0, b""))
    blob = b"".join(out)
    return blob + b"\0" * (-len(blob) % 512)


def initramfs_entries(busybox, programs):
    """The archive's entries: /bin/busybox, /bin/sh, the programs (name -> path) under
    /bin, the mount points and /init."""
    def read(path):
        with open(path, "rb") as f:
            return f.read()
    d, x = stat.S_IFDIR | 0o755, stat.S_IFREG | 0o755
    entries = [(n, d, b"") for n in ("bin", "dev", "proc", "sys", "tmp")]
    entries += [("bin/busybox", x, read(busybox)), ("bin/sh", stat.S_IFLNK | 0o777, b"busybox")]
    for name in sorted(programs):
        entries.append((f"bin/{name}", x, read(programs[name])))
    entries.append(("init", x, INIT_SCRIPT.encode()))
    return entries


def build_initramfs(cache, busybox, bin_dir, clients_dir=None):
    """cache/initramfs-<hash>.gz with busybox and every program in bin_dir (build/user/bin)
    and clients_dir (build/clients/bin, tools/build-clients); rebuilt only when one of them
    changes. Returns its path."""
    programs = {}
    dirs = [d for d in (bin_dir, clients_dir) if d and os.path.isdir(d)]
    for bin_dir, name in [(d, n) for d in dirs for n in sorted(os.listdir(d))]:
        path = os.path.join(bin_dir, name)
        # Fulcrum's own shell stays out: busybox is the guest's sh.
        if os.path.isfile(path) and os.access(path, os.X_OK) and "." not in name and \
                name not in ("busybox", "sh"):
            programs[name] = path
    entries = initramfs_entries(busybox, programs)
    h = hashlib.sha1()
    for name, mode, data in entries:
        h.update(name.encode() + b"\0" + str(mode).encode() + b"\0" + hashlib.sha1(data).digest())
    out = os.path.join(cache, f"initramfs-{h.hexdigest()[:12]}.gz")
    if not os.path.exists(out):
        for old in os.listdir(cache):  # an older build's
            if old.startswith("initramfs-") and old.endswith(".gz"):
                os.unlink(os.path.join(cache, old))
        blob = gzip.compress(cpio_newc(entries), compresslevel=6, mtime=0)
        with open(out + ".tmp", "wb") as f:
            f.write(blob)
        os.replace(out + ".tmp", out)
    return out, sorted(programs)


def append_line(command, extra="", lean=LEAN_CMDLINE):
    """The kernel command line for one run: the fixed part, the lean options (or what
    --linux-cmdline gave instead), extra, then -- and the workload."""
    return " ".join(x for x in (LINUX_APPEND, lean.strip(), extra.strip(), "--", command) if x)


def qemu_argv(run_argv, kernel, initramfs, append):
    """A Fulcrum QEMU command line (qemu_machine.Run.argv()) turned into the Linux guest's:
    the same machine, memory and accelerator, -kernel/-initrd/-append instead of the ISO."""
    argv = list(run_argv)
    i = argv.index("-cdrom")
    del argv[i:i + 2]
    if "-boot" in argv:
        j = argv.index("-boot")
        del argv[j:j + 2]
    return argv[:i] + ["-kernel", kernel, "-initrd", initramfs, "-append", append] + argv[i:]
