/*
 * Signals beyond process.h's core calls: sending with a siginfo, faults
 * from ring 3, the SIGCHLD a parent gets, and the per-thread state
 * (queued siginfo, the alternate stack) that lives beside struct task.
 *
 * Locking: p->lock guards p->action, p->shared_pending and its threads'
 * sig_pending and sig_blocked; a thread changes its own sig_blocked only
 * under it too. Queued siginfo and alternate stacks are in a table of
 * signal.c's under its own lock, taken inside p->lock.
 */
#ifndef FULCRUM_PROC_SIGNAL_H
#define FULCRUM_PROC_SIGNAL_H

#include "proc/process.h"
#include "proc/siginfo.h"

struct user_regs;

/*
 * Queues info->si_signo with its siginfo for process p (the thread that
 * takes it: the caller if it is one of p's and does not block it, else
 * the first that does not) or for thread t. A signal already pending is
 * not queued twice (real-time signals included: they do not queue here);
 * one the target ignores (and does not block) is dropped, and so is one
 * init has no handler for (SIGKILL too). SIGKILL to a process goes to
 * every thread. The target is woken from any sleep.
 * 0, or -EINVAL for a bad signal number; 0 does nothing.
 * signal_send_process_info takes proc_lock (call it without);
 * signal_send_thread_info takes only p->lock (fine under proc_lock).
 */
int signal_send_process_info(struct process *p, const struct k_siginfo *info);
int signal_send_thread_info(struct task *t, const struct k_siginfo *info);

/* A siginfo from the calling process: SI_USER (kill) or SI_TKILL (tgkill), with its pid. */
void siginfo_from_caller(struct k_siginfo *info, int sig, int code);

/*
 * exit.c, when child has become a zombie: sends child->exit_signal to
 * parent with SIGCHLD's siginfo (si_pid, CLD_EXITED or CLD_KILLED,
 * si_status, si_utime from the child's CPU time).
 */
void signal_child_exited(struct process *parent, struct process *child);

/*
 * user_fault: the calling thread raised sig (SIGSEGV, SIGILL, ...) with
 * si_code code and si_addr addr. Like Linux's force_sig, a fault that is
 * blocked or ignored is not: the action becomes SIG_DFL and the signal is
 * unblocked. Delivered by exit_to_user. Returns true if it will end the
 * process (no handler), so the caller reports it.
 */
bool signal_force_fault(int sig, int code, u64 addr);

/*
 * Per-thread signal state besides struct task's sets:
 * fork/clone calls signal_fork_thread for the new thread (the alternate
 * stack is inherited, except by a CLONE_VM thread that is not a vfork
 * child); the task's final free calls signal_free_thread, and the
 * process's final free signal_free_process (their queued siginfo).
 */
void signal_fork_thread(struct task *child, bool shares_vm);
void signal_free_thread(struct task *t);
void signal_free_process(struct process *p);

/* Queued siginfo and alternate stacks held, for the teardown checks. */
u32 signal_extra_count(void);

/* ---------------------------------------------------------------- signal*.c only */

struct arch_sigstack;

/* t's alternate stack (size 0: none); setting one may fail with -ENOMEM. */
void signal_get_altstack(struct task *t, struct arch_sigstack *ss);
int signal_set_altstack(struct task *t, const struct arch_sigstack *ss);

/*
 * The calling thread's mask becomes blocked (SIGKILL and SIGSTOP already
 * out); process-directed signals it now blocks are handed to a thread
 * that does not.
 */
void signal_set_blocked(u64 blocked);

/*
 * Acts on the calling thread's pending signals until one gets a handler
 * frame (true) or none is left (false); fatal ones do not return. The
 * frame's saved mask is *saved_mask if given (rt_sigsuspend's), else the
 * thread's mask.
 */
bool signal_deliver_one(struct user_regs *regs, const u64 *saved_mask);

/*
 * Takes the lowest pending signal of the caller in set (its own first,
 * then its process's), blocked or not, with its siginfo: the signal, or
 * 0 if none is pending. For sigtimedwait.
 */
int signal_dequeue(u64 set, struct k_siginfo *info);

#endif
