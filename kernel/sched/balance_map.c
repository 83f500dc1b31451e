/*
 * Michael Wang's schedule balance map (LKML RFC v3, Jan 2013; linux-scheduler-facts.md 16): per
 * CPU, the answers of select_task_rq_fair()'s domain walk, computed once
 * per generation from the CPU's domain chain instead of on every wake-up.
 * Built through its own topology hook (SCHED_TOPOLOGY_EXT below), so the
 * generation code does not know it; kept apart from the sbm placement
 * (select_sbm.c) so that fulcrum-topo, which places nothing, prints it too.
 */
#include "sched/balance_map.h"

#include "lib/errno.h"

/* The SD_BALANCE_* flag behind each balance type. */
static const u32 sbm_flag[SBM_MAX_TYPE] = {
	[SBM_EXEC_TYPE] = SD_BALANCE_EXEC,
	[SBM_FORK_TYPE] = SD_BALANCE_FORK,
	[SBM_WAKE_TYPE] = SD_BALANCE_WAKE,
};

/*
 * One CPU's map. The stock walk skips domains without SD_LOAD_BALANCE, so
 * the map does too. Per type, the level's entry is the domain when it has
 * the type's flag (with Linux 3.8's flags no level has SD_BALANCE_WAKE, so
 * the wake row is all NULL: v3 does no balancing on wake-up). The affine
 * map gives each CPU c the lowest SD_WAKE_AFFINE domain spanning c, filled
 * bottom-up so the lowest wins: the domain the stock walk stops at as
 * affine_sd when the wakee last ran on c.
 */
static int sbm_build_cpu(struct sched_topology *t, struct sched_balance_map *sbm, u32 cpu)
{
	struct sched_domain *sd;
	u32 c;

	for (int type = 0; type < SBM_MAX_TYPE; type++) {
		sbm->sd[type] = topo_alloc(t, t->nr_levels * sizeof(*sbm->sd[type]));
		if (!sbm->sd[type])
			return -ENOMEM;
		sbm->top_level[type] = -1;
	}
	sbm->affine_map = topo_alloc(t, t->nr_cpus * sizeof(*sbm->affine_map));
	if (!sbm->affine_map)
		return -ENOMEM;

	for_each_domain (t, cpu, sd) {
		if (!(sd->flags & SD_LOAD_BALANCE))
			continue;
		for (int type = 0; type < SBM_MAX_TYPE; type++) {
			if (sd->flags & sbm_flag[type]) {
				sbm->sd[type][sd->level] = sd;
				sbm->top_level[type] = sd->level;
			}
		}
		if (sd->flags & SD_WAKE_AFFINE)
			for_each_cpu (c, &sd->span)
				if (!sbm->affine_map[c])
					sbm->affine_map[c] = sd;
	}
	return 0;
}

/* Every online CPU's map, into one array of t->nr_cpus (offline CPUs' stay zero). */
static int sbm_build(struct sched_topology *t, void **data)
{
	struct sched_balance_map *maps = topo_alloc(t, t->nr_cpus * sizeof(*maps));
	u32 cpu;

	if (!maps)
		return -ENOMEM;
	for_each_cpu (cpu, &t->online) {
		int err = sbm_build_cpu(t, &maps[cpu], cpu);

		if (err)
			return err;
	}
	*data = maps;
	return 0;
}

SCHED_TOPOLOGY_EXT(balance_map) = { .name = "balance map", .build = sbm_build };
