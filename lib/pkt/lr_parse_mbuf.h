/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * lr_parse_wire() on an mbuf that may be a chain of segments: net_pcap (and
 * a NIC with scatter) chains a frame longer than an mbuf's data room. The
 * lengths the frame must fit are its whole length (pkt_len); the headers
 * are read from the first segment, and only when they reach past it (a
 * parse that ran out of bytes on a chain) are the first bytes gathered and
 * parsed again. A frame whose headers fit its first segment costs nothing
 * more than before.
 *
 * Threading: pure functions of the mbuf, for any lcore.
 */
#ifndef LR_PARSE_MBUF_H
#define LR_PARSE_MBUF_H

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_mbuf.h>

#include "lr_parse.h"

/** Bytes of a chained frame gathered for headers that straddle segments:
 *  Ethernet, two tags, 8 MPLS labels, IPv6 and extension headers up to
 *  this much; deeper headers count as cut (trunc_*) as behind a trim. */
#define LR_PARSE_GATHER_BYTES 1024

/** Parse the first min(@p trim, pkt_len) bytes of a chained frame, whose
 *  headers reach past the first segment. */
enum lr_parse_result lr_parse_chain(const struct rte_mbuf *m, uint32_t trim,
				    struct lr_parsed *p);

/**
 * Parse the frame in @p m (one segment or a chain) as a trimming NIC would
 * show it: headers within the first @p trim bytes (UINT32_MAX: all), IP
 * lengths checked against the whole frame, pkt_len.
 */
static inline enum lr_parse_result
lr_parse_mbuf(const struct rte_mbuf *m, uint32_t trim, struct lr_parsed *p)
{
	uint32_t len = RTE_MIN((uint32_t)m->data_len, trim);
	enum lr_parse_result r = lr_parse_wire(rte_pktmbuf_mtod(m, const uint8_t *),
					       len, m->pkt_len, p);

	/* Only a parse that ran out of bytes may find more in the chain. */
	if (unlikely(r != LR_PARSE_OK) &&
	    (r == LR_PARSE_TRUNC_L2 || r == LR_PARSE_TRUNC_L3 ||
	     r == LR_PARSE_TRUNC_L4) &&
	    m->nb_segs > 1 && len < RTE_MIN(m->pkt_len, trim))
		r = lr_parse_chain(m, trim, p);
	return r;
}

#endif
