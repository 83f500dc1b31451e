/*
 * libFuzzer target over the ELF64 executable parser (kernel/proc/elf.c).
 * Besides ASan and UBSan, an accepted image is checked against the
 * promises elf_parse makes to execve: segments inside the file and user
 * space, page-disjoint, and the entry point in an executable one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <arch/memory.h>

#include "lib/errno.h"
#include "proc/elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy: libFuzzer's buffer may have slack ASan cannot see. */
	u8 *buf = malloc(size ? size : 1);
	struct elf_image img;
	bool entry_ok = false;

	memcpy(buf, data, size);
	if (elf_parse(buf, size, &img) != 0) {
		if (!img.why)
			abort();
		free(buf);
		return 0;
	}
	if (img.nr_segments == 0 || img.nr_segments > ELF_MAX_SEGMENTS)
		abort();
	for (unsigned i = 0; i < img.nr_segments; i++) {
		const struct elf_segment *s = &img.seg[i];

		if (s->filesz > s->memsz || s->offset > size || s->filesz > size - s->offset)
			abort();
		if (s->vaddr < USER_ADDR_MIN || s->memsz > USER_ADDR_END - s->vaddr)
			abort();
		if ((s->vaddr ^ s->offset) & (PAGE_SIZE - 1))
			abort();
		if (s->vaddr + s->memsz > img.end)
			abort();
		for (unsigned j = 0; j < i; j++)
			if (ALIGN_DOWN(s->vaddr, PAGE_SIZE) <
				    ALIGN_UP(img.seg[j].vaddr + img.seg[j].memsz, PAGE_SIZE) &&
			    ALIGN_DOWN(img.seg[j].vaddr, PAGE_SIZE) <
				    ALIGN_UP(s->vaddr + s->memsz, PAGE_SIZE))
				abort();
		if ((s->prot & PROT_EXEC) && img.entry >= s->vaddr && img.entry - s->vaddr < s->memsz)
			entry_ok = true;
	}
	if (!entry_ok)
		abort();
	free(buf);
	return 0;
}
