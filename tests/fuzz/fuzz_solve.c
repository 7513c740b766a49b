/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: linerate solve's readers (our CSV, sockperf's --full-log,
 * irtt's JSON; the first byte's low bits pick one, its high bits the
 * bootstrap's replicates, 1 to 16) on any file, then the solver on what was
 * read. The replicates' count changes no path but the loops' lengths, and
 * 200 of them (the default) made the solver most of each execution. Beside ASan/UBSan: a read either fails or adds samples
 * the solver accepts, and a solve that says "determined" gives finite
 * means for every device.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "lr_latency.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lr_latency_conf conf = { .seed = 1 };
	struct lr_latency_result res;
	struct lr_latency *lat;
	char path[64];
	long got;
	int fd;
	unsigned int i;

	if (size < 1 || size > 1 << 16)
		return 0;
	fd = memfd_create("lr_fuzz_solve", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	conf.boot = 1 + (data[0] >> 2) % 16;
	lat = lr_latency_create(&conf);
	if (lat == NULL) {
		close(fd);
		return 0;
	}
	switch (data[0] % 3) {
	case 0:
		got = lr_latency_read_csv(lat, path);
		break;
	case 1:
		got = lr_latency_read_sockperf(lat, path, "a", "b");
		break;
	default:
		got = lr_latency_read_irtt(lat, path, "a", "b");
		break;
	}
	close(fd);
	if (got > 0) {
		/* The result is freed whatever the solve said. */
		if (lr_latency_solve(lat, &res) == 0) {
			json_t *j, *devs, *pairs;
			unsigned int bad = 0;

			if (!res.determined)
				abort();
			/* a mean that is not finite is flagged, never
			 * presented as a result */
			for (i = 0; i < res.nb_devs; i++) {
				const struct lr_latency_dev *d = &res.devs[i];

				if (!isfinite(d->mean_ns) && !d->implausible)
					abort();
				if (d->min_lo_ns > d->min_ns ||
				    d->min_hi_ns < d->min_ns)
					abort();
				bad += d->implausible;
			}
			if (bad != res.nb_implausible)
				abort();
			for (i = 0; i < res.nb_pairs; i++)
				if (!(res.pairs[i].leverage > -1e-6 &&
				      res.pairs[i].leverage < 1 + 1e-6) &&
				    isfinite(res.pairs[i].leverage))
					abort();
			/* every device and pair in the document (one whose
			 * value did not fit vanished from it) */
			j = lr_latency_json(&res);
			devs = json_object_get(j, "devices");
			pairs = json_object_get(j, "pairs");
			if (j == NULL || json_object_size(devs) != res.nb_devs ||
			    json_array_size(pairs) != res.nb_pairs)
				abort();
			json_decref(j);
		}
		lr_latency_result_free(&res);
	}
	lr_latency_free(lat);
	return 0;
}
