/*
 * eventfd(2) and eventfd2(2): a counter read and written through a file
 * descriptor (EFD_SEMAPHORE, EFD_NONBLOCK, EFD_CLOEXEC), as Linux's.
 */
#ifndef FULCRUM_IPC_EVENTFD_H
#define FULCRUM_IPC_EVENTFD_H

long sys_eventfd2(unsigned int initval, int flags);
long sys_eventfd(unsigned int initval);

#endif
