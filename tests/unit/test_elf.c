/*
 * Unit tests of the ELF64 executable parser (kernel/proc/elf.c): a crafted
 * image shaped like musl's static output, then one broken field per check
 * (each asserting which check refused it), then the real static musl
 * programs of the build (build/user/elf-sample and every ELF in
 * build/rootfs/). Images are parsed from heap copies of exactly their
 * length, so ASan catches any read past the end.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/errno.h"
#include "proc/elf.h"
#include "unit.h"

#define PT_GNU_STACK 0x6474e551
#define IMG_LEN	     0x2200

struct img {
	struct elf64_ehdr eh;
	struct elf64_phdr ph[ELF_MAX_PHNUM + 4];
	unsigned nph;
	size_t len;
};

static void add_ph(struct img *m, u32 type, u32 flags, u64 off, u64 vaddr, u64 filesz, u64 memsz)
{
	m->ph[m->nph++] = (struct elf64_phdr){
		.p_type = type,
		.p_flags = flags,
		.p_offset = off,
		.p_vaddr = vaddr,
		.p_paddr = vaddr,
		.p_filesz = filesz,
		.p_memsz = memsz,
		.p_align = 0x1000,
	};
	m->eh.e_phnum = (u16)m->nph;
}

/* Like `musl-gcc -static`: R headers, RX text, RW data + bss, TLS and GNU_STACK. */
static void good(struct img *m)
{
	memset(m, 0, sizeof(*m));
	memcpy(m->eh.e_ident, ELF_MAG, 4);
	m->eh.e_ident[EI_CLASS] = ELFCLASS64;
	m->eh.e_ident[EI_DATA] = ELFDATA2LSB;
	m->eh.e_ident[EI_VERSION] = EV_CURRENT;
	m->eh.e_type = ET_EXEC;
	m->eh.e_machine = EM_X86_64;
	m->eh.e_version = EV_CURRENT;
	m->eh.e_entry = 0x401010;
	m->eh.e_phoff = sizeof(struct elf64_ehdr);
	m->eh.e_ehsize = sizeof(struct elf64_ehdr);
	m->eh.e_phentsize = sizeof(struct elf64_phdr);
	add_ph(m, PT_LOAD, PF_R, 0, 0x400000, 0x200, 0x200);
	add_ph(m, PT_LOAD, PF_R | PF_X, 0x1000, 0x401000, 0x800, 0x800);
	add_ph(m, PT_LOAD, PF_R | PF_W, 0x2010, 0x403010, 0x100, 0x900);
	add_ph(m, PT_TLS, PF_R, 0x2010, 0x403010, 8, 16);
	add_ph(m, PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0);
	m->len = IMG_LEN;
}

/*
 * Lays the image out in a heap buffer that ends exactly at its last byte,
 * starting skew bytes (0..7) into the allocation to test alignment.
 */
static u8 *emit(const struct img *m, size_t skew, u8 **base)
{
	size_t ph_bytes = m->nph * sizeof(struct elf64_phdr);
	u8 *b = calloc(1, skew + m->len + (skew + m->len == 0)), *p = b + skew;

	ck_assert_ptr_nonnull(b);
	memcpy(p, &m->eh, MIN(sizeof(m->eh), m->len));
	if (m->eh.e_phoff < m->len && ph_bytes)
		memcpy(p + m->eh.e_phoff, m->ph, MIN(ph_bytes, m->len - m->eh.e_phoff));
	for (size_t i = 0x1000; i < m->len; i++)
		p[i] = (u8)(i * 13); /* some "code" and "data" */
	*base = b;
	return p;
}

static int parse(const struct img *m, struct elf_image *out)
{
	u8 *base, *p = emit(m, 0, &base);
	int ret = elf_parse(p, m->len, out);

	free(base);
	return ret;
}

static void expect_refused(const struct img *m, const char *why)
{
	struct elf_image out;

	ck_assert_int_eq(parse(m, &out), -ENOEXEC);
	ck_assert_ptr_nonnull(out.why);
	ck_assert_msg(strstr(out.why, why), "refused for '%s', expected '%s'", out.why, why);
}

/* ---------------------------------------------------------------- good images */

START_TEST(parses_musl_shaped_image)
{
	struct img m;
	struct elf_image out;

	good(&m);
	ck_assert_int_eq(parse(&m, &out), 0);
	ck_assert_ptr_null(out.why);
	ck_assert_uint_eq(out.entry, 0x401010);
	ck_assert_uint_eq(out.phdr_vaddr, 0x400040);
	ck_assert_uint_eq(out.phnum, 5);
	ck_assert_uint_eq(out.phentsize, 56);
	ck_assert_uint_eq(out.nr_segments, 3);
	ck_assert_uint_eq(out.seg[0].vaddr, 0x400000);
	ck_assert_uint_eq(out.seg[0].prot, PROT_READ);
	ck_assert_uint_eq(out.seg[1].offset, 0x1000);
	ck_assert_uint_eq(out.seg[1].filesz, 0x800);
	ck_assert_uint_eq(out.seg[1].prot, PROT_READ | PROT_EXEC);
	ck_assert_uint_eq(out.seg[2].vaddr, 0x403010);
	ck_assert_uint_eq(out.seg[2].offset, 0x2010);
	ck_assert_uint_eq(out.seg[2].filesz, 0x100);
	ck_assert_uint_eq(out.seg[2].memsz, 0x900);
	ck_assert_uint_eq(out.seg[2].prot, PROT_READ | PROT_WRITE);
	ck_assert_uint_eq(out.end, 0x403910);
}
END_TEST

/* The initrd keeps file data only 4-byte aligned: headers are read with memcpy (UBSan watches). */
START_TEST(unaligned_buffer)
{
	struct img m;
	struct elf_image out;

	good(&m);
	for (size_t skew = 1; skew < 8; skew++) {
		u8 *base, *p = emit(&m, skew, &base);

		ck_assert_int_eq(elf_parse(p, m.len, &out), 0);
		ck_assert_uint_eq(out.phdr_vaddr, 0x400040);
		free(base);
	}
}
END_TEST

START_TEST(pt_phdr_agreeing_accepted)
{
	struct img m;
	struct elf_image out;

	good(&m);
	add_ph(&m, PT_PHDR, PF_R, 64, 0x400040, 6 * 56, 6 * 56);
	ck_assert_int_eq(parse(&m, &out), 0);
	ck_assert_uint_eq(out.phdr_vaddr, 0x400040);
}
END_TEST

START_TEST(headers_not_loaded_gives_zero_phdr)
{
	struct img m;
	struct elf_image out;

	good(&m);
	m.ph[0].p_offset = 0x1000; /* the R segment no longer holds the headers */
	m.ph[0].p_vaddr = 0x400000;
	ck_assert_int_eq(parse(&m, &out), 0);
	ck_assert_uint_eq(out.phdr_vaddr, 0);
}
END_TEST

START_TEST(empty_load_skipped)
{
	struct img m;
	struct elf_image out;

	good(&m);
	add_ph(&m, PT_LOAD, PF_R, 0, 0, 0, 0); /* nowhere, nothing: ignored */
	ck_assert_int_eq(parse(&m, &out), 0);
	ck_assert_uint_eq(out.nr_segments, 3);
}
END_TEST

START_TEST(segment_at_the_edges_of_user_space)
{
	struct img m;
	struct elf_image out;

	good(&m);
	m.ph[0].p_vaddr = USER_ADDR_MIN; /* lowest allowed */
	m.ph[2].p_vaddr = USER_ADDR_END - 0x1000 + 0x10;
	m.ph[2].p_memsz = 0x1000 - 0x10; /* ends exactly at the top */
	ck_assert_int_eq(parse(&m, &out), 0);
	ck_assert_uint_eq(out.end, USER_ADDR_END);
	ck_assert_uint_eq(out.phdr_vaddr, USER_ADDR_MIN + 64);
}
END_TEST

/* ---------------------------------------------------------------- one check each */

START_TEST(too_short)
{
	struct img m;
	struct elf_image out;

	good(&m);
	for (size_t len = 0; len < 64; len++) {
		m.len = len;
		ck_assert_int_eq(parse(&m, &out), -ENOEXEC);
		ck_assert_str_eq(out.why, "shorter than an ELF header");
	}
	ck_assert_int_eq(elf_parse(NULL, 100, &out), -ENOEXEC);
}
END_TEST

START_TEST(bad_magic)
{
	struct img m;

	for (int i = 0; i < 4; i++) {
		good(&m);
		m.eh.e_ident[i] ^= 0x20;
		expect_refused(&m, "bad magic");
	}
}
END_TEST

START_TEST(bad_class)
{
	struct img m;

	good(&m);
	m.eh.e_ident[EI_CLASS] = 1; /* ELFCLASS32 */
	expect_refused(&m, "not ELF64");
}
END_TEST

START_TEST(bad_endianness)
{
	struct img m;

	good(&m);
	m.eh.e_ident[EI_DATA] = 2; /* ELFDATA2MSB */
	expect_refused(&m, "little-endian");
}
END_TEST

START_TEST(bad_version)
{
	struct img m;

	good(&m);
	m.eh.e_ident[EI_VERSION] = 0;
	expect_refused(&m, "version");
	good(&m);
	m.eh.e_version = 2;
	expect_refused(&m, "version");
}
END_TEST

START_TEST(bad_type)
{
	struct img m;

	good(&m);
	m.eh.e_type = ET_DYN;
	expect_refused(&m, "ET_DYN");
	good(&m);
	m.eh.e_type = 1; /* ET_REL */
	expect_refused(&m, "not an executable");
	good(&m);
	m.eh.e_type = 4; /* ET_CORE */
	expect_refused(&m, "not an executable");
}
END_TEST

START_TEST(bad_machine)
{
	struct img m;

	good(&m);
	m.eh.e_machine = 3; /* i386 */
	expect_refused(&m, "not x86-64");
	good(&m);
	m.eh.e_machine = 183; /* AArch64 */
	expect_refused(&m, "not x86-64");
}
END_TEST

START_TEST(bad_ehsize)
{
	struct img m;

	good(&m);
	m.eh.e_ehsize = 52;
	expect_refused(&m, "e_ehsize");
}
END_TEST

START_TEST(bad_phentsize)
{
	struct img m;

	good(&m);
	m.eh.e_phentsize = 32;
	expect_refused(&m, "e_phentsize");
	good(&m);
	m.eh.e_phentsize = 64;
	expect_refused(&m, "e_phentsize");
}
END_TEST

START_TEST(no_program_headers)
{
	struct img m;

	good(&m);
	m.eh.e_phnum = 0;
	expect_refused(&m, "no program headers");
}
END_TEST

START_TEST(too_many_program_headers)
{
	struct img m;

	good(&m);
	while (m.nph <= ELF_MAX_PHNUM)
		add_ph(&m, PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0);
	m.eh.e_phoff = 0x100; /* room for them all before the text */
	m.ph[0].p_filesz = m.ph[0].p_memsz = 0x1000;
	expect_refused(&m, "too many program headers");
	m.eh.e_phnum = 0xffff; /* PN_XNUM: the real count elsewhere; not supported */
	expect_refused(&m, "too many program headers");
}
END_TEST

START_TEST(program_headers_outside_file)
{
	struct img m;

	good(&m);
	m.eh.e_phoff = IMG_LEN - 56 * 5 + 1; /* the last header's last byte is past the end */
	expect_refused(&m, "program headers outside the file");
	good(&m);
	m.eh.e_phoff = ~0ULL - 10; /* offset + table wraps */
	expect_refused(&m, "program headers outside the file");
	good(&m);
	m.eh.e_phoff = IMG_LEN;
	expect_refused(&m, "program headers outside the file");
}
END_TEST

START_TEST(interpreter_refused)
{
	struct img m;

	good(&m);
	add_ph(&m, PT_INTERP, PF_R, 0x190, 0x400190, 28, 28);
	expect_refused(&m, "PT_INTERP");
}
END_TEST

START_TEST(filesz_over_memsz)
{
	struct img m;

	good(&m);
	m.ph[2].p_filesz = 0x901;
	expect_refused(&m, "filesz > memsz");
	good(&m);
	m.ph[4] = m.ph[0]; /* an empty PT_LOAD still may not claim file bytes */
	m.ph[4].p_memsz = 0;
	expect_refused(&m, "filesz > memsz");
}
END_TEST

START_TEST(file_bytes_outside_file)
{
	struct img m;

	good(&m);
	m.ph[2].p_filesz = IMG_LEN - 0x2010 + 1;
	expect_refused(&m, "file bytes outside the file");
	good(&m);
	m.ph[1].p_offset = ~0ULL - 0xfff; /* offset + filesz wraps (congruent to vaddr) */
	expect_refused(&m, "file bytes outside the file");
	good(&m);
	m.ph[1].p_offset = 0x3000; /* entirely past the end */
	expect_refused(&m, "file bytes outside the file");
}
END_TEST

START_TEST(segment_wraps)
{
	struct img m;

	good(&m);
	m.ph[2].p_memsz = ~0ULL - 0x403000;
	expect_refused(&m, "wraps");
}
END_TEST

START_TEST(segment_outside_user_space)
{
	static const u64 bad_vaddr[] = { 0,
					 0x1000,
					 USER_ADDR_MIN - 0x1000,
					 USER_ADDR_END,
					 0x800000000000ULL,
					 0xffffffff80000000ULL };
	struct img m;

	for (size_t i = 0; i < ARRAY_SIZE(bad_vaddr); i++) {
		good(&m);
		m.ph[0].p_vaddr = bad_vaddr[i];
		expect_refused(&m, "outside user space");
	}
	good(&m);
	m.ph[2].p_memsz = USER_ADDR_END - 0x403010 + 1; /* one byte past the top */
	expect_refused(&m, "outside user space");
}
END_TEST

START_TEST(misaligned_segment)
{
	struct img m;

	good(&m);
	m.ph[1].p_vaddr = 0x401800;
	expect_refused(&m, "modulo the page size");
	good(&m);
	m.ph[2].p_offset = 0x2000; /* vaddr 0x403010 */
	expect_refused(&m, "modulo the page size");
}
END_TEST

START_TEST(overlapping_segments)
{
	struct img m;

	good(&m);
	m.ph[2].p_vaddr = 0x401010; /* on top of the text */
	expect_refused(&m, "overlap or share a page");
	good(&m);
	m.ph[2].p_vaddr = 0x401810; /* after the text's bytes but in its last page */
	m.ph[2].p_offset = 0x1810;
	expect_refused(&m, "overlap or share a page");
	good(&m);
	m.ph[0].p_memsz = 0x1001; /* the headers' bss reaches into the text's page */
	expect_refused(&m, "overlap or share a page");
}
END_TEST

START_TEST(too_many_segments)
{
	struct img m;

	good(&m);
	m.nph = 0;
	for (unsigned i = 0; i <= ELF_MAX_SEGMENTS; i++)
		add_ph(&m, PT_LOAD, PF_R | PF_X, 0x1000, 0x500000 + i * 0x2000ULL, 0x10, 0x10);
	m.eh.e_entry = 0x500000;
	expect_refused(&m, "more than ELF_MAX_SEGMENTS");
	m.eh.e_phnum = ELF_MAX_SEGMENTS; /* exactly the limit is fine */
	{
		struct elf_image out;

		ck_assert_int_eq(parse(&m, &out), 0);
		ck_assert_uint_eq(out.nr_segments, ELF_MAX_SEGMENTS);
	}
}
END_TEST

START_TEST(no_load_segment)
{
	struct img m;

	good(&m);
	for (int i = 0; i < 3; i++)
		m.ph[i].p_type = 0x70000000; /* PT_LOPROC: ignored */
	expect_refused(&m, "no PT_LOAD");
	good(&m);
	for (int i = 0; i < 3; i++)
		m.ph[i].p_memsz = m.ph[i].p_filesz = 0;
	expect_refused(&m, "no PT_LOAD");
}
END_TEST

START_TEST(pt_phdr_disagreeing)
{
	struct img m;

	good(&m);
	add_ph(&m, PT_PHDR, PF_R, 128, 0x400080, 6 * 56, 6 * 56);
	expect_refused(&m, "PT_PHDR does not describe");
	good(&m);
	add_ph(&m, PT_PHDR, PF_R, 64, 0x400080, 6 * 56, 6 * 56);
	expect_refused(&m, "PT_PHDR disagrees");
	good(&m);
	m.ph[0].p_offset = 0x1000; /* headers not loaded, yet PT_PHDR claims an address */
	add_ph(&m, PT_PHDR, PF_R, 64, 0x400040, 6 * 56, 6 * 56);
	expect_refused(&m, "PT_PHDR disagrees");
}
END_TEST

START_TEST(entry_outside_text)
{
	static const u64 bad_entry[] = {
		0, 0x400010, 0x400fff, 0x401800, 0x403010, 0x403900, 0xffffffff80000000ULL
	};
	struct img m;

	for (size_t i = 0; i < ARRAY_SIZE(bad_entry); i++) {
		good(&m);
		m.eh.e_entry = bad_entry[i];
		expect_refused(&m, "entry point outside");
	}
	good(&m);
	m.eh.e_entry = 0x4017ff; /* the text's last byte: fine */
	{
		struct elf_image out;

		ck_assert_int_eq(parse(&m, &out), 0);
	}
}
END_TEST

/* Every prefix of a good image is refused, without reading past it. */
START_TEST(every_truncation_refused)
{
	struct img m;
	struct elf_image out;

	good(&m);
	for (size_t len = 0; len < 0x2110; len++) {
		m.len = len;
		ck_assert_msg(parse(&m, &out) == -ENOEXEC, "accepted at %zu bytes", len);
	}
	m.len = 0x2110; /* the data segment's last file byte: complete */
	ck_assert_int_eq(parse(&m, &out), 0);
}
END_TEST

/* ---------------------------------------------------------------- real programs */

static const char *build_dir(void)
{
	const char *b = getenv("FULCRUM_BUILD");

	return b && *b ? b : "build";
}

static u8 *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	u8 *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n > 0 ? (size_t)n : 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Parses a real static musl program and cross-checks what it says against the file. */
static void check_real(const char *path, const u8 *p, size_t len, bool want_tls)
{
	struct elf_image out;
	struct elf64_ehdr eh;
	bool has_tls = false;

	ck_assert_msg(elf_parse(p, len, &out) == 0, "%s refused: %s", path, out.why);
	memcpy(&eh, p, sizeof(eh));
	ck_assert_uint_eq(out.entry, eh.e_entry);
	ck_assert_uint_eq(out.phnum, eh.e_phnum);
	ck_assert_msg(out.phdr_vaddr != 0, "%s: program headers not loaded (musl needs AT_PHDR)",
		      path);
	ck_assert_uint_ge(out.nr_segments, 2);
	for (unsigned i = 0; i < out.nr_segments; i++) {
		ck_assert_uint_ge(out.seg[i].vaddr, USER_ADDR_MIN);
		ck_assert_uint_le(out.seg[i].offset + out.seg[i].filesz, len);
	}
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		struct elf64_phdr ph;

		memcpy(&ph, p + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		has_tls |= ph.p_type == PT_TLS;
	}
	if (want_tls)
		ck_assert_msg(has_tls, "%s: no PT_TLS segment", path);
}

static int check_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[4096];
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			found += check_tree(path);
		} else if (S_ISREG(st.st_mode)) {
			size_t len;
			u8 *p = read_file(path, &len);

			if (p && len >= 4 && !memcmp(p, ELF_MAG, 4)) {
				check_real(path, p, len, false);
				found++;
			}
			free(p);
		}
	}
	closedir(d);
	return found;
}

/*
 * `make unit` builds build/user/elf-sample (and its static-pie twin) with
 * musl-gcc before running the tests; a missing sample is a failure, not a skip.
 */
START_TEST(real_musl_programs)
{
	char path[4096];
	size_t len;
	u8 *p;
	struct elf_image out;

	snprintf(path, sizeof(path), "%s/user/elf-sample", build_dir());
	p = read_file(path, &len);
	ck_assert_msg(p,
		      "%s missing: `make unit` builds it with musl-gcc (Debian package musl-tools)",
		      path);
	check_real(path, p, len, true); /* the sample has __thread data */
	free(p);

	snprintf(path, sizeof(path), "%s/user/elf-sample-pie", build_dir());
	p = read_file(path, &len);
	ck_assert_msg(p, "%s missing: `make unit` builds it with musl-gcc -static-pie", path);
	ck_assert_int_eq(elf_parse(p, len, &out), -ENOEXEC);
	ck_assert_msg(strstr(out.why, "ET_DYN"), "static-pie refused for '%s'", out.why);
	free(p);

	/* Whatever user programs the initrd carries (none yet is fine). */
	snprintf(path, sizeof(path), "%s/rootfs", build_dir());
	printf("elf: %d programs in %s parsed\n", check_tree(path), path);
}
END_TEST

Suite *elf_suite(void)
{
	Suite *s = suite_create("elf");
	TCase *g = tcase_create("good");
	TCase *b = tcase_create("refused");
	TCase *r = tcase_create("real");

	tcase_add_test(g, parses_musl_shaped_image);
	tcase_add_test(g, unaligned_buffer);
	tcase_add_test(g, pt_phdr_agreeing_accepted);
	tcase_add_test(g, headers_not_loaded_gives_zero_phdr);
	tcase_add_test(g, empty_load_skipped);
	tcase_add_test(g, segment_at_the_edges_of_user_space);
	suite_add_tcase(s, g);

	tcase_add_test(b, too_short);
	tcase_add_test(b, bad_magic);
	tcase_add_test(b, bad_class);
	tcase_add_test(b, bad_endianness);
	tcase_add_test(b, bad_version);
	tcase_add_test(b, bad_type);
	tcase_add_test(b, bad_machine);
	tcase_add_test(b, bad_ehsize);
	tcase_add_test(b, bad_phentsize);
	tcase_add_test(b, no_program_headers);
	tcase_add_test(b, too_many_program_headers);
	tcase_add_test(b, program_headers_outside_file);
	tcase_add_test(b, interpreter_refused);
	tcase_add_test(b, filesz_over_memsz);
	tcase_add_test(b, file_bytes_outside_file);
	tcase_add_test(b, segment_wraps);
	tcase_add_test(b, segment_outside_user_space);
	tcase_add_test(b, misaligned_segment);
	tcase_add_test(b, overlapping_segments);
	tcase_add_test(b, too_many_segments);
	tcase_add_test(b, no_load_segment);
	tcase_add_test(b, pt_phdr_disagreeing);
	tcase_add_test(b, entry_outside_text);
	tcase_add_test(b, every_truncation_refused);
	suite_add_tcase(s, b);

	tcase_add_test(r, real_musl_programs);
	suite_add_tcase(s, r);
	return s;
}
