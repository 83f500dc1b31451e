/*
 * arch_start: the first C code, entered from boot/entry.asm in long mode
 * on the boot stack. Brings up what every later step leans on (console,
 * descriptor tables, the boot information, the clock) and hands over to
 * the portable kernel_main().
 */
#include <arch/memory.h>

#include "boot/multiboot2.h"
#include "boot/pvh.h"
#include "cpu_local.h"
#include "fbcon.h"
#include "keyboard.h"
#include "gdt.h"
#include "main.h"
#include "panic.h"
#include "printk.h"
#include "serial.h"
#include "trap.h"
#include "tsc.h"
#include "vga.h"
#include "x86.h"

#define MBI_MAX_SIZE (1UL << 20) /* sanity bound on total_size */

extern u64 boot_tsc;
extern u32 boot_magic, boot_mbi;

static struct boot_info boot_info;

void arch_start(void);

/* The PVH start info and what it points to, all below 4 GiB (the direct map's first part). */
static const void *pvh_map(phys_addr_t phys, size_t len, void *ctx)
{
	(void)ctx;
	if (phys + len < phys || phys + len > (4UL << 30))
		return NULL;
	return phys_to_virt(phys);
}

/* GRUB (multiboot2) or a PVH loader such as QEMU's -kernel (boot/pvh.asm). */
static void read_boot_information(void)
{
	const u8 *mbi = phys_to_virt(boot_mbi);
	u32 total_size;

	if (boot_magic == PVH_START_MAGIC) {
		if (pvh_parse(boot_mbi, pvh_map, NULL, &boot_info))
			panic("PVH start info at %#x is unusable", boot_mbi);
		return;
	}
	if (boot_magic != MULTIBOOT2_BOOTLOADER_MAGIC)
		panic("not started by a multiboot2 or PVH loader (EAX=%#x)", boot_magic);
	total_size = *(const u32 *)mbi;
	if (total_size > MBI_MAX_SIZE || (u64)boot_mbi + total_size > (4UL << 30))
		panic("multiboot2 information at %#x claims %u bytes; refusing it", boot_mbi,
		      total_size);
	if (multiboot2_parse(mbi, total_size, boot_mbi, &boot_info))
		panic("multiboot2 information at %#x is unusable", boot_mbi);
}

static void start_screen(void)
{
	const struct boot_framebuffer *fb = &boot_info.fb;

	/* BIOS boots without a framebuffer tag are in 80x25 text mode; UEFI gives pixels. */
	if (fb->type == BOOT_FB_NONE)
		vga_init(0xb8000, 80, 25, 160);
	else if (fb->type == BOOT_FB_TEXT)
		vga_init(fb->addr, fb->width, fb->height, fb->pitch);
	else if (fb->type == BOOT_FB_RGB)
		fbcon_init(fb); /* false for a depth or place it cannot draw: then serial only */
}

void arch_start(void)
{
	struct cpu_local *boot_cpu = cpu_local_boot();

	cpu_local_install(boot_cpu); /* first: fault reports read per-CPU state */
	serial_init();
	gdt_init_cpu(boot_cpu);
	idt_init();
	read_boot_information();
	start_screen();
	tsc_init(boot_tsc, &boot_info);
	fbcon_report();
	keyboard_init(); /* the machine's own keyboard, if it has one */
	kernel_main(&boot_info);
}
