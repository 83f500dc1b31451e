/* kernel/proc's own: the pieces process.c, fork.c, exec.c and exit.c share. */
#ifndef FULCRUM_PROC_INTERNAL_H
#define FULCRUM_PROC_INTERNAL_H

#include <arch/user.h>

#include "proc/process.h"

#define SIGKILL 9
#define SIGCHLD 17

/*
 * Limits: fork and clone fail with -EAGAIN beyond them (a fork bomb meets
 * an error). Threads of every process together may number at most
 * proc_max_threads(), sized by memory as Linux's max_threads: RAM / (8 *
 * TASK_STACK_SIZE), so kernel stacks take at most an eighth of it (4,096
 * threads with 512 MiB; never fewer than 20). A process is at least one
 * thread, so that bounds processes too. RLIMIT_NPROC (each process's own,
 * inherited, proc_lock) bounds the same count further, as Linux counts
 * every task of the user and Fulcrum has one user; it starts at
 * proc_max_threads(). The check is made under proc_lock together with the
 * link that counts the new thread, so racing forks cannot overshoot.
 */
u32 proc_max_threads(void);

/* With proc_lock held: may parent (or one of its threads) add a thread now? */
bool proc_may_add_thread_locked(const struct process *parent);

/* A process with one reference (the tree's), no resources, not linked. */
struct process *process_alloc(void);

/* With proc_lock held: link p under parent with its first thread t; add/remove threads; unlink p. */
void process_link_locked(struct process *p, struct process *parent, struct task *t);
void thread_link_locked(struct process *p, struct task *t);
void thread_unlink_locked(struct process *p, struct task *t);
void process_unlink_locked(struct process *p);

/* Calls fn on every process, proc_lock held (taken; or, _locked, already held by the caller). */
void process_for_each(void (*fn)(struct process *p, void *arg), void *arg);
void process_for_each_locked(void (*fn)(struct process *p, void *arg), void *arg);

/*
 * How a new user thread starts: its registers (rax = 0 for a fork child)
 * and FS base. fork.c and init.c hand one to user_thread_start(), the
 * task's first function, which frees it and enters ring 3.
 */
struct user_start {
	struct user_regs regs;
	u64 fs_base;
};
void user_thread_start(void *arg);

/*
 * execve's work, for the system call and for starting init: loads path
 * with argv/envp (kernel copies, NULL-terminated) into a new address space
 * of the calling process and points regs at its entry. 0 or -errno; on
 * error the caller's image is untouched.
 */
int exec_kernel(const char *path, char *const argv[], char *const envp[], struct user_regs *regs);

/*
 * The one copy of an executable's path (proc_pid.c): never freed, so a
 * process's exe and /proc/<pid>/exe may point at it. NULL when out of
 * memory (the process then has no exe link).
 */
const char *proc_exe_intern(const char *path);

/*
 * A vfork caller's wait (fork.c), on the caller's own stack: the child
 * task points at it (task->vfork_done) until it execs or exits, and then
 * vfork_release marks it done and wakes the caller. Neither side ever
 * sleeps inside the other's memory, so the child's process may be freed
 * (a parent that reaps nothing, a second thread's wait4) while the
 * caller wakes, and a CLONE_THREAD child releases its caller at its own
 * exit, not its process's.
 */
struct vfork_wait {
	struct wait_queue wq;
	bool done; /* proc_lock */
};

/*
 * The calling thread is done with its vfork parent's memory (execve's
 * point of no return, or thread_exit): its parent goes on. Any thread may
 * call it; for one that is no vfork child it does nothing.
 */
void vfork_release(struct task *t);

/* The init process (pid 1), once started; NULL before. */
extern struct process *init_process;

#endif
