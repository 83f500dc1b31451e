/*
 * ELF64 executables: a pure parser that checks a static x86-64 program
 * image and says where its PT_LOAD segments go. execve maps what it
 * returns; nothing here touches memory other than the file's bytes.
 */
#ifndef FULCRUM_PROC_ELF_H
#define FULCRUM_PROC_ELF_H

#include <arch/addr_space.h>

#include "lib/compiler.h"
#include "lib/types.h"

/* ------------------------------------------------------------ the format */

#define ELF_MAG	    "\177ELF"
#define EI_CLASS    4
#define EI_DATA	    5
#define EI_VERSION  6
#define EI_NIDENT   16
#define ELFCLASS64  2
#define ELFDATA2LSB 1
#define EV_CURRENT  1
#define ET_EXEC	    2
#define ET_DYN	    3
#define EM_X86_64   62

#define PT_LOAD	   1
#define PT_DYNAMIC 2
#define PT_INTERP  3
#define PT_PHDR	   6
#define PT_TLS	   7

#define PF_X 1
#define PF_W 2
#define PF_R 4

struct elf64_ehdr {
	u8 e_ident[EI_NIDENT];
	u16 e_type;
	u16 e_machine;
	u32 e_version;
	u64 e_entry;
	u64 e_phoff;
	u64 e_shoff;
	u32 e_flags;
	u16 e_ehsize;
	u16 e_phentsize;
	u16 e_phnum;
	u16 e_shentsize;
	u16 e_shnum;
	u16 e_shstrndx;
} __packed;
_Static_assert(sizeof(struct elf64_ehdr) == 64, "Elf64_Ehdr");

struct elf64_phdr {
	u32 p_type;
	u32 p_flags;
	u64 p_offset;
	u64 p_vaddr;
	u64 p_paddr;
	u64 p_filesz;
	u64 p_memsz;
	u64 p_align;
} __packed;
_Static_assert(sizeof(struct elf64_phdr) == 56, "Elf64_Phdr");

/* ------------------------------------------------------------ the parser */

#define ELF_MAX_SEGMENTS 16 /* PT_LOAD entries kept; more is refused (musl makes 4) */
#define ELF_MAX_PHNUM	 64 /* program headers read at most; more is refused */

struct elf_segment {
	u64 vaddr, memsz;   /* [vaddr, vaddr + memsz) in user space */
	u64 offset, filesz; /* file bytes [offset, offset + filesz) go at vaddr; the rest is zero */
	unsigned prot; /* PROT_READ | PROT_WRITE | PROT_EXEC (arch/addr_space.h) from p_flags */
};

struct elf_image {
	u64 entry;
	u64 phdr_vaddr; /* the program headers' user address, for AT_PHDR; 0 if no PT_LOAD holds them */
	u16 phnum, phentsize; /* AT_PHNUM, AT_PHENT */
	u64 end;	      /* highest segment end: brk starts at its page-rounded value */
	unsigned nr_segments;
	struct elf_segment seg[ELF_MAX_SEGMENTS]; /* in file order; no two share a page */
	const char *why;			  /* after -ENOEXEC: which check failed */
};

/*
 * Checks the image data[0, size) and describes it in *out. 0, or -ENOEXEC
 * (out->why says which check failed) unless it is a static x86-64 ELF64
 * executable this kernel can load: the ident (magic, 64-bit class,
 * little-endian, version), ET_EXEC (ET_DYN, static-pie included, is
 * refused: there is no load bias), EM_X86_64, e_ehsize and e_phentsize,
 * 1..ELF_MAX_PHNUM program headers inside the file, no PT_INTERP, 1 to
 * ELF_MAX_SEGMENTS non-empty PT_LOADs, each with filesz <= memsz, its file
 * bytes inside the file, its memory inside [USER_ADDR_MIN, USER_ADDR_END)
 * without wrapping, vaddr and offset congruent modulo the page size, and no
 * page shared with another PT_LOAD; a PT_PHDR agreeing with where the
 * headers are loaded; the entry point inside an executable segment.
 * PT_LOADs with memsz 0 (and so filesz 0) are skipped, wherever they say.
 */
int elf_parse(const void *data, size_t size, struct elf_image *out);

#endif
