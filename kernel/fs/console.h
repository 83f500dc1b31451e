/*
 * /dev/console: reads take lines typed on the serial console (polled from
 * the timer tick, edited by the line discipline in ldisc.h); writes go out
 * where printk's text goes. ioctl TIOCGWINSZ reports an 80x25 screen.
 */
#ifndef FULCRUM_FS_CONSOLE_H
#define FULCRUM_FS_CONSOLE_H

#include "lib/types.h"

struct file;
struct kstat;

#define CONSOLE_ROWS 25
#define CONSOLE_COLS 80

/* A new open file of the console (one reference); flags as open(2)'s. NULL when out of memory. */
struct file *console_open(unsigned int flags);

/* What stat and fstat say of /dev/console (st zeroed beforehand). */
void console_kstat(struct kstat *st);

/*
 * From the timer tick on CPU 0 (interrupt context): takes the bytes that
 * arrived on the console, echoes them and wakes readers when a line is
 * ready.
 */
void console_poll_input(void);

/*
 * Sets what Ctrl-C does besides dropping the typed input (e.g. send SIGINT
 * to the foreground program); fn runs in interrupt context and must not
 * sleep. NULL: nothing.
 */
void console_set_interrupt_handler(void (*fn)(void));

/* Forgets all typed input (tests). */
void console_reset_input(void);

#endif
