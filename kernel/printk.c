/*
 * printk: formats a message, stamps each line with the time since kernel
 * entry, keeps it in a ring buffer for dmesg and writes it to the consoles.
 */
#include "printk.h"

#include <arch/console.h>
#include <arch/time.h>

#include "cmdline.h"
#include "lib/printf.h"
#include "lib/spinlock.h"
#include "lib/string.h"

#define LOG_BUF_SIZE (64 * 1024)
#define LINE_MAX     1024

s64 console_loglevel = 7;
BOOT_OPTION_INT(loglevel, "loglevel", &console_loglevel, 0, 8,
		"print messages below this level (0 emerg .. 7 debug; 8 prints all)");

static struct spinlock printk_lock = SPINLOCK_INIT;
static bool printk_panic;

static char log_buf[LOG_BUF_SIZE];
static size_t log_head; /* total bytes ever written; index = head % size */
static bool line_open;	/* the last message did not end its line */
static int open_level = LOGLEVEL_DEFAULT;

static void log_store(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		log_buf[(log_head + i) % LOG_BUF_SIZE] = s[i];
	log_head += len;
}

static void emit(const char *s, size_t len, int level)
{
	log_store(s, len);
	if (level < console_loglevel)
		arch_console_write(s, len);
}

/* "[    1.234567] ": seconds right-aligned in 5 columns, then microseconds. */
static size_t format_timestamp(char *buf, size_t size)
{
	u64 ns = arch_clock_ns();

	return (size_t)ksnprintf(buf, size, "[%5llu.%06llu] ", (unsigned long long)(ns / 1000000000),
				 (unsigned long long)(ns % 1000000000 / 1000));
}

/* Reads a KERN_* prefix; returns the level, or -1 for KERN_CONT. */
static int parse_level(const char **fmt)
{
	const char *f = *fmt;

	if (f[0] != KERN_SOH[0] || f[1] == '\0')
		return LOGLEVEL_DEFAULT;
	*fmt = f + 2;
	if (f[1] == 'c')
		return -1;
	if (f[1] >= '0' && f[1] <= '7')
		return f[1] - '0';
	return LOGLEVEL_DEFAULT;
}

static void print_lines(const char *text, int level, bool cont)
{
	char stamp[32];
	const char *p = text;

	if (!cont && line_open)
		emit("\n", 1, open_level);
	line_open = cont && line_open;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);

		if (!line_open)
			emit(stamp, format_timestamp(stamp, sizeof(stamp)), level);
		emit(p, len, level);
		line_open = !nl;
		p += len;
	}
	open_level = level;
}

int printk(const char *fmt, ...)
{
	char text[LINE_MAX];
	unsigned long flags = 0;
	va_list ap;
	int level = parse_level(&fmt);
	bool cont = level < 0;
	int n;

	if (cont)
		level = open_level;
	va_start(ap, fmt);
	n = kvsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);

	if (!printk_panic)
		flags = spin_lock_irqsave(&printk_lock);
	print_lines(text, level, cont);
	if (!printk_panic)
		spin_unlock_irqrestore(&printk_lock, flags);
	return n;
}

size_t printk_log_read(char *buf, size_t size)
{
	unsigned long flags = 0;
	size_t avail, n, start;

	if (size == 0)
		return 0;
	if (!printk_panic)
		flags = spin_lock_irqsave(&printk_lock);
	avail = log_head < LOG_BUF_SIZE ? log_head : LOG_BUF_SIZE;
	n = MIN(avail, size - 1);
	start = log_head - n;
	for (size_t i = 0; i < n; i++)
		buf[i] = log_buf[(start + i) % LOG_BUF_SIZE];
	buf[n] = '\0';
	if (!printk_panic)
		spin_unlock_irqrestore(&printk_lock, flags);
	return n;
}

void printk_enter_panic(void)
{
	printk_panic = true;
}
