/*
 * The ACPI PM timer, only as a reference clock: a free-running counter at
 * 3.579545 MHz read from an I/O port the FADT names. FADT offsets (ACPI
 * 6.x, table 5.9): PM_TMR_BLK (4 bytes) at 76, PM_TMR_LEN at 91 (4 when
 * present), Flags at 112 (bit 8, TMR_VAL_EXT: a 32-bit counter, else 24
 * bits), X_PM_TMR_BLK (a Generic Address Structure) at 208.
 */
#include "pmtimer.h"

#include "lib/string.h"
#include "printk.h"
#include "x86.h"

#define PM_TIMER_HZ	  3579545
#define FADT_PM_TMR_BLK	  76
#define FADT_PM_TMR_LEN	  91
#define FADT_FLAGS	  112
#define FADT_X_PM_TMR_BLK 208
#define TMR_VAL_EXT	  (1U << 8)
#define GAS_SPACE_IO	  1

static u16 port;

static u64 pmtimer_read(void)
{
	return inl(port);
}

bool pmtimer_ref_clock(const struct acpi_tables *t, struct ref_clock *out)
{
	const struct acpi_table_info *table = acpi_find_table(t, "FACP", NULL);
	const u8 *data;
	u32 blk = 0, flags = 0;
	u64 xblk = 0;

	if (!table || table->length < FADT_PM_TMR_LEN + 1)
		return false;
	data = table->data;
	if (data[FADT_PM_TMR_LEN] == 4)
		memcpy(&blk, data + FADT_PM_TMR_BLK, sizeof(blk));
	if (table->length >= FADT_FLAGS + 4)
		memcpy(&flags, data + FADT_FLAGS, sizeof(flags));
	if (table->length >= FADT_X_PM_TMR_BLK + 12 && data[FADT_X_PM_TMR_BLK] == GAS_SPACE_IO)
		memcpy(&xblk, data + FADT_X_PM_TMR_BLK + 4, sizeof(xblk));
	if (xblk && xblk <= 0xffff)
		blk = (u32)xblk;
	if (!blk || blk > 0xffff)
		return false;
	port = (u16)blk;
	*out = (struct ref_clock){ .name = "ACPI PM timer",
				   .hz = PM_TIMER_HZ,
				   .mask = flags & TMR_VAL_EXT ? 0xffffffffULL : 0xffffffULL,
				   .read = pmtimer_read };
	pr_info("pmtimer: port %#x, %s counter\n", port, flags & TMR_VAL_EXT ? "32-bit" : "24-bit");
	return true;
}
