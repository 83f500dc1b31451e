/*
 * The calling process, as fs/, ipc/, mm/ and the arch layer reach it: its
 * descriptor table, its address space, its signals. Only declarations:
 * kernel/proc defines them, and the host unit tests provide fakes.
 */
#ifndef FULCRUM_PROC_CURRENT_H
#define FULCRUM_PROC_CURRENT_H

#include "lib/types.h"

struct files;
struct vm;

/* The caller's descriptor table. */
struct files *current_files(void);

/*
 * The caller's address space; NULL for a kernel thread. Weak until
 * kernel/proc defines it: the page-fault path calls it only if it exists.
 */
struct vm *current_vm(void) __attribute__((weak));

/* Blocking calls return -EINTR (or restart) when this is true. */
bool current_signal_pending(void);

/* Sends sig to the caller (e.g. SIGPIPE on a write to a widowed pipe). */
void current_send_signal(int sig);

/*
 * kernel/mm/vm.c: makes the page at addr in vm (demand-zero, stack
 * growth, copy-on-write); 0 if the access may now be retried, a negative
 * errno if it is a bad access. Weak until vm.c exists: callers check its
 * address first.
 */
int vm_fault(struct vm *vm, uintptr_t addr, bool write) __attribute__((weak));

#endif
