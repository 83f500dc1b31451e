/*
 * The machine as the scheduler sees it, independent of how it was found
 * out (ACPI MADT/SRAT/SLIT, CPUID, or a test's hand-made description):
 * each CPU's place in the package/core/thread/LLC/node hierarchy and the
 * distances between nodes.
 */
#ifndef FULCRUM_MACHINE_H
#define FULCRUM_MACHINE_H

#include "lib/types.h"
#include "mm/memmap.h"

/* A build-time knob (-DMAX_CPUS=N, a multiple of 64): host tools build with more. */
#ifndef MAX_CPUS
#define MAX_CPUS 256
#endif
#define MAX_NODES	    16
#define MAX_NODE_MEM_RANGES 8

#define LOCAL_DISTANCE	10 /* SLIT: a node to itself */
#define REMOTE_DISTANCE 20 /* SLIT default for any other node when there is no SLIT */

/* One logical CPU. CPU numbers are indices: the boot CPU is 0, the rest in MADT order. */
struct machine_cpu {
	u32 apic_id;  /* local APIC / x2APIC ID */
	u32 acpi_uid; /* ACPI processor UID (MADT) */
	u32 package;  /* physical package (socket) number, dense from 0 */
	u32 core;     /* core number within its package, dense from 0 */
	u32 thread;   /* SMT thread number within its core, dense from 0 */
	u32 llc;      /* last-level cache number, dense from 0, machine-wide */
	u32 node;     /* NUMA node, dense from 0 */
};

struct machine_node {
	u32 proximity_domain; /* the firmware's (SRAT) name for the node */
	struct mem_range mem[MAX_NODE_MEM_RANGES];
	u32 nr_mem;
};

struct machine {
	u32 nr_cpus;
	struct machine_cpu cpu[MAX_CPUS];
	u32 nr_nodes;
	struct machine_node node[MAX_NODES];
	u8 distance[MAX_NODES][MAX_NODES]; /* SLIT units: 10 local */
};

#endif
