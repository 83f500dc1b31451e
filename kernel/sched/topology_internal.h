/*
 * Shared by the topology files only (builder, balance map, checks,
 * generations, printing): the generation's memory and the build steps
 * that live in files of their own.
 */
#ifndef FULCRUM_SCHED_TOPOLOGY_INTERNAL_H
#define FULCRUM_SCHED_TOPOLOGY_INTERNAL_H

#include "sched/topology.h"

/*
 * A generation's memory is a list of chunks from kmalloc, carved by a bump
 * allocator and freed together: a generation is freed as a whole or not
 * at all, and a failed build gives back everything it took.
 */
struct topo_chunk {
	struct topo_chunk *next;
	size_t size; /* bytes after the header */
	size_t used;
};

#define TOPO_CHUNK_BYTES 65536 /* one order-4 block, header included */

/* A new, empty generation in its first chunk; NULL when out of memory. */
struct sched_topology *topo_create(void);

/*
 * Runs every registered SCHED_TOPOLOGY_EXT build hook on t, which has its
 * domains; 0, or the first hook's error (-ENOSPC past
 * SCHED_TOPOLOGY_EXTS_MAX hooks).
 */
int topo_build_exts(struct sched_topology *t);

/* Counts packages, cores, threads and how the LLC is shared, for the summary. */
void topology_count(struct sched_topology *t, const struct machine *m);

#endif
