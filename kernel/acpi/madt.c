/*
 * MADT parser: walks the interrupt controller structures of an "APIC" table
 * held in a byte buffer and turns them into struct acpi_madt_info. Every
 * entry's length is checked before any of its fields is read.
 */
#include "acpi/madt.h"

#include "lib/errno.h"
#include "lib/string.h"
#include "printk.h"

/* APIC IDs that name no processor: the xAPIC and x2APIC broadcast IDs. */
#define XAPIC_ID_INVALID  0xFF
#define X2APIC_ID_INVALID 0xFFFFFFFFu

/* The online-capable flag was a reserved bit before MADT revision 5 (ACPI 6.3). */
#define MADT_REV_ONLINE_CAPABLE 5

static bool usable(const struct acpi_madt_cpu *c)
{
	return c->enabled || c->online_capable;
}

static void note_duplicate(struct acpi_madt_info *out, u32 apic_id)
{
	out->count.duplicates++;
	for (u32 i = 0; i < out->nr_dup_ids; i++)
		if (out->dup_id[i] == apic_id)
			return;
	pr_warn("ACPI: MADT lists APIC ID 0x%x more than once; using the first entry\n", apic_id);
	if (out->nr_dup_ids < ACPI_MADT_MAX_DUP_IDS)
		out->dup_id[out->nr_dup_ids++] = apic_id;
}

/* A type-0 or type-9 entry, flags already read. */
static void add_cpu(struct acpi_madt_info *out, u32 apic_id, u32 uid, u32 flags, bool x2apic)
{
	struct acpi_madt_cpu c = {
		.apic_id = apic_id,
		.acpi_uid = uid,
		.enabled = flags & ACPI_MADT_ENABLED,
		.x2apic = x2apic,
	};

	if (x2apic)
		out->count.x2apic++;
	if (!c.enabled) {
		out->count.disabled++;
		if (out->revision >= MADT_REV_ONLINE_CAPABLE && (flags & ACPI_MADT_ONLINE_CAPABLE)) {
			c.online_capable = true;
			out->count.online_capable++;
		}
	}

	if (usable(&c)) {
		if (apic_id == (x2apic ? X2APIC_ID_INVALID : XAPIC_ID_INVALID)) {
			pr_warn("ACPI: MADT processor UID %u has the broadcast APIC ID 0x%x, "
				"ignored\n",
				uid, apic_id);
			out->count.malformed++;
			return;
		}
		for (u32 i = 0; i < out->nr_cpus; i++) {
			if (usable(&out->cpu[i]) && out->cpu[i].apic_id == apic_id) {
				note_duplicate(out, apic_id);
				return;
			}
		}
	}
	/*
	 * Disabled placeholders are kept (so the list mirrors the table) but
	 * never compared: firmware often gives them all the same ID, 0 or 0xFF.
	 */
	if (out->nr_cpus >= ACPI_MADT_MAX_CPUS) {
		if (out->count.dropped++ == 0)
			pr_warn("ACPI: MADT has more than %d processor entries; the rest are "
				"ignored\n",
				ACPI_MADT_MAX_CPUS);
		return;
	}
	if (c.enabled)
		out->count.enabled++;
	out->cpu[out->nr_cpus++] = c;
}

static void add_ioapic(struct acpi_madt_info *out, const struct acpi_madt_ioapic *e)
{
	if (out->nr_ioapics >= ACPI_MADT_MAX_IOAPICS) {
		out->count.dropped++;
		return;
	}
	out->ioapic[out->nr_ioapics++] = (struct acpi_madt_ioapic_info){
		.id = e->id,
		.address = e->address,
		.gsi_base = e->gsi_base,
	};
}

static void add_override(struct acpi_madt_info *out, const struct acpi_madt_irq_override *e)
{
	if (out->nr_overrides >= ACPI_MADT_MAX_OVERRIDES) {
		out->count.dropped++;
		return;
	}
	out->override[out->nr_overrides++] = (struct acpi_madt_override_info){
		.bus = e->bus,
		.source = e->source,
		.gsi = e->gsi,
		.flags = e->flags,
	};
}

static void add_nmi(struct acpi_madt_info *out, u32 uid, u16 flags, u8 lint)
{
	if (out->nr_nmis >= ACPI_MADT_MAX_NMIS) {
		out->count.dropped++;
		return;
	}
	out->nmi[out->nr_nmis++] = (struct acpi_madt_nmi_info){
		.acpi_uid = uid,
		.flags = flags,
		.lint = lint,
	};
}

/* The smallest length each known entry type may have; 0 for types not read here. */
static size_t min_entry_len(u8 type)
{
	switch (type) {
	case ACPI_MADT_LAPIC:
		return sizeof(struct acpi_madt_lapic);
	case ACPI_MADT_IOAPIC:
		return sizeof(struct acpi_madt_ioapic);
	case ACPI_MADT_IRQ_OVERRIDE:
		return sizeof(struct acpi_madt_irq_override);
	case ACPI_MADT_LAPIC_NMI:
		return sizeof(struct acpi_madt_lapic_nmi);
	case ACPI_MADT_LAPIC_OVERRIDE:
		return sizeof(struct acpi_madt_lapic_override);
	case ACPI_MADT_X2APIC:
		return sizeof(struct acpi_madt_x2apic);
	case ACPI_MADT_X2APIC_NMI:
		return sizeof(struct acpi_madt_x2apic_nmi);
	default:
		return 0;
	}
}

/* One entry whose length has been checked to lie within the table and to fit its type. */
static void parse_entry(const u8 *p, void *arg)
{
	struct acpi_madt_info *out = arg;
	const struct acpi_madt_entry_header *h = (const void *)p;

	switch (h->type) {
	case ACPI_MADT_LAPIC: {
		const struct acpi_madt_lapic *e = (const void *)p;

		add_cpu(out, e->apic_id, e->acpi_uid, e->flags, false);
		break;
	}
	case ACPI_MADT_IOAPIC:
		add_ioapic(out, (const void *)p);
		break;
	case ACPI_MADT_IRQ_OVERRIDE:
		add_override(out, (const void *)p);
		break;
	case ACPI_MADT_LAPIC_NMI: {
		const struct acpi_madt_lapic_nmi *e = (const void *)p;

		/* 0xFF is the 8-bit "all processors"; widen it to the x2APIC form. */
		add_nmi(out, e->acpi_uid == 0xFF ? ACPI_MADT_NMI_ALL_CPUS : e->acpi_uid, e->flags,
			e->lint);
		break;
	}
	case ACPI_MADT_LAPIC_OVERRIDE: {
		const struct acpi_madt_lapic_override *e = (const void *)p;

		if (out->lapic_overridden && e->address != out->lapic_address)
			pr_warn("ACPI: MADT has conflicting local APIC address overrides; using "
				"0x%llx\n",
				(unsigned long long)e->address);
		out->lapic_address = e->address;
		out->lapic_overridden = true;
		break;
	}
	case ACPI_MADT_X2APIC: {
		const struct acpi_madt_x2apic *e = (const void *)p;

		add_cpu(out, e->x2apic_id, e->acpi_uid, e->flags, true);
		break;
	}
	case ACPI_MADT_X2APIC_NMI: {
		const struct acpi_madt_x2apic_nmi *e = (const void *)p;

		add_nmi(out, e->acpi_uid, e->flags, e->lint);
		break;
	}
	default:
		out->count.unknown++;
		break;
	}
}

int acpi_madt_parse(const void *buf, size_t len, struct acpi_madt_info *out)
{
	const struct acpi_madt *madt = buf;
	u32 table_len = acpi_sdt_length(buf, len, ACPI_MADT_SIGNATURE);

	memset(out, 0, sizeof(*out));
	if (table_len < sizeof(struct acpi_madt)) {
		pr_warn("ACPI: MADT header unusable (signature, length field or %zu bytes); "
			"ignored\n",
			len);
		return -EINVAL;
	}
	out->revision = madt->header.revision;
	out->flags = madt->flags;
	out->lapic_address = madt->lapic_address;
	if (acpi_walk_entries(buf, sizeof(struct acpi_madt), table_len, "MADT", min_entry_len,
			      parse_entry, out, &out->count.malformed))
		out->truncated = true;
	return 0;
}
