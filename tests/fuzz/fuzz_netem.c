/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: the netem SPEC parser (tc-netem(8)'s grammar) on any text,
 * then, for a SPEC it takes, the queue's decisions for a run of frames
 * whose lengths and arrival steps come from the rest of the input. Beside
 * ASan/UBSan: every frame gets one or two copies with a known fate, and a
 * queued copy of a spec without negative delays is never due before it
 * arrived (saturating at 2^64, never wrapping to an early time).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lr_netem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lr_netem_conf c;
	struct lr_netem q;
	struct lr_netem_copy out[2];
	char spec[256], err[256];
	size_t n = 0, off;
	uint64_t now = 1000000000ull;
	int64_t min_ns, max_ns;

	/* The SPEC is the input up to its first NUL; the rest drives. */
	while (n < size && n < sizeof(spec) - 1 && data[n] != 0)
		n++;
	memcpy(spec, data, n);
	spec[n] = '\0';
	if (lr_netem_parse(spec, &c, err, sizeof(err)) != 0) {
		if (err[0] == '\0')
			abort();	/* a refusal always says why */
		return 0;
	}
	lr_netem_delay_bounds(&c, &min_ns, &max_ns);
	if (min_ns > max_ns)
		abort();	/* (the conf's tables leak with the abort) */
	lr_netem_init(&q, &c);
	for (off = n + 1, n = 0; off + 3 <= size && n < 4096; off += 3, n++) {
		uint32_t len = 60 + (((uint32_t)data[off] << 8 | data[off + 1]) % 9000);
		unsigned int k, copies;

		uint32_t qlen = data[off + 2] & 63;

		now += (data[off + 2] >> 6) * 1000000ull + len;
		if (qlen == 0)
			lr_netem_queue_empty(&q);
		copies = lr_netem_enqueue(&q, len, now, qlen, out);
		if (copies > 2)
			abort();
		for (k = 0; k < copies; k++)
			if (out[k].fate == LR_NETEM_QUEUED && min_ns >= 0 &&
			    c.rate_Bps == 0 && out[k].tts < now)
				abort();
	}
	lr_netem_conf_free(&c);	/* the distribution tables it loaded */
	return 0;
}
