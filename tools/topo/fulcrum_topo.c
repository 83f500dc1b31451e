/*
 * fulcrum-topo: what Fulcrum makes of a machine, run on the host. It feeds
 * binary ACPI tables (acpidump -b / acpixtract files, or a raw dump of
 * physical memory) to the kernel's own parsers and, given the APIC-ID bit
 * layout CPUID would report, to its CPUID decoding and domain builder.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmdline.h"
#include "lib/kstrto.h"
#include "printk.h"
#include "topo.h"
#include "topo_arch.h"

static const char usage[] =
	"usage: fulcrum-topo [--json] [LAYOUT] [--boot-apic-id N] [--cmdline \"OPTIONS\"] "
	"DIR|FILE...\n"
	"       fulcrum-topo [--json] [LAYOUT] [--boot-apic-id N] [--cmdline \"OPTIONS\"] "
	"--memdump FILE\n"
	"LAYOUT: --threads-bits N --cores-bits N [--llc-bits N]\n"
	"\n"
	"Reads binary ACPI tables and prints the CPUs, NUMA nodes and distances Fulcrum\n"
	"would use. FILEs are tables as acpidump -b or acpixtract write them (APIC, SRAT\n"
	"and SLIT are used, recognised by signature; others are ignored); a DIR stands\n"
	"for its *.dat files. --memdump reads a raw image of physical memory from\n"
	"address 0 (e.g. QEMU's 'pmemsave 0 SIZE FILE') and follows the RSDP from the\n"
	"BIOS areas. --cmdline takes kernel boot options (numa=off, maxcpus=N, nosmp,\n"
	"acpi=off, acpi_bad_checksum=refuse). The boot CPU is the first enabled MADT\n"
	"entry unless --boot-apic-id says otherwise.\n"
	"\n"
	"The APIC-ID bit layout is what CPUID reports and the tables do not hold: an\n"
	"APIC ID is package << (threads + cores bits) | core << threads bits | thread.\n"
	"--threads-bits: the low bits numbering the threads of a core (CPUID 0xB\n"
	"subleaf 0 EAX[4:0]); --cores-bits: the bits above them numbering the cores of\n"
	"a package (0xB subleaf 1 EAX[4:0] minus threads bits); --llc-bits: the low\n"
	"bits in which CPUs sharing the last-level cache differ (default: threads +\n"
	"cores bits, one LLC per package). Given the layout, the tool also prints each\n"
	"CPU's package, core and thread, and the sched domains and balance map as the\n"
	"kernel's sched_debug boot log shows them.\n"
	"\n"
	"--json prints one JSON object on stdout (the kernel's messages go to stderr).\n"
	"Exit status: 0 fine; 1 a file is not a whole ACPI table, a table is malformed\n"
	"(the output still shows what the kernel would do with the rest) or the domains\n"
	"could not be built; 2 bad usage or an unreadable file.\n";

/* APIC ID fields are at most 32 bits wide together; keep every shift below 32. */
#define LAYOUT_BITS_MAX 31

#define FILE_MAX ACPI_TABLE_MAX_LEN

/* One of the tables this tool reads, and where it came from. */
struct slot {
	const char *signature;
	const char *source; /* file name or "memory" */
	const u8 *data;
	u32 length;
};

enum { SLOT_MADT, SLOT_SRAT, SLOT_SLIT, NR_SLOTS };

static struct slot slots[NR_SLOTS] = {
	[SLOT_MADT] = { .signature = ACPI_MADT_SIGNATURE },
	[SLOT_SRAT] = { .signature = ACPI_SRAT_SIGNATURE },
	[SLOT_SLIT] = { .signature = ACPI_SLIT_SIGNATURE },
};

static bool json;
static bool malformed; /* any table with a broken header, body or walk */

/* Big: keep them off the stack. */
static struct acpi_tables tables;
static bool have_tables;
static struct acpi_madt_info madt_info;
static struct acpi_srat_info srat_info;
static struct acpi_slit_info slit_info;
static struct machine machine;

static __attribute__((noreturn)) void die(const char *fmt, const char *arg, const char *why)
{
	fprintf(stderr, "fulcrum-topo: ");
	fprintf(stderr, fmt, arg, why);
	fprintf(stderr, "\n");
	exit(2);
}

static void complain(const char *path, const char *what)
{
	fprintf(stderr, "fulcrum-topo: %s: %s\n", path, what);
	malformed = true;
}

static struct slot *slot_for(const u8 *sig)
{
	for (int i = 0; i < NR_SLOTS; i++)
		if (memcmp(sig, slots[i].signature, 4) == 0)
			return &slots[i];
	return NULL;
}

/* Reads a whole file of at most FILE_MAX bytes; exits on failure. */
static u8 *read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	size_t cap = 4096, n = 0;
	u8 *buf;

	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	buf = malloc(cap);
	for (;;) {
		ssize_t got;

		if (n == cap) {
			if (cap > FILE_MAX)
				die("%s: %s", path, "larger than any ACPI table can be (16 MiB)");
			cap *= 2;
			buf = realloc(buf, cap);
		}
		if (!buf)
			die("%s: %s", path, "out of memory");
		got = read(fd, buf + n, cap - n);
		if (got < 0)
			die("%s: %s", path, strerror(errno));
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	*len = n;
	return buf;
}

/*
 * Whether a file we do not read is still what acpidump -b or acpixtract
 * write: an RSDP, or a table whose header has a printable signature and
 * the file's own length. Anything else is reported as garbage.
 */
static bool looks_like_table(const u8 *buf, size_t len)
{
	const struct acpi_sdt_header *h = (const void *)buf;

	if (len >= 8 && memcmp(buf, "RSD PTR ", 8) == 0)
		return true;
	if (len < ACPI_SDT_HEADER_LEN)
		return false;
	for (int i = 0; i < 4; i++)
		if (buf[i] < 0x20 || buf[i] > 0x7e)
			return false;
	return h->length == len;
}

/*
 * Takes one table file. In a directory (quiet) files of other tables are
 * skipped silently; named on the command line they get a note.
 */
static void take_file(const char *path, bool quiet)
{
	size_t len;
	u8 *buf = read_file(path, &len);
	const struct acpi_sdt_header *h = (const void *)buf;
	struct slot *slot = len >= 4 ? slot_for(buf) : NULL;
	char msg[160];

	if (!slot) {
		if (!looks_like_table(buf, len))
			complain(path, "not an ACPI table: no RSDP or table header matching the "
				       "file's size");
		else if (!quiet)
			fprintf(stderr,
				"fulcrum-topo: %s: not an APIC, SRAT or SLIT table; ignored\n", path);
		free(buf);
		return;
	}
	if (len < ACPI_SDT_HEADER_LEN) {
		snprintf(msg, sizeof(msg), "%zu bytes, too short for an ACPI table header (36)", len);
		complain(path, msg);
		free(buf);
		return;
	}
	if (h->length < ACPI_SDT_HEADER_LEN || h->length > len) {
		snprintf(msg, sizeof(msg), "header says %u bytes but the file has %zu; not used",
			 h->length, len);
		complain(path, msg);
		free(buf);
		return;
	}
	if (h->length < len)
		fprintf(stderr, "fulcrum-topo: %s: %zu bytes after the table's end ignored\n", path,
			len - h->length);
	if (acpi_checksum(buf, h->length) != 0) {
		bool refuse = acpi_checksum_policy() == ACPI_CHECKSUM_REFUSE;

		fprintf(stderr, "fulcrum-topo: %s: bad checksum; %s (acpi_bad_checksum=%s)\n", path,
			refuse ? "not used" : "used anyway", refuse ? "refuse" : "use");
		if (refuse) {
			free(buf);
			return;
		}
	}
	if (slot->data) {
		fprintf(stderr, "fulcrum-topo: %s: a second %s table; using %s\n", path,
			slot->signature, slot->source);
		free(buf);
		return;
	}
	slot->source = strdup(path);
	slot->data = buf;
	slot->length = h->length;
}

static int dat_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && strcmp(d->d_name + n - 4, ".dat") == 0;
}

static void take_dir(const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, dat_filter, alphasort);

	if (n < 0)
		die("%s: %s", dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			take_file(path, true);
		free(names[i]);
	}
	free(names);
}

/* ---------------------------------------------------------------- memory dump */

static const u8 *dump;
static size_t dump_len;

static const void *dump_map(u64 phys, u32 len, void *ctx)
{
	if (phys > dump_len || len > dump_len - phys)
		return NULL;
	return dump + phys;
}

static void take_memdump(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct acpi_rsdp_info rsdp;
	struct stat st;
	u64 rsdp_phys;
	const void *p;

	if (fd < 0 || fstat(fd, &st) != 0)
		die("%s: %s", path, strerror(errno));
	if (st.st_size == 0)
		die("%s: %s", path, "empty");
	dump_len = (size_t)st.st_size;
	dump = mmap(NULL, dump_len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (dump == MAP_FAILED)
		die("%s: %s", path, strerror(errno));
	close(fd);

	if (acpi_rsdp_find_bios(dump_map, NULL, &rsdp_phys) != 0) {
		/* Not a PC BIOS image: look everywhere, as a last resort. */
		s64 off = acpi_rsdp_scan(dump, dump_len, 0);

		if (off < 0)
			die("%s: %s", path, "no valid RSDP anywhere in the dump");
		rsdp_phys = (u64)off;
	}
	p = dump_map(rsdp_phys, ACPI_RSDP_V2_LEN, NULL);
	if (!p || acpi_rsdp_check(p, ACPI_RSDP_V2_LEN, &rsdp) != 0)
		acpi_rsdp_check(dump + rsdp_phys, ACPI_RSDP_V1_LEN, &rsdp);
	printk("RSDP at 0x%llx, revision %u (%s)\n", (unsigned long long)rsdp_phys, rsdp.revision,
	       rsdp.oem_id);
	if (acpi_tables_read(&rsdp, dump_map, NULL, acpi_checksum_policy(), &tables) != 0) {
		fprintf(stderr, "fulcrum-topo: %s: no usable RSDT or XSDT\n", path);
		malformed = true;
		return;
	}
	have_tables = true;
	for (int i = 0; i < NR_SLOTS; i++) {
		u32 count;
		const struct acpi_table_info *t = acpi_find_table(&tables, slots[i].signature,
								  &count);

		if (!t)
			continue;
		if (count > 1)
			fprintf(stderr, "fulcrum-topo: %u %s tables; using the first\n", count,
				slots[i].signature);
		slots[i].source = "memory";
		slots[i].data = t->data;
		slots[i].length = t->length;
	}
}

/* ---------------------------------------------------------------- the view */

s64 topo_madt_entry_cpu(const struct topo_view *v, u32 i)
{
	const struct acpi_madt_cpu *e = &v->madt->cpu[i];

	/* Only an enabled entry can be a CPU: placeholders often repeat a live CPU's ID. */
	if (!e->enabled)
		return -1;
	for (u32 c = 0; c < v->m->nr_cpus; c++)
		if (v->m->cpu[c].apic_id == e->apic_id)
			return c;
	return -1;
}

bool topo_cpu_in_madt(const struct topo_view *v, u32 c)
{
	if (!v->madt)
		return false;
	for (u32 i = 0; i < v->madt->nr_cpus; i++)
		if (v->madt->cpu[i].enabled && v->madt->cpu[i].apic_id == v->m->cpu[c].apic_id)
			return true;
	return false;
}

s64 topo_madt_entry_node(const struct topo_view *v, u32 i)
{
	const struct acpi_madt_cpu *e = &v->madt->cpu[i];
	s64 cpu = topo_madt_entry_cpu(v, i), domain;

	if (cpu >= 0)
		return v->m->cpu[cpu].node;
	for (u32 c = 0; c < v->m->nr_cpus; c++)
		if (v->m->cpu[c].apic_id == e->apic_id)
			return -1; /* a placeholder repeating a live CPU's ID: no node */
	if (!v->notes->numa_from_srat)
		return 0; /* one node: any CPU that came online would be on it */
	domain = acpi_srat_cpu_domain(v->srat, e->apic_id);
	for (u32 n = 0; domain >= 0 && n < v->m->nr_nodes; n++)
		if (v->m->node[n].proximity_domain == (u64)domain)
			return n;
	return -1;
}

/* ---------------------------------------------------------------- main */

/*
 * Parses what was found. As in the kernel, a table whose walk stopped
 * early is still used up to the break; only the exit status tells.
 */
static void parse_tables(const struct acpi_madt_info **madt, const struct acpi_srat_info **srat,
			 const struct acpi_slit_info **slit)
{
	const struct slot *s;
	int err;

	s = &slots[SLOT_MADT];
	if (s->data) {
		err = acpi_madt_parse(s->data, s->length, &madt_info);
		*madt = err ? NULL : &madt_info;
		if (err || madt_info.truncated)
			complain(s->source, "MADT is malformed (see the messages above)");
	}
	s = &slots[SLOT_SRAT];
	if (s->data) {
		err = acpi_srat_parse(s->data, s->length, &srat_info);
		*srat = err ? NULL : &srat_info;
		if (err || srat_info.truncated)
			complain(s->source, "SRAT is malformed (see the messages above)");
	}
	s = &slots[SLOT_SLIT];
	if (s->data) {
		err = acpi_slit_parse(s->data, s->length, &slit_info);
		*slit = err ? NULL : &slit_info;
		if (err)
			complain(s->source, "SLIT is malformed (see the messages above)");
	}
}

/* Reads a bit count for a layout option; exits on a bad one. */
static u32 layout_bits(const char *option, const char *arg)
{
	u64 v;

	if (kstrtou64(arg, strlen(arg), false, &v) || v > LAYOUT_BITS_MAX) {
		fprintf(stderr, "fulcrum-topo: %s %s: not a bit count (0..%d)\n", option, arg,
			LAYOUT_BITS_MAX);
		exit(2);
	}
	return (u32)v;
}

/*
 * The layout as CPUID would give it (arch/x86_64/cpuid_topology.h): threads
 * in the low bits, the package above threads + cores bits, and the LLC
 * shared by the CPUs whose IDs differ only below llc_bits (by default the
 * whole package). As in cpuid_read_layout(), an LLC never spans packages.
 */
static void make_layout(struct topo_view *v, s64 llc_bits)
{
	struct apic_id_layout *l = &v->layout;

	*l = (struct apic_id_layout){
		.smt_bits = v->threads_bits,
		.pkg_shift = v->threads_bits + v->cores_bits,
		.llc_shift = v->threads_bits + v->cores_bits,
		.llc_level = 0,
		.source = "command line",
	};
	if (llc_bits > (s64)l->pkg_shift)
		fprintf(stderr,
			"fulcrum-topo: --llc-bits %lld is wider than a package (%u bits); "
			"using %u\n",
			(long long)llc_bits, l->pkg_shift, l->pkg_shift);
	else if (llc_bits >= 0)
		l->llc_shift = (u32)llc_bits;
}

/*
 * Places every CPU with the layout (the kernel's own decoding) and builds
 * the domains and balance map over all of them, as if every CPU came up.
 * Returns NULL, with a message, if the builder refuses the machine.
 */
static struct sched_topology *build_domains(struct topo_view *v, struct machine *m)
{
	struct sched_topology *t;
	int err;

	cpuid_apply_layout(&v->layout, m);
	err = sched_topology_build(m, NULL, &t);
	if (err) {
		fprintf(stderr,
			"fulcrum-topo: cannot build the sched domains (error %d; see the "
			"messages above)\n",
			err);
		return NULL;
	}
	/* The boot builds and publishes generation 1; an unpublished build has none yet. */
	t->gen = 1;
	return t;
}

int main(int argc, char **argv)
{
	const char *memdump = NULL, *options = NULL;
	u32 boot_apic_id = ACPI_BOOT_CPU_FIRST_ENABLED;
	struct acpi_machine_options opts;
	struct acpi_machine_notes notes;
	struct topo_view view = { .notes = &notes, .m = &machine };
	struct sched_topology *t = NULL;
	s64 threads_bits = -1, cores_bits = -1, llc_bits = -1;
	int first_path = 0;
	bool acpi_off;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		u64 v;

		if (strcmp(a, "--json") == 0) {
			json = true;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if (strcmp(a, "--boot-apic-id") == 0 && i + 1 < argc) {
			if (kstrtou64(argv[i + 1], strlen(argv[i + 1]), false, &v) || v > 0xFFFFFFFEu)
				die("%s: %s", argv[i + 1], "not an APIC ID");
			boot_apic_id = (u32)v;
			i++;
		} else if (strcmp(a, "--threads-bits") == 0 && i + 1 < argc) {
			threads_bits = layout_bits(a, argv[++i]);
		} else if (strcmp(a, "--cores-bits") == 0 && i + 1 < argc) {
			cores_bits = layout_bits(a, argv[++i]);
		} else if (strcmp(a, "--llc-bits") == 0 && i + 1 < argc) {
			llc_bits = layout_bits(a, argv[++i]);
		} else if (strcmp(a, "--cmdline") == 0 && i + 1 < argc) {
			options = argv[++i];
		} else if (strcmp(a, "--memdump") == 0 && i + 1 < argc) {
			memdump = argv[++i];
		} else if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr,
				"fulcrum-topo: unknown option %s (or its value is missing)\n%s", a,
				usage);
			return 2;
		} else {
			if (!first_path)
				first_path = i;
			continue;
		}
		if (first_path)
			die("%s: %s", a, "options must come before the files");
	}
	if (!memdump == !first_path) {
		fputs(usage, stderr);
		return 2;
	}
	if ((threads_bits < 0) != (cores_bits < 0) || (llc_bits >= 0 && threads_bits < 0)) {
		fprintf(stderr, "fulcrum-topo: the bit layout needs both --threads-bits and "
				"--cores-bits (--llc-bits is optional)\n");
		return 2;
	}
	if (threads_bits + cores_bits > LAYOUT_BITS_MAX) {
		fprintf(stderr, "fulcrum-topo: --threads-bits + --cores-bits must be at most %d\n",
			LAYOUT_BITS_MAX);
		return 2;
	}
	view.have_layout = threads_bits >= 0;
	if (view.have_layout) {
		view.threads_bits = (u32)threads_bits;
		view.cores_bits = (u32)cores_bits;
		make_layout(&view, llc_bits);
	}
	/* The kernel's messages: the boot log's lines in text, out of the JSON's way. */
	topo_console_to(json ? stderr : stdout);
	if (options && cmdline_parse(options))
		die("%s: %s", options, "bad boot options (see above)");

	acpi_off = acpi_disabled();
	if (memdump) {
		take_memdump(memdump);
	} else {
		for (int i = first_path; i < argc; i++) {
			struct stat st;

			if (stat(argv[i], &st) != 0)
				die("%s: %s", argv[i], strerror(errno));
			if (S_ISDIR(st.st_mode))
				take_dir(argv[i]);
			else
				take_file(argv[i], false);
		}
		if (!slots[SLOT_MADT].data && !slots[SLOT_SRAT].data && !slots[SLOT_SLIT].data)
			fprintf(stderr, "fulcrum-topo: no APIC, SRAT or SLIT table among the files; "
					"what follows is the kernel's fallback\n");
	}
	if (acpi_off) {
		pr_info("ACPI: disabled by acpi=off\n");
		for (int i = 0; i < NR_SLOTS; i++)
			slots[i].data = NULL;
	}
	if (have_tables) {
		view.tables = &tables;
		if (!json)
			for (u32 i = 0; i < tables.nr; i++)
				printf("ACPI: %-4s 0x%016llx %06x%s\n", tables.table[i].signature,
				       (unsigned long long)tables.table[i].phys,
				       tables.table[i].length,
				       tables.table[i].checksum_ok ? "" : " (bad checksum)");
	}
	parse_tables(&view.madt, &view.srat, &view.slit);

	acpi_machine_options_get(&opts);
	acpi_build_machine(view.madt, view.srat, view.slit, boot_apic_id, &opts, &machine, &notes);
	acpi_machine_print(&notes, &machine);
	if (view.have_layout) {
		t = build_domains(&view, &machine);
		if (!t)
			malformed = true;
		view.t = t;
	}
	fflush(stderr);
	if (json)
		topo_print_json(&view);
	else
		topo_print_text(&view);
	sched_topology_free(t);
	return malformed ? 1 : 0;
}
