/* A process's real-time interval timer (setitimer ITIMER_REAL, alarm). */
#ifndef FULCRUM_PROC_ITIMER_H
#define FULCRUM_PROC_ITIMER_H

struct process;

/* A new process: no timer armed (fork does not inherit one). */
void itimer_init(struct process *p);

/* The last thread has exited: cancels the timer, waiting out a SIGALRM in flight. */
void itimer_exit(struct process *p);

#endif
