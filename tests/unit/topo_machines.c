/*
 * Synthetic machines and small printers shared by the topology, balance-map
 * and generation tests.
 */
#include "topo_machines.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_arch.h"
#include "mm/heap.h"
#include "mm/memmap.h"
#include "mm/page_alloc.h"

static struct memmap mm;

void topo_test_start(size_t ram)
{
	const struct mem_entry e[] = { { 0, ram, MEM_USABLE } };

	fake_ram_init(ram);
	fake_console_reset();
	memmap_init(&mm, e, 1);
	ck_assert_int_eq(page_alloc_init(&mm), 0);
	heap_init();
	sched_topology_reset_for_tests();
	sched_debug_enabled = false;
}

void topo_test_stop(void)
{
	sched_topology_reset_for_tests();
	fake_ram_free();
}

struct machine *machine_new(void)
{
	struct machine *m = calloc(1, sizeof(*m));

	ck_assert_ptr_nonnull(m);
	machine_set_nodes(m, 1, REMOTE_DISTANCE);
	return m;
}

unsigned int machine_add_cpu(struct machine *m, u32 package, u32 core, u32 thread, u32 llc, u32 node)
{
	struct machine_cpu *c = &m->cpu[m->nr_cpus];

	ck_assert_uint_lt(m->nr_cpus, MAX_CPUS);
	c->apic_id = m->nr_cpus;
	c->package = package;
	c->core = core;
	c->thread = thread;
	c->llc = llc;
	c->node = node;
	return m->nr_cpus++;
}

void machine_set_nodes(struct machine *m, u32 nr, u8 remote)
{
	m->nr_nodes = nr;
	for (u32 i = 0; i < nr; i++)
		for (u32 j = 0; j < nr; j++)
			m->distance[i][j] = i == j ? LOCAL_DISTANCE : remote;
}

struct machine *machine_grid(u32 packages, u32 cores, u32 threads, u32 nodes)
{
	struct machine *m = machine_new();

	ck_assert(nodes == 1 || nodes == packages);
	machine_set_nodes(m, nodes, 21);
	for (u32 p = 0; p < packages; p++)
		for (u32 c = 0; c < cores; c++)
			for (u32 t = 0; t < threads; t++)
				machine_add_cpu(m, p, c, t, p, nodes == 1 ? 0 : p);
	return m;
}

const char *mask_str(const struct cpumask *m)
{
	static char buf[1024];

	cpumask_print(buf, sizeof(buf), m);
	return buf;
}

const char *chain_str(const struct sched_topology *t, u32 cpu)
{
	static char buf[256];
	struct sched_domain *sd;
	size_t len = 0;

	buf[0] = '\0';
	for_each_domain (t, cpu, sd)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%d:%s", len ? " " : "",
					sd->level, sd->name);
	return buf;
}

const char *groups_str(const struct sched_domain *sd)
{
	static char buf[4096];
	const struct sched_group *sg;
	size_t len = 0;
	char span[512];

	buf[0] = '\0';
	for_each_sd_group (sg, sd) {
		cpumask_print(span, sizeof(span), &sg->cpus);
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s/%u", len ? " " : "",
					span, sg->power);
	}
	return buf;
}

struct sched_domain *domain_at(const struct sched_topology *t, u32 cpu, int level)
{
	struct sched_domain *sd;

	for_each_domain (t, cpu, sd)
		if (sd->level == level)
			return sd;
	return NULL;
}
