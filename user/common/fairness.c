/*
 * Fair shares by nice weight and how far measured CPU times are from them
 * (fairness.h). Plain C and stdio only: it is built for the guest with
 * musl and for the host's simulator.
 */
#include "fairness.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

const int fair_nice_weight[40] = {
	88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
	9548,  7620,  6100,  4904,  3906,  3121,  2501,	 1991,	1586,  1277,
	1024,  820,   655,   526,   423,   335,	  272,	 215,	172,   137,
	110,   87,    70,    56,    45,	   36,	  29,	 23,	18,    15,
};

void fair_ideal_shares(long n, const int *nice_of, double total, double cap, double *ideal)
{
	bool capped[FAIR_MAX_TASKS] = { false };
	bool again = true;

	while (again) {
		double left = total, weights = 0;

		again = false;
		for (long i = 0; i < n; i++) {
			if (capped[i])
				left -= cap;
			else
				weights += fair_nice_weight[nice_of[i] + 20];
		}
		for (long i = 0; i < n; i++) {
			if (capped[i])
				continue;
			ideal[i] = left * fair_nice_weight[nice_of[i] + 20] / weights;
			if (ideal[i] > cap) {
				ideal[i] = cap;
				capped[i] = true;
				again = true;
			}
		}
	}
}

const char *fair_parse_nice(const char *s, int *nice_of)
{
	static char why[96];
	int vals[FAIR_MAX_TASKS];
	long n = 0;
	const char *p = s;

	while (*p) {
		char *end;
		long v;

		if (n == FAIR_MAX_TASKS) {
			snprintf(why, sizeof(why), "more than %d values", FAIR_MAX_TASKS);
			return why;
		}
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || end == p || (*end && *end != ',') || v < -20 || v > 19) {
			snprintf(why, sizeof(why), "'%s' is not a list of integers in -20..19", s);
			return why;
		}
		vals[n++] = (int)v;
		p = *end ? end + 1 : end;
	}
	if (n == 0)
		return "no values";
	for (long i = 0; i < FAIR_MAX_TASKS; i++)
		nice_of[i] = vals[i % n];
	return NULL;
}

const char *fair_parse_cpu_list(const char *s, const char *(*add)(long cpu, void *ctx), void *ctx)
{
	static char why[96];
	const char *p = s;

	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p || lo < 0)
			goto bad;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo) {
				snprintf(why, sizeof(why), "bad range in '%s'", s);
				return why;
			}
			p = end;
		}
		for (long c = lo; c <= hi; c++) {
			const char *no = add(c, ctx);

			if (no)
				return no;
		}
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	return NULL;
bad:
	snprintf(why, sizeof(why), "bad CPU list '%s'", s);
	return why;
}

struct fair_figures fair_report(FILE *out, long n, const int *nice_of, const uint64_t *cpu_ns,
				const double *ideal, double capacity)
{
	struct fair_figures f = { 0 };
	double s1 = 0, s2 = 0, sum = 0;

	fprintf(out, "%6s %6s %14s %14s %10s\n", "task", "nice", "cpu_ms", "ideal_ms",
		"actual/ideal");
	for (long i = 0; i < n; i++) {
		double ratio = (double)cpu_ns[i] / ideal[i];

		s1 += ratio;
		s2 += ratio * ratio;
		sum += (double)cpu_ns[i];
		f.worst_dev_pct = fmax(f.worst_dev_pct, fabs(ratio - 1) * 100);
		fprintf(out, "%6ld %6d %14.3f %14.3f %10.3f\n", i, nice_of[i],
			(double)cpu_ns[i] / 1e6, ideal[i] / 1e6, ratio);
	}
	f.jain = s1 * s1 / ((double)n * s2);
	f.cpu_used_pct = sum * 100 / capacity;
	fprintf(out, "worst deviation %.1f%%, Jain's index %.4f, CPU used %.1f%%\n",
		f.worst_dev_pct, f.jain, f.cpu_used_pct);
	return f;
}
