/*
 * CPU mask printing in Linux's list form: runs of consecutive CPUs become
 * "first-last", single CPUs stand alone, entries are separated by commas.
 */
#include "lib/cpumask.h"

#include "lib/printf.h"

int cpumask_print(char *buf, size_t size, const struct cpumask *m)
{
	size_t len = 0;
	u32 cpu = cpumask_first(m);

	if (size)
		buf[0] = '\0';
	while (cpu < MAX_CPUS) {
		u32 last = cpu;
		size_t room = len < size ? size - len : 0;

		while (cpumask_test_cpu(last + 1, m))
			last++;
		if (last == cpu)
			len += (size_t)ksnprintf(room ? buf + len : NULL, room, "%s%u",
						 len ? "," : "", cpu);
		else
			len += (size_t)ksnprintf(room ? buf + len : NULL, room, "%s%u-%u",
						 len ? "," : "", cpu, last);
		cpu = cpumask_next(last, m);
	}
	return (int)len;
}
