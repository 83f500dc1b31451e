/* /sys/devices/system/{cpu,node} (sysfs_cpu.c). */
#ifndef FULCRUM_FS_SYSFS_CPU_H
#define FULCRUM_FS_SYSFS_CPU_H

/* Registers them from the machine's description; once at boot, after procfs_init. */
void sysfs_cpu_init(void);

#endif
