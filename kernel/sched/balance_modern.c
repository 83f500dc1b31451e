/*
 * The modern load balancer's moves and timing (sched_balance=modern):
 * Linux 5.5+'s load_balance() -- who balances a level, detaching by
 * migration type, retries around affinity, active balancing -- its
 * periodic pass from the tick, and new-idle balancing gated by the CPU's
 * average idle time against what balancing each level has cost.
 * balance_modern_find.c decides what to move. The 3.8 balancer
 * (balance.c, balance_find.c) is not used at all under this option.
 *
 * Locking as in balance.c: decisions read lockless snapshots; tasks move
 * with both runqueue locks held, taken by balance_move.c's pull and
 * active-balance path (the 3.8 balancer's too); domains are read in a
 * topology read section of the balancing CPU, and its balancer state is
 * written only by it. The side tables below (group imbalance, new-idle cost) are this
 * file's additions to the domain state and start afresh with the CPU's
 * first pass in a new generation.
 */
#include "sched/balance_modern.h"
#include "sched/balance_move.h"

#include <arch/cpu.h>
#include <arch/time.h>

#include "cmdline.h"
#include "lib/cpumask.h"
#include "lib/string.h"
#include "printk.h"
#include "sched/pelt.h"
#include "sched/stats.h"
#include "sched/topology.h"
#include "trace/trace.h"

#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC  1000000000ULL

#define MAX_PINNED_INTERVAL 512
#define MODERN_MAX_LEVELS   8

bool sched_balance_modern;
static const char *sched_balance_name = "3.8";

int sched_balance_set(const char *name, size_t len)
{
	if (len == 3 && memcmp(name, "3.8", 3) == 0) {
		sched_balance_modern = false;
		sched_balance_name = "3.8";
	} else if (len == 6 && memcmp(name, "modern", 6) == 0) {
		sched_balance_modern = true;
		sched_balance_name = "modern";
	} else {
		return -1;
	}
	/* The 3.8 balancer reads cpu_load[]; only the modern one needs PELT. */
	sched_pelt_enabled = sched_balance_modern;
	return 0;
}

static int set_balance_option(const char *value, size_t len)
{
	if (sched_balance_set(value, len) == 0) {
		pr_info("sched: load balancer: %s\n",
			sched_balance_modern ? "modern (Linux 5.5+ rules on PELT)" : "3.8");
		return 0;
	}
	pr_warn("cmdline: bad value '%s' for 'sched_balance' (3.8 or modern), keeping '%s'\n",
		value, sched_balance_name);
	return 1;
}
BOOT_OPTION_STRING_FN(sched_balance, "sched_balance", &sched_balance_name, set_balance_option,
		      "load balancer: 3.8 (cpu_load[], default) or modern (Linux 5.5+ on PELT)");

/* SD_SERIALIZE levels: one CPU machine-wide at a time. */
static struct spinlock balancing_lock = SPINLOCK_INIT;

/*
 * Linux's sgc->imbalance, per (level of the parent domain, first CPU of
 * the group): set when affinity kept a level from balancing, so that the
 * level above treats that group as imbalanced. And each domain's largest
 * new-idle balancing cost, with when it last decayed.
 */
static bool group_imbalance[MODERN_MAX_LEVELS][MAX_CPUS];
static struct {
	u64 max_cost, last_decay;
} newidle_cost[MODERN_MAX_LEVELS][MAX_CPUS];

static inline bool time_after_eq64(u64 a, u64 b)
{
	return (s64)(a - b) >= 0;
}

bool modern_group_imbalance(const struct sched_domain *sd, const struct sched_group *sg)
{
	u32 cpu = cpumask_first(sg_span(sg));

	if (sd->level < 0 || sd->level >= MODERN_MAX_LEVELS || cpu >= MAX_CPUS)
		return false;
	return READ_ONCE(group_imbalance[sd->level][cpu]);
}

void modern_set_group_imbalance(const struct sched_domain *parent, u32 first_cpu, bool on)
{
	if (parent && parent->level >= 0 && parent->level < MODERN_MAX_LEVELS && first_cpu < MAX_CPUS)
		WRITE_ONCE(group_imbalance[parent->level][first_cpu], on);
}

/* ------------------------------------------------------- choosing what moves */

/* SMT siblings share caches: nothing is hot between them. Otherwise as in balance.c. */
static bool task_hot(struct task *p, const struct mlb_env *env)
{
	if (p->policy == SCHED_IDLE)
		return false;
	if (env->sd->flags & SD_SHARE_CPUCAPACITY)
		return false;
	if (sched_feat(CACHE_HOT_BUDDY) && env->dst_rq->nr_running && &p->se == env->src_rq->cfs.next)
		return true;
	if (sysctl_sched_migration_cost == 0)
		return false;
	return (s64)(env->src_rq->clock_task - p->exec_start) < (s64)sysctl_sched_migration_cost;
}

static bool can_migrate_task(struct task *p, struct mlb_env *env)
{
	if (!cpumask_test_cpu(env->dst_cpu, &p->cpus_allowed)) {
		u32 cpu;

		env->flags |= MLBF_SOME_PINNED;
		if (env->idle == CPU_NEWLY_IDLE || !env->dst_grpmask ||
		    (env->flags & (MLBF_DST_PINNED | MLBF_ACTIVE_LB)))
			return false;
		for_each_cpu (cpu, env->dst_grpmask) {
			if (cpumask_test_cpu(cpu, &env->cpus) && cpu_rq(cpu) &&
			    cpumask_test_cpu(cpu, &p->cpus_allowed)) {
				env->flags |= MLBF_DST_PINNED;
				env->new_dst_cpu = cpu;
				break;
			}
		}
		return false;
	}
	env->flags &= ~MLBF_ALL_PINNED;
	if (task_running(env->src_rq, p))
		return false;
	if (env->flags & MLBF_ACTIVE_LB)
		return true;
	if (!task_hot(p, env))
		return true;
	if (env->sd->nr_balance_failed > env->sd->cache_nice_tries) {
		env->sd->stats.lb_hot_gained[env->idle]++;
		return true;
	}
	return false;
}

static inline unsigned long shr_bound(unsigned long v, u32 shift)
{
	return shift < 8 * sizeof(v) ? v >> shift : 0;
}

/*
 * The order Linux detaches in: it moves a task to the head of cfs_tasks
 * whenever it is picked and takes candidates from the tail, so the one
 * that ran least recently goes first. Fulcrum's list is in enqueue order
 * (the 3.8 balancer walks it so), so here the first max queued tasks are
 * sorted by when they last ran (exec_start), oldest first.
 */
static u32 least_recently_run(struct rq *src, struct task **out, u32 max)
{
	struct list_head *pos;
	u32 n = 0;

	list_for_each (pos, &src->cfs_tasks) {
		struct task *p = cfs_task_of(pos);
		u32 i = n;

		if (n == max)
			break;
		while (i > 0 && (s64)(out[i - 1]->exec_start - p->exec_start) > 0) {
			out[i] = out[i - 1];
			i--;
		}
		out[i] = p;
		n++;
	}
	return n;
}

/*
 * Moves tasks from src to dst, both locks held, least recently run first,
 * until the imbalance -- in load, utilisation or tasks by migration type
 * -- is paid. Each failed pass halves how much one task may exceed the
 * rest (shr_bound). A non-busy pass never takes the source's last task,
 * and new-idle stops after one (a preemptible kernel bounds the latency
 * so).
 */
static int detach_and_move(struct mlb_env *env)
{
	struct task *cand[SCHED_NR_MIGRATE];
	u32 nr_cand;
	int moved = 0;

	if (env->src_rq->nr_running <= 1) {
		env->flags &= ~MLBF_ALL_PINNED;
		return 0;
	}
	if (env->imbalance <= 0)
		return 0;
	nr_cand = least_recently_run(env->src_rq, cand, MIN(env->loop_max, (u32)SCHED_NR_MIGRATE));
	for (u32 i = 0; i < nr_cand; i++) {
		struct task *p = cand[i];
		unsigned long amount;

		if (env->idle != CPU_NOT_IDLE && env->src_rq->nr_running <= 1)
			break;
		env->loop++;
		if (!can_migrate_task(p, env))
			continue;
		switch (env->migration_type) {
		case migrate_load:
			amount = MAX(pelt_task_load(p), 1UL);
			if (shr_bound(amount, env->sd->nr_balance_failed) >
			    (unsigned long)env->imbalance)
				continue;
			env->imbalance -= (long)amount;
			break;
		case migrate_util:
			amount = pelt_task_util(p);
			if (shr_bound(amount, env->sd->nr_balance_failed) >
			    (unsigned long)env->imbalance)
				continue;
			env->imbalance -= (long)amount;
			break;
		case migrate_task:
			env->imbalance--;
			break;
		}
		move_queued_task(env->src_rq, env->dst_rq, p);
		moved++;
		if (env->idle == CPU_NEWLY_IDLE || env->imbalance <= 0)
			break;
	}
	env->sd->stats.lb_gained[env->idle] += (u64)moved;
	return moved;
}

/* ------------------------------------------------------------ load_balance() */

/*
 * Should env->dst_cpu balance this level for its group? New-idle: if it
 * is still idle. Otherwise the first idle CPU of the group -- at a level
 * above SMT, preferably one whose whole core is idle, else the first idle
 * thread -- and with no idle CPU the group's first CPU.
 */
static bool should_we_balance(struct mlb_env *env)
{
	const struct sched_group *sg = env->sd->groups;
	bool smt_level = env->sd->flags & SD_SHARE_CPUCAPACITY;
	struct sched_topology *t = sched_topology_current();
	u32 cpu, idle_smt = MAX_CPUS;

	if (env->idle == CPU_NEWLY_IDLE)
		return env->dst_rq->nr_running == 0;
	for_each_cpu (cpu, sg_span(sg)) {
		struct sched_domain *base;
		bool core_idle = true;
		u32 sib;

		if (!cpu_rq(cpu) || !idle_cpu(cpu))
			continue;
		base = cpu_sd(t, cpu);
		if (!smt_level && base && (base->flags & SD_SHARE_CPUCAPACITY)) {
			for_each_cpu (sib, sd_span(base))
				if (sib != cpu && cpu_rq(sib) && !idle_cpu(sib))
					core_idle = false;
		}
		if (!core_idle) {
			if (idle_smt == MAX_CPUS)
				idle_smt = cpu;
			continue;
		}
		return cpu == env->dst_cpu;
	}
	if (idle_smt != MAX_CPUS)
		return idle_smt == env->dst_cpu;
	return sg->balance_cpu == env->dst_cpu;
}

/* Affinity, or pulling one task at a time, kept failing: push the running one over. */
static bool need_active_balance(const struct mlb_env *env)
{
	return env->migration_type == migrate_task &&
	       env->sd->nr_balance_failed > env->sd->cache_nice_tries + 2;
}

/* can_migrate_task() as balance_push_first() calls it. */
static bool can_push_task(struct task *p, void *env)
{
	return can_migrate_task(p, env);
}

/*
 * Active balancing's push (balance_move.h): the first task of busiest that
 * may move to target, hot or not (MLBF_ACTIVE_LB). Both locks held.
 */
static bool push_one_task(struct sched_domain *sd, struct rq *busiest, struct rq *target)
{
	struct mlb_env env = {
		.sd = sd,
		.src_rq = busiest,
		.dst_rq = target,
		.src_cpu = busiest->cpu,
		.dst_cpu = target->cpu,
		.idle = CPU_IDLE,
		.flags = MLBF_ACTIVE_LB,
	};

	return balance_push_first(busiest, target, can_push_task, &env);
}

/* The pull's mover (balance_move.h): detach_and_move() over at most loop_max tasks. */
static int pull_tasks(void *arg, u32 loop_max)
{
	struct mlb_env *env = arg;

	env->loop = 0;
	env->loop_max = loop_max;
	return detach_and_move(env);
}

int modern_load_balance(u32 this_cpu, struct sched_domain *sd, enum cpu_idle_type idle,
			bool *continue_balancing)
{
	struct sched_domain_stats *st = &sd->stats;
	struct mlb_env env = {
		.sd = sd,
		.dst_cpu = this_cpu,
		.dst_rq = cpu_rq(this_cpu),
		.dst_grpmask = sg_span(sd->groups),
		.idle = idle,
		.cpus = sd->span,
	};
	struct sched_domain *parent = sd->parent;
	struct sched_group *group;
	struct rq *busiest = NULL;
	bool started = false;
	int ld_moved = 0;

	*continue_balancing = true;
	st->lb_count[idle]++;
	if (!should_we_balance(&env)) {
		*continue_balancing = false;
		goto out_balanced;
	}
redo:
	group = modern_find_busiest_group(&env);
	if (!group) {
		st->lb_nobusyg[idle]++;
		goto out_balanced;
	}
	busiest = modern_find_busiest_queue(&env, group);
	if (!busiest || busiest == env.dst_rq) {
		st->lb_nobusyq[idle]++;
		busiest = NULL;
		goto out_balanced;
	}
	st->lb_imbalance[idle] += (u64)env.imbalance;
	env.src_cpu = busiest->cpu;
	env.src_rq = busiest;
	if (READ_ONCE(busiest->nr_running) > 1) {
		env.flags |= MLBF_ALL_PINNED;
	more_balance:
		ld_moved += balance_pull(env.dst_rq, busiest, this_cpu, pull_tasks, &env);
		/* Some could not come here but may go to another CPU of our group: once more. */
		if ((env.flags & MLBF_DST_PINNED) && env.imbalance > 0) {
			cpumask_clear_cpu(env.dst_cpu, &env.cpus);
			env.dst_cpu = env.new_dst_cpu;
			env.dst_rq = cpu_rq(env.new_dst_cpu);
			env.flags &= ~MLBF_DST_PINNED;
			goto more_balance;
		}
		/* Affinity kept this level from balancing: the level above should know. */
		if (parent && (env.flags & MLBF_SOME_PINNED) && env.imbalance > 0)
			modern_set_group_imbalance(parent, cpumask_first(sd_span(sd)), true);
		if (env.flags & MLBF_ALL_PINNED) {
			cpumask_clear_cpu(busiest->cpu, &env.cpus);
			if (!cpumask_subset(&env.cpus, env.dst_grpmask)) {
				env.flags &= ~MLBF_SOME_PINNED;
				goto redo;
			}
			goto out_all_pinned;
		}
	}
	if (!ld_moved) {
		st->lb_failed[idle]++;
		if (idle != CPU_NEWLY_IDLE)
			sd->nr_balance_failed++;
		if (need_active_balance(&env)) {
			if (!balance_start_active(busiest, this_cpu, push_one_task, &started))
				goto out_one_pinned;
			env.flags &= ~MLBF_ALL_PINNED;
		}
	} else {
		sd->nr_balance_failed = 0;
	}
	if (!started || need_active_balance(&env))
		sd->balance_interval = sd->min_interval;
	trace_sched_balance(this_cpu, sd->name, idle, env.imbalance, (int)busiest->cpu, ld_moved,
			    ld_moved ? TRACE_BALANCE_MOVED :
			    started  ? TRACE_BALANCE_ACTIVE :
				       TRACE_BALANCE_FAILED);
	return ld_moved;

out_balanced:
	/* Balanced despite affinity: the flag above may go once others had their chance. */
	if (parent && !(env.flags & MLBF_ALL_PINNED))
		modern_set_group_imbalance(parent, cpumask_first(sd_span(sd)), false);
out_all_pinned:
	st->lb_balanced[idle]++;
	sd->nr_balance_failed = 0;
out_one_pinned:
	if (busiest)
		trace_sched_balance(this_cpu, sd->name, idle, env.imbalance, (int)busiest->cpu, 0,
				    (env.flags & MLBF_ALL_PINNED) ? TRACE_BALANCE_FAILED :
								    TRACE_BALANCE_BALANCED);
	/* New-idle ignores intervals: it must not inflate them either. */
	if (idle == CPU_NEWLY_IDLE)
		return 0;
	if (((env.flags & MLBF_ALL_PINNED) && sd->balance_interval < MAX_PINNED_INTERVAL) ||
	    sd->balance_interval < sd->max_interval)
		sd->balance_interval *= 2;
	return 0;
}

struct sched_group *modern_balance_find_busiest_group(u32 this_cpu, struct sched_domain *sd,
						      enum cpu_idle_type idle, long *imbalance,
						      enum migration_type *type)
{
	struct mlb_env env = {
		.sd = sd,
		.dst_cpu = this_cpu,
		.dst_rq = cpu_rq(this_cpu),
		.dst_grpmask = sg_span(sd->groups),
		.idle = idle,
		.cpus = sd->span,
	};
	struct sched_group *sg = modern_find_busiest_group(&env);

	*imbalance = env.imbalance;
	*type = env.migration_type;
	return sg;
}

/* ------------------------------------------------------ periodic and new-idle */

static u64 *max_cost_of(const struct sched_domain *sd, u32 cpu, u64 **last_decay)
{
	if (sd->level < 0 || sd->level >= MODERN_MAX_LEVELS || cpu >= MAX_CPUS)
		return NULL;
	*last_decay = &newidle_cost[sd->level][cpu].last_decay;
	return &newidle_cost[sd->level][cpu].max_cost;
}

/*
 * Records a new-idle pass over sd that took cost ns; with cost 0 (the
 * periodic pass) only decays the maximum, by about 1% a second.
 */
static void update_newidle_cost(const struct sched_domain *sd, u32 cpu, u64 cost, u64 now)
{
	u64 *last_decay, *max = max_cost_of(sd, cpu, &last_decay);

	if (!max)
		return;
	if (cost > *max) {
		*max = cost;
		*last_decay = now;
	} else if (time_after_eq64(now, *last_decay + NSEC_PER_SEC)) {
		*max = *max * 253 / 256;
		*last_decay = now;
	}
}

static u64 newidle_max_cost(const struct sched_domain *sd, u32 cpu)
{
	u64 *last_decay, *max = max_cost_of(sd, cpu, &last_decay);

	return max ? *max : 0;
}

void modern_set_newidle_cost(const struct sched_domain *sd, u32 cpu, u64 ns)
{
	u64 *last_decay, *max = max_cost_of(sd, cpu, &last_decay);

	if (max)
		*max = ns;
}

static u64 max_balance_interval_ns(const struct sched_topology *t)
{
	u64 n = cpumask_weight(&t->online);

	return (n ? n : 1) * 100 * NSEC_PER_MSEC;
}

static void rebalance_domains(struct rq *rq, enum cpu_idle_type idle)
{
	u32 cpu = rq->cpu;
	u64 now = READ_ONCE(rq->clock), next_balance = now + 60 * NSEC_PER_SEC;
	struct sched_topology *t = sched_topology_read_begin(cpu);
	u64 max_interval = max_balance_interval_ns(t);
	bool update_next = false, cont = true;
	struct sched_domain *sd;

	for_each_domain (t, cpu, sd) {
		bool serialize = sd->flags & SD_SERIALIZE;
		u64 interval;

		update_newidle_cost(sd, cpu, 0, now);
		if (!(sd->flags & SD_LOAD_BALANCE))
			continue;
		if (!cont)
			break;
		interval = sd->balance_interval;
		if (idle != CPU_IDLE)
			interval *= sd->busy_factor;
		interval *= NSEC_PER_MSEC;
		interval = MAX(MIN(interval, max_interval), NSEC_PER_MSEC);
		if (!serialize || spin_trylock(&balancing_lock)) {
			if (time_after_eq64(now, sd->last_balance + interval)) {
				if (modern_load_balance(cpu, sd, idle, &cont))
					idle = idle_cpu(cpu) ? CPU_IDLE : CPU_NOT_IDLE;
				sd->last_balance = now;
			}
			if (serialize)
				spin_unlock(&balancing_lock);
		}
		if ((s64)(next_balance - (sd->last_balance + interval)) > 0) {
			next_balance = sd->last_balance + interval;
			update_next = true;
		}
	}
	sched_topology_read_end(cpu);
	if (update_next)
		WRITE_ONCE(rq->next_balance, next_balance);
}

static void trigger_balance_modern(struct rq *rq)
{
	u64 now = READ_ONCE(rq->clock);
	unsigned long flags;

	schedstat_account_wasted(rq, now);
	/* Blocked load decays on an idle CPU too (Linux's update_blocked_averages). */
	flags = spin_lock_irqsave(&rq->lock);
	pelt_update_blocked(rq);
	spin_unlock_irqrestore(&rq->lock, flags);
	if (!time_after_eq64(now, READ_ONCE(rq->next_balance)))
		return;
	rebalance_domains(rq, idle_cpu(rq->cpu) ? CPU_IDLE : CPU_NOT_IDLE);
}

/* Some CPU runs more than one task (Linux's root-domain overload flag, read fresh). */
static bool any_cpu_overloaded(void)
{
	for (u32 cpu = 0; cpu < sched_nr_cpus(); cpu++) {
		struct rq *rq = cpu_rq(cpu);

		if (rq && READ_ONCE(rq->nr_running) > 1)
			return true;
	}
	return false;
}

/*
 * rq is about to go idle (rq->lock held, dropped and retaken): pull one
 * task, level by level from the bottom, while the CPU's average idle
 * period is longer than the new-idle passes cost so far plus the next
 * level's largest cost -- pulling must not delay the next wake-up here.
 * Nothing to pull anywhere (no CPU runs two tasks): stay idle at once.
 */
static void idle_balance_modern(struct rq *rq)
{
	u32 cpu = rq->cpu;
	u64 next_balance = rq->clock + NSEC_PER_SEC, curr_cost = 0, t0, t1;
	struct sched_topology *t;
	struct sched_domain *sd;
	int pulled = 0;

	rq->idle_stamp = rq->clock;
	t = sched_topology_read_begin(cpu);
	sd = cpu_sd(t, cpu);
	if (!sd || !any_cpu_overloaded() || rq->avg_idle < newidle_max_cost(sd, cpu)) {
		sched_topology_read_end(cpu);
		return;
	}
	spin_unlock(&rq->lock); /* interrupts stay off */
	t0 = arch_clock_ns();
	for_each_domain (t, cpu, sd) {
		bool cont;

		if (!(sd->flags & SD_LOAD_BALANCE))
			continue;
		if ((s64)(next_balance - (sd->last_balance + sd->balance_interval * NSEC_PER_MSEC)) >
		    0)
			next_balance = sd->last_balance + sd->balance_interval * NSEC_PER_MSEC;
		if (rq->avg_idle < curr_cost + newidle_max_cost(sd, cpu))
			break;
		if (sd->flags & SD_BALANCE_NEWIDLE) {
			pulled = modern_load_balance(cpu, sd, CPU_NEWLY_IDLE, &cont);
			t1 = arch_clock_ns();
			update_newidle_cost(sd, cpu, t1 - t0, t1);
			curr_cost += t1 - t0;
			t0 = t1;
		}
		if (pulled || READ_ONCE(rq->nr_running) > 0)
			break;
	}
	sched_topology_read_end(cpu);
	spin_lock(&rq->lock);
	if (pulled || rq->nr_running)
		rq->idle_stamp = 0;
	if (pulled || (s64)(rq->clock - rq->next_balance) > 0)
		rq->next_balance = next_balance;
}

void balance_modern(struct rq *rq, enum sched_balance_why why)
{
	if (why == SCHED_BALANCE_NEWIDLE)
		idle_balance_modern(rq);
	else
		trigger_balance_modern(rq);
}
