/*
 * The offset-keeping half of regular files (file_pos.c): read() as pread()
 * at f_pos, and lseek() over a file that is all data. initrd files and
 * tmpfs files differ only in where their bytes live, so their pread says
 * that and these two do the rest.
 */
#ifndef FULCRUM_FS_FILE_POS_H
#define FULCRUM_FS_FILE_POS_H

#include "fs/file.h"

/*
 * read(2) on a file with a pread operation: reads at f_pos and moves f_pos
 * past what was read. Threads sharing the file race on the offset, as they
 * may on Linux before 3.14. Returns pread's result.
 */
long file_read_at_pos(struct file *f, struct iov_iter *to);

/*
 * generic_file_llseek for a file of size bytes without holes (SEEK_DATA
 * finds data at any offset inside, SEEK_HOLE only at the end). Sets and
 * returns the new f_pos, or -EINVAL (negative or overflowing position,
 * unknown whence) or -ENXIO (SEEK_DATA/SEEK_HOLE at or past the end).
 */
s64 file_lseek_in_size(struct file *f, s64 offset, int whence, s64 size);

#endif
