/*
 * Processes: allocation, lookup, counting, and the hooks through which
 * fs/, ipc/ and mm/ reach the calling process (kernel/proc/current.h).
 * The life of a process is in fork.c, exec.c and exit.c.
 */
#include "proc/process.h"

#include <arch/addr_space.h>
#include <arch/fpu.h>
#include <arch/memory.h>
#include <arch/time.h>
#include <arch/uaccess.h>
#include <arch/user.h>

#include "fs/console.h"
#include "fs/cwd.h"
#include "fs/fdtable.h"
#include "fs/file.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/page_alloc.h"
#include "mm/vm.h"
#include "proc/current.h"
#include "proc/itimer.h"
#include "proc/proc_internal.h"
#include "proc/signal.h"
#include "proc/syscall.h"

struct spinlock proc_lock = SPINLOCK_INIT;
static struct list_head all_processes = LIST_HEAD_INIT(all_processes); /* by all_node */
static u32 nr_processes, nr_threads;
static u32 max_threads; /* 0 until first asked: RAM is known by then */

#define MIN_THREADS	20	   /* Linux's MIN_THREADS */
#define MAX_THREADS_CAP 0x3fffffff /* Linux's FUTEX_TID_MASK: a tid must fit the futex word */

u32 proc_max_threads(void)
{
	u32 n = __atomic_load_n(&max_threads, __ATOMIC_RELAXED);
	u64 fit;

	if (n)
		return n;
	fit = page_alloc_total_pages() * PAGE_SIZE / (8 * TASK_STACK_SIZE);
	n = (u32)MIN(MAX(fit, (u64)MIN_THREADS), (u64)MAX_THREADS_CAP);
	__atomic_store_n(&max_threads, n, __ATOMIC_RELAXED);
	return n;
}

bool proc_may_add_thread_locked(const struct process *parent)
{
	return nr_threads < proc_max_threads() && nr_threads < parent->nproc_cur;
}

struct process *current_process(void)
{
	return current_task()->proc;
}

struct files *current_files(void)
{
	struct process *p = current_process();

	return p ? p->files : NULL;
}

struct fs_struct *current_fs(void)
{
	struct process *p = current_process();

	return p ? p->fs : NULL;
}

struct vm *current_vm(void)
{
	struct process *p = current_process();

	return p ? p->vm : NULL;
}

bool current_signal_pending(void)
{
	return signal_pending(current_task());
}

void current_send_signal(int sig)
{
	signal_send_thread(current_task(), sig);
}

struct process *process_alloc(void)
{
	struct process *p = kzalloc(sizeof(*p));

	if (!p)
		return NULL;
	p->lock = (struct spinlock)SPINLOCK_INIT;
	p->refs = 1; /* the tree's: dropped when the process is reaped */
	list_init(&p->children);
	list_init(&p->sibling);
	list_init(&p->threads);
	list_init(&p->all_node);
	wait_queue_init(&p->child_wq);
	p->exit_signal = SIGCHLD;
	p->start_ns = arch_clock_ns();
	p->nproc_cur = p->nproc_max = proc_max_threads();
	p->timer_slack_ns = PROC_TIMER_SLACK_NS;
	itimer_init(p);
	list_init(&p->posix_timers);
	return p;
}

void process_get(struct process *p)
{
	__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
}

void process_put(struct process *p)
{
	if (__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		signal_free_process(p);
		kfree(p);
	}
}

/* Links p (and its first thread t) in: the caller holds proc_lock. */
void process_link_locked(struct process *p, struct process *parent, struct task *t)
{
	p->parent = parent;
	if (parent)
		list_add_tail(&p->sibling, &parent->children);
	list_add_tail(&p->all_node, &all_processes);
	nr_processes++;
	thread_link_locked(p, t);
}

void thread_link_locked(struct process *p, struct task *t)
{
	t->proc = p;
	list_add_tail(&t->thread_node, &p->threads);
	p->nr_threads++;
	nr_threads++;
}

void thread_unlink_locked(struct process *p, struct task *t)
{
	list_del(&t->thread_node);
	list_init(&t->thread_node);
	p->nr_threads--;
	nr_threads--;
}

void process_unlink_locked(struct process *p)
{
	list_del(&p->sibling);
	list_init(&p->sibling);
	list_del(&p->all_node);
	list_init(&p->all_node);
	nr_processes--;
}

struct process *process_find(int pid)
{
	unsigned long flags = spin_lock_irqsave(&proc_lock);
	struct process *found = NULL;
	struct list_head *pos;

	list_for_each (pos, &all_processes) {
		struct process *p = list_entry(pos, struct process, all_node);

		if (p->pid == pid) {
			process_get(p);
			found = p;
			break;
		}
	}
	spin_unlock_irqrestore(&proc_lock, flags);
	return found;
}

struct task *thread_find(int tid)
{
	unsigned long flags = spin_lock_irqsave(&proc_lock);
	struct task *found = NULL;
	struct list_head *pos, *tpos;

	list_for_each (pos, &all_processes) {
		struct process *p = list_entry(pos, struct process, all_node);

		list_for_each (tpos, &p->threads) {
			struct task *t = list_entry(tpos, struct task, thread_node);

			if (t->pid == tid) {
				task_get(t);
				found = t;
				goto out;
			}
		}
	}
out:
	spin_unlock_irqrestore(&proc_lock, flags);
	return found;
}

struct process *thread_find_process(int tid)
{
	unsigned long flags = spin_lock_irqsave(&proc_lock);
	struct process *found = NULL;
	struct list_head *pos, *tpos;

	list_for_each (pos, &all_processes) {
		struct process *p = list_entry(pos, struct process, all_node);

		list_for_each (tpos, &p->threads) {
			if (list_entry(tpos, struct task, thread_node)->pid == tid) {
				process_get(p);
				found = p;
				goto out;
			}
		}
	}
out:
	spin_unlock_irqrestore(&proc_lock, flags);
	return found;
}

void process_for_each_locked(void (*fn)(struct process *p, void *arg), void *arg)
{
	struct list_head *pos;

	list_for_each (pos, &all_processes)
		fn(list_entry(pos, struct process, all_node), arg);
}

void process_for_each(void (*fn)(struct process *p, void *arg), void *arg)
{
	unsigned long flags = spin_lock_irqsave(&proc_lock);

	process_for_each_locked(fn, arg);
	spin_unlock_irqrestore(&proc_lock, flags);
}

u32 process_count(void)
{
	return __atomic_load_n(&nr_processes, __ATOMIC_RELAXED);
}

u32 thread_count(void)
{
	return __atomic_load_n(&nr_threads, __ATOMIC_RELAXED);
}

int proc_console_fds(struct files *files)
{
	for (int fd = 0; fd < 3; fd++) {
		struct file *f = console_open(O_RDWR);
		int got;

		if (!f)
			return -ENOMEM;
		got = fd_alloc(files, f, 0, false);
		if (got != fd) {
			fput(f);
			return got < 0 ? got : -EBADF;
		}
	}
	return 0;
}

int proc_adopt_kernel_thread(struct arch_mm *mm)
{
	struct task *t = current_task();
	struct process *p = process_alloc();
	unsigned long irq;

	if (!p)
		return -ENOMEM;
	p->files = files_create();
	p->fs = fs_struct_create();
	if (!p->files || !p->fs || proc_console_fds(p->files) || arch_fpu_alloc(&t->ctx)) {
		if (p->files)
			files_put(p->files);
		fs_struct_put(p->fs);
		kfree(p);
		return -ENOMEM;
	}
	memcpy(p->comm, t->comm, sizeof(p->comm));
	p->pid = t->pid;
	p->leader = t;
	p->exit_signal = 0;
	irq = spin_lock_irqsave(&proc_lock);
	process_link_locked(p, NULL, t);
	t->mm = mm;
	arch_mm_activate(mm);
	spin_unlock_irqrestore(&proc_lock, irq);
	return 0;
}

/* ---------------------------------------------------------------- identity calls */

static long sys_getpid(void)
{
	return current_process()->pid;
}
SYSCALL_DEFINE0(getpid);

static long sys_gettid(void)
{
	return current_task()->pid;
}
SYSCALL_DEFINE0(gettid);

static long sys_getppid(void)
{
	struct process *p = current_process();
	unsigned long flags = spin_lock_irqsave(&proc_lock);
	int ppid = p->parent ? p->parent->pid : 0;

	spin_unlock_irqrestore(&proc_lock, flags);
	return ppid;
}
SYSCALL_DEFINE0(getppid);

static long sys_set_tid_address(int *tidptr)
{
	current_task()->clear_child_tid = tidptr;
	return current_task()->pid;
}
SYSCALL_DEFINE1(set_tid_address, int *);

#define ARCH_SET_GS 0x1001
#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003
#define ARCH_GET_GS 0x1004

static long sys_arch_prctl(int code, unsigned long addr)
{
	u64 base;

	switch (code) {
	case ARCH_SET_FS:
		return arch_set_fs_base(addr);
	case ARCH_GET_FS:
		base = arch_get_fs_base();
		return copy_to_user((void *)addr, &base, sizeof(base));
	case ARCH_GET_GS:
		base = 0;
		return copy_to_user((void *)addr, &base, sizeof(base));
	case ARCH_SET_GS:
		return -EPERM; /* the kernel owns GS; musl never sets it */
	default:
		return -EINVAL;
	}
}
SYSCALL_DEFINE2(arch_prctl, int, unsigned long);
