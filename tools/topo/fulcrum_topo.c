/*
 * fulcrum-topo: what Fulcrum's ACPI code makes of a machine, run on the host.
 * It feeds binary ACPI tables (acpidump -b / acpixtract files, or a raw dump
 * of physical memory) to the kernel's own parsers and topology builder.
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

#include "acpi/topology.h"
#include "cmdline.h"
#include "fake_arch.h"
#include "lib/kstrto.h"
#include "printk.h"

static const char usage[] =
	"usage: fulcrum-topo [--json] [--boot-apic-id N] [--cmdline \"OPTIONS\"] DIR|FILE...\n"
	"       fulcrum-topo [--json] [--boot-apic-id N] [--cmdline \"OPTIONS\"] --memdump FILE\n"
	"\n"
	"Reads binary ACPI tables and prints the CPUs, NUMA nodes and distances Fulcrum\n"
	"would use. FILEs are tables as acpidump -b or acpixtract write them (APIC, SRAT\n"
	"and SLIT are used, recognised by signature; others are ignored); a DIR stands\n"
	"for its *.dat files. --memdump reads a raw image of physical memory from\n"
	"address 0 (e.g. QEMU's 'pmemsave 0 SIZE FILE') and follows the RSDP from the\n"
	"BIOS areas. --cmdline takes kernel boot options (numa=off, maxcpus=N, nosmp,\n"
	"acpi=off, acpi_bad_checksum=refuse). The boot CPU is the first enabled MADT\n"
	"entry unless --boot-apic-id says otherwise.\n"
	"Exit status: 0 fine; 1 a table is malformed (output still shows what the\n"
	"kernel would use); 2 bad usage or an unreadable file.\n";

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
static FILE *log_out;  /* where the kernel's messages go: stdout, or stderr with --json */

/* Big: keep them off the stack. */
static struct acpi_tables tables;
static bool have_tables;
static struct acpi_madt_info madt_info;
static struct acpi_srat_info srat_info;
static struct acpi_slit_info slit_info;
static struct machine machine;

/* Copies the kernel's log to log_out without the "[    0.000000] " timestamps. */
static void flush_log(void)
{
	const char *s = fake_console_text();

	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s + 1) : strlen(s);

		if (s[0] == '[') {
			const char *close = memchr(s, ']', len);

			if (close && close[1] == ' ') {
				len -= (size_t)(close + 2 - s);
				s = close + 2;
			}
		}
		fwrite(s, 1, len, log_out);
		s += len;
	}
	fake_console_reset();
}

static __attribute__((noreturn)) void die(const char *fmt, const char *arg, const char *why)
{
	flush_log();
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
		if (!quiet)
			fprintf(stderr,
				"fulcrum-topo: %s: not an APIC, SRAT or SLIT table; ignored\n",
				path);
		free(buf);
		return;
	}
	if (len < ACPI_SDT_HEADER_LEN) {
		snprintf(msg, sizeof(msg), "%zu bytes, too short for an ACPI table header (36)",
			 len);
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
	fprintf(log_out, "RSDP at 0x%llx, revision %u (%s)\n", (unsigned long long)rsdp_phys,
		rsdp.revision, rsdp.oem_id);
	if (acpi_tables_read(&rsdp, dump_map, NULL, acpi_checksum_policy(), &tables) != 0) {
		flush_log();
		fprintf(stderr, "fulcrum-topo: %s: no usable RSDT or XSDT\n", path);
		malformed = true;
		return;
	}
	have_tables = true;
	flush_log(); /* the walk's complaints before the table list */
	for (int i = 0; i < NR_SLOTS; i++) {
		u32 count;
		const struct acpi_table_info *t =
			acpi_find_table(&tables, slots[i].signature, &count);

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

/* ---------------------------------------------------------------- output */

static void json_u32_list(const char *name, const u32 *v, u32 n, const char *after)
{
	printf("\"%s\": [", name);
	for (u32 i = 0; i < n; i++)
		printf("%s%u", i ? ", " : "", v[i]);
	printf("]%s", after);
}

static void print_json(const struct acpi_machine_notes *notes)
{
	const struct machine *m = &machine;
	static u32 ids[ACPI_MADT_MAX_CPUS];
	u32 n;

	printf("{\n  \"cpus\": [");
	for (u32 c = 0; c < m->nr_cpus; c++)
		printf("%s\n    {\"cpu\": %u, \"apic_id\": %u, \"acpi_uid\": %u, \"node\": %u}",
		       c ? "," : "", c, m->cpu[c].apic_id, m->cpu[c].acpi_uid, m->cpu[c].node);
	printf("\n  ],\n  \"nodes\": [");
	for (u32 i = 0; i < m->nr_nodes; i++) {
		const struct machine_node *node = &m->node[i];

		printf("%s\n    {\"id\": %u, \"proximity_domain\": %u, ", i ? "," : "", i,
		       node->proximity_domain);
		n = 0;
		for (u32 c = 0; c < m->nr_cpus; c++)
			if (m->cpu[c].node == i)
				ids[n++] = m->cpu[c].apic_id;
		json_u32_list("cpus", ids, n, ", \"memory\": [");
		for (u32 r = 0; r < node->nr_mem; r++)
			printf("%s[%llu, %llu]", r ? ", " : "",
			       (unsigned long long)node->mem[r].start,
			       (unsigned long long)(node->mem[r].end - node->mem[r].start));
		printf("]}");
	}
	printf("\n  ],\n  \"distances\": [");
	for (u32 i = 0; i < m->nr_nodes; i++) {
		printf("%s[", i ? ", " : "");
		for (u32 j = 0; j < m->nr_nodes; j++)
			printf("%s%u", j ? ", " : "", m->distance[i][j]);
		printf("]");
	}
	printf("],\n  \"distances_from_slit\": %s,\n",
	       notes->distances_from_slit ? "true" : "false");

	if (notes->have_madt) {
		const struct acpi_madt_info *md = &madt_info;

		printf("  \"madt\": {\n    \"revision\": %u, \"lapic_address\": %llu, "
		       "\"lapic_address_overridden\": %s,\n    ",
		       md->revision, (unsigned long long)md->lapic_address,
		       md->lapic_overridden ? "true" : "false");
		n = 0;
		for (u32 i = 0; i < md->nr_cpus; i++)
			if (md->cpu[i].enabled)
				ids[n++] = md->cpu[i].apic_id;
		json_u32_list("enabled_apic_ids", ids, n, ",\n    ");
		n = 0;
		for (u32 i = 0; i < md->nr_cpus; i++)
			if (md->cpu[i].online_capable)
				ids[n++] = md->cpu[i].apic_id;
		json_u32_list("online_capable_apic_ids", ids, n, ",\n    ");
		json_u32_list("duplicate_apic_ids", md->dup_id, md->nr_dup_ids, ",\n    ");
		printf("\"enabled_count\": %u, \"disabled_entry_count\": %u, "
		       "\"online_capable_disabled_count\": %u,\n    \"duplicate_count\": %u, "
		       "\"x2apic_count\": %u, \"unknown_entry_count\": %u, "
		       "\"malformed_entry_count\": %u, \"truncated\": %s,\n    \"io_apics\": [",
		       md->count.enabled, md->count.disabled, md->count.online_capable,
		       md->count.duplicates, md->count.x2apic, md->count.unknown,
		       md->count.malformed, md->truncated ? "true" : "false");
		for (u32 i = 0; i < md->nr_ioapics; i++)
			printf("%s{\"id\": %u, \"address\": %u, \"gsi_base\": %u}", i ? ", " : "",
			       md->ioapic[i].id, md->ioapic[i].address, md->ioapic[i].gsi_base);
		printf("], \"interrupt_overrides\": %u, \"nmis\": %u\n  },\n", md->nr_overrides,
		       md->nr_nmis);
	} else {
		printf("  \"madt\": null,\n");
	}

	if (notes->have_srat) {
		const struct acpi_srat_info *s = &srat_info;
		const struct acpi_srat_counts *k = &s->count;

		printf("  \"srat\": {\n    \"revision\": %u, \"enabled_cpu_affinity_count\": %u, "
		       "\"disabled_cpu_affinity_count\": %u,\n    \"x2apic_affinity_count\": %u, "
		       "\"memory_range_count\": %u, \"disabled_memory_entry_count\": %u,\n    "
		       "\"empty_memory_entry_count\": %u, \"hotplug_memory_range_count\": %u, "
		       "\"non_volatile_memory_range_count\": %u,\n    \"unknown_entry_count\": %u, "
		       "\"malformed_entry_count\": %u, \"truncated\": %s, \"domain_count\": %u\n  "
		       "},\n",
		       s->revision, k->cpu_enabled, k->cpu_disabled, k->x2apic, k->mem_enabled,
		       k->mem_disabled, k->mem_empty, k->mem_hot_pluggable, k->mem_non_volatile,
		       k->unknown, k->malformed, s->truncated ? "true" : "false",
		       notes->srat_domains);
	} else {
		printf("  \"srat\": null,\n");
	}

	if (notes->have_slit) {
		const struct acpi_slit_info *sl = &slit_info;

		printf("  \"slit\": {\"localities\": %u, \"valid\": %s, \"matrix\": [",
		       sl->localities, sl->valid ? "true" : "false");
		for (u32 i = 0; i < sl->localities; i++) {
			printf("%s[", i ? ", " : "");
			for (u32 j = 0; j < sl->localities; j++)
				printf("%s%u", j ? ", " : "", sl->distance[i][j]);
			printf("]");
		}
		printf("]}");
	} else {
		printf("  \"slit\": null");
	}
	if (have_tables) {
		printf(",\n  \"tables\": [");
		for (u32 i = 0; i < tables.nr; i++) {
			const struct acpi_table_info *t = &tables.table[i];

			printf("%s\n    {\"signature\": \"%s\", \"phys\": %llu, \"length\": %u, "
			       "\"checksum_ok\": %s}",
			       i ? "," : "", t->signature, (unsigned long long)t->phys, t->length,
			       t->checksum_ok ? "true" : "false");
		}
		printf("\n  ]");
	}
	printf("\n}\n");
}

/* "0-3,8-11": the CPUs of node n, as ranges of CPU numbers. */
static void print_cpu_ranges(u32 n)
{
	const struct machine *m = &machine;
	bool first = true;

	for (u32 c = 0; c < m->nr_cpus; c++) {
		u32 end = c;

		if (m->cpu[c].node != n)
			continue;
		while (end + 1 < m->nr_cpus && m->cpu[end + 1].node == n)
			end++;
		printf(first ? "%u" : ",%u", c);
		if (end > c)
			printf("-%u", end);
		first = false;
		c = end;
	}
	if (first)
		printf("none");
}

static void print_human(const struct acpi_machine_notes *notes)
{
	const struct machine *m = &machine;

	printf("\nCPU  APIC ID  ACPI UID  node\n");
	for (u32 c = 0; c < m->nr_cpus; c++) {
		char uid[16] = "-", apic[16];

		if (m->cpu[c].acpi_uid != ACPI_UID_UNKNOWN)
			snprintf(uid, sizeof(uid), "%u", m->cpu[c].acpi_uid);
		snprintf(apic, sizeof(apic), "0x%x", m->cpu[c].apic_id);
		printf("%3u  %7s  %8s  %4u\n", c, apic, uid, m->cpu[c].node);
	}
	printf("\n");
	for (u32 n = 0; n < m->nr_nodes; n++) {
		printf("node %u (proximity domain %u): CPUs ", n, m->node[n].proximity_domain);
		print_cpu_ranges(n);
		printf("; memory");
		if (m->node[n].nr_mem == 0)
			printf(notes->numa_from_srat ? " none" : " all");
		for (u32 r = 0; r < m->node[n].nr_mem; r++)
			printf(" [0x%llx-0x%llx]", (unsigned long long)m->node[n].mem[r].start,
			       (unsigned long long)m->node[n].mem[r].end - 1);
		printf("\n");
	}
	printf("\nnode distances (%s):\nnode",
	       notes->distances_from_slit ? "SLIT" : "10/20 default");
	for (u32 j = 0; j < m->nr_nodes; j++)
		printf(" %4u", j);
	printf("\n");
	for (u32 i = 0; i < m->nr_nodes; i++) {
		printf("%4u", i);
		for (u32 j = 0; j < m->nr_nodes; j++)
			printf(" %4u", m->distance[i][j]);
		printf("\n");
	}
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

int main(int argc, char **argv)
{
	const char *memdump = NULL, *options = NULL;
	const struct acpi_madt_info *madt = NULL;
	const struct acpi_srat_info *srat = NULL;
	const struct acpi_slit_info *slit = NULL;
	u32 boot_apic_id = ACPI_BOOT_CPU_FIRST_ENABLED;
	struct acpi_machine_options opts;
	struct acpi_machine_notes notes;
	int first_path = 0;
	bool acpi_off;

	log_out = stdout;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		u64 v;

		if (strcmp(a, "--json") == 0) {
			json = true;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if (strcmp(a, "--boot-apic-id") == 0 && i + 1 < argc) {
			if (kstrtou64(argv[i + 1], strlen(argv[i + 1]), false, &v) ||
			    v > 0xFFFFFFFEu)
				die("%s: %s", argv[i + 1], "not an APIC ID");
			boot_apic_id = (u32)v;
			i++;
		} else if (strcmp(a, "--cmdline") == 0 && i + 1 < argc) {
			options = argv[++i];
		} else if (strcmp(a, "--memdump") == 0 && i + 1 < argc) {
			memdump = argv[++i];
		} else if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr, "fulcrum-topo: unknown option %s\n%s", a, usage);
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
	if (json)
		log_out = stderr;
	if (options && cmdline_parse(options))
		die("%s: %s", options, "bad boot options (see above)");
	flush_log();

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
	}
	if (acpi_off) {
		fprintf(log_out, "ACPI: disabled by acpi=off\n");
		for (int i = 0; i < NR_SLOTS; i++)
			slots[i].data = NULL;
	}
	if (have_tables && !json)
		for (u32 i = 0; i < tables.nr; i++)
			printf("ACPI: %-4s 0x%016llx %06x%s\n", tables.table[i].signature,
			       (unsigned long long)tables.table[i].phys, tables.table[i].length,
			       tables.table[i].checksum_ok ? "" : " (bad checksum)");
	parse_tables(&madt, &srat, &slit);

	acpi_machine_options_get(&opts);
	acpi_build_machine(madt, srat, slit, boot_apic_id, &opts, &machine, &notes);
	acpi_machine_print(&notes, &machine);
	flush_log();
	if (json)
		print_json(&notes);
	else
		print_human(&notes);
	return malformed ? 1 : 0;
}
