/*
 * syslog(2) over printk's log buffer, for dmesg. The log cannot be
 * cleared here (CLEAR and READ_CLEAR leave it as it was) and nothing
 * tracks what a reader has seen, so SIZE_UNREAD is 0 and READ, which
 * would block for unread text, is -EINVAL.
 */
#include <arch/uaccess.h>

#include "lib/errno.h"
#include "mm/heap.h"
#include "printk.h"
#include "proc/sys_syslog.h"
#include "proc/syscall.h"

#define SYSLOG_ACTION_CLOSE	    0
#define SYSLOG_ACTION_OPEN	    1
#define SYSLOG_ACTION_READ_ALL	    3
#define SYSLOG_ACTION_READ_CLEAR    4
#define SYSLOG_ACTION_CLEAR	    5
#define SYSLOG_ACTION_CONSOLE_OFF   6
#define SYSLOG_ACTION_CONSOLE_ON    7
#define SYSLOG_ACTION_CONSOLE_LEVEL 8
#define SYSLOG_ACTION_SIZE_UNREAD   9
#define SYSLOG_ACTION_SIZE_BUFFER   10

#define LOG_SIZE (64 * 1024) /* printk's buffer (kernel/printk.c) */

static long read_all(char *ubuf, int len)
{
	size_t n = (size_t)len < LOG_SIZE ? (size_t)len : LOG_SIZE;
	char *buf;
	long got;

	if (!ubuf || len < 0)
		return -EINVAL;
	if (!len)
		return 0;
	if (!access_ok(ubuf, (size_t)len))
		return -EFAULT;
	buf = kmalloc(n + 1);
	if (!buf)
		return -ENOMEM;
	got = (long)printk_log_read(buf, n + 1);
	if (copy_to_user(ubuf, buf, (size_t)got))
		got = -EFAULT;
	kfree(buf);
	return got;
}

long sys_syslog(int type, char *ubuf, int len)
{
	switch (type) {
	case SYSLOG_ACTION_CLOSE:
	case SYSLOG_ACTION_OPEN:
	case SYSLOG_ACTION_CLEAR:
	case SYSLOG_ACTION_CONSOLE_OFF:
	case SYSLOG_ACTION_CONSOLE_ON:
	case SYSLOG_ACTION_SIZE_UNREAD:
		return 0;
	case SYSLOG_ACTION_READ_ALL:
	case SYSLOG_ACTION_READ_CLEAR:
		return read_all(ubuf, len);
	case SYSLOG_ACTION_CONSOLE_LEVEL:
		return len >= 1 && len <= 8 ? 0 : -EINVAL;
	case SYSLOG_ACTION_SIZE_BUFFER:
		return LOG_SIZE;
	default:
		return -EINVAL;
	}
}
SYSCALL_DEFINE3(syslog, int, char *, int);
