/*
 * Where the arch layer hands a process's exceptions and its returns to
 * ring 3. user_fault lets vm_fault make a missing page; when there is no
 * page to be had it calls the OOM killer (oom.c), naps and lets the access
 * be tried again; otherwise it raises the fault's signal on the thread
 * (reported in one line when it will kill the process). A kernel copy to
 * or from user memory that meets a missing page does the same through
 * vm_fault_for_copy, so read() into an untouched buffer waits for the
 * OOM killer too instead of failing with EFAULT. exit_to_user
 * gives up the CPU when a reschedule is due and then acts on pending
 * signals, a fault's included.
 */
#include <arch/cpu.h>
#include <arch/signal_frame.h>
#include <arch/user.h>

#include "lib/errno.h"
#include "printk.h"
#include "proc/current.h"
#include "proc/oom.h"
#include "proc/signal.h"
#include "sched/sched.h"

void user_fault(struct user_regs *regs, int vector, u64 error_code, u64 fault_addr)
{
	struct task *t = current_task();
	int sig = arch_user_fault_signal(vector), code, err = -EFAULT;
	bool write;
	u64 addr;

	if (arch_user_fault_is_page(vector, error_code, &write) && vm_fault && current_vm) {
		struct vm *vm = current_vm();

		err = vm ? vm_fault(vm, fault_addr, write) : -EFAULT;
		if (err == 0)
			return; /* the page is there now: retry the instruction */
		if (err == -ENOMEM && t->proc) {
			/* The OOM killer frees memory (maybe by killing us); then try again. */
			oom_wait_and_retry();
			return;
		}
	}
	code = arch_user_fault_code(vector, error_code, fault_addr, user_regs_ip(regs), &addr);
	if (t->proc && err != -ENOMEM && !signal_force_fault(sig, code, addr))
		return; /* its handler runs (exit_to_user builds the frame) */
	pr_info("user fault: pid %d (%s) %s rip=%#llx addr=%#llx%s\n", t->pid, t->comm,
		arch_user_fault_cause(vector, error_code), (unsigned long long)user_regs_ip(regs),
		(unsigned long long)fault_addr, err == -ENOMEM ? ": out of memory" : "");
	if (!t->proc)
		task_exit(sig); /* a kernel thread's ring-3 test: its exit code is the signal */
	if (err == -ENOMEM)
		process_group_exit(SIGKILL); /* no page to give: a handler would only fault again */
	/* Otherwise the default action kills it as exit_to_user delivers the signal. */
}

int vm_fault_for_copy(struct vm *vm, uintptr_t addr, bool write)
{
	struct task *t = current_task();
	int err = vm_fault(vm, addr, write);

	/* Without a process, or where it may not sleep, there is no killer to wait for. */
	if (err != -ENOMEM || !t->proc || t->preempt_count || signal_fatal_pending(t))
		return err;
	oom_wait_and_retry();
	return 0;
}

void exit_to_user(struct user_regs *regs)
{
	unsigned long flags = arch_irq_save();
	bool resched = this_rq()->need_resched;

	arch_irq_restore(flags);
	if (resched)
		schedule();
	signal_deliver(regs);
}
