/*
 * Michael Wang's schedule balance map (RFC v3): per CPU, the answers of
 * select_task_rq_fair()'s domain walk, built with every topology
 * generation by its own SCHED_TOPOLOGY_EXT hook (balance_map.c) and read
 * by the sbm placement variant (select_sbm.c), the checks and the printers.
 */
#ifndef FULCRUM_SCHED_BALANCE_MAP_H
#define FULCRUM_SCHED_BALANCE_MAP_H

#include "sched/topology.h"

/* Balance types of the map, in Wang's order. */
enum sbm_type { SBM_EXEC_TYPE, SBM_FORK_TYPE, SBM_WAKE_TYPE, SBM_MAX_TYPE };

/* One CPU's map; all NULL for a CPU not online in the generation. */
struct sched_balance_map {
	/* [type][level]: the CPU's domain at level if it has the type's SD_BALANCE_* flag */
	struct sched_domain **sd[SBM_MAX_TYPE];
	int top_level[SBM_MAX_TYPE]; /* highest level with the flag; -1 if none */
	/* [cpu]: lowest domain with SD_WAKE_AFFINE whose span holds cpu (this CPU itself too) */
	struct sched_domain **affine_map;
};

/* The hook; its data is an array of t->nr_cpus maps. */
extern const struct sched_topology_ext sched_topology_ext_balance_map;

/* cpu's map in t, or NULL (no such CPU, or the empty generation). */
static inline const struct sched_balance_map *sbm_map(const struct sched_topology *t, u32 cpu)
{
	const struct sched_balance_map *maps = sched_topology_ext_data(t,
								       &sched_topology_ext_balance_map);

	return maps && cpu < t->nr_cpus ? &maps[cpu] : NULL;
}

/* The domain the balance map names for cpu, balance type and level, or NULL. */
static inline struct sched_domain *sbm_sd(const struct sched_topology *t, u32 cpu,
					  enum sbm_type type, int level)
{
	const struct sched_balance_map *m = sbm_map(t, cpu);
	struct sched_domain **row;

	if (!m || (u32)type >= SBM_MAX_TYPE || level < 0 || (u32)level >= t->nr_levels)
		return NULL;
	row = m->sd[type];
	return row ? row[level] : NULL;
}

/* Highest level at which cpu balances for type; -1 if none. */
static inline int sbm_top_level(const struct sched_topology *t, u32 cpu, enum sbm_type type)
{
	const struct sched_balance_map *m = sbm_map(t, cpu);

	if (!m || (u32)type >= SBM_MAX_TYPE || !m->sd[type])
		return -1;
	return m->top_level[type];
}

/* cpu's lowest wake-affine domain that also spans other, or NULL. */
static inline struct sched_domain *sbm_affine_sd(const struct sched_topology *t, u32 cpu, u32 other)
{
	const struct sched_balance_map *m = sbm_map(t, cpu);

	if (!m || other >= t->nr_cpus || !m->affine_map)
		return NULL;
	return m->affine_map[other];
}

#endif
