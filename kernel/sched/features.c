/* The sched_features= boot option: named heuristics switched on and off. */
#include "sched/features.h"

#include "cmdline.h"
#include "lib/printf.h"
#include "lib/string.h"

#define __SCHED_FEAT_DEFAULT(name, enabled) | ((u64)(enabled) << __SCHED_FEAT_##name)
u64 sched_features_mask = 0 SCHED_FEATURES(__SCHED_FEAT_DEFAULT);
#undef __SCHED_FEAT_DEFAULT

static const char *const feature_names[] = {
#define __SCHED_FEAT_NAME(name, enabled) #name,
	SCHED_FEATURES(__SCHED_FEAT_NAME)
#undef __SCHED_FEAT_NAME
};

int sched_feat_set(const char *item, size_t len)
{
	bool on = true;

	if (len > 3 && memcmp(item, "NO_", 3) == 0) {
		on = false;
		item += 3;
		len -= 3;
	}
	for (int i = 0; i < __SCHED_FEAT_NR; i++) {
		if (strlen(feature_names[i]) == len && memcmp(feature_names[i], item, len) == 0) {
			if (on)
				sched_features_mask |= 1ULL << i;
			else
				sched_features_mask &= ~(1ULL << i);
			return 0;
		}
	}
	return -1;
}
BOOT_OPTION_LIST(sched_features, "sched_features", sched_feat_set,
		 "scheduler heuristics: NAME or NO_NAME, comma-separated (see kernel/sched/features.h)");

void sched_feat_describe(char *buf, size_t size)
{
	size_t used = 0;

	if (size)
		buf[0] = '\0';
	for (int i = 0; i < __SCHED_FEAT_NR && used < size; i++)
		used += (size_t)ksnprintf(buf + used, size - used, "%s%s%s", used ? "," : "",
					  (sched_features_mask >> i) & 1 ? "" : "NO_",
					  feature_names[i]);
}
