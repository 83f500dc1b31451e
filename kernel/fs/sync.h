/* fsync, fdatasync, sync, syncfs: nothing to write back (fs/sync.c). */
#ifndef FULCRUM_FS_SYNC_H
#define FULCRUM_FS_SYNC_H

long sys_fsync(int fd);
long sys_fdatasync(int fd);
long sys_sync(void);
long sys_syncfs(int fd);

#endif
