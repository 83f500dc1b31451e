/*
 * syscall_dispatch: from the arch entry (interrupts on) to the function
 * for a Linux x86-64 system-call number. Each file registers its calls
 * (SYSCALL_DEFINEn in syscall.h); syscall_init() builds the table from
 * those registrations. Unknown numbers return -ENOSYS and are counted per
 * number, the first call of each reported once, so a program's missing
 * calls show up in the boot log.
 */
#include "proc/syscall.h"

#include <arch/user.h>

#include "lib/errno.h"
#include "panic.h"
#include "printk.h"
#include "sched/task.h"

extern const struct syscall_entry __start_syscalls[], __stop_syscalls[];

static const struct syscall_entry *syscall_table[NR_SYSCALLS];
static u64 unknown_calls[NR_SYSCALLS + 1]; /* the last slot: numbers outside the table */

void syscall_init(void)
{
	u32 n = 0;

	for (const struct syscall_entry *e = __start_syscalls; e < __stop_syscalls; e++) {
		if (e->nr < 0 || e->nr >= NR_SYSCALLS)
			panic("syscall: %s registered with number %ld, outside the table", e->name,
			      e->nr);
		if (syscall_table[e->nr])
			panic("syscall: %ld registered twice (%s, %s)", e->nr,
			      syscall_table[e->nr]->name, e->name);
		syscall_table[e->nr] = e;
		n++;
	}
	pr_info("syscall: %u system calls\n", n);
}

const char *syscall_name(long nr)
{
	return nr >= 0 && nr < NR_SYSCALLS && syscall_table[nr] ? syscall_table[nr]->name : NULL;
}

static size_t unknown_slot(long nr)
{
	return nr >= 0 && nr < NR_SYSCALLS ? (size_t)nr : NR_SYSCALLS;
}

long syscall_dispatch(struct user_regs *regs)
{
	long nr = user_regs_syscall_nr(regs);
	struct task *t;

	if (nr >= 0 && nr < NR_SYSCALLS && syscall_table[nr])
		return syscall_table[nr]->fn(regs);
	if (__atomic_fetch_add(&unknown_calls[unknown_slot(nr)], 1, __ATOMIC_RELAXED) == 0) {
		t = current_task();
		pr_info("syscall: %ld is not implemented (pid %d, %s): -ENOSYS\n", nr, t->pid,
			t->comm);
	}
	return -ENOSYS;
}

u64 syscall_unknown_count(long nr)
{
	return __atomic_load_n(&unknown_calls[unknown_slot(nr)], __ATOMIC_RELAXED);
}
