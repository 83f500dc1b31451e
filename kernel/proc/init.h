/* Starting user space (init.c). */
#ifndef FULCRUM_PROC_INIT_H
#define FULCRUM_PROC_INIT_H

#include "lib/types.h"

/*
 * Starts pid 1 running /init from the initrd, unless `noinit` or there is
 * no /init; returns whether it did. From then on the run ends when init
 * powers off (reboot) or dies.
 */
bool proc_start_init(void);

#endif
