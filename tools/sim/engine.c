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
 */
#include <stdlib.h>
#include <string.h>

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

struct sim_cpu {
	struct sim_task *running; /* NULL: idle or a kernel thread */
	u64 burst_gen;		  /* bumped whenever the running burst stops: its event is stale */
	u64 tick_offset;
	bool ipi_pending;
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

/* The running task's burst stops now (preempted, or its own system call): charge its progress. */
static void burst_stop(u32 cpu)
{
	struct sim_cpu *c = &cpus[cpu];
	struct sim_task *st = c->running;

	if (st) {
		u64 ran = sim_now - st->run_start;

		st->left_ns = ran < st->left_ns ? st->left_ns - ran : 0;
		c->running = NULL;
	}
	c->burst_gen++;
}

static void burst_start(u32 cpu, struct sim_task *st)
{
	struct sim_cpu *c = &cpus[cpu];

	u64 end = sim_now + st->left_ns;

	if (st->until_ns && st->until_ns < end)
		end = st->until_ns > sim_now ? st->until_ns : sim_now;
	c->running = st;
	st->run_start = sim_now;
	ev_push(end, EV_BURST, cpu, c->burst_gen);
	totals.bursts++;
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
		if (next != prev && prev->state == TASK_DEAD && prev->sched_class->task_dead)
			prev->sched_class->task_dead(prev);
		if (next == rq->idle)
			return;
		st = sim_task_of(next);
		if (st) {
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
		burst_stop(cpu);
		burst_start(cpu, st);
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
			burst_stop(cpu);
			burst_start(cpu, st);
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
	if (cpu >= nr_cpus || cpus[cpu].ipi_pending)
		return;
	cpus[cpu].ipi_pending = true;
	ev_push(sim_now + cfg.ipi_ns, EV_IPI, cpu, 0);
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
	irq_exit(cpu);
	ev_push(sim_now + tick_ns, EV_TICK, cpu, 0);
}

static void on_burst(u32 cpu, u64 gen)
{
	struct sim_task *st = cpus[cpu].running;

	if (gen != cpus[cpu].burst_gen || !st)
		return; /* the burst was stopped before it ended */
	sim_cpu = cpu;
	st->left_ns = 0;
	st->run_start = sim_now;
	task_act(cpu, st, st->ops->burst_done(st));
	/* Back to user space: a wake-up the task made may have asked for its CPU. */
	irq_exit(cpu);
}

void sim_engine_init(const struct sim_config *c)
{
	u64 rng = c->seed * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL;

	cfg = *c;
	nr_cpus = sched_nr_cpus();
	cpus = calloc(nr_cpus, sizeof(*cpus));
	if (!cpus)
		out_of_memory();
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
