/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Toeplitz hash by table: for a fixed key, the hash of an input is the XOR
 * of one precomputed 32-bit word per input byte (T[i][byte]), so a 12 B
 * IPv4 4-tuple costs 12 loads instead of the 96 conditional XORs of the
 * bit-by-bit form (rte_softrss, firmware-model/'s lr_fw_toeplitz), which
 * it must equal: tests/unit/fw checks it against both.
 *
 * Threading: the table is written by lr_thash_init() and only read after.
 */
#ifndef LR_THASH_H
#define LR_THASH_H

#include <stddef.h>
#include <stdint.h>

#define LR_THASH_IN_MAX 36	/**< IPv6 addresses and ports */

struct lr_thash {
	uint32_t t[LR_THASH_IN_MAX][256];	/* 36 KiB */
};

/** Build the table of @p key (@p key_len bytes; bits past it count as 0). */
void lr_thash_init(struct lr_thash *h, const uint8_t *key, size_t key_len);

/** The Toeplitz hash of @p len (<= LR_THASH_IN_MAX) bytes. */
static inline uint32_t
lr_thash(const struct lr_thash *h, const uint8_t *in, size_t len)
{
	uint32_t r = 0;
	size_t i;

	for (i = 0; i < len; i++)
		r ^= h->t[i][in[i]];
	return r;
}

#endif
