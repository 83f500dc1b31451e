/*
 * 16550 UART driver, polled: printk must work with interrupts off. Up to
 * SERIAL_MAX_PORTS ports at once, each on I/O ports or memory-mapped
 * registers (byte or dword spaced), so a server's console can be wherever its
 * firmware put it.
 */
#include "serial.h"

#include <arch/memory.h>

#include "lib/printf.h"
#include "x86.h"

enum uart_reg {
	UART_DATA = 0, /* DLAB=0: transmit/receive; DLAB=1: divisor low */
	UART_IER = 1,  /* DLAB=0: interrupt enable; DLAB=1: divisor high */
	UART_FCR = 2,  /* FIFO control */
	UART_LCR = 3,  /* line control (bit 7: DLAB) */
	UART_MCR = 4,  /* modem control */
	UART_LSR = 5,  /* line status */
	UART_SCRATCH = 7,
};

#define LSR_DR	   0x01 /* data ready: a received byte waits in the receive buffer */
#define LSR_THRE   0x20 /* transmit holding register empty */
#define SPIN_LIMIT 100000
#define UART_CLOCK 115200 /* the divisor's base: 1.8432 MHz / 16 */
#define LOW_4G	   (4ULL << 30)

struct uart {
	u64 address; /* I/O port or physical address of register 0 */
	bool mmio;
	u8 reg_width;	   /* MMIO: bytes per register (1 or 4) */
	volatile u8 *regs; /* MMIO: register 0 through the direct map */
};

static const u16 com_ports[SERIAL_NR_COM] = { 0x3f8, 0x2f8, 0x3e8, 0x2e8 };
static struct uart ports[SERIAL_MAX_PORTS];
static int nr_ports;
static int next_read; /* the port read first next time: no port starves another */

u16 serial_com_port(unsigned int n)
{
	return n < SERIAL_NR_COM ? com_ports[n] : 0;
}

static u8 uart_in(const struct uart *u, enum uart_reg reg)
{
	if (!u->mmio)
		return inb((u16)(u->address + reg));
	if (u->reg_width == 4)
		return (u8) * (volatile u32 *)(u->regs + reg * 4);
	return u->regs[reg];
}

static void uart_out(const struct uart *u, enum uart_reg reg, u8 v)
{
	if (!u->mmio)
		outb((u16)(u->address + reg), v);
	else if (u->reg_width == 4)
		*(volatile u32 *)(u->regs + reg * 4) = v;
	else
		u->regs[reg] = v;
}

/* Sets the line up; returns false if nothing answers (the scratch register keeps no value). */
static bool uart_setup(const struct uart *u, u32 baud)
{
	uart_out(u, UART_SCRATCH, 0x5a);
	if (uart_in(u, UART_SCRATCH) != 0x5a)
		return false;
	uart_out(u, UART_SCRATCH, 0xa5);
	if (uart_in(u, UART_SCRATCH) != 0xa5)
		return false;

	uart_out(u, UART_IER, 0x00);
	if (baud) {
		u16 divisor = (u16)(UART_CLOCK / baud);

		uart_out(u, UART_LCR, 0x80); /* DLAB on: set the divisor */
		uart_out(u, UART_DATA, (u8)divisor);
		uart_out(u, UART_IER, (u8)(divisor >> 8));
	}
	uart_out(u, UART_LCR, 0x03); /* DLAB off; 8 data bits, no parity, 1 stop bit */
	uart_out(u, UART_FCR, 0xc7); /* enable and clear FIFOs, 14-byte threshold */
	uart_out(u, UART_MCR, 0x03); /* DTR, RTS */
	return true;
}

int serial_add(bool mmio, u64 address, u8 reg_width, u32 baud)
{
	struct uart u = { .address = address, .mmio = mmio, .reg_width = mmio ? reg_width : 1 };

	for (int i = 0; i < nr_ports; i++)
		if (ports[i].mmio == mmio && ports[i].address == address)
			return i;
	if (nr_ports == SERIAL_MAX_PORTS)
		return -1;
	if (baud && (baud > UART_CLOCK || UART_CLOCK % baud))
		return -1;
	if (mmio) {
		/* The direct map covers the first 4 GiB from the first instruction on. */
		if ((reg_width != 1 && reg_width != 4) || address + 8 * reg_width > LOW_4G)
			return -1;
		u.regs = phys_to_virt(address);
	} else if (address > 0xfff8) {
		return -1;
	}
	if (!uart_setup(&u, baud))
		return -1;
	ports[nr_ports] = u;
	return nr_ports++;
}

int serial_count(void)
{
	return nr_ports;
}

void serial_remove_all(void)
{
	nr_ports = 0;
	next_read = 0;
}

bool serial_init(void)
{
	return serial_add(false, com_ports[0], 1, UART_CLOCK) >= 0;
}

static void uart_putc(const struct uart *u, char c)
{
	/* Bounded wait: a dead or absent port must not hang the kernel. */
	for (int i = 0; i < SPIN_LIMIT && !(uart_in(u, UART_LSR) & LSR_THRE); i++)
		__asm__ volatile("pause");
	uart_out(u, UART_DATA, (u8)c);
}

void serial_write_port(int index, const char *s, size_t len)
{
	if (index < 0 || index >= nr_ports)
		return;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			uart_putc(&ports[index], '\r');
		uart_putc(&ports[index], s[i]);
	}
}

void serial_write(const char *s, size_t len)
{
	for (int i = 0; i < nr_ports; i++)
		serial_write_port(i, s, len);
}

int serial_read_char(void)
{
	for (int k = 0; k < nr_ports; k++) {
		int i = (next_read + k) % nr_ports;

		if (uart_in(&ports[i], UART_LSR) & LSR_DR) {
			next_read = (i + 1) % nr_ports;
			return uart_in(&ports[i], UART_DATA);
		}
	}
	return -1;
}

void serial_describe(int index, char *buf, size_t size)
{
	const struct uart *u;

	if (index < 0 || index >= nr_ports) {
		ksnprintf(buf, size, "none");
		return;
	}
	u = &ports[index];
	if (!u->mmio)
		for (unsigned int n = 0; n < SERIAL_NR_COM; n++)
			if (u->address == com_ports[n]) {
				ksnprintf(buf, size, "ttyS%u (I/O %#llx)", n,
					  (unsigned long long)u->address);
				return;
			}
	ksnprintf(buf, size, "%s %#llx%s", u->mmio ? "MMIO" : "I/O", (unsigned long long)u->address,
		  u->mmio && u->reg_width == 4 ? " (32-bit)" : "");
}
