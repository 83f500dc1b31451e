/* /proc/fulcrum/objects (proc_objects.c). */
#ifndef FULCRUM_FS_PROC_OBJECTS_H
#define FULCRUM_FS_PROC_OBJECTS_H

void proc_objects_init(void);

#endif
