/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "lr_thash.h"

/* The 32 key bits that start at bit @p pos (0: the key's first MSB). */
static uint32_t
window(const uint8_t *key, size_t key_len, size_t pos)
{
	uint32_t w = 0;
	size_t k;

	for (k = 0; k < 32; k++) {
		size_t b = pos + k;
		uint32_t bit = b / 8 < key_len ? (key[b / 8] >> (7 - b % 8)) & 1u : 0;

		w = w << 1 | bit;
	}
	return w;
}

void
lr_thash_init(struct lr_thash *h, const uint8_t *key, size_t key_len)
{
	uint32_t win[8];
	size_t i, j;
	unsigned int v;

	for (i = 0; i < LR_THASH_IN_MAX; i++) {
		for (j = 0; j < 8; j++)
			win[j] = window(key, key_len, i * 8 + j);
		for (v = 0; v < 256; v++) {
			uint32_t r = 0;

			for (j = 0; j < 8; j++)
				if (v & (0x80u >> j))
					r ^= win[j];
			h->t[i][v] = r;
		}
	}
}
