/*
 * /proc/self and /proc/<pid>/ (fs/proc_pid.h): the files ps, top and the
 * rest read, in Linux's formats. Each file is a snapshot taken under
 * proc_lock when it is opened. Times are in clock ticks of 100 Hz
 * (USER_HZ, AT_CLKTCK). Fulcrum keeps no process groups or sessions, so
 * pgrp and session are the pid; every sleep is shown as S (Linux's wait
 * queues here all sleep TASK_UNINTERRUPTIBLE but wake for signals).
 */
#include <arch/time.h>

#include "fs/namei.h"
#include "fs/proc_pid.h"
#include "fs/seqbuf.h"
#include "fs/stat.h"
#include "lib/cpumask.h"
#include "lib/errno.h"
#include "lib/kstrto.h"
#include "lib/printf.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/vm.h"
#include "proc/proc_internal.h"
#include "proc/process.h"
#include "sched/sched.h"

#define NS_PER_TICK 10000000ULL /* USER_HZ = 100 */
#define PAGE_KB	    4

/* ---------------------------------------------------------------- interned exe paths */

struct exe_name {
	struct exe_name *next;
	char path[];
};

static struct spinlock exe_lock = SPINLOCK_INIT;
static struct exe_name *exe_names;

const char *proc_exe_intern(const char *path)
{
	size_t len = strlen(path) + 1;
	struct exe_name *e, *fresh = NULL;
	unsigned long flags;

	for (;;) {
		flags = spin_lock_irqsave(&exe_lock);
		for (e = exe_names; e; e = e->next)
			if (!strcmp(e->path, path))
				break;
		if (!e && fresh) {
			fresh->next = exe_names;
			exe_names = fresh;
			e = fresh;
			fresh = NULL;
		}
		spin_unlock_irqrestore(&exe_lock, flags);
		if (e || !(fresh = kmalloc(sizeof(*fresh) + len)))
			break;
		memcpy(fresh->path, path, len);
	}
	kfree(fresh); /* another exec interned it meanwhile */
	return e ? e->path : NULL;
}

/* ---------------------------------------------------------------- paths */

enum pid_file {
	PF_DIR,
	PF_TASKDIR,
	PF_STAT,
	PF_STATUS,
	PF_CMDLINE,
	PF_COMM,
	PF_EXE,
	PF_SCHED,
	PF_SCHEDSTAT,
	PF_NONE,
};

static const char *const file_names[] = {
	[PF_TASKDIR] = "task",	  [PF_STAT] = "stat",		[PF_STATUS] = "status",
	[PF_CMDLINE] = "cmdline", [PF_COMM] = "comm",		[PF_EXE] = "exe",
	[PF_SCHED] = "sched",	  [PF_SCHEDSTAT] = "schedstat",
};

/* What rel (under /proc) names: pid, tid (0 for the process's own files) and the file. */
struct pid_path {
	bool self; /* rel is "self" itself */
	int pid, tid;
	enum pid_file file;
};

/* A decimal number filling s[0..n); -1 if it is not one. */
static int parse_id(const char *s, size_t n)
{
	int v = 0;

	if (!n || n > 9 || (s[0] == '0' && n > 1))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static size_t comp_len(const char *s)
{
	const char *slash = strchr(s, '/');

	return slash ? (size_t)(slash - s) : strlen(s);
}

static enum pid_file parse_file(const char *s, bool in_task)
{
	for (int f = PF_TASKDIR; f < PF_NONE; f++)
		if (!strcmp(s, file_names[f]))
			return in_task && f == PF_TASKDIR ? PF_NONE : (enum pid_file)f;
	return PF_NONE;
}

static int current_tgid(void)
{
	struct process *p = current_process();

	return p ? p->pid : -1;
}

/* 1: not a per-process path; 0: parsed (the process may still not exist); -ENOENT. */
static int parse_path(const char *rel, struct pid_path *pp)
{
	size_t n = comp_len(rel);
	const char *rest = rel + n;

	memset(pp, 0, sizeof(*pp));
	if (n == 4 && !memcmp(rel, "self", 4)) {
		pp->pid = current_tgid();
		if (!*rest) {
			pp->self = true;
			return 0;
		}
	} else {
		pp->pid = parse_id(rel, n);
	}
	if (pp->pid < 0)
		return 1;
	pp->file = PF_DIR;
	if (!*rest)
		return 0;
	rest++;
	n = comp_len(rest);
	if (n == 4 && !memcmp(rest, "task", 4) && rest[4] == '/') {
		rest += 5;
		n = comp_len(rest);
		pp->tid = parse_id(rest, n);
		if (pp->tid <= 0)
			return -ENOENT;
		rest += n;
		if (!*rest)
			return 0;
		pp->file = parse_file(rest + 1, true);
	} else {
		pp->file = parse_file(rest, false);
	}
	return pp->file == PF_NONE ? -ENOENT : 0;
}

/* ---------------------------------------------------------------- snapshots */

struct pid_snap {
	int pid, tid, ppid, nice, exit_signal;
	char comm[TASK_COMM_LEN];
	char state;
	u32 cpu, nr_threads, nr_groups;
	u32 groups[PROC_NGROUPS];
	u64 run_ns, children_ns, start_ns;
	u64 nvcsw, nivcsw, run_delay, pcount, nr_migrations, weight;
	u64 pending, shared_pending, blocked, ignored, caught;
	bool no_new_privs;
	struct cpumask allowed;
	const char *exe;
	uintptr_t arg_start, arg_end;
	struct vm *vm; /* counted, or NULL */
};

static char task_state_char(const struct task *t)
{
	if (t->state == TASK_RUNNING)
		return 'R';
	if (t->state == TASK_DEAD)
		return 'X';
	return 'S';
}

/*
 * Takes the snapshot of process pid (tid 0) or of its thread tid. 0, or
 * -ENOENT when there is no such process or thread.
 */
static int take_snap(int pid, int tid, struct pid_snap *s)
{
	struct process *p = process_find(pid);
	struct cpu_totals tot;
	struct list_head *pos;
	unsigned long flags;
	bool found = !tid, first = true;

	if (!p)
		return -ENOENT;
	memset(s, 0, sizeof(*s));
	process_cpu_totals(p, &tot);
	flags = spin_lock_irqsave(&proc_lock);
	s->pid = p->pid;
	s->tid = tid ? tid : p->pid;
	s->ppid = p->parent ? p->parent->pid : 0;
	memcpy(s->comm, p->comm, sizeof(s->comm));
	s->exit_signal = p->exit_signal;
	s->nr_threads = p->nr_threads;
	s->start_ns = p->start_ns;
	s->children_ns = p->reaped.runtime_ns;
	s->shared_pending = p->shared_pending;
	s->no_new_privs = p->no_new_privs;
	s->nr_groups = p->nr_groups;
	memcpy(s->groups, p->groups, sizeof(s->groups));
	s->exe = p->exe;
	s->arg_start = p->arg_start;
	s->arg_end = p->arg_end;
	for (int sig = 1; sig <= NSIG; sig++) {
		if (p->action[sig - 1].handler == 1)
			s->ignored |= sigmask(sig);
		else if (p->action[sig - 1].handler > 1)
			s->caught |= sigmask(sig);
	}
	s->state = p->zombie ? 'Z' : 'S';
	s->run_ns = tot.runtime_ns;
	s->nvcsw = tot.nvcsw;
	s->nivcsw = tot.nivcsw;
	list_for_each (pos, &p->threads) {
		struct task *t = list_entry(pos, struct task, thread_node);
		char st = task_state_char(t);

		if (tid && t->pid != tid)
			continue;
		if (first) {
			first = false;
			/* The thread's own, or the first thread's for the process. */
			s->nice = t->nice;
			s->cpu = task_cpu(t);
			s->allowed = t->cpus_allowed;
			s->blocked = t->sig_blocked;
			s->weight = t->load.weight;
		}
		found = true;
		s->pending |= t->sig_pending;
		s->run_delay += t->stats.run_delay;
		s->pcount += t->stats.pcount;
		s->nr_migrations += t->nr_migrations;
		if (st == 'R')
			s->state = 'R';
		if (tid) {
			memcpy(s->comm, t->comm, sizeof(s->comm));
			s->run_ns = t->sum_exec_runtime;
			s->nvcsw = t->stats.nr_voluntary_switches;
			s->nivcsw = t->stats.nr_involuntary_switches;
			s->state = st;
		}
	}
	if (p->zombie && !tid)
		s->state = 'Z';
	if (found && p->vm) {
		s->vm = p->vm;
		vm_get(s->vm);
	}
	spin_unlock_irqrestore(&proc_lock, flags);
	process_put(p);
	return found ? 0 : -ENOENT;
}

static void snap_drop(struct pid_snap *s)
{
	if (s->vm)
		vm_put(s->vm);
	s->vm = NULL;
}

static unsigned long long ticks(u64 ns)
{
	return (unsigned long long)(ns / NS_PER_TICK);
}

static const char *state_name(char c)
{
	switch (c) {
	case 'R':
		return "R (running)";
	case 'Z':
		return "Z (zombie)";
	case 'X':
		return "X (dead)";
	default:
		return "S (sleeping)";
	}
}

/* ---------------------------------------------------------------- the files */

static void show_stat(struct seqbuf *sb, const struct pid_snap *s, const struct vm_usage *u)
{
	seq_printf(sb, "%d (%s) %c %d %d %d 0 -1 4194304 0 0 0 0 %llu 0 %llu 0 %d %d %u 0 %llu ",
		   s->tid, s->comm, s->state, s->ppid, s->pid, s->pid, ticks(s->run_ns),
		   ticks(s->children_ns), 20 + s->nice, s->nice, s->nr_threads, ticks(s->start_ns));
	seq_printf(sb, "%llu %llu 18446744073709551615 0 0 0 0 0 ",
		   (unsigned long long)u->mapped_pages * 4096, (unsigned long long)u->resident_pages);
	seq_printf(sb, "%llu %llu %llu %llu 0 0 0 %d %u 0 0 0 0 0 0 0 %llu %lu %lu 0 0 0\n",
		   (unsigned long long)(s->pending | s->shared_pending),
		   (unsigned long long)s->blocked, (unsigned long long)s->ignored,
		   (unsigned long long)s->caught, s->exit_signal, s->cpu,
		   (unsigned long long)u->brk_start, (unsigned long)s->arg_start,
		   (unsigned long)s->arg_end);
}

static void show_status(struct seqbuf *sb, const struct pid_snap *s, const struct vm_usage *u)
{
	char list[128];

	seq_printf(sb, "Name:\t%s\nUmask:\t0022\nState:\t%s\nTgid:\t%d\nNgid:\t0\nPid:\t%d\n",
		   s->comm, state_name(s->state), s->pid, s->tid);
	seq_printf(sb, "PPid:\t%d\nTracerPid:\t0\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n", s->ppid);
	seq_printf(sb, "FDSize:\t%d\nGroups:\t", 1024);
	for (u32 i = 0; i < s->nr_groups; i++)
		seq_printf(sb, "%u ", s->groups[i]);
	seq_printf(sb, "\nNStgid:\t%d\nNSpid:\t%d\nNSpgid:\t%d\nNSsid:\t%d\n", s->pid, s->tid,
		   s->pid, s->pid);
	seq_printf(sb,
		   "VmPeak:\t%8llu kB\nVmSize:\t%8llu kB\nVmLck:\t%8d kB\nVmPin:\t%8d kB\n"
		   "VmHWM:\t%8llu kB\nVmRSS:\t%8llu kB\nRssAnon:\t%8llu kB\nRssFile:\t%8d kB\n"
		   "RssShmem:\t%8d kB\nVmPTE:\t%8llu kB\nVmSwap:\t%8d kB\n",
		   (unsigned long long)u->mapped_pages * PAGE_KB,
		   (unsigned long long)u->mapped_pages * PAGE_KB, 0, 0,
		   (unsigned long long)u->peak_resident_pages * PAGE_KB,
		   (unsigned long long)u->resident_pages * PAGE_KB,
		   (unsigned long long)u->resident_pages * PAGE_KB, 0, 0,
		   (unsigned long long)u->table_pages * PAGE_KB, 0);
	seq_printf(sb, "Threads:\t%u\nSigQ:\t0/%d\n", s->nr_threads, 1024);
	seq_printf(sb, "SigPnd:\t%016llx\nShdPnd:\t%016llx\nSigBlk:\t%016llx\n",
		   (unsigned long long)s->pending, (unsigned long long)s->shared_pending,
		   (unsigned long long)s->blocked);
	seq_printf(sb, "SigIgn:\t%016llx\nSigCgt:\t%016llx\n", (unsigned long long)s->ignored,
		   (unsigned long long)s->caught);
	seq_printf(sb, "CapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\n"
		       "CapEff:\t000001ffffffffff\nCapBnd:\t000001ffffffffff\n"
		       "CapAmb:\t0000000000000000\n");
	seq_printf(sb, "NoNewPrivs:\t%d\nSeccomp:\t0\n", s->no_new_privs);
	cpumask_print(list, sizeof(list), &s->allowed);
	seq_printf(sb, "Cpus_allowed_list:\t%s\n", list);
	seq_printf(sb, "voluntary_ctxt_switches:\t%llu\nnonvoluntary_ctxt_switches:\t%llu\n",
		   (unsigned long long)s->nvcsw, (unsigned long long)s->nivcsw);
}

/* argv's strings as they are in the process's memory now, NUL-separated. */
static void show_cmdline(struct seqbuf *sb, const struct pid_snap *s)
{
	size_t len = s->arg_end > s->arg_start ? s->arg_end - s->arg_start : 0;
	char *buf;

	if (!s->vm || !len)
		return;
	len = MIN(len, (size_t)4096);
	buf = kmalloc(len);
	if (!buf)
		return;
	if (!vm_read(s->vm, s->arg_start, buf, len))
		seq_write(sb, buf, len);
	kfree(buf);
}

/* Linux's "%15s.%06ld" milliseconds. */
static void sched_ms(struct seqbuf *sb, const char *name, u64 ns)
{
	seq_printf(sb, "%-45s:%14llu.%06llu\n", name, (unsigned long long)(ns / 1000000),
		   (unsigned long long)(ns % 1000000));
}

static void sched_num(struct seqbuf *sb, const char *name, u64 v)
{
	seq_printf(sb, "%-45s:%21llu\n", name, (unsigned long long)v);
}

static void show_sched(struct seqbuf *sb, const struct pid_snap *s)
{
	seq_printf(sb, "%s (%d, #threads: %u)\n", s->comm, s->tid, s->nr_threads);
	seq_printf(sb, "-------------------------------------------------------------------\n");
	sched_ms(sb, "se.sum_exec_runtime", s->run_ns);
	sched_num(sb, "se.nr_migrations", s->nr_migrations);
	sched_ms(sb, "sum_wait_runtime", s->run_delay);
	sched_num(sb, "nr_switches", s->nvcsw + s->nivcsw);
	sched_num(sb, "nr_voluntary_switches", s->nvcsw);
	sched_num(sb, "nr_involuntary_switches", s->nivcsw);
	sched_num(sb, "se.load.weight", s->weight);
	sched_num(sb, "policy", SCHED_NORMAL);
	sched_num(sb, "prio", 120 + s->nice);
}

int procfs_pid_show(const char *rel, struct seqbuf *sb)
{
	struct pid_path pp;
	struct pid_snap *s;
	struct vm_usage u = { 0 };
	int err = parse_path(rel, &pp);

	if (err)
		return err < 0 ? err : -ENOENT;
	s = kmalloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	err = take_snap(pp.pid, pp.tid, s);
	if (err) {
		kfree(s);
		return err;
	}
	if (s->vm)
		vm_usage(s->vm, &u);
	switch (pp.file) {
	case PF_STAT:
		show_stat(sb, s, &u);
		break;
	case PF_STATUS:
		show_status(sb, s, &u);
		break;
	case PF_CMDLINE:
		show_cmdline(sb, s);
		break;
	case PF_COMM:
		seq_printf(sb, "%s\n", s->comm);
		break;
	case PF_SCHED:
		show_sched(sb, s);
		break;
	case PF_SCHEDSTAT:
		seq_printf(sb, "%llu %llu %llu\n", (unsigned long long)s->run_ns,
			   (unsigned long long)s->run_delay, (unsigned long long)s->pcount);
		break;
	default:
		err = -ENOENT;
		break;
	}
	snap_drop(s);
	kfree(s);
	return err;
}

/* ---------------------------------------------------------------- lookup and listing */

/* Does process pid (and thread tid, when non-zero) exist? */
static bool ids_exist(int pid, int tid)
{
	struct process *p = process_find(pid);
	struct list_head *pos;
	unsigned long flags;
	bool found = !tid;

	if (!p)
		return false;
	flags = spin_lock_irqsave(&proc_lock);
	list_for_each (pos, &p->threads)
		if (list_entry(pos, struct task, thread_node)->pid == tid)
			found = true;
	spin_unlock_irqrestore(&proc_lock, flags);
	process_put(p);
	return found;
}

int procfs_pid_lookup(const char *rel, struct fs_node *n)
{
	struct pid_path pp;
	struct process *p;
	int err = parse_path(rel, &pp);

	if (err)
		return err;
	if (pp.self) {
		n->kind = NODE_SYMLINK;
		n->mode = S_IFLNK | 0777;
		ksnprintf(n->link, sizeof(n->link), "%d", pp.pid);
		n->data = n->link;
		n->size = strlen(n->link);
		return 0;
	}
	if (!ids_exist(pp.pid, pp.tid))
		return -ENOENT;
	switch (pp.file) {
	case PF_DIR:
	case PF_TASKDIR:
		n->kind = NODE_DIR;
		n->mode = S_IFDIR | 0555;
		return 0;
	case PF_EXE:
		p = process_find(pp.pid);
		if (!p)
			return -ENOENT;
		n->data = READ_ONCE(p->exe);
		process_put(p);
		if (!n->data)
			return -ENOENT;
		n->kind = NODE_SYMLINK;
		n->mode = S_IFLNK | 0777;
		n->size = strlen(n->data);
		return 0;
	default:
		n->kind = NODE_PROC;
		n->mode = S_IFREG | 0444;
		return 0;
	}
}

struct next_id {
	int above, best;
	int only_pid; /* list that process's threads; 0: processes */
};

static void next_pid_fn(struct process *p, void *arg)
{
	struct next_id *ni = arg;
	struct list_head *pos;

	if (!ni->only_pid) {
		if (p->pid > ni->above && (!ni->best || p->pid < ni->best))
			ni->best = p->pid;
		return;
	}
	if (p->pid != ni->only_pid)
		return;
	list_for_each (pos, &p->threads) {
		int tid = list_entry(pos, struct task, thread_node)->pid;

		if (tid > ni->above && (!ni->best || tid < ni->best))
			ni->best = tid;
	}
}

/* The smallest pid (or, with only_pid, tid of that process) above `above`; 0 if none. */
static int next_id(int above, int only_pid)
{
	struct next_id ni = { above, 0, only_pid };
	unsigned long flags = spin_lock_irqsave(&proc_lock);

	process_for_each_locked(next_pid_fn, &ni);
	spin_unlock_irqrestore(&proc_lock, flags);
	return ni.best;
}

int procfs_pid_readdir(const char *rel, size_t *cookie, char *buf, size_t size)
{
	struct pid_path pp;
	int err, id;

	if (!*rel) {
		/* "self", then the pids in order; the cookie is the last pid given, plus one. */
		if (*cookie == 0) {
			*cookie = 1;
			ksnprintf(buf, size, "self");
			return 1;
		}
		id = next_id((int)*cookie - 1, 0);
		if (!id)
			return 0;
		*cookie = (size_t)id + 1;
		ksnprintf(buf, size, "%d", id);
		return 1;
	}
	err = parse_path(rel, &pp);
	if (err)
		return -ENOENT;
	if (pp.self || !ids_exist(pp.pid, pp.tid))
		return -ENOENT;
	if (pp.file == PF_TASKDIR) {
		id = next_id((int)*cookie, pp.pid);
		if (!id)
			return 0;
		*cookie = (size_t)id;
		ksnprintf(buf, size, "%d", id);
		return 1;
	}
	if (pp.file != PF_DIR)
		return -ENOENT;
	/* The files, in file_names' order; a thread's directory has no "task". */
	if (*cookie == 0)
		*cookie = pp.tid ? PF_STAT : PF_TASKDIR;
	if (*cookie >= PF_NONE)
		return 0;
	ksnprintf(buf, size, "%s", file_names[*cookie]);
	(*cookie)++;
	return 1;
}
