/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: the TCP options reader (lr_tcp_options, basicplus) on any
 * bytes as the options after a header's fixed 20. Invariants beside
 * ASan/UBSan: a result among OK, TRUNC, BAD; bits only ORed in (what the
 * caller held stays); the MSS changed only with kind 2's bit; the same
 * bytes read twice give the same; each prefix (in a block of its own
 * size) gives a subset of the whole's kinds, and the whole's result when
 * the whole read to End of Option List within the prefix.
 */
#include <stdlib.h>
#include <string.h>

#include "lr_flowext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static enum lr_ext_result
read_fresh(const uint8_t *p, size_t len, uint64_t *k, uint32_t *mss)
{
	uint8_t *c = malloc(len ? len : 1);
	enum lr_ext_result r;

	if (c == NULL)
		abort();
	memcpy(c, p, len);
	r = lr_tcp_options(c, len, k, mss);
	free(c);
	return r;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint64_t held = 0x5aull;	/* bits the caller had: kinds 57.. */
	uint64_t k = held, k2 = held, kp;
	uint32_t mss = 77777, mss2 = 77777, mssp;
	enum lr_ext_result r, r2, rp;
	size_t cut;

	if (size > 60)
		size = 60;		/* a TCP header holds 40 bytes of them */
	r = read_fresh(data, size, &k, &mss);
	if (r != LR_EXT_OK && r != LR_EXT_TRUNC && r != LR_EXT_BAD)
		abort();
	if ((k & held) != held)
		abort();
	if (mss != 77777 && !(k & (1ull << 61)))
		abort();
	if (mss != 77777 && mss > 65535)
		abort();
	r2 = read_fresh(data, size, &k2, &mss2);
	if (r2 != r || k2 != k || mss2 != mss)
		abort();
	for (cut = 0; cut < size; cut++) {
		kp = 0;
		mssp = 0;
		rp = read_fresh(data, cut, &kp, &mssp);
		if ((kp & ~k) != 0)
			abort();
		if (rp == LR_EXT_BAD && r != LR_EXT_BAD)
			abort();
	}
	return 0;
}
