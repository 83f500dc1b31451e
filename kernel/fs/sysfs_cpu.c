/*
 * /sys/devices/system/cpu and /sys/devices/system/node as lscpu, libnuma
 * and hwloc read them: the online, possible and present CPU lists, each
 * CPU's topology (package, core, sibling lists) and each node's CPU list,
 * SLIT distances and memory, from the machine's description (the ACPI
 * tables, kernel/machine.h). Node meminfo has MemTotal only: the page
 * allocator does not count free pages per node.
 */
#include <arch/smp.h>

#include "fs/procfs.h"
#include "fs/seqbuf.h"
#include "fs/sysfs_cpu.h"
#include "lib/printf.h"
#include "machine_boot.h"
#include "printk.h"

enum sys_file {
	SYS_ONLINE,
	SYS_POSSIBLE,
	SYS_PACKAGE_ID,
	SYS_CORE_ID,
	SYS_DIE_ID,
	SYS_THREAD_SIBLINGS,
	SYS_CORE_SIBLINGS,
	SYS_NODE_ONLINE,
	SYS_NODE_CPULIST,
	SYS_NODE_DISTANCE,
	SYS_NODE_MEMINFO,
};

#define ARG(kind, n)  ((void *)(uintptr_t)(((n) << 8) | (kind)))
#define ARG_KIND(arg) ((enum sys_file)((uintptr_t)(arg)&0xff))
#define ARG_N(arg)    ((u32)((uintptr_t)(arg) >> 8))

typedef bool (*cpu_pred)(const struct machine *m, u32 cpu, u32 n);

/* Linux's cpulist format: "0-3,8-11", CPUs for which pred holds. */
static void print_list(struct seqbuf *sb, const struct machine *m, cpu_pred pred, u32 n)
{
	bool first = true;

	for (u32 cpu = 0; cpu < m->nr_cpus; cpu++) {
		u32 end = cpu;

		if (!pred(m, cpu, n))
			continue;
		while (end + 1 < m->nr_cpus && pred(m, end + 1, n))
			end++;
		seq_printf(sb, first ? "%u" : ",%u", cpu);
		if (end > cpu)
			seq_printf(sb, "-%u", end);
		first = false;
		cpu = end;
	}
	seq_printf(sb, "\n");
}

static bool any_cpu(const struct machine *m, u32 cpu, u32 n)
{
	return true;
}

static bool online_cpu(const struct machine *m, u32 cpu, u32 n)
{
	return arch_cpu_online(cpu);
}

static bool same_core(const struct machine *m, u32 cpu, u32 n)
{
	return m->cpu[cpu].package == m->cpu[n].package && m->cpu[cpu].core == m->cpu[n].core;
}

static bool same_package(const struct machine *m, u32 cpu, u32 n)
{
	return m->cpu[cpu].package == m->cpu[n].package;
}

static bool on_node(const struct machine *m, u32 cpu, u32 n)
{
	return m->cpu[cpu].node == n;
}

static int show(struct seqbuf *sb, void *arg)
{
	const struct machine *m = machine_current();
	u32 n = ARG_N(arg);
	unsigned long long kb = 0;

	switch (ARG_KIND(arg)) {
	case SYS_ONLINE:
		print_list(sb, m, online_cpu, 0);
		break;
	case SYS_POSSIBLE:
		print_list(sb, m, any_cpu, 0);
		break;
	case SYS_PACKAGE_ID:
		seq_printf(sb, "%u\n", m->cpu[n].package);
		break;
	case SYS_CORE_ID:
		seq_printf(sb, "%u\n", m->cpu[n].core);
		break;
	case SYS_DIE_ID:
		seq_printf(sb, "0\n");
		break;
	case SYS_THREAD_SIBLINGS:
		print_list(sb, m, same_core, n);
		break;
	case SYS_CORE_SIBLINGS:
		print_list(sb, m, same_package, n);
		break;
	case SYS_NODE_ONLINE:
		seq_printf(sb, m->nr_nodes > 1 ? "0-%u\n" : "%u\n", m->nr_nodes - 1);
		break;
	case SYS_NODE_CPULIST:
		print_list(sb, m, on_node, n);
		break;
	case SYS_NODE_DISTANCE:
		for (u32 o = 0; o < m->nr_nodes; o++)
			seq_printf(sb, o ? " %u" : "%u", m->distance[n][o]);
		seq_printf(sb, "\n");
		break;
	case SYS_NODE_MEMINFO:
		for (u32 r = 0; r < m->node[n].nr_mem; r++)
			kb += (m->node[n].mem[r].end - m->node[n].mem[r].start) / 1024;
		seq_printf(sb, "Node %u MemTotal:       %8llu kB\n", n, kb);
		break;
	}
	return 0;
}

static int reg(const char *path, void *arg)
{
	char full[PROCFS_PATH_MAX];

	ksnprintf(full, sizeof(full), SYSFS_PREFIX "/devices/system/%s", path);
	return procfs_register(full, show, NULL, arg);
}

void sysfs_cpu_init(void)
{
	static const struct {
		const char *name;
		enum sys_file kind;
	} topo[] = {
		{ "physical_package_id", SYS_PACKAGE_ID },
		{ "core_id", SYS_CORE_ID },
		{ "die_id", SYS_DIE_ID },
		{ "thread_siblings_list", SYS_THREAD_SIBLINGS },
		{ "core_cpus_list", SYS_THREAD_SIBLINGS },
		{ "core_siblings_list", SYS_CORE_SIBLINGS },
		{ "package_cpus_list", SYS_CORE_SIBLINGS },
	};
	const struct machine *m = machine_current();
	char path[PROCFS_PATH_MAX];
	int err = reg("cpu/online", ARG(SYS_ONLINE, 0));

	err |= reg("cpu/possible", ARG(SYS_POSSIBLE, 0));
	err |= reg("cpu/present", ARG(SYS_POSSIBLE, 0));
	for (u32 cpu = 0; cpu < m->nr_cpus; cpu++) {
		for (u32 i = 0; i < sizeof(topo) / sizeof(topo[0]); i++) {
			ksnprintf(path, sizeof(path), "cpu/cpu%u/topology/%s", cpu, topo[i].name);
			err |= reg(path, ARG(topo[i].kind, cpu));
		}
	}
	err |= reg("node/online", ARG(SYS_NODE_ONLINE, 0));
	err |= reg("node/possible", ARG(SYS_NODE_ONLINE, 0));
	for (u32 node = 0; node < m->nr_nodes; node++) {
		ksnprintf(path, sizeof(path), "node/node%u/cpulist", node);
		err |= reg(path, ARG(SYS_NODE_CPULIST, node));
		ksnprintf(path, sizeof(path), "node/node%u/distance", node);
		err |= reg(path, ARG(SYS_NODE_DISTANCE, node));
		ksnprintf(path, sizeof(path), "node/node%u/meminfo", node);
		err |= reg(path, ARG(SYS_NODE_MEMINFO, node));
	}
	if (err)
		pr_warn("sysfs: could not register every /sys/devices/system file\n");
}
