/*
 * SRAT parser: processor (local APIC and x2APIC) and memory affinity
 * entries of a byte buffer, turned into struct acpi_srat_info. Disabled
 * entries are counted and skipped, as the spec says to ignore them.
 */
#include "acpi/srat.h"

#include "lib/errno.h"
#include "lib/string.h"
#include "printk.h"

/*
 * ACPI 2.0's SRAT (revision 1) had 8-bit proximity domains; ACPI 3.0
 * widened them to 32 bits in revision 2. In a revision-1 table the extra
 * bytes are reserved and may hold anything, so they are not read (Linux
 * does the same).
 */
#define SRAT_REV_WIDE_DOMAINS 2

struct srat_walk {
	struct acpi_srat_info *out;
	bool wide; /* 32-bit domains */
};

static void add_cpu(struct acpi_srat_info *out, u32 apic_id, u32 domain, u32 flags, bool x2apic)
{
	if (x2apic)
		out->count.x2apic++;
	if (!(flags & ACPI_SRAT_ENABLED)) {
		out->count.cpu_disabled++;
		return;
	}
	out->count.cpu_enabled++;
	if (out->nr_cpus >= ACPI_SRAT_MAX_CPUS) {
		if (out->count.dropped++ == 0)
			pr_warn("ACPI: SRAT has more than %d enabled processor entries; the rest "
				"are ignored\n",
				ACPI_SRAT_MAX_CPUS);
		return;
	}
	out->cpu[out->nr_cpus++] = (struct acpi_srat_cpu){
		.apic_id = apic_id,
		.domain = domain,
		.x2apic = x2apic,
	};
}

static void add_mem(struct acpi_srat_info *out, const struct acpi_srat_mem_affinity *e, bool wide)
{
	u64 base = (u64)e->base_hi << 32 | e->base_lo;
	u64 length = (u64)e->length_hi << 32 | e->length_lo;
	u32 domain = wide ? e->proximity_domain : e->proximity_domain & 0xff;

	if (!(e->flags & ACPI_SRAT_ENABLED)) {
		out->count.mem_disabled++;
		return;
	}
	/* An empty range places nothing; keeping it would only confuse node memory sizes. */
	if (length == 0) {
		out->count.mem_empty++;
		return;
	}
	if (base + length < base) {
		pr_warn("ACPI: SRAT memory range 0x%llx+0x%llx wraps around; clamped\n",
			(unsigned long long)base, (unsigned long long)length);
		length = ~(u64)0 - base;
	}
	if (out->nr_mem >= ACPI_SRAT_MAX_MEM) {
		if (out->count.dropped++ == 0)
			pr_warn("ACPI: SRAT has more than %d memory ranges; the rest are ignored\n",
				ACPI_SRAT_MAX_MEM);
		return;
	}
	out->count.mem_enabled++;
	if (e->flags & ACPI_SRAT_MEM_HOT_PLUGGABLE)
		out->count.mem_hot_pluggable++;
	if (e->flags & ACPI_SRAT_MEM_NON_VOLATILE)
		out->count.mem_non_volatile++;
	out->mem[out->nr_mem++] = (struct acpi_srat_mem){
		.domain = domain,
		.base = base,
		.length = length,
		.hot_pluggable = e->flags & ACPI_SRAT_MEM_HOT_PLUGGABLE,
		.non_volatile = e->flags & ACPI_SRAT_MEM_NON_VOLATILE,
	};
}

static size_t min_entry_len(u8 type)
{
	switch (type) {
	case ACPI_SRAT_CPU_AFFINITY:
		return sizeof(struct acpi_srat_cpu_affinity);
	case ACPI_SRAT_MEM_AFFINITY:
		return sizeof(struct acpi_srat_mem_affinity);
	case ACPI_SRAT_X2APIC_AFFINITY:
		return sizeof(struct acpi_srat_x2apic_affinity);
	default:
		return 0;
	}
}

static void parse_entry(const u8 *p, void *arg)
{
	struct srat_walk *w = arg;

	switch (p[0]) {
	case ACPI_SRAT_CPU_AFFINITY: {
		const struct acpi_srat_cpu_affinity *e = (const void *)p;
		u32 domain = e->proximity_lo;

		if (w->wide)
			domain |= (u32)e->proximity_hi[0] << 8 | (u32)e->proximity_hi[1] << 16 |
				  (u32)e->proximity_hi[2] << 24;
		add_cpu(w->out, e->apic_id, domain, e->flags, false);
		break;
	}
	case ACPI_SRAT_MEM_AFFINITY:
		add_mem(w->out, (const void *)p, w->wide);
		break;
	case ACPI_SRAT_X2APIC_AFFINITY: {
		const struct acpi_srat_x2apic_affinity *e = (const void *)p;

		add_cpu(w->out, e->x2apic_id, e->proximity_domain, e->flags, true);
		break;
	}
	default:
		/* GICC, GIC ITS, generic initiator and port affinity: not for x86 CPUs or RAM. */
		w->out->count.unknown++;
		break;
	}
}

int acpi_srat_parse(const void *buf, size_t len, struct acpi_srat_info *out)
{
	const struct acpi_srat *srat = buf;
	u32 table_len = acpi_sdt_length(buf, len, ACPI_SRAT_SIGNATURE);
	struct srat_walk w = { .out = out };

	memset(out, 0, sizeof(*out));
	if (table_len < sizeof(struct acpi_srat)) {
		pr_warn("ACPI: SRAT header unusable (signature, length field or %zu bytes); "
			"ignored\n",
			len);
		return -EINVAL;
	}
	out->revision = srat->header.revision;
	w.wide = out->revision >= SRAT_REV_WIDE_DOMAINS;
	if (acpi_walk_entries(buf, sizeof(struct acpi_srat), table_len, "SRAT", min_entry_len,
			      parse_entry, &w, &out->count.malformed))
		out->truncated = true;
	return 0;
}

s64 acpi_srat_cpu_domain(const struct acpi_srat_info *srat, u32 apic_id)
{
	for (u32 i = 0; i < srat->nr_cpus; i++)
		if (srat->cpu[i].apic_id == apic_id)
			return srat->cpu[i].domain;
	return -1;
}
