/*
 * The request/response workloads' summaries (wlreport.h): the lines the
 * guest programs print, written once for the guest and the simulator.
 */
#include "wlreport.h"

#include <stdio.h>

#define NSEC_PER_USEC_D 1000.0

/* ---------------------------------------------------------------- tps */

void tps_params(char *buf, size_t size, const struct tps_figures *f)
{
	if (f->duration_s > 0)
		snprintf(buf, size, "clients=%ld servers=%ld work=%ld duration=%g", f->clients,
			 f->servers, f->work, f->duration_s);
	else
		snprintf(buf, size, "clients=%ld servers=%ld work=%ld transactions=%ld", f->clients,
			 f->servers, f->work, f->transactions);
}

void tps_report(const struct tps_figures *f, wl_result_fn result)
{
	double tps = (double)f->processed / f->secs;
	double latency_ms = f->secs * 1000.0 * (double)f->clients / (double)f->processed;
	char params[128];

	printf("transaction type: <builtin: request and answer over a socket pair>\n");
	printf("number of clients: %ld\n", f->clients);
	printf("number of servers: %ld\n", f->servers);
	printf("work per transaction: %ld\n", f->work);
	if (f->duration_s > 0) {
		printf("duration: %g s\n", f->duration_s);
		printf("number of transactions actually processed: %llu\n",
		       (unsigned long long)f->processed);
	} else {
		printf("number of transactions per client: %ld\n", f->transactions);
		printf("number of transactions actually processed: %llu/%ld\n",
		       (unsigned long long)f->processed, f->clients * f->transactions);
	}
	tps_params(params, sizeof(params), f);
	printf("latency average = %.3f ms\n", latency_ms);
	printf("tps = %f (without initial connection time)\n", tps);
	result(tps, "tx/s", "%s metric=tps", params);
	result(latency_ms, "ms", "%s metric=latency_avg", params);
}

/* ---------------------------------------------------------------- wakelat */

int lat_hist_index(uint64_t ns)
{
	int msb, shift, idx;

	if (ns < LAT_HIST_SUB)
		return (int)ns;
	msb = 63 - __builtin_clzll(ns);
	shift = msb - LAT_HIST_SUB_BITS;
	idx = (shift + 1) * LAT_HIST_SUB + (int)((ns >> shift) - LAT_HIST_SUB);
	return idx < LAT_HIST_SIZE ? idx : LAT_HIST_SIZE - 1;
}

/* The middle of bin idx, in ns. */
static double lat_hist_value(int idx)
{
	int shift;

	if (idx < LAT_HIST_SUB)
		return idx;
	shift = idx / LAT_HIST_SUB - 1;
	return (double)((uint64_t)(idx % LAT_HIST_SUB + LAT_HIST_SUB) << shift) +
	       ((double)(1ull << shift) - 1) / 2;
}

double lat_percentile(const uint64_t *hist, uint64_t total, double pct, uint64_t max_ns)
{
	uint64_t want = (uint64_t)((double)total * pct / 100.0 + 0.999999), seen = 0;

	if (want < 1)
		want = 1;
	for (int i = 0; i < LAT_HIST_SIZE; i++) {
		seen += hist[i];
		if (seen >= want) {
			double v = lat_hist_value(i);

			return v > (double)max_ns ? (double)max_ns : v;
		}
	}
	return (double)max_ns;
}

void wakelat_params(char *buf, size_t size, const struct wakelat_figures *f)
{
	if (f->runtime_s > 0)
		snprintf(buf, size, "msg_threads=%ld workers=%ld runtime=%g work=%ld wake=%s",
			 f->msg_threads, f->workers, f->runtime_s, f->work,
			 f->pipes ? "pipe" : "futex");
	else
		snprintf(buf, size, "msg_threads=%ld workers=%ld requests=%ld work=%ld wake=%s",
			 f->msg_threads, f->workers, f->requests, f->work,
			 f->pipes ? "pipe" : "futex");
}

void wakelat_report(const struct wakelat_figures *f, wl_result_fn result)
{
	static const struct {
		double pct;
		const char *name, *label;
	} stats[] = { { 50, "p50", "50.0th" },
		      { 90, "p90", "90.0th" },
		      { 99, "p99", "99.0th" },
		      { 99.9, "p99.9", "99.9th" } };
	const int n = sizeof(stats) / sizeof(stats[0]);
	double rps = (double)f->answered / f->secs, usec[4];
	char params[128];

	for (int s = 0; s < n; s++)
		usec[s] = lat_percentile(f->hist, f->total, stats[s].pct, f->max_ns) /
			  NSEC_PER_USEC_D;
	printf("Wakeup Latencies percentiles (usec) runtime %.3f (s) (%ld total samples)\n",
	       f->secs, f->answered);
	for (int s = 0; s < n; s++)
		printf("\t  %s: %.1f\n", stats[s].label, usec[s]);
	printf("\t  max: %.1f\n", (double)f->max_ns / NSEC_PER_USEC_D);
	printf("Requests per second: %.0f (%ld requests in %.3f s)\n", rps, f->answered, f->secs);
	wakelat_params(params, sizeof(params), f);
	for (int s = 0; s < n; s++)
		result(usec[s], "usec", "%s metric=%s", params, stats[s].name);
	result((double)f->max_ns / NSEC_PER_USEC_D, "usec", "%s metric=max", params);
	result(rps, "req/s", "%s metric=rps", params);
}

/* ---------------------------------------------------------------- jbb */

void jbb_report(const struct jbb_figures *f, wl_result_fn result)
{
	double tps = (double)(f->warehouses * f->transactions) / f->secs;

	printf("%10s %14s %10s %10s\n", "Warehouses", "Throughput", "Real", "Wake-ups");
	printf("%10ld %14.2f %10.3f %10llu\n", f->warehouses, tps, f->secs,
	       (unsigned long long)f->wakeups);
	result(tps, "ops/s", "warehouses=%ld transactions=%ld metric=bops", f->warehouses,
	       f->transactions);
	result((double)f->wakeups, "count", "warehouses=%ld transactions=%ld metric=wakeups",
	       f->warehouses, f->transactions);
}

/* ---------------------------------------------------------------- netrr */

void netrr_report(const struct netrr_figures *f, wl_result_fn result)
{
	double tps = (double)f->transactions / f->secs;
	const char *binding = f->pinned ? "pinned" : "unpinned";

	printf("%-10s %12s %10s %14s\n", "Binding", "Trans/s", "Real", "usecs/trans");
	printf("%-10s %12.2f %10.3f %14.3f\n", binding, tps, f->secs,
	       f->secs * 1e6 / (double)f->transactions);
	result(tps, "trans/s", "binding=%s transactions=%ld size=%ld metric=tps", binding,
	       f->transactions, f->size);
}
