/*
 * Local APIC driver. x2APIC mode (registers as MSRs, 32-bit IDs) is used
 * whenever CPUID offers it; otherwise xAPIC mode through an uncached
 * mapping of the register page. Firmware of machines with APIC IDs above
 * 255 leaves the CPUs in x2APIC mode, perhaps locked there: that mode is
 * then kept whatever nox2apic says (leaving it would need the APIC off).
 * The legacy 8259 PICs are remapped away from the exception vectors and
 * masked: all interrupts come via APICs.
 */
#include "apic.h"

#include <arch/memory.h>

#include "cmdline.h"
#include "mmu.h"
#include "panic.h"
#include "printk.h"
#include "x86.h"

#define MSR_APIC_BASE		     0x1b
#define APIC_BASE_EXTD		     (1UL << 10) /* x2APIC mode */
#define APIC_BASE_EN		     (1UL << 11)
#define APIC_BASE_ADDR		     0xfffff000UL
#define X2APIC_MSR(reg)		     (0x800 + ((reg) >> 4))
#define MSR_X2APIC_ICR		     0x830
#define MSR_ARCH_CAPABILITIES	     0x10a
#define ARCH_CAP_XAPIC_DISABLE	     (1UL << 21) /* MSR_XAPIC_DISABLE_STATUS exists */
#define MSR_XAPIC_DISABLE_STATUS     0xbd
#define XAPIC_LEGACY_DISABLED	     (1UL << 0) /* x2APIC locked on */
#define CPUID7_EDX_ARCH_CAPABILITIES (1U << 29)
#define SVR_ENABLE		     0x100
#define LVT_MASKED		     0x10000
#define LVT_NMI			     0x400
#define ICR_BUSY		     0x1000
#define SPIN_LIMIT		     1000000

static bool nox2apic;
BOOT_OPTION_BOOL(nox2apic, "nox2apic", &nox2apic,
		 "use the xAPIC (MMIO) interface even if x2APIC exists");

static bool x2apic;
static volatile u32 *xapic_regs;

bool apic_x2apic_mode(void)
{
	return x2apic;
}

u32 apic_read(enum apic_reg reg)
{
	if (x2apic)
		return (u32)rdmsr(X2APIC_MSR(reg));
	return xapic_regs[reg / 4];
}

void apic_write(enum apic_reg reg, u32 value)
{
	if (x2apic)
		wrmsr(X2APIC_MSR(reg), value);
	else
		xapic_regs[reg / 4] = value;
}

u32 apic_id(void)
{
	return x2apic ? apic_read(APIC_ID) : apic_read(APIC_ID) >> 24;
}

void apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

void apic_send_ipi(u32 dest, u32 icr)
{
	if (x2apic) {
		wrmsr(MSR_X2APIC_ICR, ((u64)dest << 32) | icr);
		return;
	}
	for (int i = 0; i < SPIN_LIMIT && (apic_read(APIC_ICR) & ICR_BUSY); i++)
		__asm__ volatile("pause");
	apic_write(APIC_ICR_HIGH, dest << 24);
	apic_write(APIC_ICR, icr);
}

static void pic_disable(void)
{
	/* ICW1-4: remap master to 0x20 and slave to 0x28, then mask every line. */
	outb(0x20, 0x11);
	outb(0xa0, 0x11);
	outb(0x21, 0x20);
	outb(0xa1, 0x28);
	outb(0x21, 0x04);
	outb(0xa1, 0x02);
	outb(0x21, 0x01);
	outb(0xa1, 0x01);
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
}

static void apic_enable_this_cpu(void)
{
	u64 base = rdmsr(MSR_APIC_BASE) | APIC_BASE_EN;

	if (x2apic)
		base |= APIC_BASE_EXTD;
	wrmsr(MSR_APIC_BASE, base);
	apic_write(APIC_TPR, 0);
	apic_write(APIC_LVT_LINT0, LVT_MASKED);
	apic_write(APIC_LVT_LINT1, LVT_NMI); /* LINT1 carries NMIs on PCs */
	apic_write(APIC_LVT_ERROR, VECTOR_APIC_ERROR);
	apic_write(APIC_ESR, 0);
	apic_write(APIC_SVR, SVR_ENABLE | VECTOR_SPURIOUS);
	apic_eoi();
}

/* Whether the firmware locked x2APIC mode on (IA32_XAPIC_DISABLE_STATUS, where it exists). */
static bool x2apic_locked(void)
{
	if (cpuid(0, 0).eax < 7 || !(cpuid(7, 0).edx & CPUID7_EDX_ARCH_CAPABILITIES))
		return false;
	if (!(rdmsr(MSR_ARCH_CAPABILITIES) & ARCH_CAP_XAPIC_DISABLE))
		return false;
	return rdmsr(MSR_XAPIC_DISABLE_STATUS) & XAPIC_LEGACY_DISABLED;
}

void apic_init_boot(void)
{
	struct cpuid_regs r = cpuid(1, 0);
	u64 base_msr = rdmsr(MSR_APIC_BASE);
	phys_addr_t base = base_msr & APIC_BASE_ADDR;
	bool by_firmware = (base_msr & (APIC_BASE_EN | APIC_BASE_EXTD)) ==
			   (APIC_BASE_EN | APIC_BASE_EXTD);
	const char *how = "";

	if (!(r.edx & (1U << 9)))
		panic("apic: this CPU has no local APIC");
	pic_disable();
	x2apic = (r.ecx & (1U << 21)) && !nox2apic;
	if (by_firmware) {
		bool locked = x2apic_locked();

		if (nox2apic)
			pr_warn("apic: nox2apic ignored: the firmware left x2APIC mode on%s\n",
				locked ? " and locked" : "");
		x2apic = true;
		how = locked ? " (left on and locked by the firmware)" : " (left on by the firmware)";
	}
	if (!x2apic) {
		xapic_regs = paging_map_mmio(base, PAGE_SIZE);
		if (!xapic_regs)
			panic("apic: cannot map the local APIC at %#llx", (unsigned long long)base);
	}
	apic_enable_this_cpu();
	pr_info("apic: %s mode%s, boot CPU APIC ID %#x, version %#x\n", x2apic ? "x2APIC" : "xAPIC",
		how, apic_id(), apic_read(APIC_VERSION) & 0xff);
}

void apic_init_ap(void)
{
	apic_enable_this_cpu();
}
