/*
 * kernel_main: the boot sequence, top to bottom. Arch code has set up the
 * console, descriptor tables and clock; from here on everything is
 * portable and each step is one call.
 */
#include "main.h"

#include <arch/memory.h>
#include <arch/paging.h>
#include <arch/smp.h>
#include <arch/time.h>

#include "cmdline.h"
#include "debug/selftest.h"
#include "fs/initrd.h"
#include "fs/proc_objects.h"
#include "fs/proc_sched.h"
#include "fs/procfs.h"
#include "fs/sysfs_cpu.h"
#include "fs/tmpfs.h"
#include "ktest.h"
#include "lib/cpumask.h"
#include "machine_boot.h"
#include "mm/heap.h"
#include "mm/memmap.h"
#include "mm/page_alloc.h"
#include "panic.h"
#include "printk.h"
#include "proc/init.h"
#include "proc/proc_system.h"
#include "proc/syscall.h"
#include "sched/cost_bench.h"
#include "sched/model.h"
#include "sched/sched.h"
#include "sched/select.h"
#include "sched/stats.h"
#include "sched/stop.h"
#include "sched/topology.h"
#include "trace/trace.h"

#define LOW_MEMORY_END 0x100000 /* real-mode IVT, BIOS data, EBDA, option ROMs */

static struct memmap memmap;

static bool print_schedstat;
BOOT_OPTION_BOOL(
	schedstat, "schedstat", &print_schedstat,
	"print the scheduler statistics (/proc/schedstat version 15 format) and per-task statistics when the run ends");

static bool cmdline_help;
BOOT_OPTION_BOOL(cmdline_help, "cmdline_help", &cmdline_help,
		 "list every boot option with its value and meaning");

static const char *mem_type_name(u32 type)
{
	switch (type) {
	case MEM_USABLE:
		return "usable";
	case MEM_RESERVED:
		return "reserved";
	case MEM_ACPI_RECLAIMABLE:
		return "ACPI data";
	case MEM_ACPI_NVS:
		return "ACPI NVS";
	case MEM_BAD:
		return "unusable";
	default:
		return "unknown type";
	}
}

/* Cleans the firmware map and fences off everything that is not ours to hand out. */
static void memory_map_init(const struct boot_info *bi)
{
	phys_addr_t kstart, kend;

	if (bi->mem_from_efi)
		pr_info("memory: the EFI memory map, %u descriptors (%u free ones without write-back caching kept out)\n",
			bi->efi_descriptors, bi->efi_not_wb);
	for (size_t i = 0; i < bi->nr_mem; i++)
		pr_info("%s: [mem 0x%016llx-0x%016llx] %s\n",
			bi->mem_from_efi ? "EFI" : "BIOS-e820", (unsigned long long)bi->mem[i].base,
			(unsigned long long)(bi->mem[i].base + bi->mem[i].length - 1),
			mem_type_name(bi->mem[i].type));
	memmap_init(&memmap, bi->mem, bi->nr_mem);
	if (memmap.odd_entries)
		pr_debug("memory: %u firmware map entries were overlapping, empty, unaligned or out of range; cleaned up\n",
			 memmap.odd_entries);

	arch_kernel_extent(&kstart, &kend);
	memmap_reserve(&memmap, 0, LOW_MEMORY_END);
	memmap_reserve(&memmap, kstart, kend);
	memmap_reserve(&memmap, bi->mbi_start, bi->mbi_end);
	for (size_t i = 0; i < bi->nr_modules; i++)
		memmap_reserve(&memmap, bi->modules[i].start, bi->modules[i].end);
	machine_read_firmware(bi, &memmap); /* ACPI: CPUs, nodes; its tables stay reserved */
	if (memmap_free_bytes(&memmap) == 0)
		panic("memory: no usable RAM in the firmware memory map");
}

static void memory_report(void)
{
	phys_addr_t kstart, kend;

	arch_kernel_extent(&kstart, &kend);
	pr_info("Memory: %lluK/%lluK available (%lluK kernel, %lluK reserved)\n",
		(unsigned long long)(page_alloc_free_pages() * PAGE_SIZE / 1024),
		(unsigned long long)(memmap_usable_bytes(&memmap) / 1024),
		(unsigned long long)((kend - kstart) / 1024),
		(unsigned long long)((memmap_usable_bytes(&memmap) -
				      page_alloc_free_pages() * PAGE_SIZE) /
				     1024));
}

/* Brings up every CPU ACPI and CPUID describe, then builds the scheduling domains over them. */
static void smp_and_domains_init(void)
{
	const struct machine *m = machine_read_cpus();
	struct cpumask online;
	int err;

	if (sched_init(m)) /* a runqueue and an idle task per CPU, before any AP idles */
		panic("sched: out of memory for runqueues");
	arch_smp_boot(m);
	cpumask_clear(&online);
	for (u32 cpu = 0; cpu < m->nr_cpus; cpu++)
		if (arch_cpu_online(cpu))
			cpumask_set_cpu(cpu, &online);
	err = sched_topology_rebuild(m, &online);
	if (err)
		pr_err("sched: cannot build scheduling domains (%d); balancing stays off\n", err);
	sched_topology_print_summary(sched_topology_current());
	sched_placement_print(); /* the registered placement variants and the chosen one */
	sched_model_print();	 /* sched_model= and what runs */
	if (stop_machine_init()) /* per-CPU stoppers: active balancing, migration */
		pr_err("sched: cannot start the stopper threads; active balancing stays off\n");
}

/* At the end of the run, however it ends: the statistics asked for, and sched_verify's verdict. */
static bool run_end_report(void)
{
	u64 checks, violations;

	if (print_schedstat) {
		schedstat_print();
		sched_tasks_print();
	}
	if (!sched_feat(SCHED_VERIFY))
		return true;
	sched_verify_totals(&checks, &violations);
	pr_info("sched_verify: %llu checks, %llu violations\n", (unsigned long long)checks,
		(unsigned long long)violations);
	return violations == 0;
}

/* The rest of boot, as the first kernel thread: tests may sleep, spawn and wait. */
static void kernel_init(void *arg)
{
	int failed = ktest_run_selected(); /* ktest=...: in-kernel tests */
	u64 ns = arch_clock_ns();

	sched_cost_run();
	machine_finish_report = run_end_report;
	pr_info("fulcrum: ready in %llu.%06llu s\n", (unsigned long long)(ns / 1000000000),
		(unsigned long long)(ns % 1000000000 / 1000));
	if (!failed && proc_start_init())
		task_exit(0); /* init ends the run */
	machine_finish(failed ? EXIT_FAIL : EXIT_PASS);
}

void kernel_main(struct boot_info *bi)
{
	pr_info("Fulcrum %s booting (loader: %s)\n", FULCRUM_VERSION,
		bi->loader_name[0] ? bi->loader_name : "unknown");
	cmdline_parse(bi->cmdline); /* boot options steer every later step */
	pr_info("Command line: %s\n", cmdline_get());
	if (cmdline_help)
		cmdline_print_options();

	memory_map_init(bi);	      /* firmware map -> usable and reserved ranges */
	arch_paging_init(&memmap);    /* direct map of RAM, kernel sections W^X */
	if (page_alloc_init(&memmap)) /* buddy allocator over the rest */
		panic("memory: cannot set up the page allocator");
	heap_init(); /* kmalloc/kfree */
	memory_report();
	initrd_boot_init(bi);	/* index the "initrd" module (cpio newc) by path */
	arch_smp_init_boot();	/* local APIC, timer tick, IPIs; interrupts on */
	smp_and_domains_init(); /* scheduler, the other CPUs, sched domains */
	syscall_init();		/* the system-call table, from every registration */
	procfs_init();		/* /proc: uptime, meminfo */
	proc_sched_init();	/* /proc: schedstat, the scheduler's knobs, tasks, topology */
	proc_objects_init();	/* /proc/fulcrum/objects: the teardown counts */
	proc_system_init();	/* /proc: stat, loadavg, cpuinfo, mounts */
	sysfs_cpu_init();	/* /sys/devices/system: cpu and node */
	trace_init();		/* trace=...: event rings, /proc/fulcrum/trace */
	selftest_run();		/* selftest=...: deliberate faults, on the guarded boot stack */
	/* /tmp: a tmpfs of at most half of RAM, Linux's default size */
	tmpfs_init(page_alloc_total_pages() / 2);

	if (!kthread_create(kernel_init, NULL, "kinit", 0))
		panic("sched: cannot create the init thread");
	sched_idle_loop(); /* this context is now CPU 0's idle task */
}
