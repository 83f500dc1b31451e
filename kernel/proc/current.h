/*
 * The calling process, as fs/, ipc/, mm/ and the arch layer reach it: its
 * descriptor table, its address space, its signals. Only declarations:
 * kernel/proc defines them, and the host unit tests provide fakes.
 */
#ifndef FULCRUM_PROC_CURRENT_H
#define FULCRUM_PROC_CURRENT_H

#include "lib/types.h"

struct files;
struct fs_struct;
struct vm;

/* The caller's descriptor table. */
struct files *current_files(void);

/* The caller's working directory (fs/cwd.h); NULL (a kernel thread): relative paths start at "/". */
struct fs_struct *current_fs(void);

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
 * ppoll and pselect6: the caller's signal mask is mask (SIGKILL and
 * SIGSTOP stay unblocked) from begin to end. interrupted: the call returns
 * -ERESTARTNOHAND, and the old mask comes back only after signal delivery,
 * so a handler runs under the call's mask and its frame restores the old
 * one (Linux's restore_saved_sigmask_unless).
 */
void current_sigmask_begin(u64 mask);
void current_sigmask_end(bool interrupted);

/*
 * kernel/mm/vm.c: makes the page at addr in vm (demand-zero, stack
 * growth, copy-on-write); 0 if the access may now be retried, a negative
 * errno if it is a bad access. Weak until vm.c exists: callers check its
 * address first.
 */
int vm_fault(struct vm *vm, uintptr_t addr, bool write) __attribute__((weak));

/*
 * kernel/proc/user_fault.c: vm_fault for a kernel copy to or from the
 * caller's memory. When no page can be had it calls the OOM killer and
 * naps, as a user fault does, and returns 0 so the copy tries again,
 * unless the caller has a fatal signal coming (the victim itself, say):
 * then -ENOMEM, and the copy fails. Weak like vm_fault.
 */
int vm_fault_for_copy(struct vm *vm, uintptr_t addr, bool write) __attribute__((weak));

#endif
