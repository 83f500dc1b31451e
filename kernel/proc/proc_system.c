/*
 * The machine-wide /proc files tools read besides uptime and meminfo:
 * /proc/stat, /proc/loadavg, /proc/cpuinfo and /proc/mounts, in Linux's
 * formats. CPU time in /proc/stat is split into busy (all shown as user:
 * Fulcrum does not tell user from system time) and idle (the rest of the
 * time since boot). The load averages are 0.00: Fulcrum keeps none.
 */
#include <arch/smp.h>
#include <arch/time.h>

#include "fs/procfs.h"
#include "fs/seqbuf.h"
#include "lib/printf.h"
#include "machine_boot.h"
#include "printk.h"
#include "proc/proc_internal.h"
#include "proc/proc_system.h"
#include "proc/process.h"
#include "sched/sched.h"

#define NS_PER_TICK 10000000ULL /* USER_HZ = 100 */

typedef unsigned long long ull;

static void max_pid_fn(struct process *p, void *arg)
{
	int *max = arg;

	if (p->pid > *max)
		*max = p->pid;
}

static int last_pid(void)
{
	unsigned long flags = spin_lock_irqsave(&proc_lock);
	int max = 0;

	process_for_each_locked(max_pid_fn, &max);
	spin_unlock_irqrestore(&proc_lock, flags);
	return max;
}

static void cpu_line(struct seqbuf *sb, const char *name, u64 busy_ns, u64 idle_ns)
{
	seq_printf(sb, "%s %llu 0 0 %llu 0 0 0 0 0 0\n", name, (ull)(busy_ns / NS_PER_TICK),
		   (ull)(idle_ns / NS_PER_TICK));
}

static int show_stat(struct seqbuf *sb, void *arg)
{
	u64 now = arch_clock_ns(), busy_all = 0, idle_all = 0, switches = 0;
	u32 n = sched_nr_cpus(), running = 0;
	char name[16];

	for (u32 cpu = 0; cpu < n; cpu++) {
		struct rq *rq = cpu_rq(cpu);
		u64 busy = READ_ONCE(rq->stats.rq_cpu_time);

		busy = busy < now ? busy : now;
		busy_all += busy;
		idle_all += now - busy;
		switches += READ_ONCE(rq->nr_switches);
		running += READ_ONCE(rq->nr_running);
	}
	cpu_line(sb, "cpu ", busy_all, idle_all);
	for (u32 cpu = 0; cpu < n; cpu++) {
		u64 busy = READ_ONCE(cpu_rq(cpu)->stats.rq_cpu_time);

		busy = busy < now ? busy : now;
		if (!arch_cpu_online(cpu))
			continue;
		ksnprintf(name, sizeof(name), "cpu%u", cpu);
		cpu_line(sb, name, busy, now - busy);
	}
	seq_printf(sb, "intr 0\nctxt %llu\nbtime %llu\nprocesses %d\n", (ull)switches,
		   (ull)(arch_rtc_seconds() - now / 1000000000ULL), last_pid());
	seq_printf(sb, "procs_running %u\nprocs_blocked 0\nsoftirq 0 0 0 0 0 0 0 0 0 0 0\n",
		   running ? running : 1);
	return 0;
}

static int show_loadavg(struct seqbuf *sb, void *arg)
{
	u32 n = sched_nr_cpus(), running = 0;

	for (u32 cpu = 0; cpu < n; cpu++)
		running += READ_ONCE(cpu_rq(cpu)->nr_running);
	return seq_printf(sb, "0.00 0.00 0.00 %u/%u %d\n", running ? running : 1, thread_count(),
			  last_pid());
}

/* Linux's layout, with what Fulcrum knows of each CPU: its place in the topology. */
static int show_cpuinfo(struct seqbuf *sb, void *arg)
{
	const struct machine *m = machine_current();
	u64 mhz = arch_tsc_hz() / 1000000;

	for (u32 cpu = 0; cpu < m->nr_cpus; cpu++) {
		const struct machine_cpu *c = &m->cpu[cpu];
		u32 siblings = 0, cores = 0;

		for (u32 o = 0; o < m->nr_cpus; o++) {
			if (m->cpu[o].package != c->package)
				continue;
			siblings++;
			if (m->cpu[o].thread == 0)
				cores++;
		}
		seq_printf(sb, "processor\t: %u\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n", cpu);
		seq_printf(sb, "model name\t: Fulcrum virtual CPU\ncpu MHz\t\t: %llu.000\n",
			   (ull)mhz);
		seq_printf(sb, "physical id\t: %u\nsiblings\t: %u\ncore id\t\t: %u\n", c->package,
			   siblings, c->core);
		seq_printf(sb, "cpu cores\t: %u\napicid\t\t: %u\ninitial apicid\t: %u\n", cores,
			   c->apic_id, c->apic_id);
		seq_printf(sb, "fpu\t\t: yes\nflags\t\t: fpu tsc apic\n\n");
	}
	return 0;
}

static int show_mounts(struct seqbuf *sb, void *arg)
{
	return seq_printf(sb, "rootfs / rootfs ro 0 0\n"
			      "devtmpfs /dev devtmpfs rw 0 0\n"
			      "proc /proc proc rw,nosuid,nodev,noexec 0 0\n"
			      "tmpfs /tmp tmpfs rw,nosuid,nodev 0 0\n");
}

void proc_system_init(void)
{
	int err = procfs_register("stat", show_stat, NULL, NULL);

	err |= procfs_register("loadavg", show_loadavg, NULL, NULL);
	err |= procfs_register("cpuinfo", show_cpuinfo, NULL, NULL);
	err |= procfs_register("mounts", show_mounts, NULL, NULL);
	if (err)
		pr_warn("procfs: could not register stat, loadavg, cpuinfo, mounts\n");
}
