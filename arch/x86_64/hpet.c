/*
 * The High Precision Event Timer, only as a reference clock: the ACPI HPET
 * table gives the register block's address (a Generic Address Structure
 * at byte 40, memory space); the capabilities register's upper half is
 * the counter period in femtoseconds (at most 100 ns by the HPET spec);
 * bit 0 of the configuration register runs the main counter, read here
 * in its low 32 bits (wraps after 40 s or more, far beyond a calibration).
 */
#include "hpet.h"

#include "lib/string.h"
#include "mmu.h"
#include "printk.h"

#define HPET_TABLE_MIN_LEN 56
#define GAS_OFFSET	   40
#define GAS_SPACE_MEMORY   0

#define HPET_CAPABILITIES 0x000
#define HPET_CONFIG	  0x010
#define HPET_COUNTER	  0x0f0
#define HPET_ENABLE	  0x1

#define FS_PER_SEC    1000000000000000ULL
#define MAX_PERIOD_FS 100000000ULL /* 100 ns: the slowest counter the spec allows */

static volatile u8 *regs;

static u32 reg_read(u32 off)
{
	return *(volatile u32 *)(regs + off);
}

static void reg_write(u32 off, u32 v)
{
	*(volatile u32 *)(regs + off) = v;
}

static u64 hpet_read(void)
{
	return reg_read(HPET_COUNTER);
}

bool hpet_ref_clock(const struct acpi_tables *t, struct ref_clock *out)
{
	const struct acpi_table_info *table = acpi_find_table(t, "HPET", NULL);
	const u8 *data;
	u64 base;
	u32 period;

	if (!table)
		return false;
	data = table->data;
	if (table->length < HPET_TABLE_MIN_LEN || data[GAS_OFFSET] != GAS_SPACE_MEMORY) {
		pr_warn("hpet: ACPI HPET table unusable (length %u, address space %u)\n",
			table->length, table->length > GAS_OFFSET ? data[GAS_OFFSET] : 0);
		return false;
	}
	memcpy(&base, data + GAS_OFFSET + 4, sizeof(base));
	if (!regs && base)
		regs = paging_map_mmio(base, 0x400);
	if (!base || !regs) {
		pr_warn("hpet: cannot use the registers at %#llx\n", (unsigned long long)base);
		return false;
	}
	period = reg_read(HPET_CAPABILITIES + 4);
	if (!period || period > MAX_PERIOD_FS) {
		pr_warn("hpet: implausible counter period %u fs\n", period);
		return false;
	}
	if (!(reg_read(HPET_CONFIG) & HPET_ENABLE))
		reg_write(HPET_CONFIG, reg_read(HPET_CONFIG) | HPET_ENABLE);
	*out = (struct ref_clock){
		.name = "HPET", .hz = FS_PER_SEC / period, .mask = 0xffffffffULL, .read = hpet_read
	};
	pr_info("hpet: at %#llx, %llu Hz\n", (unsigned long long)base, (unsigned long long)out->hz);
	return true;
}
