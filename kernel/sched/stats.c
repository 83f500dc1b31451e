/*
 * Scheduler statistics: Linux's /proc/schedstat (version 15) printed from
 * the counters core.c keeps per runqueue and balance.c keeps per domain,
 * and the "wasted CPU" time of "The Linux Scheduler: a Decade of Wasted
 * Cores" (EuroSys 2016), so that a balancing bug shows up as a number,
 * and a running total of migrations per CPU, which outlives the tasks.
 */
#include "sched/stats.h"

#include <arch/cpu.h>
#include <arch/smp.h>
#include <arch/time.h>

#include "cmdline.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "printk.h"
#include "sched/topology.h"

#define NSEC_PER_MSEC 1000000ULL

/* Queued tasks looked at per other runqueue when looking for a waiter allowed here. */
#define WASTED_SCAN_MAX 16

/*
 * Wasted idle time, sampled at the tick. At each tick of an idle CPU we
 * look for a runqueue with a task waiting (nr_running >= 2, one of them
 * not running) whose cpus_allowed holds this CPU; if there is one, the
 * whole time since this CPU's previous tick counts as wasted. So:
 *   - it is exact to one tick, and a wait shorter than a tick that does
 *     not straddle a tick is missed (one that does counts a whole tick);
 *   - a queue whose lock is busy at that moment is skipped (trylock: the
 *     tick never waits on another CPU), and only the first
 *     WASTED_SCAN_MAX tasks of a queue are looked at -- both undercount;
 *   - a task that has just been queued on a CPU that is about to pick it
 *     counts as waiting, as Linux's run_delay would count it.
 * The tick writes rq->stats.wasted_idle_ns without the rq lock: it is the
 * only writer, and readers only print it.
 */
static struct {
	const struct rq *owner; /* a fresh runqueue (host tests) starts afresh */
	u64 last;
	u64 since;	  /* the current wasted stretch began here (0: none) */
	u64 reported;	  /* the last sched_wasted_check line for this CPU */
	int waiter_pid;	  /* a task it could have run, at the last wasted tick */
	u32 waiter_cpu;	  /* and the queue it waited on */
	u32 waiter_queue; /* that queue's nr_running then */
	char waiter_comm[TASK_COMM_LEN];
} wasted_clock[MAX_CPUS];

/*
 * sched_wasted_check: the online form of Lozi et al.'s sanity checker.
 * Once a second at most per CPU, a CPU whose wasted stretch (idle at every
 * tick while a task allowed on it waited elsewhere) has lasted more than
 * WASTED_CHECK_MS gets one line, with its domains as they stand.
 */
#define WASTED_CHECK_MS	       100
#define WASTED_CHECK_PERIOD_NS 1000000000ULL

static bool sched_wasted_check;
BOOT_OPTION_BOOL(sched_wasted_check, "sched_wasted_check", &sched_wasted_check,
		 "report, once a second, every CPU idle for over 100 ms while a task it may run waits "
		 "elsewhere, with its domains' state");

/* One line: the CPU, how long, who waited where, then each domain's balancing state. */
static void wasted_report(u32 cpu, u64 now)
{
	char line[512], span[64];
	struct sched_topology *t = sched_topology_read_begin(cpu);
	struct sched_domain *sd;
	size_t len;

	len = (size_t)ksnprintf(line, sizeof(line),
				"sched_wasted_check: cpu%u idle %llu ms while pid %d (%s) waited on cpu%u "
				"(nr_running %u); domains:",
				cpu,
				(unsigned long long)((now - wasted_clock[cpu].since) / NSEC_PER_MSEC),
				wasted_clock[cpu].waiter_pid, wasted_clock[cpu].waiter_comm,
				wasted_clock[cpu].waiter_cpu, wasted_clock[cpu].waiter_queue);
	for_each_domain (t, cpu, sd) {
		if (len >= sizeof(line))
			break;
		cpumask_print(span, sizeof(span), sd_span(sd));
		len += (size_t)ksnprintf(line + len, sizeof(line) - len,
					 " %s %s interval %u ms failed %u last %llu ms ago;",
					 sd->name, span, sd->balance_interval, sd->nr_balance_failed,
					 (unsigned long long)((now - sd->last_balance) /
							      NSEC_PER_MSEC));
	}
	if (!cpu_sd(t, cpu) && len < sizeof(line))
		ksnprintf(line + len, sizeof(line) - len, " none (no balancing)");
	sched_topology_read_end(cpu);
	pr_info("%s\n", line);
}

/*
 * A task on other (not running) that may run on cpu? Never waits for
 * other's lock. If so, notes it (pid, name, queue) as cpu's waiter.
 */
static bool waiter_allowed_on(struct rq *other, u32 cpu)
{
	const struct sched_class *class;
	struct task *p;
	bool found = false;

	if (!spin_trylock(&other->lock))
		return false;
	for_each_class (class)
		if (class->waiter_for && (p = class->waiter_for(other, cpu, WASTED_SCAN_MAX))) {
			found = true;
			wasted_clock[cpu].waiter_pid = p->pid;
			wasted_clock[cpu].waiter_cpu = other->cpu;
			wasted_clock[cpu].waiter_queue = other->nr_running;
			memcpy(wasted_clock[cpu].waiter_comm, p->comm, TASK_COMM_LEN);
			wasted_clock[cpu].waiter_comm[TASK_COMM_LEN - 1] = '\0';
			break;
		}
	spin_unlock(&other->lock);
	return found;
}

void schedstat_account_wasted(struct rq *rq, u64 now)
{
	u32 cpu = rq->cpu, n = sched_nr_cpus();
	u64 delta = 0;

	if (cpu >= MAX_CPUS)
		return;
	if (wasted_clock[cpu].owner == rq && (s64)(now - wasted_clock[cpu].last) > 0)
		delta = now - wasted_clock[cpu].last;
	wasted_clock[cpu].owner = rq;
	wasted_clock[cpu].last = now;
	if (!delta || !idle_cpu(cpu)) {
		wasted_clock[cpu].since = 0;
		return;
	}
	for (u32 other = 0; other < n; other++) {
		struct rq *orq = cpu_rq(other);

		if (other == cpu || !orq || READ_ONCE(orq->nr_running) < 2)
			continue;
		if (waiter_allowed_on(orq, cpu)) {
			rq->stats.wasted_idle_ns += delta;
			if (!wasted_clock[cpu].since)
				wasted_clock[cpu].since = now - delta;
			if (sched_wasted_check &&
			    now - wasted_clock[cpu].since > WASTED_CHECK_MS * NSEC_PER_MSEC &&
			    (!wasted_clock[cpu].reported ||
			     now - wasted_clock[cpu].reported >= WASTED_CHECK_PERIOD_NS)) {
				wasted_clock[cpu].reported = now;
				wasted_report(cpu, now);
			}
			return;
		}
	}
	wasted_clock[cpu].since = 0;
}

/* ---------------------------------------------------------------- printing */

int schedstat_mask_hex(char *buf, size_t size, const struct cpumask *m, u32 nbits)
{
	u32 chunk_bits = nbits % 32 ? nbits % 32 : 32;
	const char *sep = "";
	int len = 0;

	if (size)
		buf[0] = '\0';
	if (nbits > MAX_CPUS)
		nbits = MAX_CPUS;
	/* The highest chunk first; it is only as wide as the bits it holds. */
	for (int first = (int)ALIGN_UP(nbits, 32) - 32; first >= 0; first -= 32) {
		u32 val = 0;

		for (u32 b = 0; b < chunk_bits; b++)
			if (cpumask_test_cpu((u32)first + b, m))
				val |= 1U << b;
		if ((size_t)len < size)
			len += ksnprintf(buf + len, size - (size_t)len, "%s%0*x", sep,
					 (int)(chunk_bits + 3) / 4, val);
		chunk_bits = 32;
		sep = ",";
	}
	return len;
}

#define SCHEDSTAT_LINE 1024

typedef unsigned long long ull;

static void __printf(2, 3) out_line(const struct sched_out *out, const char *fmt, ...)
{
	char line[SCHEDSTAT_LINE];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	out->line(out->ctx, line);
}

static void show_domain(const struct sched_out *out, u32 index, const struct sched_domain *sd,
			u32 nbits)
{
	const struct sched_domain_stats *s = &sd->stats;
	char line[SCHEDSTAT_LINE], mask[(MAX_CPUS / 32) * 9 + 1];
	size_t len;

	schedstat_mask_hex(mask, sizeof(mask), sd_span(sd), nbits);
	len = (size_t)ksnprintf(line, sizeof(line), "domain%u %s", index, mask);
	for (int i = 0; i < SD_IDLE_TYPES && len < sizeof(line); i++)
		len += (size_t)ksnprintf(line + len, sizeof(line) - len,
					 " %llu %llu %llu %llu %llu %llu %llu %llu",
					 (ull)s->lb_count[i], (ull)s->lb_balanced[i],
					 (ull)s->lb_failed[i], (ull)s->lb_imbalance[i],
					 (ull)s->lb_gained[i], (ull)s->lb_hot_gained[i],
					 (ull)s->lb_nobusyq[i], (ull)s->lb_nobusyg[i]);
	if (len < sizeof(line))
		ksnprintf(line + len, sizeof(line) - len,
			  " %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
			  (ull)s->alb_count, (ull)s->alb_failed, (ull)s->alb_pushed,
			  (ull)s->sbe_count, (ull)s->sbe_balanced, (ull)s->sbe_pushed,
			  (ull)s->sbf_count, (ull)s->sbf_balanced, (ull)s->sbf_pushed,
			  (ull)s->ttwu_wake_remote, (ull)s->ttwu_move_affine,
			  (ull)s->ttwu_move_balance);
	out->line(out->ctx, line);
}

void schedstat_show(const struct sched_out *out)
{
	u32 n = sched_nr_cpus(), me;
	struct sched_topology *t;
	unsigned long flags;

	out_line(out, "version 15");
	out_line(out, "timestamp %llu", (ull)(arch_clock_ns() / NSEC_PER_MSEC));
	flags = arch_irq_save(); /* a topology read section stays on one CPU */
	me = arch_cpu_id();
	t = sched_topology_read_begin(me);
	for (u32 cpu = 0; cpu < n; cpu++) {
		const struct rq_sched_stats *s = &cpu_rq(cpu)->stats;
		struct sched_domain *sd;
		u32 index = 0;

		if (!arch_cpu_online(cpu))
			continue; /* as Linux lists online CPUs only: one left out at boot has none */
		out_line(out, "cpu%u %llu 0 %llu %llu %llu %llu %llu %llu %llu", cpu,
			 (ull)s->yld_count, (ull)s->sched_count, (ull)s->sched_goidle,
			 (ull)s->ttwu_count, (ull)s->ttwu_local, (ull)s->rq_cpu_time,
			 (ull)s->run_delay, (ull)s->pcount);
		for_each_domain (t, cpu, sd)
			show_domain(out, index++, sd, n);
	}
	sched_topology_read_end(me);
	arch_irq_restore(flags);
	for (u32 cpu = 0; cpu < n; cpu++)
		if (arch_cpu_online(cpu))
			out_line(out, "wasted cpu%u %llu", cpu,
				 (ull)cpu_rq(cpu)->stats.wasted_idle_ns);
	/* Kept apart from the cpuN lines, whose 9 fields Linux's parsers expect. */
	for (u32 cpu = 0; cpu < n; cpu++)
		if (arch_cpu_online(cpu))
			out_line(out, "migrations cpu%u %llu", cpu,
				 (ull)__atomic_load_n(&cpu_rq(cpu)->stats.nr_migrations,
						      __ATOMIC_RELAXED));
}

static const char *task_state_name(const struct task *p)
{
	switch (p->state) {
	case TASK_RUNNING:
		return p->on_cpu ? "running" : "runnable";
	case TASK_INTERRUPTIBLE:
		return "sleeping";
	case TASK_UNINTERRUPTIBLE:
		return "blocked";
	case TASK_KILLABLE:
		return "blocked (killable)";
	case TASK_DEAD:
		return "dead";
	default:
		return "?";
	}
}

static void show_task(struct task *p, void *arg)
{
	const struct sched_out *out = arg;
	const struct task_sched_stats *s = &p->stats;

	out_line(out, "%5d %-15s %3u %-8s %4d %14llu %14llu %10llu %10llu %10llu %10llu %-5s %6u",
		 p->pid, p->comm, task_cpu(p), task_state_name(p), p->nice,
		 (ull)p->sum_exec_runtime, (ull)s->run_delay, (ull)s->pcount, (ull)p->nr_migrations,
		 (ull)s->nr_voluntary_switches, (ull)s->nr_involuntary_switches,
		 p->sched_class->name, p->rt_priority);
}

void sched_tasks_show(const struct sched_out *out)
{
	out_line(out, "%5s %-15s %3s %-8s %4s %14s %14s %10s %10s %10s %10s %-5s %6s", "pid",
		 "name", "cpu", "state", "nice", "runtime_ns", "wait_ns", "timeslices",
		 "migrations", "voluntary", "involuntary", "class", "rtprio");
	sched_for_each_task(show_task, (void *)out);
}

static void print_line(void *ctx, const char *text)
{
	pr_info("%s\n", text);
}

static const struct sched_out printk_out = { print_line, NULL };

void schedstat_print(void)
{
	schedstat_show(&printk_out);
}

void sched_tasks_print(void)
{
	sched_tasks_show(&printk_out);
}
