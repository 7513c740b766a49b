/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: the L2-L4 parsers on any bytes. lr_parse (the probe's), the
 * trimmed-capture form with a wire length taken from the input, and the
 * reflect role's parse and swap (a swap applied twice gives the frame
 * back). Invariants beside ASan/UBSan: an OK parse's offsets lie inside
 * the frame.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lr_parse.h"
#include "lr_reflect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lr_parsed p;
	struct lr_reflect_frame f;
	uint8_t *a, *b;
	uint32_t wire;

	if (size > 65535)
		return 0;
	/* An exact-size heap copy: ASan sees every read past the frame. */
	a = malloc(size ? size : 1);
	if (a == NULL)
		return 0;
	memcpy(a, data, size);
	if (lr_parse(a, (uint32_t)size, &p) == LR_PARSE_OK) {
		if (p.l4_off > size)
			abort();
		if (p.ipv6 > 1 || p.frag > LR_FRAG_LATER)
			abort();
	}
	wire = size >= 2 ? (uint32_t)size + ((uint32_t)data[0] << 8 | data[1]) :
	       (uint32_t)size;
	if (lr_parse_wire(a, (uint32_t)size, wire, &p) == LR_PARSE_OK &&
	    p.l4_off > size)
		abort();
	switch (lr_reflect_parse(a, (uint32_t)size, &f)) {
	case LR_REFLECT_OWN:
	case LR_REFLECT_OTHER:
	case LR_REFLECT_LOOPED:
		b = malloc(size ? size : 1);
		if (b == NULL)
			break;
		memcpy(b, a, size);
		lr_reflect_swap(a, &f);
		lr_reflect_swap(a, &f);
		if (memcmp(a, b, size) != 0)
			abort();
		free(b);
		break;
	default:
		break;
	}
	free(a);
	return 0;
}
