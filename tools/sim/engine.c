/*
 * The discrete-event engine: virtual time in nanoseconds, a binary heap of
 * events ordered by (time, insertion number), and every simulated CPU
 * running its current task at once. The engine calls the scheduler where
 * the kernel's own paths would:
 *
 *   timer tick      scheduler_tick() and the topology's quiescent point
 *                   (kernel/tick.c's kernel_timer_tick), then interrupt
 *                   exit: schedule if need_resched (preempt_schedule_irq,
 *                   or the idle loop's schedule when the CPU idles);
 *   reschedule IPI  arrives ipi_ns after resched_curr() sent it, then
 *                   interrupt exit as above;
 *   burst end       the task's own system call: sleep or exit set its
 *                   state and schedule() (sched_pick_next), a new burst
 *                   carries on without the scheduler;
 *   wake-up         try_to_wake_up() from the waker's CPU, then interrupt
 *                   exit on that CPU;
 *   fork            task_create() and task_wake_new() on CPU 0.
 *
 * A switch is sched_pick_next() plus finish_task_switch's books (prev's
 * on_cpu cleared, a dead prev's class told): no stack is switched, the
 * engine just runs the next task's program. The per-CPU stopper (active
 * balancing) runs its queued work in zero time when picked. Nothing here
 * reads the host's clock or orders by address, so a run is a function of
 * its inputs and the seed (which places each CPU's tick within the tick
 * period, as bring-up order does on a real machine).
 *
 * Under --cost (cost.h) the kernel's work is charged on the CPU that does
 * it: each CPU has a time until which it is busy with charged work, and a
 * burst's CPU work starts only after it, so the charge delays whatever runs
 * there next (or the running task, whose burst is re-timed). A task that
 * is switched in pays its cache refill the same way, and a burst on a core
 * whose other thread is busy progresses at smt_fraction of the clock.
 * With --cost none nothing is charged and every burst runs at full speed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "sched/select.h"
#include "sched/balance.h"
#include "sched/stats.h"
#include "sched/stop.h"
#include "sched/topology.h"
#include "sched/wait.h"
#include "sim.h"

enum ev_type { EV_TICK, EV_BURST, EV_IPI, EV_WAKE };

struct event {
	u64 time;
	u64 seq; /* insertion order: equal times are handled first come, first served */
	u32 type;
	u32 arg; /* a CPU, or a task's index */
	u64 gen; /* EV_BURST: the CPU's burst generation it belongs to */
};

/* Domain levels whose balancing passes the cost model counts (deeper ones are not charged). */
#define LB_LEVELS 8

struct sim_cpu {
	struct sim_task *running; /* NULL: idle or a kernel thread */
	u64 burst_gen;		  /* bumped whenever the running burst stops: its event is stale */
	u64 tick_offset;
	bool ipi_pending;

	/* The cost model's (all zero, rate 1, under --cost none). */
	bool in_call;	/* the running task is in its system call: its burst restarts after */
	double rate;	/* the running burst's speed: 1, or smt_fraction */
	u64 busy_until; /* the kernel work charged here ends then */
	u64 churn;	/* bytes of working sets loaded into this CPU's cache so far */
	u32 sib_first;	/* the other threads of its core: sibs[sib_first ..] */
	u32 nr_sibs;
	u64 lb_seen[LB_LEVELS]; /* load_balance passes counted per domain level */
};

static struct sim_config cfg;
static struct event *heap;
static size_t heap_len, heap_cap;
static u64 next_seq;
static struct sim_cpu *cpus;
static u32 nr_cpus;
static u64 tick_ns;

static struct sim_task **tasks;
static u32 nr_tasks, tasks_cap, nr_live;

static struct sim_totals totals;
static const struct machine *machine;
static u32 *sibs;

u64 sim_ws_bytes;

static void __attribute__((noreturn)) out_of_memory(void)
{
	fprintf(stderr, "fulcrum-sim: out of memory\n");
	exit(3);
}

/* ---------------------------------------------------------------- the event heap */

static bool ev_before(const struct event *a, const struct event *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void ev_push(u64 time, u32 type, u32 arg, u64 gen)
{
	size_t i;

	if (heap_len == heap_cap) {
		heap_cap = heap_cap ? heap_cap * 2 : 1024;
		heap = realloc(heap, heap_cap * sizeof(*heap));
		if (!heap)
			out_of_memory();
	}
	i = heap_len++;
	heap[i] = (struct event){
		.time = time, .seq = next_seq++, .type = type, .arg = arg, .gen = gen
	};
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		struct event tmp;

		if (!ev_before(&heap[i], &heap[parent]))
			break;
		tmp = heap[i];
		heap[i] = heap[parent];
		heap[parent] = tmp;
		i = parent;
	}
}

static struct event ev_pop(void)
{
	struct event top = heap[0];
	size_t i = 0;

	heap[0] = heap[--heap_len];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct event tmp;

		if (l < heap_len && ev_before(&heap[l], &heap[m]))
			m = l;
		if (r < heap_len && ev_before(&heap[r], &heap[m]))
			m = r;
		if (m == i)
			break;
		tmp = heap[i];
		heap[i] = heap[m];
		heap[m] = tmp;
		i = m;
	}
	return top;
}

/* ---------------------------------------------------------------- tasks */

static struct sim_task *sim_task_of(struct task *p)
{
	return p->thread_fn == NULL && p->thread_arg ? p->thread_arg : NULL;
}

/* CPU time done in elapsed ns at rate, and the time rate needs for work ns. */
static u64 work_in(u64 elapsed, double rate)
{
	return rate == 1 ? elapsed : (u64)((double)elapsed * rate);
}

static u64 time_for(u64 work, double rate)
{
	return rate == 1 ? work : (u64)ceil((double)work / rate);
}

/* The speed of a burst on cpu now: smt_fraction while another thread of its core is busy. */
static double cpu_rate(u32 cpu)
{
	if (!sim_cost.on)
		return 1;
	for (u32 i = 0; i < cpus[cpu].nr_sibs; i++)
		if (cpus[sibs[cpus[cpu].sib_first + i]].running)
			return sim_cost.smt_fraction;
	return 1;
}

/* Charges the running burst's progress up to now; it goes on running. */
static void burst_settle(u32 cpu)
{
	struct sim_cpu *c = &cpus[cpu];
	struct sim_task *st = c->running;
	u64 ran = sim_now > st->run_start ? sim_now - st->run_start : 0;
	u64 done = work_in(ran, c->rate);

	if (done > st->left_ns)
		done = st->left_ns;
	if (sim_cost.on) {
		st->stall_ns += sim_now - st->burst_begin - done;
		if (c->rate != 1)
			totals.smt_ns += ran - done;
		st->burst_begin = sim_now;
	}
	st->left_ns -= done;
}

/* The running burst's end event, from what is left: after the CPU's charged work is done. */
static void burst_push(u32 cpu, bool count)
{
	struct sim_cpu *c = &cpus[cpu];
	struct sim_task *st = c->running;
	u64 start = c->busy_until > sim_now ? c->busy_until : sim_now;
	u64 end = start + time_for(st->left_ns, c->rate);

	if (st->until_ns && st->until_ns < end)
		end = st->until_ns > sim_now ? st->until_ns : sim_now;
	st->run_start = start;
	c->in_call = false;
	ev_push(end, EV_BURST, cpu, c->burst_gen);
	if (count)
		totals.bursts++;
}

/* The running burst goes on from now with a new end: after a charge or a change of speed. */
static void burst_retime(u32 cpu)
{
	struct sim_cpu *c = &cpus[cpu];

	if (!c->running || c->in_call)
		return;
	burst_settle(cpu);
	c->burst_gen++;
	c->rate = cpu_rate(cpu);
	burst_push(cpu, false);
}

/* cpu started or stopped running a burst: its core's other threads change speed. */
static void siblings_changed(u32 cpu)
{
	if (!sim_cost.on || sim_cost.smt_fraction == 1)
		return;
	for (u32 i = 0; i < cpus[cpu].nr_sibs; i++) {
		u32 s = sibs[cpus[cpu].sib_first + i];

		if (cpus[s].running && cpu_rate(s) != cpus[s].rate)
			burst_retime(s);
	}
}

/* ns of kernel work on cpu from now on, into the totals' bucket. */
static void cost_charge(u32 cpu, double ns, u64 *bucket)
{
	struct sim_cpu *c = &cpus[cpu];
	u64 n = (u64)ns;

	if (!n)
		return;
	c->busy_until = (c->busy_until > sim_now ? c->busy_until : sim_now) + n;
	*bucket += n;
	burst_retime(cpu);
}

/* The running task's burst stops now (preempted, or its own system call): charge its progress. */
static void burst_stop(u32 cpu)
{
	struct sim_cpu *c = &cpus[cpu];
	struct sim_task *st = c->running;

	if (st) {
		burst_settle(cpu);
		c->running = NULL;
	}
	c->in_call = false;
	c->burst_gen++;
	if (st)
		siblings_changed(cpu);
}

static void burst_start(u32 cpu, struct sim_task *st)
{
	struct sim_cpu *c = &cpus[cpu];

	c->running = st;
	st->burst_begin = sim_now;
	c->rate = cpu_rate(cpu);
	burst_push(cpu, true);
	siblings_changed(cpu);
}

/* The running task, in its system call, goes on with a new burst of what it has left. */
static void burst_restart(u32 cpu)
{
	struct sim_cpu *c = &cpus[cpu];

	c->burst_gen++;
	c->rate = cpu_rate(cpu);
	burst_push(cpu, true);
}

/* ---------------------------------------------------------------- the cost model's charges */

/* The load_balance() passes cpu made since it was last looked at, each by its domain's span. */
static void cost_balance(u32 cpu)
{
	struct sched_topology *t = sched_topology_current();
	struct sched_domain *sd;
	double insn = 0;
	u32 lv = 0;

	for_each_domain (t, cpu, sd) {
		const u64 *n = sd->stats.lb_count;
		u64 now = n[0] + n[1] + n[2], seen = cpus[cpu].lb_seen[lv];

		if (lv == LB_LEVELS)
			break;
		/* A new generation starts its counters at 0. */
		insn += (double)(now >= seen ? now - seen : now) *
			(sim_cost.balance_insn + sim_cost.balance_cpu_insn * sd->span_weight);
		cpus[cpu].lb_seen[lv++] = now;
	}
	cost_charge(cpu, sim_cost_ns(insn), &totals.path_ns);
}

/*
 * st is switched in on cpu: what of its working set the cache it left
 * still holds comes from there, at the rate of the distance it moved
 * (nothing from this same CPU); what decayed, by time away and by the
 * working sets loaded there since, comes from memory on its home node.
 * A working set larger than the cache refills at most the cache's worth:
 * the rest missed wherever the task ran, which the model does not charge.
 */
static void cost_refill(u32 cpu, struct sim_task *st)
{
	const struct machine_cpu *a, *b = &machine->cpu[cpu];
	double kb = fmin((double)st->ws_bytes / 1024, sim_cost.cache_kb), churn_kb, away_us, f,
	       near, far;

	if (!st->ran) {
		/* Its first run builds its working set as part of its work. */
		st->ran = true;
		st->home_node = b->node;
		cpus[cpu].churn += st->ws_bytes;
		return;
	}
	a = &machine->cpu[st->last_cpu];
	churn_kb = (double)(cpus[st->last_cpu].churn - st->churn_at) / 1024;
	away_us = (double)(sim_now - st->left_at) / 1000;
	f = sim_cost.cache_kb / (sim_cost.cache_kb + churn_kb) * sim_cost.decay_us /
	    (sim_cost.decay_us + away_us);
	if (st->last_cpu == cpu)
		near = 0;
	else if (a->package == b->package && a->core == b->core)
		near = sim_cost.smt_ns_per_kb;
	else if (a->llc == b->llc)
		near = sim_cost.llc_ns_per_kb;
	else
		near = sim_cost.xllc_ns_per_kb * machine->distance[a->node][b->node] / 10;
	far = sim_cost.mem_ns_per_kb * machine->distance[st->home_node][b->node] / 10;
	cost_charge(cpu, kb * (f * near + (1 - f) * far), &totals.refill_ns);
	cpus[cpu].churn += st->ws_bytes;
}

/* A switch on cpu from prev to next (next != prev), after the pick. */
static void cost_switch(u32 cpu, struct task *prev, struct task *next)
{
	struct sim_task *ps = sim_task_of(prev);

	cost_charge(cpu, sim_cost_ns(sim_cost.switch_insn), &totals.path_ns);
	if (ps) {
		ps->last_cpu = cpu;
		ps->left_at = sim_now;
		ps->churn_at = cpus[cpu].churn;
	}
	if (next == cpu_rq(cpu)->idle)
		cost_charge(cpu, sim_cost_ns(sim_cost.newidle_insn), &totals.path_ns);
}

/* How many of this_cpu's domains stock's select_task_rq walks to find prev's affine domain. */
static u32 stock_walk_levels(u32 this_cpu, u32 prev)
{
	struct sched_topology *t = sched_topology_current();
	struct sched_domain *sd;
	u32 n = 0;

	for_each_domain (t, this_cpu, sd) {
		n++;
		if ((sd->flags & SD_WAKE_AFFINE) && cpumask_test_cpu(prev, &sd->span))
			break;
	}
	return n;
}

/*
 * p is about to be woken from cpu, last on prev: try_to_wake_up's work and
 * its select_task_rq (none for a task still on its queue), charged before
 * the wake-up so that the reschedule IPI it sends leaves after it.
 */
static void cost_wake(u32 cpu, struct task *p, u32 prev)
{
	double insn = sim_cost.wakeup_insn;

	if (p->state == TASK_RUNNING || p->state == TASK_DEAD)
		return; /* try_to_wake_up returns at once */
	if (!p->on_rq && p->nr_cpus_allowed > 1) {
		insn += sim_cost.select_insn;
		if (machine->cpu[cpu].llc != machine->cpu[prev].llc)
			insn += sim_cost.select_remote_insn;
		if (strcmp(sched_placement_cur->name, "stock") == 0)
			insn += sim_cost.select_level_insn * stock_walk_levels(cpu, prev);
	}
	cost_charge(cpu, sim_cost_ns(insn), &totals.path_ns);
}

/* A fork from cpu: the wake-up of the new task and its SD_BALANCE_FORK placement. */
static void cost_fork(u32 cpu, struct task *p)
{
	struct sched_topology *t = sched_topology_current();
	struct sched_domain *sd;
	double insn = sim_cost.wakeup_insn;
	u32 span = 0;

	if (p->nr_cpus_allowed > 1) {
		for_each_domain (t, cpu, sd)
			if (sd->flags & SD_BALANCE_FORK)
				span = sd->span_weight;
		insn += sim_cost.fork_insn + sim_cost.fork_cpu_insn * span;
	}
	cost_charge(cpu, sim_cost_ns(insn), &totals.path_ns);
}

/*
 * schedule() on cpu: the core's books (sched_pick_next) and
 * finish_task_switch's, then whatever was picked starts running. The
 * stopper runs its work and sleeps again, after which cpu picks anew.
 */
static void sim_schedule(u32 cpu, bool preempt)
{
	for (;;) {
		struct rq *rq = cpu_rq(cpu);
		struct task *prev = rq->curr, *next;
		struct sim_task *st;

		sim_cpu = cpu;
		burst_stop(cpu);
		spin_lock(&rq->lock);
		next = sched_pick_next(rq, preempt);
		if (next != prev)
			__atomic_store_n(&prev->on_cpu, 0, __ATOMIC_RELEASE);
		spin_unlock(&rq->lock);
		if (sim_cost.on) {
			if (next != prev)
				cost_switch(cpu, prev, next);
			cost_balance(cpu); /* new-idle passes */
		}
		if (next != prev && prev->state == TASK_DEAD && prev->sched_class->task_dead)
			prev->sched_class->task_dead(prev);
		if (next == rq->idle)
			return;
		st = sim_task_of(next);
		if (st) {
			if (sim_cost.on && next != prev)
				cost_refill(cpu, st);
			burst_start(cpu, st);
			return;
		}
		if (next != cpu_stopper_task(cpu)) {
			fprintf(stderr,
				"fulcrum-sim: cpu%u picked %s, a task the engine does not know\n",
				cpu, next->comm);
			exit(3);
		}
		/* The stopper's loop: run the work, then sleep (stop.c's stopper_thread). */
		stop_cpu_run_work(cpu);
		if (sim_cost.on)
			cost_charge(cpu, sim_cost_ns(sim_cost.stopper_insn), &totals.path_ns);
		next->state = TASK_INTERRUPTIBLE;
		preempt = false;
	}
}

/* Interrupt exit on cpu: the kernel's preempt_schedule_irq, or the idle loop noticing. */
static void irq_exit(u32 cpu)
{
	struct rq *rq = cpu_rq(cpu);

	if (!rq->need_resched)
		return;
	sim_schedule(cpu, rq->curr != rq->idle);
}

/* The task on cpu acts on its own: a new burst, or a system call that gives up the CPU. */
static void task_act(u32 cpu, struct sim_task *st, struct sim_action a)
{
	struct task *p = st->t;

	switch (a.kind) {
	case SIM_RUN:
		st->left_ns = a.ns;
		burst_restart(cpu);
		return;
	case SIM_SLEEP: {
		/*
		 * A timed sleep ends at CPU 0's first tick at or after the deadline:
		 * the kernel's tick-granular timers ("nohighres"), kept so simulated
		 * runs stay comparable with the recorded ones.
		 */
		u64 deadline = sim_now + a.ns, off = cpus[0].tick_offset, k;

		k = deadline <= off ? 0 : (deadline - off + tick_ns - 1) / tick_ns;
		ev_push(off + k * tick_ns, EV_WAKE, st->index, 0);
		p->state = TASK_INTERRUPTIBLE;
		break;
	}
	case SIM_BLOCK:
		p->state = TASK_INTERRUPTIBLE;
		break;
	case SIM_EXIT:
		p->state = TASK_DEAD;
		st->exited = true;
		st->exit_ns = sim_now;
		nr_live--;
		break;
	case SIM_MIGRATE:
		st->left_ns = 0;
		if (cpumask_test_cpu(cpu, &st->new_mask)) {
			set_cpus_allowed(p, &st->new_mask);
			burst_restart(cpu);
			return;
		}
		p->state = TASK_INTERRUPTIBLE;
		sim_schedule(cpu, false);
		sim_cpu = cpu;
		set_cpus_allowed(p, &st->new_mask); /* asleep: the next wake-up places it */
		sim_task_wake(st, false);
		return;
	}
	sim_schedule(cpu, false);
}

static struct sim_task *task_new(const struct sim_workload_ops *ops, u32 id, const char *name,
				 int nice, const struct cpumask *allowed)
{
	struct sim_task *st = calloc(1, sizeof(*st));
	struct task *p;

	if (!st)
		out_of_memory();
	st->ops = ops;
	st->id = id;
	st->index = nr_tasks;
	p = task_create(NULL, st, name, nice, allowed, 0);
	if (!p)
		out_of_memory();
	/* The engine's reference: the task and its statistics outlive its exit. */
	task_get(p);
	st->t = p;
	if (nr_tasks == tasks_cap) {
		tasks_cap = tasks_cap ? tasks_cap * 2 : 64;
		tasks = realloc(tasks, tasks_cap * sizeof(*tasks));
		if (!tasks)
			out_of_memory();
	}
	tasks[nr_tasks++] = st;
	nr_live++;
	st->left_ns = ops->first_burst(st);
	st->ws_bytes = sim_ws_bytes;
	if (sim_cost.on)
		cost_fork(sim_cpu, p);
	task_wake_new(p);
	if (task_cpu(p) != sim_cpu)
		totals.fork_idlest++;
	return st;
}

struct sim_task *sim_task_spawn(const struct sim_workload_ops *ops, u32 id, const char *name,
				int nice, const struct cpumask *allowed)
{
	struct sim_task *st;

	sim_cpu = 0;
	st = task_new(ops, id, name, nice, allowed);
	irq_exit(0);
	return st;
}

struct sim_task *sim_task_fork(const struct sim_workload_ops *ops, u32 id, const char *name,
			       int nice, const struct cpumask *allowed)
{
	return task_new(ops, id, name, nice, allowed);
}

/* Wakes st from sim_cpu, and books why it moved, if it did. */
void sim_task_wake(struct sim_task *st, bool sync)
{
	struct task *p = st->t;
	u64 moves = p->nr_migrations;

	if (sim_cost.on)
		cost_wake(sim_cpu, p, task_cpu(p));
	if (!wake_up_task(p, sync))
		return;
	totals.wakeups++;
	if (p->nr_migrations == moves)
		totals.wake_prev++;
	else if (task_cpu(p) == sim_cpu)
		totals.mig_reason[SIM_MIG_AFFINE]++;
	else
		totals.mig_reason[SIM_MIG_IDLE_SIBLING]++;
}

void sim_engine_ipi(u32 cpu)
{
	u64 sent = sim_now;

	if (cpu >= nr_cpus || cpus[cpu].ipi_pending)
		return;
	/* It leaves when the work charged to the sending CPU so far is done. */
	if (sim_cpu < nr_cpus && cpus[sim_cpu].busy_until > sent)
		sent = cpus[sim_cpu].busy_until;
	cpus[cpu].ipi_pending = true;
	ev_push(sent + cfg.ipi_ns, EV_IPI, cpu, 0);
	totals.ipis++;
}

/* ---------------------------------------------------------------- events */

static void on_tick(u32 cpu)
{
	sim_cpu = cpu;
	sim_timer_ticks[cpu]++;
	totals.ticks++;
	scheduler_tick(cpu);
	sched_topology_quiescent(cpu);
	if (sim_cost.on) {
		cost_charge(cpu, sim_cost_ns(sim_cost.tick_insn), &totals.path_ns);
		cost_balance(cpu);
	}
	irq_exit(cpu);
	ev_push(sim_now + tick_ns, EV_TICK, cpu, 0);
}

static void on_burst(u32 cpu, u64 gen)
{
	struct sim_task *st = cpus[cpu].running;

	if (gen != cpus[cpu].burst_gen || !st)
		return; /* the burst was stopped before it ended */
	sim_cpu = cpu;
	if (sim_cost.on) {
		/* The work done is what was left, unless rt-app's deadline cut it short. */
		u64 ran = sim_now > st->run_start ? sim_now - st->run_start : 0;
		u64 done = ran >= time_for(st->left_ns, cpus[cpu].rate) ?
				   st->left_ns :
				   work_in(ran, cpus[cpu].rate);

		if (done > st->left_ns)
			done = st->left_ns;
		if (cpus[cpu].rate != 1)
			totals.smt_ns += ran - done;
		st->stall_ns += sim_now - st->burst_begin - done;
		st->burst_begin = sim_now;
		cpus[cpu].in_call = true;
	}
	st->left_ns = 0;
	st->run_start = sim_now;
	task_act(cpu, st, st->ops->burst_done(st));
	cpus[cpu].in_call = false;
	/* Back to user space: a wake-up the task made may have asked for its CPU. */
	irq_exit(cpu);
}

void sim_engine_init(const struct sim_config *c)
{
	u64 rng = c->seed * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL;

	cfg = *c;
	machine = c->machine;
	nr_cpus = sched_nr_cpus();
	cpus = calloc(nr_cpus, sizeof(*cpus));
	if (!cpus)
		out_of_memory();
	sim_ws_bytes = (u64)(sim_cost.ws_kb * 1024);
	/* The other threads of each CPU's core, for SMT speed. */
	for (u32 cpu = 0, n = 0, cap = 0; cpu < nr_cpus && sim_cost.on; cpu++) {
		const struct machine_cpu *a = &machine->cpu[cpu];

		cpus[cpu].sib_first = n;
		for (u32 o = 0; o < nr_cpus; o++) {
			const struct machine_cpu *b = &machine->cpu[o];

			if (o == cpu || a->package != b->package || a->core != b->core)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : nr_cpus;
				sibs = realloc(sibs, cap * sizeof(*sibs));
				if (!sibs)
					out_of_memory();
			}
			sibs[n++] = o;
			cpus[cpu].nr_sibs++;
		}
	}
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		cpus[cpu].rate = 1;
	tick_ns = NSEC_PER_SEC / sim_hz();
	sim_now = SIM_START_NS;
	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		/* xorshift64*: each CPU's timer starts somewhere in its first period. */
		rng ^= rng >> 12;
		rng ^= rng << 25;
		rng ^= rng >> 27;
		cpus[cpu].tick_offset = SIM_START_NS + (rng * 0x2545f4914f6cdd1dULL) % tick_ns;
		ev_push(cpus[cpu].tick_offset, EV_TICK, cpu, 0);
	}
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		update_rq_clock(cpu_rq(cpu));
}

bool sim_engine_run(u64 stop_ns)
{
	while (heap_len) {
		struct event ev = heap[0];

		if (stop_ns ? ev.time >= stop_ns : nr_live == 0) {
			if (stop_ns)
				sim_now = stop_ns;
			return true;
		}
		if (ev.time >= cfg.limit_ns)
			return false;
		ev = ev_pop();
		sim_now = ev.time;
		totals.events++;
		switch (ev.type) {
		case EV_TICK:
			on_tick(ev.arg);
			break;
		case EV_BURST:
			on_burst(ev.arg, ev.gen);
			break;
		case EV_IPI:
			cpus[ev.arg].ipi_pending = false;
			sim_cpu = ev.arg;
			irq_exit(ev.arg);
			break;
		case EV_WAKE:
			/* A timed sleep's end, at CPU 0's tick (see SIM_SLEEP). */
			sim_cpu = 0;
			sim_task_wake(tasks[ev.arg], false);
			irq_exit(0);
			break;
		}
	}
	return nr_live == 0;
}

const char *const sim_mig_reason_name[SIM_MIG_NR] = {
	[SIM_MIG_AFFINE] = "affine",   [SIM_MIG_IDLE_SIBLING] = "idle_sibling",
	[SIM_MIG_BALANCE] = "balance", [SIM_MIG_NEWIDLE] = "newidle",
	[SIM_MIG_ACTIVE] = "active",   [SIM_MIG_OTHER] = "other",
};

/*
 * The balancer's moves by kind, from every domain's schedstat counters:
 * lb_gained per idle type of the balancing CPU, of which alb_pushed were
 * the stopper's (both balancers count an active push as gained at CPU_IDLE).
 */
static void balance_reasons(struct sim_totals *tot)
{
	struct sched_topology *t;
	u32 was = sim_cpu;

	sim_cpu = 0;
	t = sched_topology_read_begin(0);
	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		struct sched_domain *sd;

		for_each_domain (t, cpu, sd) {
			const struct sched_domain_stats *s = &sd->stats;

			tot->mig_reason[SIM_MIG_BALANCE] += s->lb_gained[CPU_IDLE] +
							    s->lb_gained[CPU_NOT_IDLE] -
							    s->alb_pushed;
			tot->mig_reason[SIM_MIG_NEWIDLE] += s->lb_gained[CPU_NEWLY_IDLE];
			tot->mig_reason[SIM_MIG_ACTIVE] += s->alb_pushed;
		}
	}
	sched_topology_read_end(0);
	sim_cpu = was;
}

void sim_engine_totals(struct sim_totals *tot)
{
	u64 known = 0;

	*tot = totals;
	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		struct rq *rq = cpu_rq(cpu);

		tot->switches += rq->nr_switches;
		tot->migrations += rq->stats.nr_migrations;
		tot->wasted_ns += rq->stats.wasted_idle_ns;
		tot->run_delay_ns += rq->stats.run_delay;
		tot->cpu_time_ns += rq->stats.rq_cpu_time;
	}
	balance_reasons(tot);
	for (int r = 0; r < SIM_MIG_OTHER; r++)
		known += tot->mig_reason[r];
	tot->mig_reason[SIM_MIG_OTHER] = tot->migrations - known;
}
