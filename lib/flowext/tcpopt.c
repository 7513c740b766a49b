/* SPDX-License-Identifier: BSD-3-Clause */
/* TCP options (RFC 9293 3.1): the kinds a header carries and its MSS, for
 * the probe's basicplus extension. */
#include "lr_flowext.h"

enum lr_ext_result
lr_tcp_options(const uint8_t *p, size_t len, uint64_t *kinds, uint32_t *mss)
{
	size_t i = 0, l;

	while (i < len) {
		uint8_t kind = p[i];

		if (kind < 64)
			*kinds |= 1ull << (63 - kind);
		if (kind == 0)
			return LR_EXT_OK;	/* End of Option List */
		if (kind == 1) {		/* No-Operation: one byte */
			i++;
			continue;
		}
		if (i + 1 >= len)
			return LR_EXT_TRUNC;
		l = p[i + 1];
		if (l < 2)
			return LR_EXT_BAD;
		if (i + l > len)
			return LR_EXT_TRUNC;
		if (kind == 2 && l == 4)
			*mss = (uint32_t)p[i + 2] << 8 | p[i + 3];
		i += l;
	}
	return LR_EXT_OK;
}
