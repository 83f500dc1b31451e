/* /proc/stat, /proc/loadavg, /proc/cpuinfo, /proc/mounts (proc_system.c). */
#ifndef FULCRUM_PROC_PROC_SYSTEM_H
#define FULCRUM_PROC_PROC_SYSTEM_H

/* Registers them; once at boot, after procfs_init. */
void proc_system_init(void);

#endif
