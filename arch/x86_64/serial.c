/* 16550 UART driver for COM1, polled: printk must work with interrupts off. */
#include "serial.h"

#include "x86.h"

#define COM1 0x3f8

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

static bool serial_present;

bool serial_init(void)
{
	/* The scratch register holds what is written to it only if a UART is there. */
	outb(COM1 + UART_SCRATCH, 0x5a);
	if (inb(COM1 + UART_SCRATCH) != 0x5a)
		return false;

	outb(COM1 + UART_IER, 0x00);
	outb(COM1 + UART_LCR, 0x80); /* DLAB on: set the divisor */
	outb(COM1 + UART_DATA, 1);   /* 115200 / 1 */
	outb(COM1 + UART_IER, 0);
	outb(COM1 + UART_LCR, 0x03); /* 8 data bits, no parity, 1 stop bit */
	outb(COM1 + UART_FCR, 0xc7); /* enable and clear FIFOs, 14-byte threshold */
	outb(COM1 + UART_MCR, 0x03); /* DTR, RTS */
	serial_present = true;
	return true;
}

static void serial_putc(char c)
{
	/* Bounded wait: a dead or absent port must not hang the kernel. */
	for (int i = 0; i < SPIN_LIMIT && !(inb(COM1 + UART_LSR) & LSR_THRE); i++)
		__asm__ volatile("pause");
	outb(COM1 + UART_DATA, (u8)c);
}

void serial_write(const char *s, size_t len)
{
	if (!serial_present)
		return;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			serial_putc('\r');
		serial_putc(s[i]);
	}
}

int serial_read_char(void)
{
	if (!serial_present || !(inb(COM1 + UART_LSR) & LSR_DR))
		return -1;
	return inb(COM1 + UART_DATA);
}
