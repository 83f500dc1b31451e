/*
 * printk: the kernel log. Each line gets a Linux-style timestamp since
 * kernel entry ("[    0.012345] ") and goes to the log buffer and, when
 * its level is below console_loglevel (as in Linux), to the consoles.
 */
#ifndef FULCRUM_PRINTK_H
#define FULCRUM_PRINTK_H

#include "lib/compiler.h"
#include "lib/types.h"

#define KERN_SOH     "\001"
#define KERN_EMERG   KERN_SOH "0"
#define KERN_ALERT   KERN_SOH "1"
#define KERN_CRIT    KERN_SOH "2"
#define KERN_ERR     KERN_SOH "3"
#define KERN_WARNING KERN_SOH "4"
#define KERN_NOTICE  KERN_SOH "5"
#define KERN_INFO    KERN_SOH "6"
#define KERN_DEBUG   KERN_SOH "7"
/* Continues the previous line: no timestamp, same level. */
#define KERN_CONT    KERN_SOH "c"

#define LOGLEVEL_DEFAULT 6 /* a message without a level prefix is KERN_INFO */

/* Messages with a level above this are logged but not printed. */
extern s64 console_loglevel;

int printk(const char *fmt, ...) __printf(1, 2);

#define pr_emerg(fmt, ...)  printk(KERN_EMERG fmt, ##__VA_ARGS__)
#define pr_alert(fmt, ...)  printk(KERN_ALERT fmt, ##__VA_ARGS__)
#define pr_crit(fmt, ...)   printk(KERN_CRIT fmt, ##__VA_ARGS__)
#define pr_err(fmt, ...)    printk(KERN_ERR fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)   printk(KERN_WARNING fmt, ##__VA_ARGS__)
#define pr_notice(fmt, ...) printk(KERN_NOTICE fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)   printk(KERN_INFO fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)  printk(KERN_DEBUG fmt, ##__VA_ARGS__)
#define pr_cont(fmt, ...)   printk(KERN_CONT fmt, ##__VA_ARGS__)

/*
 * Copies the newest log text (at most size - 1 bytes, NUL-terminated) into
 * buf for dmesg-style readers; returns the bytes copied.
 */
size_t printk_log_read(char *buf, size_t size);

/*
 * From now on printk ignores its lock: called once by the CPU that reports
 * an oops, so a CPU stopped while holding the lock cannot silence it.
 */
void printk_enter_panic(void);

#endif
