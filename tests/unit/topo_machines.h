/*
 * Synthetic machines for the topology tests, built by hand as the ACPI and
 * CPUID code would describe them, and the fake RAM the builder's heap needs.
 */
#ifndef FULCRUM_TESTS_TOPO_MACHINES_H
#define FULCRUM_TESTS_TOPO_MACHINES_H

#include <stddef.h>

#include "machine.h"
#include "sched/topology.h"

/* Fake RAM, page allocator and heap of ram bytes; the topology globals reset. */
void topo_test_start(size_t ram);
void topo_test_stop(void);

/* A zeroed machine (calloc'd; free()) with no CPUs, one node, SLIT 10 local. */
struct machine *machine_new(void);

/* Appends a CPU; returns its number. */
unsigned int machine_add_cpu(struct machine *m, u32 package, u32 core, u32 thread, u32 llc, u32 node);

/* nr nodes, 10 local and `remote` between any two. */
void machine_set_nodes(struct machine *m, u32 nr, u8 remote);

/*
 * packages x cores x threads, numbered as QEMU does (package, then core,
 * then thread), the LLC shared by a package, one node per package (nodes
 * == packages) or all in one node (nodes == 1), remote distance 21.
 */
struct machine *machine_grid(u32 packages, u32 cores, u32 threads, u32 nodes);

/* Linux's list form of a mask, in a static buffer (one at a time). */
const char *mask_str(const struct cpumask *m);

/* The levels of cpu's chain, e.g. "0:SMT 1:MC 4:NUMA"; static buffer. */
const char *chain_str(const struct sched_topology *t, u32 cpu);

/* The groups of sd round its ring, e.g. "0-1/1178 2-3/1178" (span/power); static buffer. */
const char *groups_str(const struct sched_domain *sd);

/* cpu's domain at level, or NULL. */
struct sched_domain *domain_at(const struct sched_topology *t, u32 cpu, int level);

#endif
