/*
 * The summaries and RESULT lines of tps, wakelat, jbb and netrr, shared by
 * the guest programs (user/tps.c ..., built with musl) and the simulator's
 * built-in versions (tools/sim/workloads_net.c, built for the host), so
 * that both print the same lines from the same figures. wakelat's
 * latency histogram lives here too: the guest bins measured latencies,
 * the simulator simulated ones, and both read percentiles off it the same
 * way. Plain C and stdio only.
 */
#ifndef FULCRUM_USER_WLREPORT_H
#define FULCRUM_USER_WLREPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Prints one RESULT line: user/common/bench.c's bench_result() in a guest,
 * sim_bench_result() in the simulator (the same format).
 */
typedef void (*wl_result_fn)(double value, const char *unit, const char *keys, ...);

/* ---------------------------------------------------------------- tps */

struct tps_figures {
	long clients, servers, work;
	long transactions;  /* per client; ignored when duration_s > 0 */
	double duration_s;  /* -T, or 0 */
	uint64_t processed; /* answers the clients received */
	double secs;	    /* from the start gate to the last report */
};

/* The RESULT lines' parameter words: "clients=4 servers=4 work=2000 transactions=5000". */
void tps_params(char *buf, size_t size, const struct tps_figures *f);

/* pgbench's summary (transactions, latency average, tps) and the RESULT lines tps and latency_avg. */
void tps_report(const struct tps_figures *f, wl_result_fn result);

/* ---------------------------------------------------------------- wakelat */

/* Latency histogram: exact below 128 ns, then 128 bins per power of two (under 1% error). */
#define LAT_HIST_SUB_BITS 7
#define LAT_HIST_SUB	  (1 << LAT_HIST_SUB_BITS)
#define LAT_HIST_SIZE	  (LAT_HIST_SUB * 46) /* up to 2^51 ns, far beyond any run */

/* The bin of a latency of ns nanoseconds. */
int lat_hist_index(uint64_t ns);

/* The latency (ns) at percentile pct of total samples in hist: its bin's middle, at most max_ns. */
double lat_percentile(const uint64_t *hist, uint64_t total, double pct, uint64_t max_ns);

struct wakelat_figures {
	long msg_threads, workers, work;
	long requests;	  /* rounds per message thread; ignored when runtime_s > 0 */
	double runtime_s; /* -r, or 0 */
	bool pipes;
	const uint64_t *hist; /* LAT_HIST_SIZE bins of every recorded latency */
	uint64_t total;	      /* samples in hist */
	uint64_t max_ns;
	long answered; /* requests answered, all workers */
	double secs;
};

/* The RESULT lines' parameter words: "msg_threads=2 workers=4 requests=5000 work=1000 wake=futex". */
void wakelat_params(char *buf, size_t size, const struct wakelat_figures *f);

/* schbench's percentile table and requests per second, and RESULT lines p50..max and rps. */
void wakelat_report(const struct wakelat_figures *f, wl_result_fn result);

/* ---------------------------------------------------------------- jbb */

struct jbb_figures {
	long warehouses, transactions;
	uint64_t wakeups; /* futex wake-ups the warehouses made */
	double secs;
};

/* The throughput table and the RESULT lines bops and wakeups. */
void jbb_report(const struct jbb_figures *f, wl_result_fn result);

/* ---------------------------------------------------------------- netrr */

struct netrr_figures {
	bool pinned;
	long transactions, size;
	double secs;
};

/* The transactions-per-second table and the RESULT line tps. */
void netrr_report(const struct netrr_figures *f, wl_result_fn result);

#endif
