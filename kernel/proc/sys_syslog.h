/* syslog(2), which klogctl and dmesg call (sys_syslog.c). */
#ifndef FULCRUM_PROC_SYS_SYSLOG_H
#define FULCRUM_PROC_SYS_SYSLOG_H

/*
 * READ_ALL (3) and READ_CLEAR (4) copy the newest log text (up to len
 * bytes) and return its length; SIZE_BUFFER (10) is the log's size;
 * CLOSE, OPEN, CLEAR, CONSOLE_OFF/ON and SIZE_UNREAD are accepted and do
 * nothing; CONSOLE_LEVEL takes 1..8; READ (2, which would wait for new
 * text) and anything else is -EINVAL.
 */
long sys_syslog(int type, char *ubuf, int len);

#endif
