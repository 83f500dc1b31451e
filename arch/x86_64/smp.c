/*
 * Bringing up the application processors. For each CPU the machine
 * description lists after the boot CPU: allocate its stacks and per-CPU
 * state, give them to its trampoline slot, send INIT, wait 10 ms, send two
 * STARTUP IPIs 200 us apart (the MP specification's sequence) and wait
 * for the AP to say it is online. One AP starts at a time.
 *
 * An AP may start late: after the boot CPU stopped waiting for it, even
 * while the next AP is starting (the INIT sent when the wait ends does not
 * stop an AP already running the trampoline). So nothing an AP reads on
 * its way in belongs to another CPU. Each CPU has a slot in the trampoline
 * page (its APIC ID and a state) and an entry in ap_boot[] (its stack and
 * struct cpu_local); the AP finds its slot by the APIC ID CPUID gives it
 * and moves it on with compare-and-exchange, OPEN -> CLAIMED in real mode,
 * CLAIMED -> STARTED in long mode just before ap_start(). When the wait
 * ends the boot CPU tries to move the slot to CLOSED from OPEN or CLAIMED;
 * if it can, the AP is left out and, should it start now, parks itself for
 * good (interrupts off, halted) without touching a byte of per-CPU data.
 * If it cannot, the AP is already STARTED, on its own stacks, and is
 * waited for until it is online. trampoline.asm has the AP's side.
 */
#include <arch/cpu.h>
#include <arch/memory.h>
#include <arch/smp.h>
#include <arch/time.h>

#include "apic.h"
#include "cmdline.h"
#include "cpu_local.h"
#include "gdt.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/page_alloc.h"
#include "mmu.h"
#include "panic.h"
#include "pat.h"
#include "printk.h"
#include "smp_boot.h"
#include "timer.h"
#include "trap.h"
#include "tsc.h"
#include "x86.h"

#define TRAMPOLINE_BASE 0x8000 /* must match trampoline.asm */
#define STACK_ORDER	2      /* 16 KiB = KERNEL_STACK_SIZE = IST_STACK_SIZE */
_Static_assert((PAGE_SIZE << STACK_ORDER) == KERNEL_STACK_SIZE, "stack size");
_Static_assert((PAGE_SIZE << STACK_ORDER) == IST_STACK_SIZE, "IST stack size");

extern const u8 trampoline_start[], trampoline_end[];
extern u64 tr_cr3[], tr_efer[], tr_boot[], tr_entry[], tr_nr_slots[], tr_slots[];

/* Trampoline slot states (trampoline.asm's SLOT_*): 0 until the CPU's turn comes. */
enum slot_state { SLOT_WAITING, SLOT_OPEN, SLOT_CLAIMED, SLOT_STARTED, SLOT_CLOSED };

struct tr_slot {
	u32 apic_id;
	u32 state;
};

/* What a claimed AP loads in the trampoline (16 bytes each, trampoline.asm's layout). */
struct ap_boot {
	u64 stack;
	u64 arg;
};
_Static_assert(sizeof(struct ap_boot) == 16, "trampoline.asm indexes ap_boot by 16 bytes");
_Static_assert(sizeof(struct tr_slot) == 8, "trampoline.asm indexes tr_slots by 8 bytes");
_Static_assert(MAX_CPUS == 256, "trampoline.asm has MAX_SLOTS 256");

static struct ap_boot ap_boot[MAX_CPUS];

static s64 init_delay_us = 10000;
BOOT_OPTION_INT(smp_init_delay_us, "smp_init_delay_us", &init_delay_us, 0, 1000000,
		"wait after the INIT IPI before STARTUP (the MP spec's 10 ms)");
static s64 ap_timeout_ms = 2000;
BOOT_OPTION_INT(smp_timeout_ms, "smp_timeout_ms", &ap_timeout_ms, 1, 60000,
		"how long to wait for an AP to come online before leaving it out");

static volatile u32 online_mask[MAX_CPUS / 32];

bool arch_cpu_online(unsigned int cpu)
{
	return cpu < MAX_CPUS && (online_mask[cpu / 32] & (1U << (cpu % 32)));
}

static void mark_online(unsigned int cpu)
{
	__atomic_or_fetch(&online_mask[cpu / 32], 1U << (cpu % 32), __ATOMIC_RELEASE);
}

/* From CPUID, so it works before the local APIC is set up: leaf 0xB has the full x2APIC ID. */
u32 arch_boot_apic_id(void)
{
	if (cpuid(0, 0).eax >= 0xb && (cpuid(0xb, 0).ebx & 0xffff))
		return cpuid(0xb, 0).edx;
	return cpuid(1, 0).ebx >> 24;
}

/* The first C code on an AP, on its own stack, still on the trampoline's page tables. */
void ap_start(struct cpu_local *c)
{
	gdt_init_cpu(c); /* before CR3 changes: the trampoline's GDT is in low memory */
	cpu_local_install(c);
	pat_init_ap(); /* before the kernel's tables, whose framebuffer mapping uses it */
	write_cr3(paging_kernel_cr3());
	idt_load();
	apic_init_ap();
	c->apic_id = apic_id();
	timer_init_ap();
	mark_online(c->cpu);
	c->online = true;
	kernel_ap_idle();
}

static u8 *alloc_stack(void)
{
	return alloc_pages(STACK_ORDER);
}

static struct cpu_local *alloc_cpu_local(unsigned int cpu, u32 apic_id)
{
	struct cpu_local *c = kzalloc(sizeof(*c));

	if (!c)
		return NULL;
	c->cpu = cpu;
	c->apic_id = apic_id;
	c->kernel_stack = alloc_stack();
	for (int i = 0; i < IST_COUNT; i++)
		c->ist_stack[i] = alloc_stack();
	if (!c->kernel_stack || !c->ist_stack[0] || !c->ist_stack[1] || !c->ist_stack[2]) {
		free_pages(c->kernel_stack, STACK_ORDER);
		for (int i = 0; i < IST_COUNT; i++)
			free_pages(c->ist_stack[i], STACK_ORDER);
		kfree(c);
		return NULL;
	}
	return c;
}

/* Pointer to a trampoline data field in the copy at TRAMPOLINE_BASE. */
static u64 *tramp_field(u64 *field)
{
	return phys_to_virt(TRAMPOLINE_BASE + ((const u8 *)field - trampoline_start));
}

static struct tr_slot *tramp_slot(unsigned int cpu)
{
	return (struct tr_slot *)tramp_field(tr_slots) + cpu;
}

static bool slot_move(struct tr_slot *s, u32 from, u32 to)
{
	return __atomic_compare_exchange_n(&s->state, &from, to, false, __ATOMIC_SEQ_CST,
					   __ATOMIC_SEQ_CST);
}

/*
 * Starts c's CPU and waits for it. Returns true once it is online (late
 * ones included: an AP that got to STARTED before the wait ended is
 * waited for, and *late_us says how long after the deadline it came),
 * false if it was left out: its slot is CLOSED and it can never use it.
 */
static bool start_ap(struct cpu_local *c, u64 *late_us)
{
	struct tr_slot *slot = tramp_slot(c->cpu);
	u64 deadline;

	ap_boot[c->cpu] = (struct ap_boot){ (u64)c->kernel_stack + KERNEL_STACK_SIZE, (u64)c };
	__atomic_store_n(&slot->state, SLOT_OPEN, __ATOMIC_SEQ_CST); /* publishes ap_boot[] too */

	apic_send_ipi(c->apic_id, ICR_INIT | ICR_LEVEL_ASSERT);
	tsc_delay_us((u64)init_delay_us);
	for (int i = 0; i < 2 && READ_ONCE(slot->state) == SLOT_OPEN; i++) {
		apic_send_ipi(c->apic_id, ICR_STARTUP | (TRAMPOLINE_BASE >> 12));
		tsc_delay_us(200);
	}
	deadline = arch_clock_ns() + (u64)ap_timeout_ms * 1000000;
	while (!READ_ONCE(c->online) && arch_clock_ns() < deadline)
		arch_cpu_relax();
	*late_us = 0;
	if (READ_ONCE(c->online))
		return true;
	if (slot_move(slot, SLOT_OPEN, SLOT_CLOSED) || slot_move(slot, SLOT_CLAIMED, SLOT_CLOSED)) {
		/* Back to wait-for-SIPI if the INIT still can; else it parks in the trampoline. */
		apic_send_ipi(c->apic_id, ICR_INIT | ICR_LEVEL_ASSERT);
		return false;
	}
	/* STARTED: on its own stacks in ap_start(), a few steps from online. */
	while (!READ_ONCE(c->online))
		arch_cpu_relax();
	*late_us = (arch_clock_ns() - deadline) / 1000;
	return true;
}

void arch_smp_init_boot(void)
{
	struct cpu_local *c = this_cpu_local();

	apic_init_boot();
	c->apic_id = apic_id();
	ipi_init();
	timer_init_boot();
	mark_online(0);
	c->online = true;
	arch_irq_enable();
}

unsigned int arch_smp_boot(const struct machine *m)
{
	unsigned int online = 1;
	u64 first_sipi = 0, last_online = 0, late_us;

	if (m->nr_cpus <= 1)
		return 1;
	memcpy(phys_to_virt(TRAMPOLINE_BASE), trampoline_start,
	       (size_t)(trampoline_end - trampoline_start));
	*tramp_field(tr_cr3) = paging_trampoline_cr3(TRAMPOLINE_BASE);
	*tramp_field(tr_efer) = rdmsr(MSR_EFER) & ((1UL << 8) | (1UL << 11)); /* LME, NXE */
	*tramp_field(tr_entry) = (u64)ap_start;
	*tramp_field(tr_boot) = (u64)ap_boot;
	/* Every slot WAITING (the copy made them 0): an AP that starts before its turn parks. */
	for (unsigned int cpu = 0; cpu < m->nr_cpus; cpu++)
		tramp_slot(cpu)->apic_id = m->cpu[cpu].apic_id;
	*(u32 *)tramp_field(tr_nr_slots) = m->nr_cpus;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	pr_info("smp: booting %u CPUs\n", m->nr_cpus - 1);
	for (unsigned int cpu = 1; cpu < m->nr_cpus; cpu++) {
		struct cpu_local *c = alloc_cpu_local(cpu, m->cpu[cpu].apic_id);

		if (!c) {
			pr_err("smp: no memory for CPU%u; it stays off\n", cpu);
			continue;
		}
		if (!first_sipi)
			first_sipi = arch_clock_ns();
		if (!start_ap(c, &late_us)) {
			pr_err("smp: CPU%u (APIC ID %#x) did not answer within %lld ms; left out (it parks if it starts later)\n",
			       cpu, m->cpu[cpu].apic_id, (long long)ap_timeout_ms);
			continue; /* its memory stays: the CPU may have loaded its stack address */
		}
		if (late_us)
			pr_warn("smp: CPU%u came online %llu us after its %lld ms were up; kept\n",
				cpu, (unsigned long long)late_us, (long long)ap_timeout_ms);
		if (c->apic_id != m->cpu[cpu].apic_id)
			pr_warn("smp: CPU%u reports APIC ID %#x, firmware said %#x\n", cpu,
				c->apic_id, m->cpu[cpu].apic_id);
		last_online = arch_clock_ns();
		online++;
	}
	pr_info("smp: brought up %u CPUs, %u online; first SIPI to last AP online: %llu us\n",
		m->nr_cpus, online,
		(unsigned long long)(online > 1 ? (last_online - first_sipi) / 1000 : 0));
	if (online < m->nr_cpus)
		pr_warn("smp: %u of %u CPUs left out; running on %u\n", m->nr_cpus - online,
			m->nr_cpus, online);
	return online;
}
