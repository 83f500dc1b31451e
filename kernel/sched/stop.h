/*
 * The per-CPU stopper (stop.c): one kernel thread per CPU in the "stop"
 * class, above fair, that runs queued functions on its CPU ahead of
 * everything else. The balancer uses it to push a running task away
 * (active balancing); set_cpus_allowed uses it to move a running task.
 */
#ifndef FULCRUM_SCHED_STOP_H
#define FULCRUM_SCHED_STOP_H

#include "sched/sched.h"

extern const struct sched_class stop_sched_class;

/* Pending functions per stopper; stop_one_cpu() says -EBUSY beyond that. */
#define STOP_WORK_SLOTS 8

/*
 * Creates the stopper thread ("migration/N") of every CPU with a runqueue.
 * After sched_init() and SMP bring-up, once. 0 or -ENOMEM.
 */
int stop_machine_init(void);

/*
 * Queues fn(arg) for cpu's stopper and wakes it; the stopper preempts
 * whatever runs on cpu and calls fn in thread context, interrupts on.
 * Does not wait (Linux's stop_one_cpu_nowait), so any context may call it
 * with no rq lock held, the tick included. arg must stay valid until fn
 * has run. 0, -ENODEV (no stopper on cpu yet), -EBUSY (queue full).
 */
int stop_one_cpu(u32 cpu, void (*fn)(void *arg), void *arg);

/*
 * Moves p to dest_cpu (online, in p's cpus_allowed; otherwise -EINVAL). A
 * queued task moves at once; a running one is preempted by its CPU's
 * stopper, which moves it, and the caller waits for that; a sleeping one
 * is left to its next wake-up, whose placement honours cpus_allowed.
 * Process context, interrupts on, no lock held; p must stay alive. 0, or
 * -EINVAL, -ENODEV, -EBUSY as stop_one_cpu, -EAGAIN if p kept moving.
 */
int migrate_running_task(struct task *p, u32 dest_cpu);

/* cpu's stopper thread, or NULL before stop_machine_init(). */
struct task *cpu_stopper_task(u32 cpu);

/*
 * Runs cpu's pending functions in order, in the caller's context: the body
 * of the stopper thread's loop, exposed so host tests (which have no real
 * context switch) can play the stopper. Returns how many ran.
 */
u32 stop_cpu_run_work(u32 cpu);

/*
 * Host tests only: called with the stopper's CPU while migrate_running_task()
 * waits for it, instead of spinning (NULL in the kernel).
 */
extern void (*stop_wait_hook)(u32 cpu);

#endif
