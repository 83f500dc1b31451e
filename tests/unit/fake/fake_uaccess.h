/* Knobs of the host copy_{from,to}_user (fake_uaccess.c). */
#ifndef FULCRUM_TESTS_FAKE_UACCESS_H
#define FULCRUM_TESTS_FAKE_UACCESS_H

/* When >= 0: this many more copies succeed, then every copy faults (-EFAULT). -1: never. */
extern long fake_uaccess_fail_after;
/* Copies attempted so far. */
extern unsigned long fake_uaccess_copies;

#endif
