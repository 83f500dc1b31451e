/*
 * Processes: a thread group sharing an address space, a descriptor table
 * and signal handlers, with a parent, children and an exit status. Each
 * thread is a struct task whose ->proc points here; kernel threads have
 * no process.
 *
 * Locking: proc_lock (a spinlock, taken with interrupts off, like every
 * kernel lock) guards the process tree (parent, children, threads lists,
 * zombie state, pids). p->lock guards p's signal state (sighand, pending
 * sets of p and of its threads). Never sleep holding either; take
 * proc_lock before p->lock.
 *
 * Lifetime: a process is counted (process_get/put). Its tree links and
 * the thread list hold no count; the parent's children list owns the
 * process until wait4 reaps it (or init does). A thread's task is counted
 * the same way (task_get/put in kernel/sched/task.h).
 */
#ifndef FULCRUM_PROC_PROCESS_H
#define FULCRUM_PROC_PROCESS_H

#include "lib/list.h"
#include "lib/spinlock.h"
#include "lib/types.h"
#include "proc/sys_info.h"
#include "sched/task.h"
#include "sched/wait.h"

#define NSIG 64 /* signals 1..64; bit (sig - 1) in a sigset */

typedef u64 sigset_t;

/* Supplementary groups a process may hold here (Linux: NGROUPS_MAX, 65536). */
#define PROC_NGROUPS 64

/* Linux's default timer slack, in ns (PR_GET_TIMERSLACK of a fresh init). */
#define PROC_TIMER_SLACK_NS 50000

static inline u64 sigmask(int sig)
{
	return 1ULL << (sig - 1);
}

/* Linux's struct sigaction as rt_sigaction passes it (x86-64). */
struct k_sigaction {
	u64 handler;  /* SIG_DFL 0, SIG_IGN 1, or a user address */
	u64 flags;    /* SA_* */
	u64 restorer; /* SA_RESTORER: musl's __restore_rt */
	sigset_t mask;
};

struct process {
	int pid; /* the thread-group id: the leader's tid */
	char comm[TASK_COMM_LEN];
	struct spinlock lock; /* signal state below */
	int refs;	      /* process_get/put */

	/* The tree (proc_lock). */
	struct process *parent;	   /* init's when the real parent has gone */
	struct list_head children; /* struct process, by sibling */
	struct list_head sibling;
	struct list_head threads;  /* struct task, by thread_node */
	u32 nr_threads;		   /* live (not yet exited) threads */
	struct list_head all_node; /* in the list of every process */
	struct task *leader;
	int exit_signal;	    /* sent to the parent at exit (SIGCHLD; clone's low byte) */
	struct task *exec_task;	    /* execve in progress: the thread that stays */
	bool zombie;		    /* every thread has exited; wait4 may reap it */
	bool group_exiting;	    /* exit_group or a fatal signal: every thread is leaving */
	int exit_status;	    /* wait status: code << 8, or the killing signal */
	struct wait_queue child_wq; /* wait4 sleeps here; a child's exit wakes it */

	/* Resources: NULL once released at exit; vm changes under proc_lock (the OOM killer reads it). */
	struct vm *vm;
	struct files *files;
	struct fs_struct *fs; /* the working directory (fs/cwd.h) */

	/* Signals (p->lock). */
	struct k_sigaction action[NSIG];
	sigset_t shared_pending; /* sent to the process: any thread not blocking it takes it */

	/* Accounting: exited threads' and reaped children's (theirs and their children's). */
	struct cpu_totals dead_threads;
	struct cpu_totals reaped;
	u64 max_rss_pages, children_max_rss_pages;
	u64 start_ns;

	u64 nproc_cur, nproc_max; /* RLIMIT_NPROC (proc_lock) */
	bool oom_victim;	  /* the OOM killer sent it SIGKILL (proc_lock) */
	u64 oom_kill_ns;	  /* when */
	bool mem_released;	  /* its address space is put back (exit.c) */

	/* What /proc and prctl report (proc_pid.c, sys_prctl.c); fork copies them. */
	const char *exe;	      /* the program execve ran, symlinks resolved (interned) */
	uintptr_t arg_start, arg_end; /* its argv strings on the user stack */
	int pdeath_signal;	      /* PR_SET_PDEATHSIG: sent when the parent dies (0: none) */
	struct process *pdeath_next;  /* exit.c's chain of orphans to signal (proc_lock) */
	bool no_new_privs;	      /* PR_SET_NO_NEW_PRIVS: sticky, kept across fork and execve */
	u64 timer_slack_ns;	      /* PR_SET_TIMERSLACK (Linux's default 50 us) */
	u32 nr_groups;		      /* setgroups: supplementary groups */
	u32 groups[PROC_NGROUPS];
	/* setitimer(ITIMER_REAL) and alarm (proc/itimer.c). */
	struct hrtimer itimer_real;
	u64 itimer_interval_ns;
	/* timer_create's timers (time/posix_timers.c), under its lock. */
	struct list_head posix_timers;
	int posix_timer_next_id;
};

extern struct spinlock proc_lock;

/* The process of the calling thread, or NULL for a kernel thread. */
struct process *current_process(void);

/* Counted lookups by pid / tid; NULL if there is none (or it is a kernel thread). */
struct process *process_find(int pid);
struct task *thread_find(int tid);
/* The process that has a thread tid, counted (process_put); NULL if none. */
struct process *thread_find_process(int tid);
void process_get(struct process *p);
void process_put(struct process *p);

/* Opens the console as descriptors 0, 1 and 2 of files (empty). 0 or -errno. */
int proc_console_fds(struct files *files);

/*
 * Makes the calling kernel thread a process of its own (no parent, so no
 * zombie; console descriptors; mm as its page tables) that may then enter
 * ring 3 with arch_return_to_user: for the arch layer's self-test, which
 * runs hand-made code without ELF. 0 or -ENOMEM.
 */
int proc_adopt_kernel_thread(struct arch_mm *mm);

/* Live user processes and threads, for limits and for the teardown tests. */
u32 process_count(void);
u32 thread_count(void);

/* ---------------------------------------------------------------- signals (signal.c) */

/*
 * Queues sig for process p (any thread not blocking it takes it) or for
 * one thread; wakes a thread that sleeps interruptibly so it can act on
 * it. 0, or -EINVAL for a bad signal. sig 0 only checks.
 */
int signal_send_process(struct process *p, int sig);
int signal_send_thread(struct task *t, int sig);

/*
 * The kernel ends thread t (exit_group, execve ending the other threads):
 * SIGKILL pending and t woken, with none of a send's rules, so init's
 * threads end too. t must be linked in its process (proc_lock held).
 */
void signal_kill_thread(struct task *t);

/* Is a signal pending that t does not block (or SIGKILL)? */
bool signal_pending(struct task *t);

/*
 * Is a signal pending that will end t's process when delivered: SIGKILL,
 * or one t does not block whose action is the default and the default
 * terminates (Linux turns those into a group kill at once)? For the
 * killable waits (vfork, execve ending the other threads).
 */
bool signal_fatal_pending(struct task *t);

/*
 * From exit_to_user: acts on the pending signals of the calling thread:
 * default actions (terminate, ignore), or a handler frame built on the
 * user stack (regs rewritten to enter it). A system call that returned
 * -ERESTARTSYS is restarted or fails with -EINTR as the handler's
 * SA_RESTART says.
 */
void signal_deliver(struct user_regs *regs);

/* execve: handlers back to SIG_DFL (ignored ones stay ignored); the mask is kept. */
void signal_reset_for_exec(struct process *p);

/* ---------------------------------------------------------------- life (exit.c) */

/* Ends the calling thread; the last one out makes the process a zombie. code: a wait status. */
__attribute__((noreturn)) void thread_exit(int status);

/* Ends every thread of the calling process with this wait status. */
__attribute__((noreturn)) void process_group_exit(int status);

#endif
