/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: rx's per-flow sequence accounting (lr_seq.h) on sequences of
 * packets. An input is 7-byte records: flow (1 of 4), sequence number (4,
 * as a delta from the flow's next expected number when the top bit of the
 * flow byte is set, so that near misses are common), TX timestamp step (2,
 * signed). Checked after every packet, as rx's totals and reports rely on:
 * the counters agree with the events returned (rx adds its totals from the
 * events), the loss never goes negative, duplicates never exceed packets,
 * PER stays in [0, 1].
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lr_seq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct tally {
	uint64_t ev[LR_SEQ_RESTART + 1];
	int64_t lost;
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lr_seq f[4];
	struct tally t[4];
	uint64_t tsc[4] = { 1000, 1000, 1000, 1000 };
	size_t off;
	unsigned int k;

	memset(f, 0, sizeof(f));
	memset(t, 0, sizeof(t));
	for (off = 0; off + 7 <= size; off += 7) {
		const uint8_t *r = data + off;
		unsigned int i = r[0] & 3;
		uint32_t v = (uint32_t)r[1] << 24 | (uint32_t)r[2] << 16 |
			     (uint32_t)r[3] << 8 | r[4];
		int16_t step = (int16_t)((uint16_t)r[5] << 8 | r[6]);
		uint32_t seq = (r[0] & 0x80) ? f[i].next + (uint32_t)(int32_t)(int8_t)r[4] :
			       v;
		enum lr_seq_event e;
		uint32_t gap;
		double per;

		tsc[i] = (uint64_t)((int64_t)tsc[i] + step);
		e = lr_seq_update(&f[i], seq, tsc[i], off, 60, &gap);
		if ((unsigned int)e > LR_SEQ_RESTART)
			abort();
		t[i].ev[e]++;
		if (e == LR_SEQ_GAP || e == LR_SEQ_RESTART)
			t[i].lost += gap;
		else if (e == LR_SEQ_REORDERED)
			t[i].lost--;
		else if (gap != 0)
			abort();
		if (f[i].lost < 0 || f[i].lost != t[i].lost)
			abort();
		if (f[i].seq_too_high != t[i].ev[LR_SEQ_GAP] ||
		    f[i].out_of_order != t[i].ev[LR_SEQ_REORDERED] ||
		    f[i].dup != t[i].ev[LR_SEQ_DUP] ||
		    f[i].restarts != t[i].ev[LR_SEQ_RESTART] ||
		    f[i].late != t[i].ev[LR_SEQ_LATE] + t[i].ev[LR_SEQ_STRAGGLER] ||
		    f[i].seq_too_low != t[i].ev[LR_SEQ_REORDERED] +
					t[i].ev[LR_SEQ_DUP] + t[i].ev[LR_SEQ_LATE])
			abort();
		if (f[i].dup > f[i].pkts)
			abort();
		per = lr_seq_per(lr_seq_unique(&f[i]), f[i].lost);
		if (!(per >= 0 && per <= 1))
			abort();
	}
	for (k = 0; k < 4; k++) {
		uint64_t n = 0, e;

		for (e = 0; e <= LR_SEQ_RESTART; e++)
			n += t[k].ev[e];
		if (n != f[k].pkts)
			abort();
	}
	return 0;
}
