/* The out-of-memory killer (oom.c): what a user fault does when no page can be had. */
#ifndef FULCRUM_PROC_OOM_H
#define FULCRUM_PROC_OOM_H

#include "lib/types.h"

/*
 * Picks the process with the most resident and page-table pages (init
 * only if there is no other), sends it SIGKILL and prints Linux's "Out of
 * memory: Killed process ..." line; does nothing while an earlier victim
 * is still giving its memory back, or while another CPU is picking.
 * Process context, no locks held.
 */
void oom_kill(void);

/* oom_kill(), then a short interruptible sleep; the caller retries its access after. */
void oom_wait_and_retry(void);

/* Processes killed so far. */
u64 oom_kill_count(void);

#endif
