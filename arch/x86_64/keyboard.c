/*
 * i8042 PS/2 keyboard driver. The controller translates the keyboard's
 * codes to scan code set 1 (make code below 0x80, break code with bit 7
 * set, 0xe0 before the extended keys); this turns them into characters of a
 * US layout with Shift, Caps Lock and Ctrl. Polled from the console's input
 * poll, so it needs no interrupt line and works with interrupts off.
 */
#include "keyboard.h"

#include "printk.h"
#include "x86.h"

#define I8042_DATA   0x60
#define I8042_STATUS 0x64 /* read: status; write: command */

#define STATUS_OBF 0x01 /* output buffer full: a byte waits at the data port */
#define STATUS_IBF 0x02 /* input buffer full: the controller has not taken the last byte */
#define STATUS_AUX 0x20 /* the waiting byte is from the second (mouse) port */

#define CMD_READ_CONFIG	 0x20
#define CMD_WRITE_CONFIG 0x60
#define CMD_DISABLE_AUX	 0xa7
#define CMD_SELF_TEST	 0xaa
#define CMD_TEST_PORT1	 0xab
#define CMD_DISABLE_KBD	 0xad
#define CMD_ENABLE_KBD	 0xae

#define CONFIG_INT1	 0x01 /* interrupt on keyboard data */
#define CONFIG_INT2	 0x02
#define CONFIG_KBD_OFF	 0x10 /* first port's clock disabled */
#define CONFIG_TRANSLATE 0x40 /* translate to scan code set 1 */
#define SELF_TEST_OK	 0x55
#define KBD_ENABLE_SCAN	 0xf4
#define KBD_ACK		 0xfa
#define SPIN_LIMIT	 200000
#define FLUSH_LIMIT	 64

#define SC_LSHIFT   0x2a
#define SC_RSHIFT   0x36
#define SC_CTRL	    0x1d
#define SC_ALT	    0x38
#define SC_CAPSLOCK 0x3a
#define SC_EXTENDED 0xe0

static bool present;
static bool shift, ctrl, capslock, extended;

/* Set 1 make codes 0x00-0x39 of a US keyboard: without and with Shift. */
static const char plain[0x3a] = {
	0,    0x1b, '1', '2', '3', '4', '5', '6', '7', '8', '9',  '0', '-', '=',  0x7f,
	'\t', 'q',  'w', 'e', 'r', 't', 'y', 'u', 'i', 'o', 'p',  '[', ']', '\r', 0,
	'a',  's',  'd', 'f', 'g', 'h', 'j', 'k', 'l', ';', '\'', '`', 0,   '\\', 'z',
	'x',  'c',  'v', 'b', 'n', 'm', ',', '.', '/', 0,   '*',  0,   ' ',
};
static const char shifted[0x3a] = {
	0,    0x1b, '!', '@', '#', '$', '%', '^', '&', '*', '(', ')', '_', '+',	 0x7f,
	'\t', 'Q',  'W', 'E', 'R', 'T', 'Y', 'U', 'I', 'O', 'P', '{', '}', '\r', 0,
	'A',  'S',  'D', 'F', 'G', 'H', 'J', 'K', 'L', ':', '"', '~', 0,   '|',	 'Z',
	'X',  'C',  'V', 'B', 'N', 'M', '<', '>', '?', 0,   '*', 0,   ' ',
};

static bool wait_input_empty(void)
{
	for (int i = 0; i < SPIN_LIMIT; i++) {
		if (!(inb(I8042_STATUS) & STATUS_IBF))
			return true;
		__asm__ volatile("pause");
	}
	return false;
}

/* The next byte from the controller, or -1 if none comes within the spin limit. */
static int read_data(void)
{
	for (int i = 0; i < SPIN_LIMIT; i++) {
		if (inb(I8042_STATUS) & STATUS_OBF)
			return inb(I8042_DATA);
		__asm__ volatile("pause");
	}
	return -1;
}

static bool command(u8 cmd)
{
	if (!wait_input_empty())
		return false;
	outb(I8042_STATUS, cmd);
	return true;
}

static bool write_data(u8 v)
{
	if (!wait_input_empty())
		return false;
	outb(I8042_DATA, v);
	return true;
}

static void flush(void)
{
	for (int i = 0; i < FLUSH_LIMIT && (inb(I8042_STATUS) & STATUS_OBF); i++)
		inb(I8042_DATA);
}

bool keyboard_init(void)
{
	u8 status = inb(I8042_STATUS);
	int config, result = -1;

	/* Nothing decodes the ports on machines without the legacy controller: all ones. */
	if (status == 0xff) {
		pr_info("i8042: no PS/2 controller (status port reads 0xff); no keyboard, "
			"console input over serial only\n");
		return false;
	}
	if (!command(CMD_DISABLE_KBD) || !command(CMD_DISABLE_AUX))
		goto absent;
	flush();
	if (!command(CMD_READ_CONFIG) || (config = read_data()) < 0)
		goto absent;
	if (!command(CMD_SELF_TEST) || (result = read_data()) != SELF_TEST_OK) {
		pr_info("i8042: controller self-test failed (%#x); no keyboard, console input "
			"over serial only\n",
			result < 0 ? 0xff : result);
		return false;
	}
	/* The self-test may reset the controller: write the configuration back, polled. */
	config = (config & ~(CONFIG_INT1 | CONFIG_INT2 | CONFIG_KBD_OFF)) | CONFIG_TRANSLATE;
	if (!command(CMD_WRITE_CONFIG) || !write_data((u8)config))
		goto absent;
	if (!command(CMD_TEST_PORT1) || (result = read_data()) != 0) {
		pr_info("i8042: keyboard port test failed (%#x); no keyboard, console input over "
			"serial only\n",
			result < 0 ? 0xff : result);
		return false;
	}
	if (!command(CMD_ENABLE_KBD))
		goto absent;
	/* Scanning may be off after the firmware; a keyboard acknowledges turning it on. */
	flush();
	if (!write_data(KBD_ENABLE_SCAN) || read_data() != KBD_ACK) {
		pr_info("i8042: controller passed its self-test, no keyboard answers on its "
			"port; console input over serial only\n");
		return false;
	}
	present = true;
	pr_info("i8042: PS/2 keyboard (controller self-test passed, US layout), polled\n");
	return true;
absent:
	pr_info("i8042: controller does not respond; no keyboard, console input over serial "
		"only\n");
	return false;
}

/* The character for one scan code byte, or -1 when it gives none (a modifier, a release). */
static int translate(u8 sc)
{
	bool release = sc & 0x80;
	u8 code = sc & 0x7f;
	bool ext = extended;
	char c;

	extended = false;
	if (sc == SC_EXTENDED) {
		extended = true;
		return -1;
	}
	if (code == SC_LSHIFT || code == SC_RSHIFT) {
		if (!ext)
			shift = !release;
		return -1;
	}
	if (code == SC_CTRL) {
		ctrl = !release;
		return -1;
	}
	if (release || code == SC_ALT)
		return -1;
	if (code == SC_CAPSLOCK) {
		capslock = !capslock;
		return -1;
	}
	if (ext) /* keypad Enter and '/'; the arrow and editing keys give nothing */
		return code == 0x1c ? '\r' : code == 0x35 ? '/' : -1;
	if (code >= sizeof(plain) || !plain[code])
		return -1;
	c = shift ? shifted[code] : plain[code];
	if (capslock && c >= 'a' && c <= 'z')
		c = (char)(c - 'a' + 'A');
	else if (capslock && c >= 'A' && c <= 'Z')
		c = (char)(c - 'A' + 'a');
	if (ctrl && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
		c = (char)(c & 0x1f);
	return (u8)c;
}

int keyboard_read_char(void)
{
	if (!present)
		return -1;
	for (int i = 0; i < FLUSH_LIMIT; i++) {
		u8 status = inb(I8042_STATUS);
		u8 sc;
		int c;

		if (!(status & STATUS_OBF))
			return -1;
		sc = inb(I8042_DATA);
		if (status & STATUS_AUX)
			continue; /* a mouse byte */
		c = translate(sc);
		if (c >= 0)
			return c;
	}
	return -1;
}
