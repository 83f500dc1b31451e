/*
 * ELF64 program-image checks for execve: header, program headers, then
 * each PT_LOAD against the file, user space and the others. Pure: every
 * header is copied out of the buffer with memcpy (the initrd keeps file
 * data only 4-byte aligned), every sum is checked for wrapping first.
 */
#include "proc/elf.h"

#include <arch/memory.h>

#include "lib/errno.h"
#include "lib/string.h"

/* Nothing half-filled survives a refusal: only the reason. */
static int refuse(struct elf_image *out, const char *why)
{
	memset(out, 0, sizeof(*out));
	out->why = why;
	return -ENOEXEC;
}

/* a + b, or false if it wraps. */
static bool add_ok(u64 a, u64 b, u64 *sum)
{
	*sum = a + b;
	return *sum >= a;
}

static unsigned prot_of(u32 p_flags)
{
	return (p_flags & PF_R ? PROT_READ : 0) | (p_flags & PF_W ? PROT_WRITE : 0) |
	       (p_flags & PF_X ? PROT_EXEC : 0);
}

static const char *check_ehdr(const struct elf64_ehdr *eh, size_t size)
{
	u64 table, end;

	if (memcmp(eh->e_ident, ELF_MAG, 4))
		return "not an ELF file (bad magic)";
	if (eh->e_ident[EI_CLASS] != ELFCLASS64)
		return "not ELF64";
	if (eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return "not little-endian";
	if (eh->e_ident[EI_VERSION] != EV_CURRENT || eh->e_version != EV_CURRENT)
		return "unknown ELF version";
	if (eh->e_type == ET_DYN)
		return "ET_DYN (shared object or static-pie): only ET_EXEC is loaded";
	if (eh->e_type != ET_EXEC)
		return "not an executable (e_type)";
	if (eh->e_machine != EM_X86_64)
		return "not x86-64 (e_machine)";
	if (eh->e_ehsize != sizeof(struct elf64_ehdr))
		return "bad e_ehsize";
	if (eh->e_phentsize != sizeof(struct elf64_phdr))
		return "bad e_phentsize";
	if (eh->e_phnum == 0)
		return "no program headers";
	if (eh->e_phnum > ELF_MAX_PHNUM)
		return "too many program headers";
	table = (u64)eh->e_phnum * sizeof(struct elf64_phdr);
	if (!add_ok(eh->e_phoff, table, &end) || end > size)
		return "program headers outside the file";
	return NULL;
}

/* One PT_LOAD on its own: file bytes, user range, alignment. */
static const char *check_load(const struct elf64_phdr *ph, size_t size)
{
	u64 file_end, mem_end;

	if (!add_ok(ph->p_offset, ph->p_filesz, &file_end) || file_end > size)
		return "segment's file bytes outside the file";
	if (!add_ok(ph->p_vaddr, ph->p_memsz, &mem_end))
		return "segment wraps around the address space";
	if (ph->p_vaddr < USER_ADDR_MIN || mem_end > USER_ADDR_END)
		return "segment outside user space";
	if ((ph->p_vaddr & (PAGE_SIZE - 1)) != (ph->p_offset & (PAGE_SIZE - 1)))
		return "segment's vaddr and offset differ modulo the page size";
	return NULL;
}

/* Page-granular: each page belongs to one segment, with that segment's rights. */
static bool share_a_page(const struct elf_segment *a, const struct elf_segment *b)
{
	u64 a_lo = ALIGN_DOWN(a->vaddr, PAGE_SIZE), a_hi = ALIGN_UP(a->vaddr + a->memsz, PAGE_SIZE);
	u64 b_lo = ALIGN_DOWN(b->vaddr, PAGE_SIZE), b_hi = ALIGN_UP(b->vaddr + b->memsz, PAGE_SIZE);

	return a_lo < b_hi && b_lo < a_hi;
}

int elf_parse(const void *data, size_t size, struct elf_image *out)
{
	const u8 *bytes = data;
	struct elf64_ehdr eh;
	const char *why;
	u64 phdr_table_end, pt_phdr_vaddr = 0;
	bool have_pt_phdr = false, entry_ok = false;

	memset(out, 0, sizeof(*out));
	if (!data || size < sizeof(eh))
		return refuse(out, "shorter than an ELF header");
	memcpy(&eh, bytes, sizeof(eh));
	why = check_ehdr(&eh, size);
	if (why)
		return refuse(out, why);
	phdr_table_end = eh.e_phoff + (u64)eh.e_phnum * sizeof(struct elf64_phdr);

	for (u16 i = 0; i < eh.e_phnum; i++) {
		struct elf64_phdr ph;
		struct elf_segment *seg;

		memcpy(&ph, bytes + eh.e_phoff + (u64)i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_INTERP)
			return refuse(out,
				      "PT_INTERP: dynamically linked (only static programs run)");
		if (ph.p_type == PT_PHDR) {
			if (ph.p_offset != eh.e_phoff)
				return refuse(out, "PT_PHDR does not describe the program headers");
			have_pt_phdr = true;
			pt_phdr_vaddr = ph.p_vaddr;
			continue;
		}
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_filesz > ph.p_memsz)
			return refuse(out, "segment with filesz > memsz");
		if (ph.p_memsz == 0)
			continue; /* maps nothing: no address to check */
		why = check_load(&ph, size);
		if (why)
			return refuse(out, why);
		if (out->nr_segments == ELF_MAX_SEGMENTS)
			return refuse(out, "more than ELF_MAX_SEGMENTS PT_LOAD segments");
		seg = &out->seg[out->nr_segments];
		*seg = (struct elf_segment){
			.vaddr = ph.p_vaddr,
			.memsz = ph.p_memsz,
			.offset = ph.p_offset,
			.filesz = ph.p_filesz,
			.prot = prot_of(ph.p_flags),
		};
		for (unsigned j = 0; j < out->nr_segments; j++)
			if (share_a_page(seg, &out->seg[j]))
				return refuse(out, "PT_LOAD segments overlap or share a page");
		out->nr_segments++;
		/* The headers' address for AT_PHDR: inside this segment's file bytes. */
		if (!out->phdr_vaddr && ph.p_offset <= eh.e_phoff &&
		    phdr_table_end <= ph.p_offset + ph.p_filesz)
			out->phdr_vaddr = ph.p_vaddr + (eh.e_phoff - ph.p_offset);
		if (seg->vaddr + seg->memsz > out->end)
			out->end = seg->vaddr + seg->memsz;
		if ((seg->prot & PROT_EXEC) && eh.e_entry >= seg->vaddr &&
		    eh.e_entry - seg->vaddr < seg->memsz)
			entry_ok = true;
	}

	if (!out->nr_segments)
		return refuse(out, "no PT_LOAD segment");
	if (have_pt_phdr && pt_phdr_vaddr != out->phdr_vaddr)
		return refuse(out, "PT_PHDR disagrees with where a PT_LOAD puts the program headers");
	if (!entry_ok)
		return refuse(out, "entry point outside every executable segment");
	out->entry = eh.e_entry;
	out->phnum = eh.e_phnum;
	out->phentsize = eh.e_phentsize;
	return 0;
}
