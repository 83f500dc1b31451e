"""Booting one benchmark run: Fulcrum from an ISO or by -kernel, or the Linux guest, under QEMU.

Fulcrum boots from an ISO made by tools/mkiso with the variant's kernel
command line plus `schedstat qemu_exit init=/bin/<workload> -- <args>`
(under icount it boots its ELF by -kernel instead, the same line as -append):
init runs the workload, powers off, the kernel prints its scheduler report
and QEMU exits (isa-debug-exit). ISOs are cached by the kernel, the initrd
and the command line, so every run of one configuration boots the same
file. Both kernels run on qemu_machine's command line for the preset; in
deterministic mode (icount) QEMU's random seed and RTC are fixed too, and
the CPU model loses ERMS and FSRM (PATH_LENGTH_CPU).
"""
import hashlib
import os
import subprocess
import time

import bench_linux
import qemu_machine as qm

# Characters GRUB would read in a command line (tools/mkiso refuses them).
GRUB_SPECIAL = set(";&|$`\\\"'{}")
ICOUNT_RTC = "base=2026-01-01,clock=vm"
# icount charges rep movsb/stosb per byte moved, so a kernel that copies with them
# (Linux does when CPUID shows ERMS or FSRM) looks slower than its real path length;
# icount runs hide both from both kernels. Fulcrum does not look at these flags: its
# memcpy is a plain loop and its user copies use rep movsb either way.
PATH_LENGTH_CPU = "-erms,-fsrm"


def fulcrum_cmdline(variant, program, args, schedstat=True):
    """The kernel command line of one run: variant's options, then the run's own."""
    own = ("schedstat " if schedstat else "") + f"qemu_exit init={program}"
    line = " ".join(x for x in (variant.strip(), own) if x)
    if args.strip():
        line += " -- " + " ".join(args.split())
    bad = sorted(GRUB_SPECIAL & set(line))
    if bad:
        raise ValueError(f"the kernel command line may not contain {' '.join(bad)} "
                         f"(GRUB reads them): {line}")
    return line


def _digest(paths):
    h = hashlib.sha1()
    for p in paths:
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:12]


class IsoCache:
    """ISOs for (kernel, initrd, command line) in one folder; ISOs of an older kernel or
    initrd are removed when the cache is opened."""

    def __init__(self, folder, elf, initrd, mkiso):
        self.folder, self.elf, self.initrd, self.mkiso = folder, elf, initrd, mkiso
        self.prefix = _digest([elf, initrd])
        os.makedirs(folder, exist_ok=True)
        for name in os.listdir(folder):
            if name.endswith(".iso") and not name.startswith(self.prefix):
                os.unlink(os.path.join(folder, name))

    def iso(self, cmdline):
        key = hashlib.sha1(cmdline.encode()).hexdigest()[:12]
        path = os.path.join(self.folder, f"{self.prefix}-{key}.iso")
        if not os.path.exists(path):
            subprocess.run([self.mkiso, self.elf, path, cmdline, f"initrd={self.initrd}"], check=True,
                           stdout=subprocess.DEVNULL)
        return path


def machine_argv(preset, media, accel, icount, seed=None, memory_mib=0, trace=None, pvh=None):
    """QEMU's argv for the preset booting `media` (an ISO path; the Linux runner swaps it);
    trace: a file for the kernel's trace channel (docs/tracing.md), or None; pvh: None, or
    (initrd, command line) when `media` is the kernel's ELF, started by -kernel at its PVH
    entry (no disk read before the kernel runs, so same-seed icount boots repeat)."""
    extra = []
    if icount and qm.choose_accel(accel) == "tcg":
        extra = ["-seed", str(seed if seed is not None else 1), "-rtc", ICOUNT_RTC]
    how = dict(media="pvh", initrd=pvh[0], append=pvh[1]) if pvh else {}
    run = qm.Run(qm.PRESETS[preset], media, accel=accel, memory_mib=memory_mib, icount=icount,
                 trace=trace, extra=extra, **how)
    argv = run.argv()
    if extra:
        i = argv.index("-cpu") + 1
        argv[i] += "," + PATH_LENGTH_CPU
    return argv


def fulcrum_argv(preset, isos, cmdline, accel, icount, seed=None, memory_mib=0, trace=None):
    """QEMU's argv for one Fulcrum run: under icount its ELF by -kernel (PVH) with the initrd
    and the command line, as a CD's reads end at host-timed moments and same-seed ISO boots
    differ (docs/benchmarks.md, "Deterministic time"); else the ISO of isos (an IsoCache)."""
    if icount and qm.choose_accel(accel) == "tcg":
        return machine_argv(preset, isos.elf, accel, icount, seed, memory_mib, trace, pvh=(isos.initrd, cmdline))
    return machine_argv(preset, isos.iso(cmdline), accel, icount, seed, memory_mib, trace)


def linux_argv(preset, kernel, initramfs, append, accel, icount, seed=None, memory_mib=0):
    base = machine_argv(preset, "linux.iso", accel, icount, seed, memory_mib)
    return bench_linux.qemu_argv(base, kernel, initramfs, append)


def boot(argv, log_path, timeout):
    """Runs QEMU to its end (or the timeout); the serial console goes to log_path.
    Returns (text, QEMU's exit status or None on timeout, wall-clock seconds)."""
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    start = time.monotonic()
    with open(log_path, "wb") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            code = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            code = None
        except BaseException:  # Ctrl-C: leave no QEMU behind
            proc.kill()
            proc.wait()
            raise
    secs = time.monotonic() - start
    with open(log_path, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    return text, code, secs
