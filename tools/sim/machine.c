/*
 * The simulated machine, as struct machine (kernel/machine.h), in one of
 * three ways:
 *
 *   --preset NAME   a tools/qemu-run preset: its table is generated at
 *                   build time from tools/lib/qemu_machine.py (gen-presets),
 *                   with QEMU's CPU order, APIC IDs and SLIT;
 *   --sockets/--cores/--threads/--nodes/--distance
 *                   a shape laid out as QEMU lays it out (APIC ID fields in
 *                   the fewest bits, sockets spread over the nodes in equal
 *                   consecutive groups, one LLC per socket);
 *   --acpi FILE...  binary MADT/SRAT/SLIT tables (acpidump -b, acpixtract)
 *                   through the kernel's own parsers and acpi_build_machine,
 *                   with the APIC-ID layout CPUID would give (--threads-bits,
 *                   --cores-bits), as tools/fulcrum-topo takes them.
 *
 * Every impossible machine is refused here with a message: no CPU, more
 * than MAX_CPUS, more nodes than MAX_NODES, a distance matrix that is not
 * symmetric, not 10 on the diagonal or under 11 off it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acpi/topology.h"
#include "cpuid_topology.h"
#include "sim.h"

struct sim_preset_cpu {
	u32 apic_id, package, core, thread, node, llc;
};

struct sim_preset {
	const char *name, *summary;
	u32 nr_cpus, nr_nodes;
	const struct sim_preset_cpu *cpu;
	const unsigned char *distance;
};

#include "sim_presets.h"

#define NR_PRESETS   (sizeof(sim_presets) / sizeof(sim_presets[0]))
#define MAX_DISTANCE 254

static int bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "fulcrum-sim: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	return -1;
}

void sim_presets_list(FILE *out)
{
	for (size_t i = 0; i < NR_PRESETS; i++)
		fprintf(out, "%-8s %4u CPUs  %s\n", sim_presets[i].name, sim_presets[i].nr_cpus,
			sim_presets[i].summary);
}

static int check_distances(const struct machine *m)
{
	char msg[128];

	for (u32 i = 0; i < m->nr_nodes; i++)
		for (u32 j = 0; j < m->nr_nodes; j++) {
			u32 d = m->distance[i][j];

			if (i == j && d != LOCAL_DISTANCE) {
				snprintf(msg, sizeof(msg),
					 "node %u's distance to itself is %u, not 10", i, d);
				return bad("%s", msg);
			}
			if (i != j && (d <= LOCAL_DISTANCE || d > MAX_DISTANCE)) {
				snprintf(msg, sizeof(msg),
					 "distance %u between nodes %u and %u is outside 11..254",
					 d, i, j);
				return bad("%s", msg);
			}
			if (d != m->distance[j][i]) {
				snprintf(msg, sizeof(msg),
					 "the distances are not symmetric: %u from node %u to %u, %u "
					 "back",
					 d, i, j, m->distance[j][i]);
				return bad("%s", msg);
			}
		}
	return 0;
}

static int from_preset(const char *name, struct machine *m, char *desc, size_t desc_len)
{
	const struct sim_preset *p = NULL;

	for (size_t i = 0; i < NR_PRESETS; i++)
		if (strcmp(sim_presets[i].name, name) == 0)
			p = &sim_presets[i];
	if (!p) {
		fprintf(stderr, "fulcrum-sim: no preset '%s'; the presets are:\n", name);
		sim_presets_list(stderr);
		return -1;
	}
	m->nr_cpus = p->nr_cpus;
	m->nr_nodes = p->nr_nodes;
	for (u32 c = 0; c < p->nr_cpus; c++) {
		const struct sim_preset_cpu *e = &p->cpu[c];

		m->cpu[c] = (struct machine_cpu){ .apic_id = e->apic_id,
						  .acpi_uid = c,
						  .package = e->package,
						  .core = e->core,
						  .thread = e->thread,
						  .llc = e->llc,
						  .node = e->node };
	}
	for (u32 i = 0; i < p->nr_nodes; i++) {
		m->node[i].proximity_domain = i;
		for (u32 j = 0; j < p->nr_nodes; j++)
			m->distance[i][j] = p->distance[i * p->nr_nodes + j];
	}
	snprintf(desc, desc_len, "preset %s: %s", p->name, p->summary);
	return 0;
}

static u32 bits_for(u32 n)
{
	u32 b = 0;

	while ((1u << b) < n)
		b++;
	return b;
}

/* "10,21,21,10" (the whole matrix) or one number for every pair of distinct nodes. */
static int parse_distance(const char *s, struct machine *m)
{
	u32 n = m->nr_nodes, vals[MAX_NODES * MAX_NODES], count = 0;
	const char *p = s;

	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p || v < 0 || v > 255 || count == MAX_NODES * MAX_NODES)
			return bad("--distance %s: not a list of distances (0..255)", s);
		vals[count++] = (u32)v;
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return bad("--distance %s: not a list of distances (0..255)", s);
	}
	if (count == 1) {
		for (u32 i = 0; i < n; i++)
			for (u32 j = 0; j < n; j++)
				m->distance[i][j] = i == j ? LOCAL_DISTANCE : (u8)vals[0];
		return 0;
	}
	if (count != n * n) {
		char msg[96];

		snprintf(msg, sizeof(msg), "--distance: %u values for %u nodes (needs 1 or %u)",
			 count, n, n * n);
		return bad("%s", msg);
	}
	for (u32 i = 0; i < n; i++)
		for (u32 j = 0; j < n; j++)
			m->distance[i][j] = (u8)vals[i * n + j];
	return 0;
}

static int from_shape(const struct sim_machine_spec *s, struct machine *m, char *desc, size_t desc_len)
{
	u32 sockets = s->sockets < 0 ? 1 : (u32)s->sockets, cores = s->cores < 0 ? 1 : (u32)s->cores;
	u32 threads = s->threads < 0 ? 1 : (u32)s->threads, nodes = s->nodes < 0 ? 1 : (u32)s->nodes;
	u64 total = (u64)sockets * cores * threads;
	u32 tb = bits_for(threads), cb = bits_for(cores), per_node;
	char msg[128];

	if (nodes == 0)
		return bad("%s", "0 nodes: a machine has at least one");
	if (total == 0 || total > MAX_CPUS) {
		snprintf(msg, sizeof(msg), "%u x %u x %u = %llu CPUs: the simulator takes 1..%u",
			 sockets, cores, threads, (unsigned long long)total, MAX_CPUS);
		return bad("%s", msg);
	}
	if (nodes > MAX_NODES || nodes > sockets) {
		snprintf(msg, sizeof(msg), "%u nodes: at most one per socket and %u in all", nodes,
			 MAX_NODES);
		return bad("%s", msg);
	}
	m->nr_cpus = (u32)total;
	m->nr_nodes = nodes;
	per_node = sockets / nodes;
	for (u32 i = 0; i < m->nr_cpus; i++) {
		u32 sock = i / (cores * threads), core = (i / threads) % cores, thr = i % threads;
		u32 node = sock / per_node < nodes ? sock / per_node : nodes - 1;

		m->cpu[i] = (struct machine_cpu){ .apic_id = (sock << (cb + tb)) | (core << tb) | thr,
						  .acpi_uid = i,
						  .package = sock,
						  .core = core,
						  .thread = thr,
						  .llc = sock,
						  .node = node };
	}
	for (u32 i = 0; i < nodes; i++) {
		m->node[i].proximity_domain = i;
		for (u32 j = 0; j < nodes; j++)
			m->distance[i][j] = i == j ? LOCAL_DISTANCE : REMOTE_DISTANCE;
	}
	if (s->distance && parse_distance(s->distance, m))
		return -1;
	snprintf(desc, desc_len, "%u sockets x %u cores x %u threads, %u node%s", sockets, cores,
		 threads, nodes, nodes == 1 ? "" : "s");
	return 0;
}

/* ---------------------------------------------------------------- ACPI tables */

static struct acpi_madt_info madt_info;
static struct acpi_srat_info srat_info;
static struct acpi_slit_info slit_info;

static u8 *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 4096, n = 0;
	u8 *buf;

	if (!f) {
		fprintf(stderr, "fulcrum-sim: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	buf = malloc(cap);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, f);

		n += got;
		if (got == 0)
			break;
		if (n == cap) {
			if (cap >= ACPI_TABLE_MAX_LEN) {
				free(buf);
				buf = NULL;
				fprintf(stderr, "fulcrum-sim: %s: larger than any ACPI table\n",
					path);
				break;
			}
			cap *= 2;
			buf = realloc(buf, cap);
		}
	}
	fclose(f);
	*len = n;
	return buf;
}

static int from_acpi(const struct sim_machine_spec *s, struct machine *m, char *desc, size_t desc_len)
{
	const struct acpi_madt_info *madt = NULL;
	const struct acpi_srat_info *srat = NULL;
	const struct acpi_slit_info *slit = NULL;
	struct acpi_machine_options opts;
	struct acpi_machine_notes notes;
	struct apic_id_layout layout;

	if (s->threads_bits < 0 || s->cores_bits < 0 || s->threads_bits + s->cores_bits > 31)
		return bad("%s", "--acpi needs the APIC-ID layout: --threads-bits N --cores-bits N "
				 "(together at most 31)");
	for (u32 i = 0; i < s->nr_acpi; i++) {
		const char *path = s->acpi[i];
		size_t len = 0;
		u8 *buf = read_whole(path, &len);
		const struct acpi_sdt_header *h = (const void *)buf;
		int err = -1;

		if (!buf)
			return -1;
		if (len < ACPI_SDT_HEADER_LEN || h->length < ACPI_SDT_HEADER_LEN || h->length > len) {
			free(buf);
			return bad("%s: not a whole ACPI table (header and file size disagree)",
				   path);
		}
		if (memcmp(buf, ACPI_MADT_SIGNATURE, 4) == 0) {
			err = acpi_madt_parse(buf, h->length, &madt_info);
			madt = err || madt_info.truncated ? NULL : &madt_info;
			err = madt ? 0 : -1;
		} else if (memcmp(buf, ACPI_SRAT_SIGNATURE, 4) == 0) {
			err = acpi_srat_parse(buf, h->length, &srat_info);
			srat = err || srat_info.truncated ? NULL : &srat_info;
			err = srat ? 0 : -1;
		} else if (memcmp(buf, ACPI_SLIT_SIGNATURE, 4) == 0) {
			err = acpi_slit_parse(buf, h->length, &slit_info);
			slit = err ? NULL : &slit_info;
		} else {
			free(buf);
			return bad("%s: not an APIC (MADT), SRAT or SLIT table", path);
		}
		/* The parsers copy what they keep: the buffer may go. */
		free(buf);
		if (err)
			return bad("%s: malformed table (see the kernel's messages above)", path);
	}
	if (!madt)
		return bad("%s", "--acpi: no MADT (APIC table) among the files");
	acpi_machine_options_get(&opts);
	acpi_build_machine(madt, srat, slit, ACPI_BOOT_CPU_FIRST_ENABLED, &opts, m, &notes);
	acpi_machine_print(&notes, m);
	layout = (struct apic_id_layout){ .smt_bits = (u32)s->threads_bits,
					  .pkg_shift = (u32)(s->threads_bits + s->cores_bits),
					  .llc_shift = (u32)(s->threads_bits + s->cores_bits),
					  .source = "command line" };
	cpuid_apply_layout(&layout, m);
	snprintf(desc, desc_len, "ACPI tables: %u CPUs, %u node%s", m->nr_cpus, m->nr_nodes,
		 m->nr_nodes == 1 ? "" : "s");
	return 0;
}

int sim_machine_build(const struct sim_machine_spec *spec, struct machine *m, char *desc,
		      size_t desc_len)
{
	bool shape = spec->sockets >= 0 || spec->cores >= 0 || spec->threads >= 0 ||
		     spec->nodes >= 0 || spec->distance;
	int ways = !!spec->preset + shape + !!spec->nr_acpi, err;

	memset(m, 0, sizeof(*m));
	if (ways > 1)
		return bad("%s", "give one machine: --preset, a shape (--sockets ...) or --acpi");
	if (spec->nr_acpi)
		err = from_acpi(spec, m, desc, desc_len);
	else if (shape)
		err = from_shape(spec, m, desc, desc_len);
	else
		err = from_preset(spec->preset ? spec->preset : "default", m, desc, desc_len);
	if (err)
		return err;
	if (m->nr_cpus == 0)
		return bad("%s", "the machine has no CPU");
	return check_distances(m);
}
