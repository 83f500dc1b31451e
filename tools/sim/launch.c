/*
 * How a guest workload's first process comes to run where it does: the
 * kernel creates kinit from CPU 0 (kernel/main.c), kinit forks user init,
 * init (user/init.c) forks the workload's process, which execs it. Each of
 * these is a fork placement (SD_BALANCE_FORK) from the CPU its parent runs
 * on, so the workload's process starts on the CPU the kernel's own chain
 * of placements leads to, not on CPU 0. A workload that forks its tasks
 * from a parent (fairshare) starts that parent here.
 *
 * The bursts are the guest's: kinit's and init's time from their own
 * wake-up to their fork, measured in a trace of `tools/bench --preset 2s
 * --icount --trace --workload fairshare` (2026-12-02). kinit then waits
 * for good; here it exits, which leaves the same load behind (none: a task
 * that waits holds no weight on a runqueue). init waits for its child and
 * is woken by its exit (sim_launch_exit), as kernel/proc/exit.c wakes a
 * parent: a plain wake-up from the exiting task's CPU.
 */
#include "sim.h"

#define KINIT_NS (520 * 1000ULL)  /* kinit's wake-up to its fork of init: 0.52 ms */
#define INIT_NS	 (2490 * 1000ULL) /* init's wake-up (and exec of /init) to its fork: 2.49 ms */

struct launch {
	const struct sim_workload_ops *ops;
	const char *name;
	struct sim_task **out;
	struct sim_task *init;
	bool child_exited;
};

static struct launch launch;

static u64 kinit_first(struct sim_task *st)
{
	return KINIT_NS;
}

static u64 init_first(struct sim_task *st)
{
	return INIT_NS;
}

static struct sim_action init_done(struct sim_task *st)
{
	if (!*launch.out) {
		launch.init = st;
		*launch.out = sim_task_fork(launch.ops, 0, launch.name, 0, NULL);
	}
	if (!launch.child_exited)
		return (struct sim_action){ SIM_BLOCK, 0 };
	return (struct sim_action){ SIM_EXIT, 0 };
}

static const struct sim_workload_ops init_ops = {
	.first_burst = init_first,
	.burst_done = init_done,
};

static struct sim_action kinit_done(struct sim_task *st)
{
	sim_task_fork(&init_ops, 0, "init", 0, NULL);
	return (struct sim_action){ SIM_EXIT, 0 };
}

static const struct sim_workload_ops kinit_ops = {
	.first_burst = kinit_first,
	.burst_done = kinit_done,
};

void sim_launch_exit(void)
{
	launch.child_exited = true;
	if (launch.init)
		sim_task_wake(launch.init, false);
}

void sim_launch(const struct sim_workload_ops *ops, const char *name, struct sim_task **out)
{
	launch = (struct launch){ ops, name, out, NULL, false };
	*out = NULL;
	sim_task_spawn(&kinit_ops, 0, "kinit", 0, NULL);
}
