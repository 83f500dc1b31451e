# Fulcrum: build, run and test. `make help` lists the targets.
#
#   make run        boot Fulcrum in QEMU on the default machine (alias: make qemu)
#   make test       run every test: unit (Check), lint, QEMU boot tests
#
# Variables: CMDLINE="..." kernel command line; QEMU_OPTS="..." extra QEMU
# arguments; PRESET=name machine preset (tools/qemu-run --list);
# CROSS=x86_64-elf- to build with a cross toolchain instead of the host gcc;
# EXTRA=dir/ adds dir's files at the initrd's root (dir/bin/foo -> /bin/foo).
# NO_BUSYBOX=1 leaves Debian's busybox (fetched into build/busybox/) out of the initrd.
# EXTRA_KERNEL_C="a.c b.c" links more kernel sources in, e.g. a scheduling
# class or placement variant kept outside kernel/ (they register themselves);
# give such a build its own BUILD=build/name. SPINLOCK_DEBUG=1 makes
# spinlocks record their owner CPU (for assert_rq_held under SCHED_VERIFY;
# the unit tests always build so).
# TRACE=out.trace: the kernel's trace channel into that file (docs/tracing.md);
# ICOUNT=1: deterministic guest time (QEMU -icount) for make run.

.DEFAULT_GOAL := all
.SUFFIXES:
.DELETE_ON_ERROR:

CROSS ?=
CMDLINE ?=
EXTRA_KERNEL_C ?=
SPINLOCK_DEBUG ?=
QEMU_OPTS ?=
TRACE ?=
ICOUNT ?=
PRESET ?= default
FUZZ_TIME ?= 60
CALLS ?= 10000
SEED ?=
STRESS_SEEDS ?= 1-20
STRESS_CALLS ?= 2500
STRESS_HOURS ?= 0
ACPI_CORPUS ?= tests/data/acpi-corpus

CC := $(CROSS)gcc
OBJCOPY := $(CROSS)objcopy
LD := $(CROSS)ld
NM := $(CROSS)nm
NASM ?= nasm
HOSTCC ?= gcc
PYTHON ?= python3
BUILD := build

# Quiet by default; V=1 shows every command.
ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-7s %s\n'
endif

# The stall watchdog's boot test boots a kernel with a deliberately broken class linked in.
BROKEN_KERNEL = BUILD=$(BUILD)/broken EXTRA_KERNEL_C=tests/seam/broken.c $(BUILD)/broken/fulcrum.elf

# ---------------------------------------------------------------- targets

.PHONY: all help run qemu qemu-gdb test unit lint format boot-test fuzz fuzz-syscalls stress clean deps sched-cost bench seeds sim-bench sim-check
.PHONY: lab grade grade-check

all: $(BUILD)/fulcrum.elf $(BUILD)/initrd.cpio $(BUILD)/fulcrum.iso $(BUILD)/tools/fulcrum-sim ## build the kernel, the initrd, the bootable ISO and the simulator

help: ## list the targets
	@grep -hE '^[a-z-]+( [a-z-]+)*:.*## ' Makefile | \
		sed -E 's/:.*## /\t/' | awk -F'\t' '{ printf "  make %-18s %s\n", $$1, $$2 }'
	@echo "  variables: CMDLINE=\"...\" QEMU_OPTS=\"...\" PRESET=up|smt|2s|2s16|2s12|4n|asym|x2apic|amd CROSS=x86_64-elf- EXTRA=dir/" TRACE=out.trace ICOUNT=1

run qemu: deps ## boot Fulcrum in QEMU (serial console here; Ctrl-A X quits)
	@$(MAKE) --no-print-directory all
	@$(PYTHON) tools/qemu-run --preset $(PRESET) --iso $(BUILD)/fulcrum.iso $(RUN_FLAGS) -- $(QEMU_OPTS)

qemu-gdb: deps ## boot in QEMU, paused until gdb attaches on :1234
	@$(MAKE) --no-print-directory all
	@$(PYTHON) tools/qemu-run --preset $(PRESET) --iso $(BUILD)/fulcrum.iso --gdb $(RUN_FLAGS) -- $(QEMU_OPTS)

sched-cost: all $(BUILD)/bench/select-cost ## select_task_rq and context-switch costs: host build and 2s16 under icount
	@$(PYTHON) tools/sched-cost --build $(BUILD)

bench: deps ## quick benchmark suite: stock vs sbm and Fulcrum vs Linux on 2s (tools/bench --suite quick)
	@$(MAKE) --no-print-directory all
	@$(PYTHON) tools/bench --build $(BUILD) --suite quick

seeds: deps ## the seed threads' experiments beside the seeds' own tables, with verdicts (docs/seeds.md)
	@$(MAKE) --no-print-directory all
	@$(PYTHON) tools/bench --build $(BUILD) --suite seeds --boot-jobs 2

test: deps ## run every test; ends with "N passed, N failed"
	@$(MAKE) --no-print-directory all $(BUILD)/unit/fulcrum-unit $(BUILD)/tools/fulcrum-topo $(SIM_TOOLS) \
		$(BUILD)/tools/rtapp-dump $(BUILD)/fuzz/fuzz_acpi $(FUZZ_USER) $(ELF_SAMPLES)
	@$(MAKE) --no-print-directory $(BROKEN_KERNEL)
	@$(PYTHON) tests/run-all --build $(BUILD)

# Scheduler labs (docs/labs/): LAB=n picks one; DEST=dir is where `make lab` writes its tree.
LAB ?=
DEST ?=

lab: ## write the student tree of LAB=n into DEST=dir (docs/labs/instructors.md)
	@test -n "$(LAB)" -a -n "$(DEST)" || { echo "make lab LAB=n DEST=dir"; exit 2; }
	@$(PYTHON) tools/lab --lab $(LAB) --dest $(DEST)

grade: deps ## grade lab LAB=n in this tree: points per test, diagnoses, total (docs/labs/)
	@test -n "$(LAB)" || { echo "make grade LAB=n"; exit 2; }
	@$(PYTHON) tools/grade --lab $(LAB) --build $(BUILD)

grade-check: deps ## grade the graders: full marks, skeletons under half, tests/labs/ wrong solutions caught
	@$(MAKE) --no-print-directory all $(BUILD)/unit/fulcrum-unit
	@$(PYTHON) tests/labs/check --build $(BUILD)

sim-bench: $(BUILD)/tools/fulcrum-sim ## simulator speed: events per host CPU second; compute 2,560 tasks on 80 CPUs
	@$(PYTHON) tools/sim-bench --build $(BUILD)

sim-check: deps ## the simulator against the kernel under icount: shares, fairness, migrations, decisions
	@$(MAKE) --no-print-directory all $(BUILD)/tools/fulcrum-sim
	@$(PYTHON) tools/sim-check --build $(BUILD)

unit: deps ## host unit tests only (Check)
	@$(MAKE) --no-print-directory $(BUILD)/unit/fulcrum-unit $(ELF_SAMPLES)
	@FULCRUM_BUILD=$(BUILD) $(BUILD)/unit/fulcrum-unit

lint: ## layering check (no asm or arch-private includes under kernel/) and clang-format check
	@tools/check-layering
	@tools/check-format

format: ## lay out every C file with clang-format (.clang-format)
	@tools/check-format --fix

boot-test: deps ## QEMU boot tests only
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory $(BROKEN_KERNEL)
	@$(PYTHON) tests/boot/run.py --build $(BUILD)

fuzz: deps $(BUILD)/fuzz/fuzz_acpi $(FUZZ_USER) ## fuzz the ACPI, cpio/initrd and ELF parsers, FUZZ_TIME seconds each (default 60)
	@mkdir -p $(BUILD)/fuzz/corpus $(BUILD)/fuzz/corpus-cpio $(BUILD)/fuzz/corpus-elf
	$(BUILD)/fuzz/fuzz_acpi -max_total_time=$(FUZZ_TIME) $(BUILD)/fuzz/corpus $(wildcard $(ACPI_CORPUS))
	$(BUILD)/fuzz/fuzz_cpio -max_total_time=$(FUZZ_TIME) $(BUILD)/fuzz/corpus-cpio $(BUILD)/fuzz/seeds-cpio
	$(BUILD)/fuzz/fuzz_elf -max_total_time=$(FUZZ_TIME) $(BUILD)/fuzz/corpus-elf $(BUILD)/fuzz/seeds-elf

fuzz-syscalls: deps ## boot PRESET and run the system-call fuzzer: CALLS=N per worker (default 10000), SEED=S
	@$(MAKE) --no-print-directory all
	@$(PYTHON) tools/fuzz-syscalls --build $(BUILD) --preset $(if $(filter default,$(PRESET)),2s,$(PRESET)) \
		--calls $(CALLS) $(if $(SEED),--seed $(SEED))

stress: deps ## the long campaign: the long stress probes, then fuzzer seeds STRESS_SEEDS (1-20) on every preset, TCG then icount+SCHED_VERIFY
	@$(MAKE) --no-print-directory all
	@$(PYTHON) tests/boot/run.py --build $(BUILD) --stress --jobs 1; probes=$$?; \
	$(PYTHON) tools/fuzz-syscalls --build $(BUILD) --seeds $(STRESS_SEEDS) --presets all \
		--calls $(STRESS_CALLS) --hours $(STRESS_HOURS); tcg=$$?; \
	$(PYTHON) tools/fuzz-syscalls --build $(BUILD) --seeds $(STRESS_SEEDS) --presets all \
		--calls $(STRESS_CALLS) --hours $(STRESS_HOURS) --icount --verify; exit $$((probes | tcg | $$?))

clean: ## remove build outputs
	rm -rf $(BUILD)

deps: ## install missing Debian packages (needs root) or say what to install
	@tools/install-deps

# make run's TRACE= and ICOUNT= as tools/qemu-run flags.
RUN_FLAGS := $(if $(TRACE),--trace $(TRACE)) $(if $(filter-out 0,$(ICOUNT)),--icount)

# $(call write-if-changed,FILE,TEXT): FILE holds TEXT and is rewritten only when
# TEXT changes, so targets depending on FILE rebuild when flags or options change.
write-if-changed = @mkdir -p $(dir $1); echo '$2' | cmp -s - $1 || echo '$2' > $1

# ---------------------------------------------------------------- kernel

BOOT_ASM := boot/multiboot2.asm boot/pvh.asm boot/entry.asm
ARCH_ASM := arch/x86_64/isr.asm arch/x86_64/trampoline.asm arch/x86_64/switch.asm \
	arch/x86_64/user_entry.asm arch/x86_64/uaccess_copy.asm arch/x86_64/user_ktest_prog.asm
ARCH_C := \
	arch/x86_64/setup.c \
	arch/x86_64/serial.c \
	arch/x86_64/vga.c \
	arch/x86_64/fbcon.c \
	arch/x86_64/fbcon_text.c \
	arch/x86_64/keyboard.c \
	arch/x86_64/console.c \
	arch/x86_64/gdt.c \
	arch/x86_64/idt.c \
	arch/x86_64/traps.c \
	arch/x86_64/oops.c \
	arch/x86_64/stacktrace.c \
	arch/x86_64/backtrace.c \
	arch/x86_64/tsc.c \
	arch/x86_64/paging.c \
	arch/x86_64/pat.c \
	arch/x86_64/cpu.c \
	arch/x86_64/power.c \
	arch/x86_64/cpu_local.c \
	arch/x86_64/apic.c \
	arch/x86_64/irq.c \
	arch/x86_64/timer.c \
	arch/x86_64/hpet.c \
	arch/x86_64/pmtimer.c \
	arch/x86_64/ipi.c \
	arch/x86_64/smp.c \
	arch/x86_64/cpuid_topology.c \
	arch/x86_64/cpu_topology.c \
	arch/x86_64/context.c \
	arch/x86_64/fpu.c \
	arch/x86_64/signal_frame.c \
	arch/x86_64/fpu_ktest.c \
	arch/x86_64/addr_space.c \
	arch/x86_64/uaccess.c \
	arch/x86_64/user.c \
	arch/x86_64/user_ktest.c \
	arch/x86_64/rtc.c \
	arch/x86_64/random.c \
	arch/x86_64/trace_channel.c
KERNEL_C := \
	kernel/main.c \
	kernel/printk.c \
	kernel/panic.c \
	kernel/cmdline.c \
	kernel/ktest.c \
	kernel/tick.c \
	kernel/machine.c \
	kernel/boot/multiboot2.c \
	kernel/boot/pvh.c \
	kernel/acpi/tables.c \
	kernel/acpi/madt.c \
	kernel/acpi/srat.c \
	kernel/acpi/slit.c \
	kernel/acpi/spcr.c \
	kernel/acpi/topology.c \
	kernel/lib/printf.c \
	kernel/lib/kstrto.c \
	kernel/lib/string.c \
	kernel/lib/cpumask.c \
	kernel/lib/rbtree.c \
	kernel/mm/memmap.c \
	kernel/mm/page_alloc.c \
	kernel/mm/heap.c \
	kernel/mm/mm_ktest.c \
	kernel/mm/vm.c \
	kernel/mm/vm_area.c \
	kernel/mm/vm_map.c \
	kernel/mm/vm_syscalls.c \
	kernel/mm/vm_madvise.c \
	kernel/mm/shmem.c \
	kernel/mm/vm_ktest.c \
	kernel/sched/topology.c \
	kernel/sched/topology_gen.c \
	kernel/sched/topology_check.c \
	kernel/sched/topology_debug.c \
	kernel/sched/balance_map.c \
	kernel/sched/topology_ktest.c \
	kernel/sched/sched_ktest.c \
	kernel/sched/wake_ktest.c \
	kernel/sched/wakeup_ktest.c \
	kernel/sched/balance_ktest.c \
	kernel/sched/cost_bench.c \
	kernel/sched/core.c \
	kernel/sched/task.c \
	kernel/sched/idle.c \
	kernel/sched/wait.c \
	kernel/time/hrtimer.c \
	kernel/time/hrtimer_ktest.c \
	kernel/time/timerfd.c \
	kernel/time/posix_timers.c \
	kernel/time/realtime.c \
	kernel/sched/timed_wait.c \
	kernel/sched/timed_wait_ktest.c \
	kernel/sched/features.c \
	kernel/sched/load.c \
	kernel/sched/fair.c \
	kernel/sched/eevdf.c \
	kernel/sched/rr.c \
	kernel/sched/rt/class.c \
	kernel/sched/rt/push.c \
	kernel/sched/rt/policy.c \
	kernel/sched/rt/rt_ktest.c \
	kernel/sched/balance.c \
	kernel/sched/balance_find.c \
	kernel/sched/balance_move.c \
	kernel/sched/pelt.c \
	kernel/sched/balance_modern.c \
	kernel/sched/balance_modern_find.c \
	kernel/sched/stop.c \
	kernel/sched/stats.c \
	kernel/sched/verify.c \
	kernel/sched/cost.c \
	kernel/sched/placement.c \
	kernel/sched/select.c \
	kernel/sched/select_sbm.c \
	kernel/sched/select_sis_util.c \
	kernel/sched/model.c \
	kernel/sched/watchdog.c \
	kernel/sched/watchdog_ktest.c \
	kernel/sched/wasted_ktest.c \
	kernel/fs/cpio.c \
	kernel/fs/initrd.c \
	kernel/fs/file.c \
	kernel/fs/file_pos.c \
	kernel/fs/fdtable.c \
	kernel/fs/iov_iter.c \
	kernel/fs/sys_fs.c \
	kernel/fs/namei.c \
	kernel/fs/open.c \
	kernel/fs/initrd_file.c \
	kernel/fs/devnull.c \
	kernel/fs/ldisc.c \
	kernel/fs/console.c \
	kernel/fs/seqbuf.c \
	kernel/fs/procfs.c \
	kernel/fs/proc_builtin.c \
	kernel/fs/proc_sched.c \
	kernel/fs/proc_objects.c \
	kernel/fs/cwd.c \
	kernel/fs/stat.c \
	kernel/fs/dirent.c \
	kernel/fs/readdir.c \
	kernel/fs/readlink.c \
	kernel/fs/sendfile.c \
	kernel/fs/statfs.c \
	kernel/fs/sysfs_cpu.c \
	kernel/fs/tmpfs.c \
	kernel/fs/sys_namespace.c \
	kernel/fs/sync.c \
	kernel/ipc/sleeplock.c \
	kernel/ipc/pipe.c \
	kernel/ipc/socket.c \
	kernel/ipc/sys_socket.c \
	kernel/ipc/poll.c \
	kernel/ipc/select.c \
	kernel/ipc/eventfd.c \
	kernel/ipc/counter_fd.c \
	kernel/mm/mlock.c \
	kernel/ipc/epoll.c \
	kernel/ipc/ipc_ktest.c \
	kernel/proc/elf.c \
	kernel/proc/syscall.c \
	kernel/proc/user_fault.c \
	kernel/proc/oom.c \
	kernel/proc/process.c \
	kernel/proc/fork.c \
	kernel/proc/exec.c \
	kernel/proc/exit.c \
	kernel/proc/init.c \
	kernel/proc/futex.c \
	kernel/proc/sys_time.c \
	kernel/proc/itimer.c \
	kernel/proc/sys_sched.c \
	kernel/proc/sys_sched_attr.c \
	kernel/proc/sys_info.c \
	kernel/proc/signal.c \
	kernel/proc/signal_syscalls.c \
	kernel/proc/sigwait.c \
	kernel/proc/proc_pid.c \
	kernel/proc/sys_prctl.c \
	kernel/proc/proc_system.c \
	kernel/proc/sys_syslog.c \
	kernel/debug/ksyms.c \
	kernel/debug/selftest.c \
	kernel/trace/trace.c \
	kernel/trace/trace_events.c \
	kernel/trace/trace_output.c \
	kernel/trace/trace_ktest.c

# $(call check-sources,LIST-NAME): every file the list names exists and is
# named once; a stale or doubled entry stops make before it builds anything.
check-sources = $(strip \
	$(if $(filter-out $(wildcard $($1)),$($1)),$(error $1 names files that do not exist: \
		$(filter-out $(wildcard $($1)),$($1)))) \
	$(if $(filter-out $(words $(sort $($1))),$(words $($1))),$(error $1 names a file twice: \
		$(shell printf '%s\n' $($1) | sort | uniq -d))))
$(foreach l,BOOT_ASM ARCH_ASM ARCH_C KERNEL_C EXTRA_KERNEL_C,$(call check-sources,$l))

KOBJ := $(patsubst %.asm,$(BUILD)/%.o,$(BOOT_ASM) $(ARCH_ASM)) \
	$(patsubst %.c,$(BUILD)/%.o,$(ARCH_C) $(KERNEL_C) $(EXTRA_KERNEL_C)) $(BUILD)/font.o

# The framebuffer console's font: a PSF font from Debian's console-setup, turned
# into C data at build time (FONT=path picks another 8- to 32-pixel-wide PSF).
FONT ?= /usr/share/consolefonts/Lat15-Terminus16.psf.gz
$(BUILD)/font.c: $(FONT) tools/psf2c tools/lib/psf.py
	@mkdir -p $(@D)
	$(say) FONT $<
	$(Q)$(PYTHON) tools/psf2c $(FONT) $@

$(BUILD)/font.o: $(BUILD)/font.c arch/x86_64/font.h $(BUILD)/kflags.txt
	$(say) CC $<
	$(Q)$(CC) $(KCFLAGS) -Iarch/x86_64 -c $< -o $@

# Freestanding, kernel code model, no SSE/x87 state in the kernel, frame
# pointers kept so oops call traces can walk the stack.
KCFLAGS := -std=gnu11 -O2 -g -ffreestanding -fno-builtin -nostdinc \
	-isystem $(shell $(CC) -print-file-name=include) \
	-mcmodel=kernel -mno-red-zone -mgeneral-regs-only -mno-sse -mno-mmx -mno-80387 \
	-fno-pic -fno-pie -fno-stack-protector -fno-omit-frame-pointer \
	-fno-optimize-sibling-calls -fno-delete-null-pointer-checks -fno-strict-aliasing \
	-fno-asynchronous-unwind-tables -fno-common \
	-Wall -Wextra -Werror -Wno-unused-parameter -Wmissing-prototypes -Wstrict-prototypes \
	-Wshadow -Wpointer-arith -Wvla $(if $(SPINLOCK_DEBUG),-DSPINLOCK_DEBUG) \
	-Ikernel -Iarch/x86_64/include -MMD -MP
NASMFLAGS := -f elf64 -g -F dwarf -w+error=all -MD
LDFLAGS := -nostdlib -n -z max-page-size=0x1000 -z noexecstack --no-warn-rwx-segments \
	-T boot/linker.ld

# Objects depend on the flags they were built with: changing a flag rebuilds.
$(BUILD)/kflags.txt: FORCE
	$(call write-if-changed,$@,$(CC) $(KCFLAGS) $(NASMFLAGS))

$(BUILD)/%.o: %.c $(BUILD)/kflags.txt
	@mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(KCFLAGS) -c $< -o $@

$(BUILD)/%.o: %.asm $(BUILD)/kflags.txt
	@mkdir -p $(@D)
	$(say) NASM $<
	$(Q)$(NASM) $(NASMFLAGS) $(@:.o=.d) $< -o $@

# The symbol table for call traces is linked into the kernel itself: link
# once with an empty table, generate the table from that image, link again.
# The table sits after .data, so no text address moves between the links;
# gen-ksyms --check proves it.
$(BUILD)/ksyms-empty.c: tools/gen-ksyms
	@mkdir -p $(@D)
	$(Q)$(PYTHON) tools/gen-ksyms --empty > $@

$(BUILD)/ksyms-%.o: $(BUILD)/ksyms-%.c
	$(say) CC $<
	$(Q)$(CC) $(KCFLAGS) -c $< -o $@

$(BUILD)/fulcrum-pass1.elf: $(KOBJ) $(BUILD)/ksyms-empty.o boot/linker.ld
	$(say) LD $@
	$(Q)$(LD) $(LDFLAGS) -o $@ $(KOBJ) $(BUILD)/ksyms-empty.o

$(BUILD)/ksyms-table.c: $(BUILD)/fulcrum-pass1.elf tools/gen-ksyms
	$(say) KSYMS $@
	$(Q)$(NM) -n -S $< | $(PYTHON) tools/gen-ksyms > $@

$(BUILD)/fulcrum.elf: $(KOBJ) $(BUILD)/ksyms-table.o boot/linker.ld
	$(say) LD $@
	$(Q)$(LD) $(LDFLAGS) -o $@ $(KOBJ) $(BUILD)/ksyms-table.o
	$(Q)$(NM) -n -S $@ | $(PYTHON) tools/gen-ksyms --check $(BUILD)/ksyms-table.c
	@$(CROSS)size $@ | tail -1 | awk '{ printf "  kernel: text %d, data %d, bss %d bytes\n", $$1, $$2, $$3 }'

# The ISO is rebuilt when the kernel, the initrd or the command line changes.
$(BUILD)/cmdline.txt: FORCE
	$(call write-if-changed,$@,$(CMDLINE))

$(BUILD)/fulcrum.iso: $(BUILD)/fulcrum.elf $(BUILD)/initrd.cpio $(BUILD)/cmdline.txt boot/grub.cfg tools/mkiso
	$(say) ISO $@
	$(Q)tools/mkiso $(BUILD)/fulcrum.elf $@ "$$(cat $(BUILD)/cmdline.txt)" initrd=$(BUILD)/initrd.cpio

# The same hybrid image for a USB stick, with GRUB's menu shown for 5 seconds so a
# person at the machine can pick the benchmark suite or safe mode (docs/bare-metal.md).
usb: $(BUILD)/fulcrum.img ## build/fulcrum.img: the hybrid BIOS/UEFI image to dd onto a USB stick

$(BUILD)/fulcrum.img: $(BUILD)/fulcrum.elf $(BUILD)/initrd.cpio $(BUILD)/cmdline.txt boot/grub.cfg tools/mkiso
	$(say) IMG $@
	$(Q)MKISO_TIMEOUT=5 tools/mkiso $(BUILD)/fulcrum.elf $@ "$$(cat $(BUILD)/cmdline.txt)" initrd=$(BUILD)/initrd.cpio

.PHONY: FORCE usb
FORCE:

# ---------------------------------------------------------------- user programs and the initrd

# user/init.c -> /init, user/<name>.c -> /bin/<name>, user/tests/<name>.c ->
# /tests/<name>: static musl programs, each linked with the shared sources
# user/common/*.c and user/lib*.c when there are any (headers: -Iuser
# -Iuser/common). A folder user/<name>/ with .c files (not common, tests or
# rootfs) is one program too, /bin/<name>: each source compiled to its own
# object under $(BUILD)/user/obj/ (so its headers are tracked), then all of
# them linked with the shared code; adding or removing one of its files
# rebuilds the user programs, as the list is in cflags.txt. The initrd is
# the staging tree build/rootfs/ (the programs, user/rootfs/'s files, then
# EXTRA=dir/'s files over them) packed as cpio newc; it is rebuilt when a
# program, a file or a file name under user/rootfs/ or EXTRA changes.
MUSL_CC ?= musl-gcc
EXTRA ?=
USER_CFLAGS := -static -O2 -g -Wall -Wextra -Werror -Iuser -Iuser/common
USER_SHARED_C := $(wildcard user/common/*.c) $(wildcard user/lib*.c)
USER_SHARED_O := $(patsubst %.c,$(BUILD)/user/obj/%.o,$(USER_SHARED_C))
# An archive, so each program takes only the shared objects it uses.
USER_LIB := $(if $(USER_SHARED_C),$(BUILD)/user/libcommon.a)
USER_DIR_C := $(filter-out user/common/% user/tests/% user/rootfs/%,$(wildcard user/*/*.c))
USER_DIR_PROGS := $(sort $(patsubst user/%/,$(BUILD)/user/bin/%,$(dir $(USER_DIR_C))))
USER_PROGS := $(if $(wildcard user/init.c),$(BUILD)/user/init) \
	$(patsubst user/%.c,$(BUILD)/user/bin/%,$(filter-out user/init.c $(USER_SHARED_C),$(wildcard user/*.c))) \
	$(USER_DIR_PROGS) \
	$(patsubst user/tests/%.c,$(BUILD)/user/tests/%,$(wildcard user/tests/*.c))
# Real musl programs for the ELF parser's unit test (tests/unit/test_elf.c).
ELF_SAMPLES := $(BUILD)/user/elf-sample $(BUILD)/user/elf-sample-pie

.PHONY: musl-check cpio-check
musl-check:
	@command -v $(MUSL_CC) >/dev/null 2>&1 || { echo "make: $(MUSL_CC) not found: user programs need the \
	Debian package musl-tools (as root: apt-get install musl-tools; or make deps)" >&2; exit 1; }
cpio-check:
	@command -v cpio >/dev/null 2>&1 || { echo "make: cpio not found: the initrd needs the Debian \
	package cpio (as root: apt-get install cpio; or make deps)" >&2; exit 1; }

$(BUILD)/user/cflags.txt: FORCE
	$(call write-if-changed,$@,$(MUSL_CC) $(USER_CFLAGS) shared: $(USER_SHARED_C) folders: $(USER_DIR_C))

# $(call user-link,OUT,SOURCE): one program from one source plus the shared code.
user-link = $(MUSL_CC) $(USER_CFLAGS) -MMD -MP -MT $1 -MF $1.d -o $1 $2 $(USER_LIB)

$(BUILD)/user/obj/%.o: %.c $(BUILD)/user/cflags.txt | musl-check
	@mkdir -p $(@D)
	$(say) MUSLCC $<
	$(Q)$(MUSL_CC) $(USER_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/user/libcommon.a: $(USER_SHARED_O) $(BUILD)/user/cflags.txt
	$(say) AR $@
	$(Q)rm -f $@ && ar rcs $@ $(USER_SHARED_O)

$(BUILD)/user/init: user/init.c $(USER_LIB) $(BUILD)/user/cflags.txt | musl-check
	@mkdir -p $(@D)
	$(say) MUSLCC $<
	$(Q)$(call user-link,$@,$<)

$(BUILD)/user/bin/%: user/%.c $(USER_LIB) $(BUILD)/user/cflags.txt | musl-check
	@mkdir -p $(@D)
	$(say) MUSLCC $<
	$(Q)$(call user-link,$@,$<)

# A folder program depends on its folder's objects (one line each, by eval).
$(foreach p,$(USER_DIR_PROGS),$(eval $p: $(patsubst %.c,$(BUILD)/user/obj/%.o,\
	$(filter user/$(notdir $p)/%,$(USER_DIR_C)))))
$(USER_DIR_PROGS): $(BUILD)/user/bin/%: $(USER_LIB) $(BUILD)/user/cflags.txt | musl-check
	@mkdir -p $(@D)
	$(say) MUSLLD $@
	$(Q)$(MUSL_CC) $(USER_CFLAGS) -o $@ $(filter %.o,$^) $(USER_LIB)

$(BUILD)/user/tests/%: user/tests/%.c $(USER_LIB) $(BUILD)/user/cflags.txt | musl-check
	@mkdir -p $(@D)
	$(say) MUSLCC $<
	$(Q)$(call user-link,$@,$<)

$(BUILD)/user/elf-sample: tests/unit/data/elf_sample.c $(BUILD)/user/cflags.txt | musl-check
	@mkdir -p $(@D)
	$(say) MUSLCC $<
	$(Q)$(MUSL_CC) $(USER_CFLAGS) -o $@ $<

$(BUILD)/user/elf-sample-pie: tests/unit/data/elf_sample.c $(BUILD)/user/cflags.txt | musl-check
	@mkdir -p $(@D)
	$(say) MUSLCC $< -static-pie
	$(Q)$(MUSL_CC) $(filter-out -static,$(USER_CFLAGS)) -static-pie -o $@ $<

# What the staging tree is made of besides the programs' contents: their
# list, and every path, type, mode, size and mtime under user/rootfs/ and
# EXTRA. Rewritten only when that changes, so the initrd depends on it.
# The real clients tools/build-clients made (cyclictest, rt-hackbench, schbench), when there.
CLIENTS_BIN := $(BUILD)/clients/bin
$(BUILD)/rootfs.inputs: FORCE
	@mkdir -p $(@D)
	$(if $(EXTRA),@test -d "$(EXTRA)" || { echo "make: EXTRA=$(EXTRA): no such directory" >&2; exit 1; })
	@{ echo "EXTRA=$(EXTRA) BUSYBOX=$(BUSYBOX) PROGS=$(USER_PROGS)"; find user/rootfs $(EXTRA) $(wildcard $(CLIENTS_BIN)) -printf '%p %y %m %s %T@\n' 2>/dev/null | \
		LC_ALL=C sort; } > $@.tmp; cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@

# Debian's busybox (the busybox-static package): downloaded once with
# apt-get download into $(BUILD)/busybox/ and unpacked there, never
# installed. NO_BUSYBOX=1 leaves it out of the initrd. Its applets become
# links /bin/<applet> -> busybox, except where a Fulcrum program already
# has that name (/bin/sh stays Fulcrum's shell; busybox's is /bin/ash).
NO_BUSYBOX ?=
BUSYBOX := $(if $(NO_BUSYBOX),,$(BUILD)/busybox/busybox)
$(BUILD)/busybox/busybox:
	@mkdir -p $(@D)
	$(say) FETCH busybox-static
	$(Q)cd $(@D) && rm -f busybox-static_*.deb && { apt-get download busybox-static >download.log 2>&1 || \
		{ cat download.log >&2; echo "make: could not fetch the Debian package busybox-static \
	(apt-get download busybox-static; run apt-get update first, or build with NO_BUSYBOX=1)" >&2; exit 1; }; }
	$(Q)cd $(@D) && rm -rf deb && dpkg-deb -x busybox-static_*.deb deb && cp deb/bin/busybox busybox.tmp
	$(Q)$(@D)/busybox.tmp --list > $(@D)/applets.txt && mv -f $(@D)/busybox.tmp $@

# The programs go in without debug sections, which hold the checkout's path:
# under icount the initrd's size moves the guest's timer phases, so an image
# must not depend on where the tree was cloned. gdb reads build/user/.
$(BUILD)/initrd.cpio: $(USER_PROGS) $(BUSYBOX) $(BUILD)/rootfs.inputs | cpio-check
	$(say) CPIO $@
	$(Q)rm -rf $(BUILD)/rootfs && mkdir -p $(BUILD)/rootfs/bin $(BUILD)/rootfs/tests
	$(Q)for p in $(patsubst $(BUILD)/user/%,%,$(USER_PROGS)); do \
		$(OBJCOPY) --strip-debug $(BUILD)/user/$$p $(BUILD)/rootfs/$$p || exit 1; done
	$(if $(BUSYBOX),$(Q)cp $(BUSYBOX) $(BUILD)/rootfs/bin/busybox && \
		for a in $$(cat $(BUILD)/busybox/applets.txt) ash; do [ -e $(BUILD)/rootfs/bin/$$a ] || \
		ln -s busybox $(BUILD)/rootfs/bin/$$a || exit 1; done)
	$(Q)if [ -d user/rootfs ]; then cp -R user/rootfs/. $(BUILD)/rootfs/; fi
	$(Q)if [ -d $(CLIENTS_BIN) ]; then cp $(CLIENTS_BIN)/* $(BUILD)/rootfs/bin/; fi
	$(if $(EXTRA),$(Q)cp -R "$(EXTRA)"/. $(BUILD)/rootfs/)
	$(Q)cd $(BUILD)/rootfs && find . | LC_ALL=C sort | \
		cpio -o -H newc -R 0:0 --reproducible --quiet > ../initrd.cpio.tmp
	$(Q)mv -f $(BUILD)/initrd.cpio.tmp $@
	@printf '  initrd: %s files, %s KiB\n' "$$(find $(BUILD)/rootfs -type f | wc -l)" \
		"$$(( ($$(wc -c < $@) + 1023) / 1024 ))"

# ---------------------------------------------------------------- unit tests

# Kernel sources that build on the host against tests/unit/fake/ (the arch
# interface's stand-ins). The C library supplies lib/string.c's functions.
UNIT_KERNEL_C := \
	kernel/printk.c \
	kernel/cmdline.c \
	kernel/panic.c \
	kernel/boot/multiboot2.c \
	kernel/boot/pvh.c \
	kernel/acpi/tables.c \
	kernel/acpi/madt.c \
	kernel/acpi/srat.c \
	kernel/acpi/slit.c \
	kernel/acpi/spcr.c \
	kernel/acpi/topology.c \
	kernel/lib/printf.c \
	kernel/lib/kstrto.c \
	kernel/lib/cpumask.c \
	kernel/lib/rbtree.c \
	kernel/mm/memmap.c \
	kernel/mm/page_alloc.c \
	kernel/mm/heap.c \
	kernel/mm/vm.c \
	kernel/mm/vm_area.c \
	kernel/mm/vm_map.c \
	kernel/mm/vm_syscalls.c \
	kernel/mm/vm_madvise.c \
	kernel/mm/shmem.c \
	kernel/sched/topology.c \
	kernel/sched/topology_gen.c \
	kernel/sched/topology_check.c \
	kernel/sched/topology_debug.c \
	kernel/sched/balance_map.c \
	kernel/sched/core.c \
	kernel/sched/task.c \
	kernel/sched/idle.c \
	kernel/sched/wait.c \
	kernel/time/hrtimer.c \
	kernel/time/realtime.c \
	kernel/sched/features.c \
	kernel/sched/load.c \
	kernel/sched/fair.c \
	kernel/sched/eevdf.c \
	kernel/sched/rr.c \
	kernel/sched/rt/class.c \
	kernel/sched/rt/push.c \
	kernel/sched/rt/policy.c \
	kernel/sched/placement.c \
	kernel/sched/select.c \
	kernel/sched/select_sbm.c \
	kernel/sched/select_sis_util.c \
	kernel/sched/model.c \
	kernel/sched/balance.c \
	kernel/sched/balance_find.c \
	kernel/sched/balance_move.c \
	kernel/sched/pelt.c \
	kernel/sched/balance_modern.c \
	kernel/sched/balance_modern_find.c \
	kernel/sched/stop.c \
	kernel/sched/stats.c \
	kernel/sched/verify.c \
	kernel/sched/cost.c \
	kernel/sched/watchdog.c \
	kernel/fs/cpio.c \
	kernel/fs/initrd.c \
	kernel/fs/file.c \
	kernel/fs/file_pos.c \
	kernel/fs/fdtable.c \
	kernel/fs/iov_iter.c \
	kernel/fs/sys_fs.c \
	kernel/fs/namei.c \
	kernel/fs/open.c \
	kernel/fs/initrd_file.c \
	kernel/fs/devnull.c \
	kernel/fs/ldisc.c \
	kernel/fs/console.c \
	kernel/fs/seqbuf.c \
	kernel/fs/procfs.c \
	kernel/fs/proc_builtin.c \
	kernel/fs/cwd.c \
	kernel/fs/stat.c \
	kernel/fs/dirent.c \
	kernel/fs/readdir.c \
	kernel/fs/tmpfs.c \
	kernel/ipc/sleeplock.c \
	kernel/ipc/pipe.c \
	kernel/ipc/socket.c \
	kernel/ipc/sys_socket.c \
	kernel/ipc/poll.c \
	kernel/ipc/select.c \
	kernel/proc/elf.c \
	kernel/debug/ksyms.c \
	kernel/trace/trace.c \
	kernel/trace/trace_events.c \
	kernel/trace/trace_output.c \
	arch/x86_64/cpuid_topology.c \
	arch/x86_64/fbcon_text.c \
	arch/x86_64/signal_frame.c
UNIT_TEST_C := $(wildcard tests/unit/*.c) $(wildcard tests/unit/fake/*.c)
$(call check-sources,UNIT_KERNEL_C)
UNIT_OBJ := $(patsubst %.c,$(BUILD)/unit/%.o,$(UNIT_KERNEL_C) $(UNIT_TEST_C))

UNIT_CFLAGS := -std=gnu11 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -DSPINLOCK_DEBUG \
	-fno-sanitize-recover=undefined -Wall -Wextra -Werror -Wno-unused-parameter \
	-Ikernel -Iarch/x86_64/include -Iarch/x86_64 -Itests/unit -Itests/unit/fake -MMD -MP \
	$(shell pkg-config --cflags check 2>/dev/null)
UNIT_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck)

$(BUILD)/unit/cflags.txt: FORCE
	$(call write-if-changed,$@,$(HOSTCC) $(UNIT_CFLAGS))

$(BUILD)/unit/%.o: %.c $(BUILD)/unit/cflags.txt
	@mkdir -p $(@D)
	$(say) HOSTCC $<
	$(Q)$(HOSTCC) $(UNIT_CFLAGS) -c $< -o $@

$(BUILD)/unit/fulcrum-unit: $(UNIT_OBJ)
	$(say) HOSTLD $@
	$(Q)$(HOSTCC) $(UNIT_CFLAGS) -o $@ $^ $(UNIT_LIBS)

# select-cost: select_task_rq_fair() timed on the host at the kernel's -O2,
# no sanitizers, against the placement tests' fake machine (tools/sched-cost).
BENCH_C := tests/bench/select_cost.c tests/unit/select_fixture.c tests/unit/topo_machines.c \
	$(wildcard tests/unit/fake/*.c) $(filter-out kernel/debug/ksyms.c,$(UNIT_KERNEL_C))
BENCH_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter \
	-Ikernel -Iarch/x86_64/include -Iarch/x86_64 -Itests/unit -Itests/unit/fake -MMD -MP \
	$(shell pkg-config --cflags check 2>/dev/null)

$(BUILD)/bench/cflags.txt: FORCE
	$(call write-if-changed,$@,$(HOSTCC) $(BENCH_CFLAGS))

$(BUILD)/bench/%.o: %.c $(BUILD)/bench/cflags.txt
	@mkdir -p $(@D)
	$(say) HOSTCC $<
	$(Q)$(HOSTCC) $(BENCH_CFLAGS) -c $< -o $@

$(BUILD)/bench/select-cost: $(patsubst %.c,$(BUILD)/bench/%.o,$(BENCH_C))
	$(say) HOSTLD $@
	$(Q)$(HOSTCC) $(BENCH_CFLAGS) -o $@ $^ $(UNIT_LIBS)

# ---------------------------------------------------------------- host tools

# fulcrum-topo runs the kernel's ACPI parsers, CPUID layout decoding and
# domain builder on the host: objects of the unit build, with its own
# stand-ins for the arch interface and the heap (tools/topo/topo_arch.c).
TOPO_C := tools/topo/fulcrum_topo.c tools/topo/topo_text.c tools/topo/topo_json.c \
	tools/topo/topo_arch.c \
	kernel/acpi/tables.c kernel/acpi/madt.c kernel/acpi/srat.c kernel/acpi/slit.c \
	kernel/acpi/topology.c kernel/printk.c kernel/cmdline.c kernel/lib/printf.c \
	kernel/lib/kstrto.c kernel/lib/cpumask.c arch/x86_64/cpuid_topology.c \
	kernel/sched/topology.c kernel/sched/topology_gen.c kernel/sched/topology_check.c \
	kernel/sched/topology_debug.c kernel/sched/balance_map.c
$(call check-sources,TOPO_C)

$(BUILD)/tools/fulcrum-topo: $(patsubst %.c,$(BUILD)/unit/%.o,$(TOPO_C))
	@mkdir -p $(@D)
	$(say) HOSTLD $@
	$(Q)$(HOSTCC) $(UNIT_CFLAGS) -o $@ $^

# rtapp-dump: fulcrum-sim's rt-app JSON front end on its own (docs/rtapp.md),
# with ASan and UBSan like the unit build; jansson reads the JSON.
RTAPP_C := tools/sim/rtapp.c tools/sim/rtapp_events.c tools/sim/rtapp_json.c tools/sim/workload.c
JANSSON_CFLAGS := $(shell pkg-config --cflags jansson 2>/dev/null)
JANSSON_LIBS := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)
$(call check-sources,RTAPP_C)

$(patsubst %.c,$(BUILD)/unit/%.o,$(RTAPP_C) tools/sim/rtapp_dump.c): private UNIT_CFLAGS += $(JANSSON_CFLAGS)

$(BUILD)/tools/rtapp-dump: $(patsubst %.c,$(BUILD)/unit/%.o,$(RTAPP_C) tools/sim/rtapp_dump.c)
	@mkdir -p $(@D)
	$(say) HOSTLD $@
	$(Q)$(HOSTCC) $(UNIT_CFLAGS) -o $@ $^ $(JANSSON_LIBS)

# ---------------------------------------------------------------- the simulator

# fulcrum-sim runs the kernel's scheduler files unchanged on a simulated
# machine (tools/sim/sim_arch.c is its arch interface), built for up to
# 1,024 CPUs (MAX_CPUS is a build-time knob, kernel/machine.h). The preset
# table is generated from tools/lib/qemu_machine.py, so it cannot drift.
# fulcrum-sim-asan is the same program under ASan and UBSan, for the tests.
SIM_MAX_CPUS ?= 1024
SIM_KERNEL_C := kernel/printk.c kernel/cmdline.c kernel/panic.c \
	kernel/lib/printf.c kernel/lib/kstrto.c kernel/lib/cpumask.c kernel/lib/rbtree.c \
	kernel/acpi/tables.c kernel/acpi/madt.c kernel/acpi/srat.c kernel/acpi/slit.c \
	kernel/acpi/topology.c arch/x86_64/cpuid_topology.c \
	kernel/sched/topology.c kernel/sched/topology_gen.c kernel/sched/topology_check.c \
	kernel/sched/topology_debug.c kernel/sched/balance_map.c kernel/sched/core.c \
	kernel/sched/task.c kernel/sched/idle.c kernel/sched/wait.c kernel/sched/features.c \
	kernel/sched/load.c kernel/sched/fair.c kernel/sched/eevdf.c kernel/sched/rr.c \
	kernel/sched/placement.c \
	kernel/sched/select.c kernel/sched/select_sbm.c kernel/sched/select_sis_util.c \
	kernel/sched/model.c kernel/sched/balance.c \
	kernel/sched/balance_find.c kernel/sched/balance_move.c kernel/sched/pelt.c \
	kernel/sched/balance_modern.c \
	kernel/sched/balance_modern_find.c kernel/sched/stop.c kernel/sched/stats.c \
	kernel/sched/verify.c kernel/sched/cost.c kernel/sched/watchdog.c \
	kernel/trace/trace.c kernel/trace/trace_events.c kernel/trace/trace_output.c \
	kernel/fs/seqbuf.c
SIM_C := tools/sim/fulcrum_sim.c tools/sim/engine.c tools/sim/machine.c tools/sim/workloads.c \
	tools/sim/cost.c \
	tools/sim/messaging.c tools/sim/workloads_net.c tools/sim/rtapp_run.c $(RTAPP_C) \
	tools/sim/sim_arch.c $(SIM_KERNEL_C) user/common/fairness.c user/common/wlreport.c
$(call check-sources,SIM_C)
SIM_CFLAGS := -std=gnu11 -O2 -g -DMAX_CPUS=$(SIM_MAX_CPUS) -Wall -Wextra -Werror \
	-Wno-unused-parameter -Ikernel -Iarch/x86_64/include -Iarch/x86_64 -Itools/sim \
	-I$(BUILD)/sim -Iuser/common -MMD -MP $(JANSSON_CFLAGS)
SIM_ASAN_CFLAGS := $(filter-out -O2,$(SIM_CFLAGS)) -O1 -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined
SIM_TOOLS := $(BUILD)/tools/fulcrum-sim $(BUILD)/tools/fulcrum-sim-asan

$(BUILD)/sim/sim_presets.h: tools/sim/gen-presets tools/lib/qemu_machine.py
	@mkdir -p $(@D)
	$(say) GEN $@
	$(Q)$(PYTHON) tools/sim/gen-presets > $@.tmp && mv -f $@.tmp $@

$(BUILD)/sim/cflags.txt: FORCE
	$(call write-if-changed,$@,$(HOSTCC) $(SIM_CFLAGS) / $(SIM_ASAN_CFLAGS))

$(BUILD)/sim/obj/%.o: %.c $(BUILD)/sim/cflags.txt | $(BUILD)/sim/sim_presets.h
	@mkdir -p $(@D)
	$(say) SIMCC $<
	$(Q)$(HOSTCC) $(SIM_CFLAGS) -c $< -o $@

$(BUILD)/sim/asan/%.o: %.c $(BUILD)/sim/cflags.txt | $(BUILD)/sim/sim_presets.h
	@mkdir -p $(@D)
	$(say) ASANCC $<
	$(Q)$(HOSTCC) $(SIM_ASAN_CFLAGS) -c $< -o $@

$(BUILD)/tools/fulcrum-sim: $(patsubst %.c,$(BUILD)/sim/obj/%.o,$(SIM_C))
	@mkdir -p $(@D)
	$(say) HOSTLD $@
	$(Q)$(HOSTCC) $(SIM_CFLAGS) -o $@ $^ -lm $(JANSSON_LIBS)

$(BUILD)/tools/fulcrum-sim-asan: $(patsubst %.c,$(BUILD)/sim/asan/%.o,$(SIM_C))
	@mkdir -p $(@D)
	$(say) HOSTLD $@
	$(Q)$(HOSTCC) $(SIM_ASAN_CFLAGS) -o $@ $^ -lm $(JANSSON_LIBS)

# ---------------------------------------------------------------- fuzzing

# libFuzzer over the ACPI parsers, ASan and UBSan on; seeds: tests/data/acpi-corpus.
FUZZ_CC ?= clang
FUZZ_C := tests/fuzz/fuzz_acpi.c tests/unit/fake/fake_arch.c \
	kernel/acpi/tables.c kernel/acpi/madt.c kernel/acpi/srat.c kernel/acpi/slit.c \
	kernel/acpi/topology.c kernel/printk.c kernel/cmdline.c kernel/lib/printf.c \
	kernel/lib/kstrto.c
FUZZ_CFLAGS := -std=gnu11 -O1 -g -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -Wall -Wextra -Werror -Wno-unused-parameter \
	-Ikernel -Iarch/x86_64/include -Iarch/x86_64 -Itests/unit/fake -MMD -MP

$(BUILD)/fuzz/cflags.txt: FORCE
	$(call write-if-changed,$@,$(FUZZ_CC) $(FUZZ_CFLAGS))

$(BUILD)/fuzz/%.o: %.c $(BUILD)/fuzz/cflags.txt
	@mkdir -p $(@D)
	$(say) FUZZCC $<
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

$(BUILD)/fuzz/fuzz_acpi: $(patsubst %.c,$(BUILD)/fuzz/%.o,$(FUZZ_C))
	$(say) FUZZLD $@
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $^

# The initrd (cpio reader, index, lookups) and the ELF parser; seeds: a small
# archive of user/rootfs/ and a real musl program.
FUZZ_USER := $(BUILD)/fuzz/fuzz_cpio $(BUILD)/fuzz/fuzz_elf \
	$(BUILD)/fuzz/seeds-cpio/rootfs.cpio $(BUILD)/fuzz/seeds-elf/elf-sample
FUZZ_CPIO_C := tests/fuzz/fuzz_cpio.c tests/unit/fake/fake_arch.c kernel/fs/cpio.c \
	kernel/fs/initrd.c kernel/printk.c kernel/cmdline.c kernel/lib/printf.c kernel/lib/kstrto.c
FUZZ_ELF_C := tests/fuzz/fuzz_elf.c kernel/proc/elf.c

$(BUILD)/fuzz/fuzz_cpio: $(patsubst %.c,$(BUILD)/fuzz/%.o,$(FUZZ_CPIO_C))
	$(say) FUZZLD $@
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $^

$(BUILD)/fuzz/fuzz_elf: $(patsubst %.c,$(BUILD)/fuzz/%.o,$(FUZZ_ELF_C))
	$(say) FUZZLD $@
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $^

$(BUILD)/fuzz/seeds-cpio/rootfs.cpio: $(BUILD)/rootfs.inputs | cpio-check
	@mkdir -p $(@D)
	$(Q)cd user/rootfs && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet > $(abspath $@)

$(BUILD)/fuzz/seeds-elf/elf-sample: $(BUILD)/user/elf-sample
	@mkdir -p $(@D)
	$(Q)cp $< $@

# Not a folder program's <name>.d: left by an old one-file build, it names user/<name>.c.
-include $(filter-out $(USER_DIR_PROGS:=.d),\
	$(shell find $(BUILD) -path $(BUILD)/linux -prune -o -type f -name '*.d' -print 2>/dev/null))
