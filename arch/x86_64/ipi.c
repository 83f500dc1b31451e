/*
 * Inter-processor interrupts: reschedule requests, running a function on
 * another CPU, and stopping every other CPU with an NMI when one panics.
 *
 * A call request sits in a one-entry mailbox per target CPU. The caller
 * holds the mailbox lock until the target has taken the request, and
 * while it spins it serves its own mailbox, so two CPUs calling each
 * other with interrupts off cannot deadlock.
 */
#include <arch/cpu.h>
#include <arch/smp.h>

#include "apic.h"
#include "cpu_local.h"
#include "irq.h"
#include "lib/errno.h"
#include "lib/spinlock.h"
#include "smp_boot.h"
#include "trap.h"
#include "tsc.h"

#define STOP_WAIT_US 1000000

struct mailbox {
	struct spinlock lock;
	void (*volatile fn)(void *arg);
	void *volatile arg;
	volatile u64 taken, done; /* sequence numbers */
	u64 posted;
};

static struct mailbox mailboxes[MAX_CPUS];

static void serve_mailbox(unsigned int cpu)
{
	struct mailbox *mb = &mailboxes[cpu];
	void (*fn)(void *);
	void *arg;

	if (__atomic_load_n(&mb->taken, __ATOMIC_ACQUIRE) ==
	    __atomic_load_n(&mb->posted, __ATOMIC_ACQUIRE))
		return;
	fn = mb->fn;
	arg = mb->arg;
	__atomic_add_fetch(&mb->taken, 1, __ATOMIC_RELEASE);
	fn(arg);
	__atomic_add_fetch(&mb->done, 1, __ATOMIC_RELEASE);
}

static void call_function_interrupt(struct trap_frame *f)
{
	serve_mailbox(this_cpu_local()->cpu);
}

static void reschedule_interrupt(struct trap_frame *f)
{
	/* The scheduler checks need_resched on the way out of interrupts (later). */
}

int arch_call_on_cpu(unsigned int cpu, void (*fn)(void *arg), void *arg, bool wait)
{
	unsigned int self = arch_cpu_id();
	struct mailbox *mb;
	u64 seq;

	if (cpu >= MAX_CPUS || !arch_cpu_online(cpu))
		return -ENODEV;
	if (cpu == self) {
		unsigned long flags = arch_irq_save();

		fn(arg);
		arch_irq_restore(flags);
		return 0;
	}
	mb = &mailboxes[cpu];
	while (!spin_trylock(&mb->lock))
		serve_mailbox(self);
	mb->fn = fn;
	mb->arg = arg;
	seq = __atomic_add_fetch(&mb->posted, 1, __ATOMIC_RELEASE);
	apic_send_ipi(cpu_locals[cpu]->apic_id, ICR_FIXED | VECTOR_CALL_FUNCTION);
	while (__atomic_load_n(&mb->taken, __ATOMIC_ACQUIRE) < seq)
		serve_mailbox(self);
	spin_unlock(&mb->lock);
	while (wait && __atomic_load_n(&mb->done, __ATOMIC_ACQUIRE) < seq)
		serve_mailbox(self);
	return 0;
}

void arch_send_reschedule(unsigned int cpu)
{
	if (cpu < MAX_CPUS && cpu != arch_cpu_id() && arch_cpu_online(cpu))
		apic_send_ipi(cpu_locals[cpu]->apic_id, ICR_FIXED | VECTOR_RESCHEDULE);
}

unsigned int arch_stop_other_cpus(void)
{
	unsigned int others = 0;
	u64 waited = 0;

	for (unsigned int cpu = 0; cpu < MAX_CPUS; cpu++)
		if (cpu != arch_cpu_id() && arch_cpu_online(cpu))
			others++;
	if (!others)
		return 0;
	apic_send_ipi(0, ICR_NMI | ICR_ALL_BUT_SELF);
	while (nmi_stopped_cpus() < others && waited < STOP_WAIT_US) {
		tsc_delay_us(100);
		waited += 100;
	}
	return nmi_stopped_cpus();
}

void ipi_init(void)
{
	irq_set_handler(VECTOR_CALL_FUNCTION, call_function_interrupt);
	irq_set_handler(VECTOR_RESCHEDULE, reschedule_interrupt);
}
