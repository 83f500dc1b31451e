/* /dev/null: reads find end of file at once, writes vanish, seeks go nowhere. */
#ifndef FULCRUM_FS_DEVNULL_H
#define FULCRUM_FS_DEVNULL_H

struct file;
struct kstat;

/* A new open file of /dev/null (one reference); flags as open(2)'s. NULL when out of memory. */
struct file *devnull_open(unsigned int flags);

/* What stat and fstat say of /dev/null (st zeroed beforehand). */
void devnull_kstat(struct kstat *st);

#endif
