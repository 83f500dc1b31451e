/*
 * SLIT parser: the locality count and distance matrix of a byte buffer,
 * checked for size before any entry is read and for sense after (diagonal
 * 10, nothing below 10), so the scheduler never builds domains from junk.
 */
#include "acpi/slit.h"

#include "lib/errno.h"
#include "lib/string.h"
#include "printk.h"

int acpi_slit_parse(const void *buf, size_t len, struct acpi_slit_info *out)
{
	const struct acpi_slit *slit = buf;
	u32 table_len = acpi_sdt_length(buf, len, ACPI_SLIT_SIGNATURE);
	u64 count;
	u32 n;

	memset(out, 0, sizeof(*out));
	if (table_len < sizeof(struct acpi_slit)) {
		pr_warn("ACPI: SLIT header unusable (signature, length field or %zu bytes); "
			"ignored\n",
			len);
		return -EINVAL;
	}
	count = slit->locality_count;
	/* Bound the count first: count * count must not overflow below. */
	if (count == 0 || count > ACPI_SLIT_MAX_LOCALITIES) {
		pr_warn("ACPI: SLIT with %llu localities (1..%d supported); ignored\n",
			(unsigned long long)count, ACPI_SLIT_MAX_LOCALITIES);
		return -EINVAL;
	}
	n = (u32)count;
	if (table_len - sizeof(struct acpi_slit) < (size_t)n * n) {
		pr_warn("ACPI: SLIT of %u bytes cannot hold %ux%u distances; ignored\n", table_len,
			n, n);
		return -EINVAL;
	}
	out->localities = n;
	for (u32 i = 0; i < n; i++)
		for (u32 j = 0; j < n; j++)
			out->distance[i][j] = slit->entry[i * n + j];

	for (u32 i = 0; i < n; i++) {
		for (u32 j = 0; j < n; j++) {
			u8 d = out->distance[i][j];

			if (d == ACPI_SLIT_UNREACHABLE)
				out->unreachable++;
			if (i == j) {
				if (d != ACPI_SLIT_LOCAL)
					out->bad_diagonal++;
				continue;
			}
			if (d < ACPI_SLIT_LOCAL)
				out->below_local++;
			else if (d == ACPI_SLIT_LOCAL)
				out->remote_as_local++;
			if (j > i && d != out->distance[j][i])
				out->asymmetric++;
		}
	}
	out->valid = !out->bad_diagonal && !out->below_local;
	if (!out->valid)
		pr_warn("ACPI: SLIT invalid: %u diagonal entries not %d, %u entries below %d; not "
			"used\n",
			out->bad_diagonal, ACPI_SLIT_LOCAL, out->below_local, ACPI_SLIT_LOCAL);
	if (out->remote_as_local)
		pr_warn("ACPI: SLIT gives %u pairs of distinct localities distance %d (as if "
			"local)\n",
			out->remote_as_local, ACPI_SLIT_LOCAL);
	if (out->unreachable)
		pr_info("ACPI: SLIT marks %u locality pairs unreachable (%d)\n", out->unreachable,
			ACPI_SLIT_UNREACHABLE);
	if (out->asymmetric)
		pr_info("ACPI: SLIT is asymmetric in %u pairs\n", out->asymmetric);
	return 0;
}
