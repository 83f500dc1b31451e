/* Packing linux_dirent64 records (see dirent.h). */
#include "fs/dirent.h"

#include "lib/compiler.h"
#include "lib/string.h"

size_t dirent64_reclen(size_t name_len)
{
	return ALIGN_UP(__builtin_offsetof(struct linux_dirent64, d_name) + name_len + 1, (size_t)8);
}

size_t dirent64_pack(void *buf, size_t room, u64 ino, s64 off, u8 type, const char *name,
		     size_t name_len)
{
	size_t len = dirent64_reclen(name_len);
	struct linux_dirent64 *d = buf;

	if (len > room || len > 0xffff)
		return 0;
	memset(buf, 0, len);
	d->d_ino = ino;
	d->d_off = off;
	d->d_reclen = (u16)len;
	d->d_type = type;
	memcpy(d->d_name, name, name_len);
	return len;
}
