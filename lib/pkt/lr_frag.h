/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * What the first fragment of a datagram left for its later fragments, which
 * have no transport header: the flow cache keeps its ports, the distributor
 * its channel. A direct-mapped table of LR_FRAG_SLOTS slots keyed by
 * addresses, protocol and IP id; a newer datagram takes the slot of an older
 * one, and a slot older than LR_FRAG_KEEP_NS matches nothing.
 *
 * Threading: one table per lcore (a shard's, a distributor's); no locks.
 */
#ifndef LR_FRAG_H
#define LR_FRAG_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_hash_crc.h>

#define LR_FRAG_SLOTS 4096			/* a power of two */
#define LR_FRAG_KEEP_NS (30ull * 1000000000ull)

struct lr_frag_slot {
	uint8_t src[16];
	uint8_t dst[16];
	uint32_t id;
	uint32_t val;		/**< what the first fragment left */
	uint64_t when_ns;	/**< 0: empty */
	uint8_t proto;
	uint8_t pad[7];
};

/** The slot of a datagram in @p tab (LR_FRAG_SLOTS slots). */
static inline struct lr_frag_slot *
lr_frag_slot(struct lr_frag_slot *tab, const uint8_t *src, const uint8_t *dst,
	     uint32_t id, uint8_t proto)
{
	uint32_t h = rte_hash_crc(dst, 16, rte_hash_crc(src, 16, id ^
				  ((uint32_t)proto << 24)));

	return &tab[h & (LR_FRAG_SLOTS - 1)];
}

/** A first fragment leaves @p val at @p now_ns. */
static inline void
lr_frag_put(struct lr_frag_slot *s, const uint8_t *src, const uint8_t *dst,
	    uint32_t id, uint8_t proto, uint64_t now_ns, uint32_t val)
{
	memcpy(s->src, src, 16);
	memcpy(s->dst, dst, 16);
	s->id = id;
	s->proto = proto;
	s->val = val;
	s->when_ns = now_ns;
}

/** Whether @p s holds this datagram's first fragment, seen in time. */
static inline bool
lr_frag_match(const struct lr_frag_slot *s, const uint8_t *src,
	      const uint8_t *dst, uint32_t id, uint8_t proto, uint64_t now_ns)
{
	return s->when_ns != 0 && now_ns - s->when_ns <= LR_FRAG_KEEP_NS &&
	       s->id == id && s->proto == proto &&
	       memcmp(s->src, src, 16) == 0 && memcmp(s->dst, dst, 16) == 0;
}

#endif
