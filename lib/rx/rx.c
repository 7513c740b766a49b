/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rx role's fast path (lr_rx.h): per burst, find linerate's header in
 * each frame, prefetch its flow's entry, then account the sequence
 * (lr_seq.h), the latency from the TX stamp, a flow's latency and jitter,
 * the samples and rtt's residence. Its burst loop last. The setup is
 * rx_setup.c's, what rx says rx_report.c's.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_udp.h>

#include "lr_clock.h"
#include "lr_common.h"
#include "lr_mbuf.h"
#include "lr_pkt.h"
#include "lr_wire.h"
#include "rx_internal.h"

/* lr_hist's layout, at 8 sub-buckets a power of two (lr_hist.h). */
static inline unsigned int
flat_bucket(uint64_t v)
{
	return lr_hist_bucket_of(v, FLAT_SUB_BITS, FLAT_MAX_BITS);
}

static inline void
flat_add(struct lr_flat *f, uint64_t ns)
{
	if (f->count != 0) {
		uint64_t d = ns > f->prev ? ns - f->prev : f->prev - ns;

		f->dsum += d;
		f->jitter += ((double)d - f->jitter) / 16;
	} else {
		f->min = ns;
	}
	f->prev = ns;
	f->count++;
	f->sum += ns;
	f->min = RTE_MIN(f->min, ns);
	f->max = RTE_MAX(f->max, ns);
	f->b[flat_bucket(ns)]++;
}

/* The most a frame's headers and stamps take when a chain's first segment
 * is too short for them: Ethernet, two tags, eight MPLS labels
 * (LR_PKT_L2_MAX), IPv4 with options (more than IPv6's fixed header; IPv6
 * extension headers past this are foreign in such a chain), UDP, linerate's
 * header and the reflector's stamps (172 B). */
#define RX_HDRS_MAX (LR_PKT_L2_MAX + 60 + 8 + LR_HDR_BYTES + LR_STAMPS_BYTES)

/*
 * Find linerate's header: UDP, not in a fragment, where the header locator
 * (lr_pkt.h: VLAN/QinQ tags, MPLS, IPv4, IPv6 and its extension headers)
 * says the transport header is; the IP length is not judged, the UDP
 * length is. A chain whose first segment is shorter than the headers (a
 * PMD that splits headers off) is read into @p scratch (RX_HDRS_MAX bytes)
 * first.
 * @return the header, or NULL (foreign) with *bad set when the magic is
 * there but the lengths do not fit the frame.
 */
static inline const struct lr_wire_hdr *
find_hdr(const struct rte_mbuf *m, bool *bad, uint8_t *scratch)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = m->data_len, l4, ulen;

	if (unlikely(len < RX_HDRS_MAX && len < m->pkt_len)) {
		len = RTE_MIN(m->pkt_len, (uint32_t)RX_HDRS_MAX);
		d = rte_pktmbuf_read(m, 0, len, scratch);
		if (d == NULL)
			return NULL;	/* a chain shorter than pkt_len */
	}
	const struct rte_udp_hdr *udp;
	const struct lr_wire_hdr *h;
	struct lr_pkt k;
	enum lr_pkt_result r;

	if (len < LR_UDP4_HDRS_BYTES + LR_HDR_BYTES)
		return NULL;
	r = lr_pkt_locate(d, len, m->pkt_len, &k);
	if ((r != LR_PKT_OK && r != LR_PKT_BAD_LEN) || k.proto != IPPROTO_UDP ||
	    k.frag != LR_PKT_FRAG_NONE)
		return NULL;
	l4 = k.l4;
	if (l4 + sizeof(*udp) + LR_HDR_BYTES > len)
		return NULL;
	udp = (const struct rte_udp_hdr *)(d + l4);
	h = (const struct lr_wire_hdr *)(udp + 1);
	/* Reflected frames too (rtt's rx): reflect's flags (lr_wire.h). */
	if (!lr_hdr_magic_ok(h->magic))
		return NULL;
	ulen = rte_be_to_cpu_16(udp->dgram_len);
	if (ulen < sizeof(*udp) + LR_HDR_BYTES || l4 + ulen > m->pkt_len) {
		*bad = true;
		return NULL;
	}
	/* Stamps claimed: they must be in the datagram and the segment. */
	if (unlikely(h->magic & rte_cpu_to_be_16(LR_HDR_STAMPED)) &&
	    (ulen < sizeof(*udp) + LR_HDR_BYTES + LR_STAMPS_BYTES ||
	     l4 + sizeof(*udp) + LR_HDR_BYTES + LR_STAMPS_BYTES > len)) {
		*bad = true;
		return NULL;
	}
	return h;
}

/*
 * rtt: the reflector's residence from its stamps (its own TSC: right on
 * any host), and the RTT @p rtt_ns less it. The stamps are there when the
 * magic says so (lr_wire.h); find_hdr() checked the UDP length holds the
 * header, and *h's frame the stamps when @p room.
 */
static inline void
residence(struct rx *r, const struct lr_wire_hdr *h, uint64_t rtt_ns)
{
	const struct lr_reflect_stamps *s = (const void *)(h + 1);
	uint64_t rx, tx, cyc, ns;

	if (!(h->magic & rte_cpu_to_be_16(LR_HDR_STAMPED))) {
		r->unstamped++;
		return;
	}
	rx = rte_be_to_cpu_64(s->rx_tsc);
	tx = rte_be_to_cpu_64(s->tx_tsc);
	cyc = tx >= rx ? tx - rx : 0;
	ns = likely(cyc < (1ull << 32)) ? (cyc * r->ns_mult) >> 32 :
	     (uint64_t)((double)cyc * r->ns_per_cycle);
	lr_hist_add(r->res, ns);
	lr_hist_add(r->net, rtt_ns > ns ? rtt_ns - ns : 0);
}

static inline void
seq_account(struct rx *r, struct lr_seq *f, uint32_t len,
	const struct lr_wire_hdr *h, uint64_t now)
{
	uint64_t tx = rte_be_to_cpu_64(h->tx_tsc);
	uint32_t gap;

	switch (lr_seq_update(f, rte_be_to_cpu_32(h->seq), tx, now, len, &gap)) {
	case LR_SEQ_IN_ORDER:
		break;
	case LR_SEQ_GAP:
		r->c.lost += gap;
		r->c.seq_too_high++;
		break;
	case LR_SEQ_RESTART:
		r->c.lost += gap;
		r->c.restarts++;
		break;
	case LR_SEQ_REORDERED:
		r->c.lost--;
		r->c.out_of_order++;
		r->c.seq_too_low++;
		break;
	case LR_SEQ_DUP:
		r->c.dup++;
		r->c.seq_too_low++;
		break;
	case LR_SEQ_LATE:
		r->c.late++;
		r->c.seq_too_low++;
		break;
	case LR_SEQ_STRAGGLER:
		/* The flow counted late only: so do the totals, which must
		 * equal the sum over the flows. */
		r->c.late++;
		break;
	}
	if (r->latency) {
		uint64_t cyc = now - tx;

		/* Only a stamp of this TSC since the task began is a
		 * latency; any other is counted, never a value. */
		if (unlikely(tx > now)) {
			r->c.latency_invalid++;
			return;
		}
		if (unlikely(tx < r->tsc_floor)) {
			r->c.latency_foreign_clock++;
			return;
		}
		uint64_t ns = likely(cyc < (1ull << 32)) ?
			      (cyc * r->ns_mult) >> 32 :
			      (uint64_t)((double)cyc * r->ns_per_cycle);

		lr_hist_add(r->hist, ns);
		if (r->flat != NULL)
			flat_add(&r->flat[f - r->flows], ns);
		if (unlikely(r->samp != NULL) && r->nb_samp < r->max_samp)
			r->samp[r->nb_samp++] = ns;
		if (unlikely(r->res != NULL))
			residence(r, h, ns);
	}
}

/* A capture stamp (us) on the TSC's scale. */
static inline uint64_t
trace_tsc(struct rx *r, const struct rte_mbuf *m)
{
	uint64_t ns = lr_clock_rx_trace_ns(&r->stamps, m);

	if (unlikely(r->ts0_ns == 0))
		r->ts0_ns = ns;
	/* Signed: a capture may step back a little (merged files). */
	return r->tsc0 + (uint64_t)(int64_t)((double)(int64_t)(ns - r->ts0_ns) *
					     r->tsc_per_ns);
}

/*
 * Two passes over a burst: the first finds each header and prefetches its
 * flow's entry, the second updates the entries, by then in cache. With
 * 65536 flows in random order the table is 8 MB and every lookup would
 * otherwise miss. @p trace: each packet at its capture time (inlined into
 * lr_rx_poll() twice, so that the live loop keeps its code).
 */
static __rte_always_inline int
poll_burst(struct lr_task *t, uint64_t now, const bool trace)
{
	struct rx *r = t->priv;
	struct rte_mbuf *pkts[LR_BURST];
	const struct lr_wire_hdr *hdr[LR_BURST];
	uint8_t scratch[LR_BURST][RX_HDRS_MAX];	/* split headers, read */
	struct lr_seq *flow[LR_BURST];
	uint32_t len[LR_BURST];
	uint64_t when[LR_BURST];
	uint64_t bytes = 0;
	uint16_t n, i, k = 0;

	n = rte_eth_rx_burst(t->port, t->queue, pkts, LR_BURST);
	if (n == 0)
		/* A capture file returns nothing for ever after its end. */
		return lr_task_capture_end(t);
	/* --count N stops at N exactly. The burst still asks for LR_BURST:
	 * vector PMDs return nothing for fewer than 4 (rte_eth_rx_burst()),
	 * so the last burst's packets past N are freed unread, counted apart. */
	if (unlikely(n > r->remaining)) {
		r->c.past_count += n - r->remaining;
		lr_mbuf_free_bulk(pkts + r->remaining, n - (uint16_t)r->remaining);
		n = (uint16_t)r->remaining;
	}
	/* The receive time of the burst: later than "now", which may be a
	 * burst of another task old. */
	now = rte_rdtsc();
	for (i = 0; i < n && i < LR_PREFETCH; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		const struct lr_wire_hdr *h;
		bool bad = false;
		uint32_t id, idx;

		if (i + LR_PREFETCH < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + LR_PREFETCH], void *));
		bytes += pkts[i]->pkt_len;
		h = find_hdr(pkts[i], &bad, scratch[i]);
		if (unlikely(h == NULL)) {
			if (bad)
				r->c.malformed++;
			else
				r->c.foreign++;
			continue;
		}
		r->c.own++;
		/* rtt: back as it was sent (no reflector's mark, our own
		 * source address): a looped port, no reflector. Its "RTT"
		 * is not one (rtt's verdict says so). */
		if (unlikely(r->res != NULL) &&
		    !(h->magic & rte_cpu_to_be_16(LR_HDR_REFLECTED)) &&
		    rte_pktmbuf_data_len(pkts[i]) >= RTE_ETHER_HDR_LEN &&
		    memcmp(rte_pktmbuf_mtod(pkts[i], const uint8_t *) +
			   RTE_ETHER_ADDR_LEN, r->sent_src_mac, 6) == 0)
			r->unreflected++;
		id = rte_be_to_cpu_32(h->flow);
		idx = id - r->flow_base;
		if (unlikely(idx >= r->nb_flows)) {
			if (id == LR_FLOW_NONE)
				r->c.untracked++;
			else
				r->c.unknown_flow++;
			continue;
		}
		flow[k] = &r->flows[idx];
		rte_prefetch0(flow[k]);
		if (r->flat != NULL) {
			/* Its entry's head and the bucket this frame's
			 * latency falls in (the entry is 2 KB). */
			uint64_t tx = rte_be_to_cpu_64(h->tx_tsc);
			uint64_t c = now > tx ? now - tx : 0;

			rte_prefetch0(&r->flat[idx]);
			rte_prefetch0(&r->flat[idx].b[flat_bucket(
				c < (1ull << 32) ? (c * r->ns_mult) >> 32 : 0)]);
		}
		hdr[k] = h;
		len[k] = pkts[i]->pkt_len;
		if (trace)
			when[k] = trace_tsc(r, pkts[i]);
		k++;
	}
	for (i = 0; i < k; i++)
		seq_account(r, flow[i], len[i], hdr[i], trace ? when[i] : now);
	lr_mbuf_free_bulk(pkts, n);
	t->st.rx_pkts += n;
	t->st.rx_bytes += bytes;
	if (r->remaining <= n) {
		r->remaining = 0;
		return 1;
	}
	r->remaining -= n;
	return 0;
}

int
lr_rx_poll(struct lr_task *t, uint64_t now)
{
	const struct rx *r = t->priv;

	if (unlikely(r->trace))
		return poll_burst(t, now, true);
	return poll_burst(t, now, false);
}
