/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The fast firmware backend: lib's parser (lr_parse) and the Toeplitz hash
 * by table (lr_thash.h) behind firmware-model/'s struct lr_fw_ops, so that
 * the distributor can run either and tests/unit/fw can hold it to the plain
 * model record for record. The distributor calls the mbuf form inline on
 * every packet; lr_fw_fast_ops is the same code on contiguous bytes.
 *
 * Threading: pure functions of their arguments and the conf's table, for
 * any thread.
 */
#ifndef LR_FW_FAST_H
#define LR_FW_FAST_H

#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_mbuf.h>

#include "lr_frag.h"
#include "lr_fw.h"
#include "lr_parse.h"
#include "lr_parse_mbuf.h"
#include "lr_thash.h"

/** The fast backend. Its conf's state must point at a struct lr_thash of
 *  the conf's key. */
extern const struct lr_fw_ops lr_fw_fast_ops;

/** Fill @p uh from a parsed packet (everything but ts, hash, channel); its
 *  inverse is lr_parsed_from_uh() (lr_distributor.h). */
void lr_uh_from_pkt(const struct lr_parsed *p, uint32_t wire, struct lr_fw_uh *uh);

/* The RSS input of a parsed packet, as NICs take it: addresses, then the
 * ports of TCP, UDP and SCTP unless hashing l3 or a later fragment. */
static inline uint32_t
lr_fw_fast_hash_input(const struct lr_fw_conf *c, const struct lr_fw_uh *uh,
		      uint8_t *in)
{
	uint32_t n = uh->ip_ver == 6 ? 16 : 4;

	memcpy(in, uh->src, n);
	memcpy(in + n, uh->dst, n);
	n *= 2;
	if (c->l4 && uh->frag != LR_FRAG_LATER &&
	    (uh->proto == 6 || uh->proto == 17 || uh->proto == 132)) {
		in[n] = (uint8_t)(uh->sport >> 8);
		in[n + 1] = (uint8_t)uh->sport;
		in[n + 2] = (uint8_t)(uh->dport >> 8);
		in[n + 3] = (uint8_t)uh->dport;
		n += 4;
	}
	return n;
}

/** The UH record of a packet parsed with result @p r: hashed to its
 *  channel when it parsed, else only its status. */
static inline void
lr_fw_fast_uh(const struct lr_fw_conf *c, enum lr_parse_result r,
	      const struct lr_parsed *p, uint32_t wire, uint64_t ts_ns,
	      struct lr_fw_uh *uh)
{
	uint8_t in[LR_THASH_IN_MAX];

	if (unlikely(r != LR_PARSE_OK)) {
		/* Nothing half-parsed leaves the firmware (as the model). */
		memset(uh, 0, sizeof(*uh));
		uh->status = (uint8_t)r;
	} else {
		lr_uh_from_pkt(p, wire, uh);
		uh->hash = lr_thash(c->state, in, lr_fw_fast_hash_input(c, uh, in));
		uh->channel = (uint8_t)(uh->hash % c->channels);
	}
	uh->ts_ns = ts_ns;
	uh->wire_len = (uint16_t)RTE_MIN(wire, (uint32_t)UINT16_MAX);
}

/** The fast backend on an mbuf: lengths from the whole frame, headers from
 *  the first segment (gathered only when they straddle; lr_parse_mbuf.h). */
static inline void
lr_fw_fast_parse_mbuf(const struct lr_fw_conf *c, const struct rte_mbuf *m,
		      uint64_t ts_ns, struct lr_fw_uh *uh)
{
	struct lr_parsed p;

	lr_fw_fast_uh(c, lr_parse_mbuf(m, UINT32_MAX, &p), &p, m->pkt_len, ts_ns,
		      uh);
}

#endif
