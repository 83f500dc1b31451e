/*
 * Unit tests of the multiboot2 info parser (kernel/boot/multiboot2.c):
 * hand-built info buffers, well-formed and broken. Each buffer is a heap
 * copy of exactly its length, so ASan catches any read past the end.
 */
#include <stdlib.h>
#include <string.h>

#include "boot/multiboot2.h"
#include "lib/compiler.h"
#include "fake_arch.h"
#include "lib/errno.h"
#include "unit.h"

/* ---------------------------------------------------------------- builder */

struct mbi {
	u8 buf[16384];
	size_t len;
};

static void put32(u8 *p, u32 v)
{
	memcpy(p, &v, sizeof(v));
}

static void put64(u8 *p, u64 v)
{
	memcpy(p, &v, sizeof(v));
}

static void mbi_begin(struct mbi *m)
{
	memset(m, 0, sizeof(*m));
	m->len = 8;
}

/* Appends a tag of the given declared size; payload may be shorter (rest zero). */
static void mbi_tag_sized(struct mbi *m, u32 type, u32 size, const void *payload, size_t plen)
{
	u8 *t = m->buf + m->len;

	ck_assert_uint_le(m->len + 8 + plen, sizeof(m->buf));
	put32(t, type);
	put32(t + 4, size);
	if (plen)
		memcpy(t + 8, payload, plen);
	m->len += 8 + plen;
	m->len = (m->len + 7) & ~(size_t)7;
}

static void mbi_tag(struct mbi *m, u32 type, const void *payload, size_t plen)
{
	mbi_tag_sized(m, type, (u32)(8 + plen), payload, plen);
}

static void mbi_string(struct mbi *m, u32 type, const char *s)
{
	mbi_tag(m, type, s, strlen(s) + 1);
}

static void mbi_module(struct mbi *m, u32 start, u32 end, const char *name)
{
	u8 p[256];

	put32(p, start);
	put32(p + 4, end);
	memcpy(p + 8, name, strlen(name) + 1);
	mbi_tag(m, 3, p, 8 + strlen(name) + 1);
}

struct test_mem {
	u64 base, len;
	u32 type;
};

static void mbi_mmap(struct mbi *m, const struct test_mem *e, size_t n, u32 entry_size)
{
	static u8 p[16 * 1024];
	size_t plen = 8 + n * entry_size;

	ck_assert_uint_le(plen, sizeof(p));
	memset(p, 0xee, plen); /* junk in the bytes past each entry's known fields */
	put32(p, entry_size);
	put32(p + 4, 0);
	for (size_t i = 0; i < n; i++) {
		u8 *q = p + 8 + i * entry_size;

		put64(q, e[i].base);
		put64(q + 8, e[i].len);
		put32(q + 16, e[i].type);
		put32(q + 20, 0);
	}
	mbi_tag(m, 6, p, plen);
}

struct test_efi {
	u32 type;
	u64 base, pages, attribute;
};

/* Tag 17: EFI memory descriptors of descr_size bytes (the firmware's may be longer than 40). */
static void mbi_efi_mmap(struct mbi *m, const struct test_efi *d, size_t n, u32 descr_size)
{
	static u8 p[8 * 1024];
	size_t plen = 8 + n * descr_size;

	ck_assert_uint_le(plen, sizeof(p));
	memset(p, 0xee, plen);
	put32(p, descr_size);
	put32(p + 4, 1);
	for (size_t i = 0; i < n; i++) {
		u8 *q = p + 8 + i * descr_size;

		put32(q, d[i].type);
		put32(q + 4, 0);
		put64(q + 8, d[i].base);
		put64(q + 16, 0);
		put64(q + 24, d[i].pages);
		put64(q + 32, d[i].attribute);
	}
	mbi_tag(m, 17, p, plen);
}

static void mbi_fb(struct mbi *m, u64 addr, u32 pitch, u32 w, u32 h, u8 bpp, u8 type)
{
	u8 p[24 + 8] = { 0 }; /* common part, then room for colour info */

	put64(p, addr);
	put32(p + 8, pitch);
	put32(p + 12, w);
	put32(p + 16, h);
	p[20] = bpp;
	p[21] = type;
	mbi_tag(m, 8, p, type == 2 ? 24 : sizeof(p));
}

static void mbi_rsdp(struct mbi *m, bool v2, u8 fill)
{
	u8 p[36];

	memset(p, fill, sizeof(p));
	memcpy(p, "RSD PTR ", 8);
	mbi_tag(m, v2 ? 15 : 14, p, v2 ? 36 : 20);
}

/* Adds the end tag and the total size; returns the length. */
static size_t mbi_end(struct mbi *m)
{
	mbi_tag(m, 0, NULL, 0);
	put32(m->buf, (u32)m->len);
	return m->len;
}

/* Ends without an end tag: total_size is just the bytes so far, unpadded. */
static size_t mbi_close_at(struct mbi *m, size_t len)
{
	m->len = len;
	put32(m->buf, (u32)len);
	return len;
}

/* An exact-size heap copy, so reading one byte too far is an ASan error. */
static int parse_copy(const u8 *bytes, size_t len, size_t avail, struct boot_info *bi)
{
	u8 *copy = malloc(avail ? avail : 1);
	int ret;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, bytes, MIN(len, avail));
	ret = multiboot2_parse(copy, avail, 0x10000, bi);
	free(copy);
	return ret;
}

static int parse(struct mbi *m, struct boot_info *bi)
{
	return parse_copy(m->buf, m->len, m->len, bi);
}

static struct boot_info bi; /* 20 KiB: too big for a comfortable stack frame */

static void setup(void)
{
	fake_console_reset();
	memset(&bi, 0xa5, sizeof(bi)); /* the parser must clear what it does not fill */
}

/* ---------------------------------------------------------------- tests */

/* What QEMU 7.2 + GRUB 2.06 hand over with 128 MiB and an initrd. */
static const struct test_mem qemu_mem[] = {
	{ 0x0, 0x9fc00, 1 },	    { 0x9fc00, 0x400, 2 },     { 0xf0000, 0x10000, 2 },
	{ 0x100000, 0x7ee0000, 1 }, { 0x7fe0000, 0x20000, 2 }, { 0xfffc0000, 0x40000, 2 },
};

static size_t build_qemu(struct mbi *m)
{
	mbi_begin(m);
	mbi_string(m, 1, "loglevel=4 ktest=all");
	mbi_string(m, 2, "GRUB 2.06-13+deb12u1");
	mbi_module(m, 0x138000, 0x15a000, "initrd");
	mbi_tag(m, 21, "\x00\x00\x10\x00", 4); /* load base address: unknown to us */
	{
		u8 p[8];

		put32(p, 639);
		put32(p + 4, 129920);
		mbi_tag(m, 4, p, 8);
	}
	mbi_tag(m, 5, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 12); /* boot device */
	mbi_mmap(m, qemu_mem, ARRAY_SIZE(qemu_mem), 24);
	mbi_fb(m, 0xb8000, 160, 80, 25, 16, 2);
	mbi_rsdp(m, false, 0x11);
	return mbi_end(m);
}

START_TEST(test_qemu_like)
{
	static struct mbi m;
	size_t len = build_qemu(&m);

	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_uint_eq(bi.warnings, 0);
	ck_assert_str_eq(fake_console_text(), "");
	ck_assert_str_eq(bi.cmdline, "loglevel=4 ktest=all");
	ck_assert_str_eq(bi.loader_name, "GRUB 2.06-13+deb12u1");
	ck_assert_uint_eq(bi.nr_modules, 1);
	ck_assert_uint_eq(bi.modules[0].start, 0x138000);
	ck_assert_uint_eq(bi.modules[0].end, 0x15a000);
	ck_assert_str_eq(bi.modules[0].name, "initrd");
	ck_assert(bi.have_basic_mem);
	ck_assert_uint_eq(bi.mem_lower_kib, 639);
	ck_assert_uint_eq(bi.mem_upper_kib, 129920);
	ck_assert_uint_eq(bi.nr_mem, ARRAY_SIZE(qemu_mem));
	for (size_t i = 0; i < ARRAY_SIZE(qemu_mem); i++) {
		ck_assert_uint_eq(bi.mem[i].base, qemu_mem[i].base);
		ck_assert_uint_eq(bi.mem[i].length, qemu_mem[i].len);
		ck_assert_uint_eq(bi.mem[i].type, qemu_mem[i].type);
	}
	ck_assert_int_eq(bi.fb.type, BOOT_FB_TEXT);
	ck_assert_uint_eq(bi.fb.addr, 0xb8000);
	ck_assert_uint_eq(bi.fb.pitch, 160);
	ck_assert_uint_eq(bi.fb.width, 80);
	ck_assert_uint_eq(bi.fb.height, 25);
	ck_assert_uint_eq(bi.fb.bpp, 16);
	ck_assert_uint_eq(bi.rsdp_len, 20);
	ck_assert_mem_eq(bi.rsdp, "RSD PTR \x11\x11", 10);
	ck_assert_uint_eq(bi.mbi_start, 0x10000);
	ck_assert_uint_eq(bi.mbi_end, 0x10000 + len);
}
END_TEST

/* The same info at an odd address: the parser must not assume alignment. */
START_TEST(test_unaligned_buffer)
{
	static struct mbi m;
	size_t len = build_qemu(&m);
	u8 *raw = malloc(len + 1);

	memcpy(raw + 1, m.buf, len);
	ck_assert_int_eq(multiboot2_parse(raw + 1, len, 0x10000, &bi), 0);
	free(raw);
	ck_assert_uint_eq(bi.warnings, 0);
	ck_assert_uint_eq(bi.nr_mem, ARRAY_SIZE(qemu_mem));
	ck_assert_uint_eq(bi.mem[3].length, 0x7ee0000);
	ck_assert_str_eq(bi.modules[0].name, "initrd");
}
END_TEST

/*
 * Every prefix of a full info, both as a buffer too short for its
 * total_size and as an info whose total_size says it ends there: never a
 * crash, never a read past the end (ASan), always a clean result.
 */
START_TEST(test_truncated_everywhere)
{
	static struct mbi m;
	static u8 cut[sizeof(m.buf)];
	size_t len = build_qemu(&m);

	for (size_t n = 0; n <= len; n++) {
		int ret = parse_copy(m.buf, len, n, &bi);

		ck_assert_int_eq(ret, n == len ? 0 : -EINVAL);

		memcpy(cut, m.buf, n);
		if (n >= 4)
			put32(cut, (u32)n);
		ret = parse_copy(cut, n, n, &bi);
		ck_assert_int_eq(ret, n < 16 ? -EINVAL : 0);
		ck_assert_uint_le(bi.nr_mem, ARRAY_SIZE(qemu_mem));
		ck_assert_uint_le(bi.nr_modules, 1);
		ck_assert_uint_lt(strlen(bi.cmdline), sizeof(bi.cmdline));
		if (ret == 0 && n < len)
			ck_assert_uint_ge(bi.warnings, 1);
	}
}
END_TEST

START_TEST(test_bad_total_size)
{
	static struct mbi m;
	size_t len;

	mbi_begin(&m);
	len = mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0); /* header + end tag: the smallest valid info */
	ck_assert_uint_eq(bi.warnings, 0);
	ck_assert_uint_eq(bi.mbi_end - bi.mbi_start, 16);

	put32(m.buf, 0xffffffff);
	ck_assert_int_eq(parse(&m, &bi), -EINVAL);
	ck_assert_uint_eq(bi.warnings, 1);
	ck_assert_uint_eq(bi.mbi_end, 0);

	put32(m.buf, 8);
	ck_assert_int_eq(parse(&m, &bi), -EINVAL);
	put32(m.buf, 0);
	ck_assert_int_eq(parse(&m, &bi), -EINVAL);
	put32(m.buf, (u32)len + 1);
	ck_assert_int_eq(parse(&m, &bi), -EINVAL);
	ck_assert_int_eq(multiboot2_parse(NULL, 4096, 0, &bi), -EINVAL);
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "multiboot2: total size 4294967295"));
}
END_TEST

/* A shorter total_size than the buffer: the bytes beyond it are not looked at. */
START_TEST(test_total_size_bounds_walk)
{
	static struct mbi m;
	size_t end_of_cmdline;

	mbi_begin(&m);
	mbi_string(&m, 1, "first");
	end_of_cmdline = m.len;
	mbi_string(&m, 2, "beyond");
	mbi_end(&m);
	put32(m.buf, (u32)end_of_cmdline);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_str_eq(bi.cmdline, "first");
	ck_assert_str_eq(bi.loader_name, "");
	ck_assert_uint_eq(bi.warnings, 1); /* no end tag */
}
END_TEST

START_TEST(test_zero_size_tag)
{
	static struct mbi m;

	mbi_begin(&m);
	mbi_string(&m, 1, "before");
	mbi_tag_sized(&m, 7, 0, NULL, 0);
	mbi_string(&m, 2, "after");
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_str_eq(bi.cmdline, "before");
	ck_assert_str_eq(bi.loader_name, "");
	ck_assert_uint_eq(bi.warnings, 1);
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "bad size 0 "));
}
END_TEST

START_TEST(test_tag_past_end)
{
	static struct mbi m;

	mbi_begin(&m);
	mbi_string(&m, 1, "ok");
	mbi_tag_sized(&m, 2, 4096, "GRUB", 5);
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_str_eq(bi.cmdline, "ok");
	ck_assert_str_eq(bi.loader_name, "");
	ck_assert_uint_eq(bi.warnings, 1);

	/* A size just short of 8 is as bad. */
	mbi_begin(&m);
	mbi_tag_sized(&m, 1, 7, "abcdefgh", 8);
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_str_eq(bi.cmdline, "");
	ck_assert_uint_eq(bi.warnings, 1);
}
END_TEST

/* Tags after the end tag are not part of the info. */
START_TEST(test_end_tag_stops)
{
	static struct mbi m;

	mbi_begin(&m);
	mbi_tag(&m, 0, NULL, 0);
	mbi_string(&m, 1, "hidden");
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_str_eq(bi.cmdline, "");
	ck_assert_uint_eq(bi.warnings, 0);
}
END_TEST

START_TEST(test_missing_end_tag)
{
	static struct mbi m;

	mbi_begin(&m);
	mbi_string(&m, 1, "x=1");
	mbi_close_at(&m, m.len);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_str_eq(bi.cmdline, "x=1");
	ck_assert_uint_eq(bi.warnings, 1);
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "no end tag"));
}
END_TEST

START_TEST(test_mmap_entry_size)
{
	static struct mbi m;

	/* Too small to hold an entry: the map is refused. */
	mbi_begin(&m);
	mbi_mmap(&m, qemu_mem, ARRAY_SIZE(qemu_mem), 16);
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_uint_eq(bi.nr_mem, 0);
	ck_assert_uint_eq(bi.warnings, 1);

	mbi_begin(&m);
	mbi_mmap(&m, qemu_mem, 2, 0);
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_uint_eq(bi.nr_mem, 0);
	ck_assert_uint_eq(bi.warnings, 1);

	/* Larger than we know: stride by entry_size, read the known prefix. */
	mbi_begin(&m);
	mbi_mmap(&m, qemu_mem, ARRAY_SIZE(qemu_mem), 40);
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_uint_eq(bi.warnings, 0);
	ck_assert_uint_eq(bi.nr_mem, ARRAY_SIZE(qemu_mem));
	ck_assert_uint_eq(bi.mem[5].base, 0xfffc0000);
	ck_assert_uint_eq(bi.mem[5].type, 2);
}
END_TEST

/* An entry cut by the tag's end is not read; the whole ones are kept. */
START_TEST(test_mmap_partial_entry)
{
	static struct mbi m;
	u8 p[8 + 2 * 24];

	memset(p, 0, sizeof(p));
	put32(p, 24);
	put64(p + 8, 0x100000);
	put64(p + 16, 0x1000);
	put32(p + 24, 1);
	mbi_begin(&m);
	mbi_tag(&m, 6, p, 8 + 24 + 10);
	mbi_close_at(&m, 8 + 8 + 8 + 24 + 10); /* the tag is the last byte of the buffer */
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_uint_eq(bi.nr_mem, 1);
	ck_assert_uint_eq(bi.mem[0].base, 0x100000);
	ck_assert_uint_eq(bi.warnings, 1); /* no end tag */
}
END_TEST

START_TEST(test_mmap_too_many_entries)
{
	static struct mbi m;
	static struct test_mem many[BOOT_MAX_MEM_ENTRIES + 5];

	for (size_t i = 0; i < ARRAY_SIZE(many); i++)
		many[i] = (struct test_mem){ i * 0x10000, 0x10000, 1 + i % 2 };
	mbi_begin(&m);
	mbi_mmap(&m, many, ARRAY_SIZE(many), 24);
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_uint_eq(bi.nr_mem, BOOT_MAX_MEM_ENTRIES);
	ck_assert_uint_eq(bi.mem[BOOT_MAX_MEM_ENTRIES - 1].base,
			  (BOOT_MAX_MEM_ENTRIES - 1) * 0x10000);
	ck_assert_uint_eq(bi.warnings, 1);
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "133 entries, keeping the first 128"));
}
END_TEST

START_TEST(test_second_mmap_ignored)
{
	static struct mbi m;

	mbi_begin(&m);
	mbi_mmap(&m, qemu_mem, 2, 24);
	mbi_mmap(&m, qemu_mem + 3, 3, 24);
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_uint_eq(bi.nr_mem, 2);
	ck_assert_uint_eq(bi.mem[1].base, 0x9fc00);
	ck_assert_uint_eq(bi.warnings, 1);
}
END_TEST

#define WB (1ULL << 3)

/*
 * An OVMF-like EFI map: boot-services and loader ranges are free RAM
 * (GRUB left boot services), neighbours of one kind merge, runtime and MMIO
 * ranges are reserved, free memory without WB or marked specific-purpose
 * is kept out. It wins over tag 6, in either order.
 */
START_TEST(test_efi_mmap)
{
	static struct mbi m;
	static const struct test_efi efi[] = {
		{ 3, 0x0, 0xa0, WB },			  /* boot services code */
		{ 7, 0x100000, 0x700, WB },		  /* conventional */
		{ 4, 0x800000, 0x10, WB },		  /* boot services data: merges */
		{ 2, 0x810000, 0x10, WB },		  /* loader data: merges */
		{ 10, 0x820000, 0x10, WB },		  /* ACPI NVS */
		{ 9, 0x830000, 0x10, WB },		  /* ACPI reclaim */
		{ 6, 0x840000, 0x10, WB },		  /* runtime services data */
		{ 7, 0x850000, 0x10, 0x1 },		  /* conventional, UC only */
		{ 7, 0x860000, 0x10, WB | (1ULL << 18) }, /* specific purpose */
		{ 8, 0x870000, 0x10, WB },		  /* unusable */
		{ 11, 0xb0000000, 0x10000, 0 },		  /* MMIO */
		{ 7, 0x900000, 0, WB },			  /* empty: dropped */
	};
	static const struct test_mem want[] = {
		{ 0x0, 0xa0000, MEM_USABLE },
		{ 0x100000, 0x720000, MEM_USABLE },
		{ 0x820000, 0x10000, MEM_ACPI_NVS },
		{ 0x830000, 0x10000, MEM_ACPI_RECLAIMABLE },
		{ 0x840000, 0x30000, MEM_RESERVED },
		{ 0x870000, 0x10000, MEM_BAD },
		{ 0xb0000000, 0x10000000, MEM_RESERVED },
	};

	for (int order = 0; order < 2; order++) {
		mbi_begin(&m);
		if (order == 0)
			mbi_mmap(&m, qemu_mem, 3, 24);
		mbi_efi_mmap(&m, efi, ARRAY_SIZE(efi), 48);
		if (order == 1)
			mbi_mmap(&m, qemu_mem, 3, 24);
		mbi_end(&m);
		ck_assert_int_eq(parse(&m, &bi), 0);
		ck_assert(bi.mem_from_efi);
		ck_assert_uint_eq(bi.efi_descriptors, ARRAY_SIZE(efi));
		ck_assert_uint_eq(bi.efi_not_wb, 1);
		ck_assert_uint_eq(bi.warnings, 0);
		ck_assert_uint_eq(bi.nr_mem, ARRAY_SIZE(want));
		for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
			ck_assert_uint_eq(bi.mem[i].base, want[i].base);
			ck_assert_uint_eq(bi.mem[i].length, want[i].len);
			ck_assert_uint_eq(bi.mem[i].type, want[i].type);
		}
	}
}
END_TEST

START_TEST(test_efi_mmap_bad_descriptor_size)
{
	static struct mbi m;
	static const struct test_efi efi[] = { { 7, 0x100000, 0x100, WB } };

	mbi_begin(&m);
	mbi_mmap(&m, qemu_mem, 3, 24);
	mbi_efi_mmap(&m, efi, 1, 32);
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert(!bi.mem_from_efi);
	ck_assert_uint_eq(bi.nr_mem, 3); /* tag 6 stays */
	ck_assert_uint_eq(bi.warnings, 1);
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "EFI memory descriptor size 32"));
}
END_TEST

/*
 * A string without its NUL as the very last bytes of the buffer: the copy
 * must stop at the tag's end, not run on into whatever follows.
 */
START_TEST(test_unterminated_string)
{
	static struct mbi m;

	mbi_begin(&m);
	mbi_string(&m, 2, "GRUB");
	mbi_tag(&m, 1, "abc", 3);
	mbi_close_at(&m, m.len - 5); /* end right after "abc", no padding */
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_str_eq(bi.cmdline, "abc");
	ck_assert_str_eq(bi.loader_name, "GRUB");
	ck_assert_uint_eq(bi.warnings, 2); /* no NUL, no end tag */

	/* Empty payload: an empty string, still flagged. */
	mbi_begin(&m);
	mbi_tag(&m, 1, NULL, 0);
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_str_eq(bi.cmdline, "");
	ck_assert_uint_eq(bi.warnings, 1);
}
END_TEST

START_TEST(test_long_strings_cut)
{
	static struct mbi m;
	static char text[BOOT_CMDLINE_MAX + 100];

	memset(text, 'x', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	mbi_begin(&m);
	mbi_string(&m, 1, text);
	mbi_string(&m, 2, text + 1000);
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_uint_eq(strlen(bi.cmdline), BOOT_CMDLINE_MAX - 1);
	ck_assert_uint_eq(strlen(bi.loader_name), BOOT_NAME_MAX - 1);
	ck_assert_uint_eq(bi.warnings, 2);
}
END_TEST

START_TEST(test_modules)
{
	static struct mbi m;
	u8 p[8];

	mbi_begin(&m);
	mbi_module(&m, 0x200000, 0x201000, "initrd");
	mbi_module(&m, 0x300000, 0x2ff000, "backwards"); /* skipped */
	mbi_module(&m, 0x400000, 0x400000, "");		 /* empty is allowed */
	put32(p, 0x500000);
	put32(p + 4, 0x501000);
	mbi_tag(&m, 3, p, 8); /* no name at all */
	mbi_tag(&m, 3, p, 4); /* too short to hold mod_end */
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_uint_eq(bi.nr_modules, 3);
	ck_assert_str_eq(bi.modules[0].name, "initrd");
	ck_assert_uint_eq(bi.modules[1].start, 0x400000);
	ck_assert_uint_eq(bi.modules[1].end, 0x400000);
	ck_assert_str_eq(bi.modules[1].name, "");
	ck_assert_uint_eq(bi.modules[2].start, 0x500000);
	ck_assert_str_eq(bi.modules[2].name, "");
	/* backwards, unterminated (empty) name, too short */
	ck_assert_uint_eq(bi.warnings, 3);
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "ends before it starts"));
}
END_TEST

START_TEST(test_too_many_modules)
{
	static struct mbi m;

	mbi_begin(&m);
	for (u32 i = 0; i < BOOT_MAX_MODULES + 2; i++)
		mbi_module(&m, 0x1000000 + i * 0x1000, 0x1000000 + (i + 1) * 0x1000, "m");
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_uint_eq(bi.nr_modules, BOOT_MAX_MODULES);
	ck_assert_uint_eq(bi.modules[BOOT_MAX_MODULES - 1].start,
			  0x1000000 + (BOOT_MAX_MODULES - 1) * 0x1000);
	ck_assert_uint_eq(bi.warnings, 2);
}
END_TEST

START_TEST(test_rsdp_new_wins)
{
	static struct mbi m;

	/* old, then new */
	mbi_begin(&m);
	mbi_rsdp(&m, false, 0x11);
	mbi_rsdp(&m, true, 0x22);
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_uint_eq(bi.rsdp_len, 36);
	ck_assert_uint_eq(bi.rsdp[8], 0x22);
	ck_assert_uint_eq(bi.rsdp[35], 0x22);

	/* new, then old */
	mbi_begin(&m);
	mbi_rsdp(&m, true, 0x22);
	mbi_rsdp(&m, false, 0x11);
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_uint_eq(bi.rsdp_len, 36);
	ck_assert_uint_eq(bi.rsdp[8], 0x22);
	ck_assert_uint_eq(bi.warnings, 0);

	/* old only: 20 bytes, the rest cleared */
	mbi_begin(&m);
	mbi_rsdp(&m, false, 0x11);
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_uint_eq(bi.rsdp_len, 20);
	ck_assert_uint_eq(bi.rsdp[19], 0x11);
	ck_assert_uint_eq(bi.rsdp[20], 0);
}
END_TEST

START_TEST(test_rsdp_short_tags)
{
	static struct mbi m;
	u8 p[36];

	memset(p, 0x33, sizeof(p));
	mbi_begin(&m);
	mbi_rsdp(&m, false, 0x11);
	mbi_tag(&m, 15, p, 20); /* an XSDP tag holding only an ACPI 1.0 RSDP */
	mbi_tag(&m, 14, p, 19);
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_uint_eq(bi.rsdp_len, 20);
	ck_assert_uint_eq(bi.rsdp[8], 0x11);
	ck_assert_uint_eq(bi.warnings, 2);
}
END_TEST

START_TEST(test_framebuffer)
{
	static struct mbi m;

	mbi_begin(&m);
	mbi_fb(&m, 0xfd000000, 4096, 1024, 768, 32, 1);
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_int_eq(bi.fb.type, BOOT_FB_RGB);
	ck_assert_uint_eq(bi.fb.addr, 0xfd000000);
	ck_assert_uint_eq(bi.fb.pitch, 4096);
	ck_assert_uint_eq(bi.fb.width, 1024);
	ck_assert_uint_eq(bi.fb.height, 768);
	ck_assert_uint_eq(bi.fb.bpp, 32);
	/* No colour layout given: the usual one, 8 bits each, red highest. */
	ck_assert_uint_eq(bi.fb.red_pos, 16);
	ck_assert_uint_eq(bi.fb.green_pos, 8);
	ck_assert_uint_eq(bi.fb.blue_size, 8);

	/* Indexed colour: nothing to draw with, so no framebuffer. */
	mbi_begin(&m);
	mbi_fb(&m, 0xfd000000, 1024, 1024, 768, 8, 0);
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_int_eq(bi.fb.type, BOOT_FB_NONE);
	ck_assert_uint_eq(bi.fb.addr, 0);
	ck_assert_uint_eq(bi.warnings, 0);

	/* Too short for the common part. */
	mbi_begin(&m);
	mbi_tag(&m, 8, "\0\0\x0b\0\0\0\0\0\xa0\0\0\0", 12);
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert_int_eq(bi.fb.type, BOOT_FB_NONE);
	ck_assert_uint_eq(bi.warnings, 1);
}
END_TEST

START_TEST(test_basic_meminfo_short)
{
	static struct mbi m;

	mbi_begin(&m);
	mbi_tag(&m, 4, "\x7f\x02\0\0", 4);
	mbi_end(&m);
	ck_assert_int_eq(parse(&m, &bi), 0);
	ck_assert(!bi.have_basic_mem);
	ck_assert_uint_eq(bi.warnings, 1);
}
END_TEST

/* Random bytes after a valid header: a smoke test that nothing faults. */
START_TEST(test_random_garbage)
{
	static u8 buf[512];
	unsigned int seed = 12345;

	for (int round = 0; round < 2000; round++) {
		size_t len = 16 + (size_t)(rand_r(&seed) % (sizeof(buf) - 16));

		for (size_t i = 0; i < len; i++)
			buf[i] = (u8)rand_r(&seed);
		/* Mostly small sizes and known types, so the walk gets somewhere. */
		for (size_t off = 8; off + 8 <= len; off += 8) {
			if (rand_r(&seed) % 4 == 0) {
				put32(buf + off, (u32)(rand_r(&seed) % 16));
				put32(buf + off + 4, (u32)(rand_r(&seed) % 64));
			}
		}
		put32(buf, (u32)len);
		ck_assert_int_eq(parse_copy(buf, len, len, &bi), 0);
		ck_assert_uint_le(bi.nr_mem, BOOT_MAX_MEM_ENTRIES);
		ck_assert_uint_le(bi.nr_modules, BOOT_MAX_MODULES);
		ck_assert(bi.rsdp_len == 0 || bi.rsdp_len == 20 || bi.rsdp_len == 36);
	}
}
END_TEST

Suite *multiboot2_suite(void)
{
	Suite *s = suite_create("multiboot2");
	TCase *tc = tcase_create("parse");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_qemu_like);
	tcase_add_test(tc, test_unaligned_buffer);
	tcase_add_test(tc, test_truncated_everywhere);
	tcase_add_test(tc, test_bad_total_size);
	tcase_add_test(tc, test_total_size_bounds_walk);
	tcase_add_test(tc, test_zero_size_tag);
	tcase_add_test(tc, test_tag_past_end);
	tcase_add_test(tc, test_end_tag_stops);
	tcase_add_test(tc, test_missing_end_tag);
	tcase_add_test(tc, test_mmap_entry_size);
	tcase_add_test(tc, test_mmap_partial_entry);
	tcase_add_test(tc, test_mmap_too_many_entries);
	tcase_add_test(tc, test_second_mmap_ignored);
	tcase_add_test(tc, test_efi_mmap);
	tcase_add_test(tc, test_efi_mmap_bad_descriptor_size);
	tcase_add_test(tc, test_unterminated_string);
	tcase_add_test(tc, test_long_strings_cut);
	tcase_add_test(tc, test_modules);
	tcase_add_test(tc, test_too_many_modules);
	tcase_add_test(tc, test_rsdp_new_wins);
	tcase_add_test(tc, test_rsdp_short_tags);
	tcase_add_test(tc, test_framebuffer);
	tcase_add_test(tc, test_basic_meminfo_short);
	tcase_add_test(tc, test_random_garbage);
	suite_add_tcase(s, tc);
	return s;
}
