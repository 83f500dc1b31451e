/*
 * A growable text buffer that procfs show functions print into with
 * seq_printf (the kernel's printf). It doubles as needed up to
 * SEQBUF_MAX; past that it stops growing and reports -ENOMEM.
 */
#ifndef FULCRUM_FS_SEQBUF_H
#define FULCRUM_FS_SEQBUF_H

#include "lib/compiler.h"
#include "lib/types.h"

#define SEQBUF_MAX     (1024 * 1024)
#define SEQBUF_INITIAL 256

struct seqbuf {
	char *buf;  /* NUL-terminated text; NULL until something is written */
	size_t len; /* bytes of text */
	size_t cap; /* bytes allocated */
};

void seqbuf_init(struct seqbuf *sb);
void seqbuf_free(struct seqbuf *sb);

/* Appends formatted text: 0, or -ENOMEM (nothing of it appended). */
int seq_printf(struct seqbuf *sb, const char *fmt, ...) __printf(2, 3);
/* Appends n bytes: 0, or -ENOMEM. */
int seq_write(struct seqbuf *sb, const void *data, size_t n);

#endif
