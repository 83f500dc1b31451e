/* Memory locking calls: accepted, as nothing is ever paged out (mm/mlock.c). */
#ifndef FULCRUM_MM_MLOCK_H
#define FULCRUM_MM_MLOCK_H

long sys_mlock(unsigned long start, unsigned long len);
long sys_mlock2(unsigned long start, unsigned long len, int flags);
long sys_munlock(unsigned long start, unsigned long len);
long sys_mlockall(int flags);
long sys_munlockall(void);

#endif
