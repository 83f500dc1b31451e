/* Linux-style reports of fatal kernel faults. */
#ifndef FULCRUM_X86_OOPS_H
#define FULCRUM_X86_OOPS_H

#include "lib/compiler.h"
#include "trap.h"

/* Reports the fault in f (cause, RIP, registers, call trace) and panics. */
__noreturn void oops(struct trap_frame *f);

#endif
