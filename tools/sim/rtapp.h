/*
 * tools/sim/rtapp.h - fulcrum-sim's rt-app front end: a JSON file in
 * rt-app's workload language becomes a struct workload (workload.h).
 * docs/rtapp.md lists the subset it accepts and what it refuses.
 */
#ifndef FULCRUM_SIM_RTAPP_H
#define FULCRUM_SIM_RTAPP_H

#include <stddef.h>

#include "workload.h"

/* Room for any message the front end writes. */
#define RTAPP_ERR_MAX 512

/*
 * Parses rt-app JSON held in text (len bytes) into *wl. name is used in
 * messages only. nr_cpus is the simulated machine's CPU count: a "cpus" entry
 * at or beyond it is refused; 0 skips that check. Returns 0 with *wl filled
 * (release it with workload_free()), or -1 with *wl zeroed and one message
 * in err, "NAME:LINE: what is wrong" (with ":COLUMN" for malformed JSON).
 */
int rtapp_parse(const char *name, const char *text, size_t len, unsigned int nr_cpus,
		struct workload *wl, char *err, size_t errlen);

/* rtapp_parse() on a file's contents; the path is the name in messages. */
int rtapp_parse_file(const char *path, unsigned int nr_cpus, struct workload *wl, char *err,
		     size_t errlen);

#endif /* FULCRUM_SIM_RTAPP_H */
