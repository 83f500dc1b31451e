/*
 * The console: printk's output goes to every serial port chosen and to the
 * screen; input comes from any of them. Without console= the serial console
 * is COM1 (when it answers) plus the port the ACPI SPCR table names;
 * console= options choose the serial ports instead, Linux's way:
 *	console=ttyS1,115200 console=ttyS0 console=uart,mmio32,0xfe040000,115200
 */
#include <arch/console.h>

#include "cmdline.h"
#include "fbcon.h"
#include "keyboard.h"
#include "lib/kstrto.h"
#include "lib/string.h"
#include "printk.h"
#include "serial.h"
#include "vga.h"

#define DEFAULT_BAUD 115200

static const char *console_option;
static bool serial_chosen; /* a console= option named a serial port */
static char replay_buf[16384];

void arch_console_write(const char *s, size_t len)
{
	serial_write(s, len);
	vga_write(s, len);
	fbcon_write(s, len);
}

int arch_console_read_char(void)
{
	int c = serial_read_char();

	return c >= 0 ? c : keyboard_read_char();
}

/* Parses "BAUD[pbits]" (e.g. "115200n8"; empty: the default) into *baud; -1 on junk. */
static int parse_baud(const char *s, size_t len, u32 *baud)
{
	size_t digits = 0;
	u64 v;

	while (digits < len && s[digits] >= '0' && s[digits] <= '9')
		digits++;
	if (len == 0) {
		*baud = DEFAULT_BAUD;
		return 0;
	}
	if (digits == 0 || kstrtou64(s, digits, false, &v) || v == 0 || v > DEFAULT_BAUD ||
	    DEFAULT_BAUD % v)
		return -1;
	/* Parity and bits after the rate: only 8 data bits, no parity is driven. */
	if (digits < len && strncmp(s + digits, "n8", len - digits) != 0)
		return -1;
	*baud = (u32)v;
	return 0;
}

/* The next comma-separated field of s[*pos..len): its start and length. */
static const char *next_field(const char *s, size_t len, size_t *pos, size_t *flen)
{
	const char *start = s + *pos;
	size_t n = 0;

	while (*pos + n < len && s[*pos + n] != ',')
		n++;
	*flen = n;
	*pos += n + (*pos + n < len);
	return start;
}

/*
 * Sends what printk logged so far (as dmesg shows it, from a line's start) to a
 * console just added, unless it was one already.
 */
static void replay_log(int index, int nr_before)
{
	size_t n, start = 0;

	if (index < nr_before)
		return;
	n = printk_log_read(replay_buf, sizeof(replay_buf));
	if (n == sizeof(replay_buf) - 1)
		while (start < n && replay_buf[start++] != '\n')
			;
	serial_write_port(index, replay_buf + start, n - start);
}

/* Adds one serial console and says so; returns 0, or nonzero when nothing answers there. */
static int add_console(bool mmio, u64 address, u8 width, u32 baud, const char *value)
{
	char what[48];
	int index, nr_before;

	if (!serial_chosen) {
		/* The default COM1 stays a console only if this option names it. */
		if (mmio || address != serial_com_port(0))
			serial_remove_all();
		serial_chosen = true;
	}
	nr_before = serial_count();
	index = serial_add(mmio, address, width, baud);
	if (index < 0) {
		pr_warn("console: %s: no UART answers there; not a console\n", value);
		return -1;
	}
	replay_log(index, nr_before);
	serial_describe(index, what, sizeof(what));
	pr_info("console: %s at %u baud (console=%s)\n", what, baud, value);
	return 0;
}

/*
 * console=ttySn[,BAUD[n8]] | uart[8250],io|mmio|mmio32,ADDR[,BAUD] | ttyN (the screen,
 * always a console). Each console= adds one; the first one naming a serial port
 * replaces the default COM1.
 */
static int console_set(const char *value, size_t len)
{
	size_t pos = 0, flen;
	const char *f = next_field(value, len, &pos, &flen);
	u32 baud;

	if (flen == 5 && !strncmp(f, "ttyS", 4) && f[4] >= '0' && f[4] < '0' + SERIAL_NR_COM) {
		unsigned int n = (unsigned int)(f[4] - '0');

		f = next_field(value, len, &pos, &flen);
		if (parse_baud(f, flen, &baud) || pos < len)
			goto bad;
		add_console(false, serial_com_port(n), 1, baud, value);
		console_option = value;
		return 0;
	}
	if ((flen == 4 && !strncmp(f, "uart", 4)) || (flen == 8 && !strncmp(f, "uart8250", 8))) {
		bool mmio;
		u8 width = 1;
		u64 address;

		f = next_field(value, len, &pos, &flen);
		if (flen == 2 && !strncmp(f, "io", 2)) {
			mmio = false;
		} else if (flen == 4 && !strncmp(f, "mmio", 4)) {
			mmio = true;
		} else if (flen == 6 && !strncmp(f, "mmio32", 6)) {
			mmio = true;
			width = 4;
		} else {
			goto bad;
		}
		f = next_field(value, len, &pos, &flen);
		if (kstrtou64(f, flen, false, &address))
			goto bad;
		f = next_field(value, len, &pos, &flen);
		if (parse_baud(f, flen, &baud) || pos < len)
			goto bad;
		add_console(mmio, address, width, baud, value);
		console_option = value;
		return 0;
	}
	if (flen >= 4 && !strncmp(f, "tty", 3) && f[3] >= '0' && f[3] <= '9') {
		console_option = value; /* the screen: always a console */
		return 0;
	}
bad:
	pr_warn("console=%s: not ttyS0-ttyS3[,BAUD], uart,io|mmio|mmio32,ADDR[,BAUD] or tty0; "
		"ignored\n",
		value);
	return -1;
}
BOOT_OPTION_STRING_FN(console, "console", &console_option, console_set,
		      "a console: ttyS0-ttyS3[,BAUD] (COM1-COM4), uart,io|mmio|mmio32,ADDR[,BAUD] "
		      "or tty0 (the screen); repeat for several; the first serial one replaces COM1 "
		      "and the SPCR port");

void arch_console_firmware_uart(bool mmio, u64 address, u8 reg_width, u32 baud)
{
	char what[48];
	int index, nr_before = serial_count();

	if (serial_chosen) {
		pr_info("console: SPCR names the UART at %s %#llx; console= chose the consoles\n",
			mmio ? "MMIO" : "I/O", (unsigned long long)address);
		return;
	}
	index = serial_add(mmio, address, reg_width, baud);
	if (index < 0) {
		pr_warn("console: SPCR names a UART at %s %#llx, %u baud, that does not answer\n",
			mmio ? "MMIO" : "I/O", (unsigned long long)address, baud);
		return;
	}
	replay_log(index, nr_before);
	serial_describe(index, what, sizeof(what));
	pr_info("console: %s from the ACPI SPCR table, %u baud%s\n", what, baud,
		baud ? "" : " (as the firmware set it)");
}
