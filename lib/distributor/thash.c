/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "lr_thash.h"

/* Key bit @p b (0: the key's first MSB); bits past the key are 0. */
static inline uint32_t
key_bit(const uint8_t *key, size_t key_len, size_t b)
{
	return b / 8 < key_len ? (key[b / 8] >> (7 - b % 8)) & 1u : 0;
}

/*
 * Input bit b (MSB first) contributes the 32 key bits that start at bit b:
 * a window slid one bit per input bit. A byte's entry for v is the XOR of
 * its set bits' windows, built from v's lower entries (v = rest ^ lowest;
 * a single bit is 0 ^ itself).
 */
void
lr_thash_init(struct lr_thash *h, const uint8_t *key, size_t key_len)
{
	uint32_t w = 0;
	size_t b, i;
	unsigned int v, j;

	for (b = 0; b < 32; b++)
		w = w << 1 | key_bit(key, key_len, b);
	for (i = 0; i < LR_THASH_IN_MAX; i++) {
		uint32_t *t = h->t[i];

		t[0] = 0;
		for (j = 0; j < 8; j++, b++) {
			t[0x80u >> j] = w;
			w = w << 1 | key_bit(key, key_len, b);
		}
		for (v = 1; v < 256; v++) {
			unsigned int low = v & (~v + 1);

			t[v] = t[v ^ low] ^ t[low];
		}
	}
}
