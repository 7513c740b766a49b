/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The probe role's fast path (lr_probe.h): a burst from the task's queue,
 * a capture (net_pcap's, or one loaded by --pcap), or a distributor's channel (packets or Unified Header
 * records), parsed into the flow cache at the burst's time or each
 * packet's own (a capture), the expiry walk, ended records into the ring
 * to the exporter. Its poll last. The setup is probe_setup.c's, what the
 * probe says probe_report.c's.
 */
#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "lr_clock.h"
#include "lr_common.h"
#include "lr_mbuf.h"
#include "lr_flowcache.h"
#include "lr_parse_mbuf.h"
#include "lr_pcapmap.h"
#include "probe_internal.h"

/* The cache's export callback, on the task's lcore (or, once the task has
 * stopped, on the main lcore straight to the exporter). */
int
lr_probe_to_exporter(void *arg, const struct lr_flow_rec *r)
{
	struct probe *p = arg;

	if (p->direct) {
		/* The record is in the exporter now, whatever the return: an
		 * error is an earlier message the transport refused, whose
		 * records the exporter counts in records_lost. Refusing this
		 * one too would count it in export_drops, and a record that
		 * does reach the collector as lost. */
		lr_exporter_add(r);
		return 0;
	}
	/* With flow extensions the ring's records are struct
	 * lr_flow_rec_app's, as the cache hands them. */
	if (rte_ring_sp_enqueue_elem(p->ring, (void *)(uintptr_t)r,
				     p->ext != NULL ? sizeof(struct lr_flow_rec_app) :
				     sizeof(*r)) != 0) {
		p->c.ring_full++;
		return -1;
	}
	return 0;
}

/* Packets at their own (trace) times into the cache. The expiry walk runs
 * whenever the trace passes its next due time, within a burst too: a
 * sparse capture may hold minutes in one burst, and a flow idle for longer
 * than its timeout in the trace must end by it, before a later packet of
 * the same flow would start its next record. */
static __rte_always_inline void
update_trace_data(struct lr_task *t, struct probe *p, const struct lr_parsed **pp,
		  const uint64_t *ts, unsigned int k, const struct lr_fc_data *d)
{
	unsigned int i, j = 0;

	for (i = 0; i < k; i++) {
		if (ts[i] < p->walk_ns)
			continue;
		if (d != NULL)
			lr_fc_update_data(p->fc, pp + j, d + j, i - j, t->port, 0,
					  ts + j);
		else
			lr_fc_update_ts(p->fc, pp + j, i - j, t->port, ts + j);
		lr_fc_expire(p->fc, ts[i]);
		p->walk_ns = ts[i] + EXPIRE_EVERY_NS;
		j = i;
	}
	if (d != NULL)
		lr_fc_update_data(p->fc, pp + j, d + j, k - j, t->port, 0, ts + j);
	else
		lr_fc_update_ts(p->fc, pp + j, k - j, t->port, ts + j);
	if (k != 0 && ts[k - 1] > p->trace_ns)
		p->trace_ns = ts[k - 1];
}

/* Without the frames (no extensions, or Unified Header records): its own
 * function, as it was before the extensions came. */
static void
update_trace(struct lr_task *t, struct probe *p, const struct lr_parsed **pp,
	     const uint64_t *ts, unsigned int k)
{
	update_trace_data(t, p, pp, ts, k, NULL);
}

/* Parse @p n mbufs into the cache and free them. @p trace: each packet at
 * its own stamp (a capture); else the burst at one time. @p ext: with
 * each packet's bytes for the flow extensions. Inlined into its callers,
 * so that the live path keeps its code. */
static __rte_always_inline void
account_burst(struct lr_task *t, struct probe *p, struct rte_mbuf **m,
	      uint16_t n, uint64_t now, const bool trace, const bool ext)
{
	struct lr_parsed pk[LR_BURST];
	const struct lr_parsed *pp[LR_BURST];
	struct lr_fc_data d[ext ? LR_BURST : 1];
	uint64_t ts[LR_BURST];
	uint64_t bytes = 0, ns;
	uint16_t i, k = 0;

	for (i = 0; i < n && i < LR_PREFETCH; i++)
		rte_prefetch0(rte_pktmbuf_mtod(m[i], void *));
	for (i = 0; i < n; i++) {
		enum lr_parse_result r;

		if (i + LR_PREFETCH < n)
			rte_prefetch0(rte_pktmbuf_mtod(m[i + LR_PREFETCH], void *));
		bytes += m[i]->pkt_len;
		/* The first segment, or the trim: the headers; the frame's
		 * whole length: what the lengths must fit. */
		r = lr_parse_mbuf(m[i], p->trim, &pk[k]);
		p->c.parsed[r]++;
		if (r == LR_PARSE_OK) {
			if (trace)
				ts[k] = lr_clock_rx_trace_ns(&p->rx, m[i]);
			if (ext) {
				d[k].frame = rte_pktmbuf_mtod(m[i], const uint8_t *);
				d[k].len = RTE_MIN((uint32_t)m[i]->data_len, p->trim);
			}
			pp[k] = &pk[k];
			k++;
		}
	}
	if (trace) {
		if (ext)
			update_trace_data(t, p, pp, ts, k, d);
		else
			update_trace(t, p, pp, ts, k);
		/* Trace time moves with every frame, parsed or not. */
		ns = lr_clock_rx_trace_ns(&p->rx, m[n - 1]);
		if (ns > p->trace_ns)
			p->trace_ns = ns;
	} else {
		/* The burst's time: its last packet's rx stamp (a NIC's,
		 * or the distributor's), else the TSC now. */
		if (m[n - 1]->ol_flags & p->rx.flag)
			ns = lr_clock_rx_ns(&p->rx, m[n - 1]);
		else
			ns = lr_clock_ns(&p->clk, now);
		if (ext)
			lr_fc_update_data(p->fc, pp, d, k, t->port, ns, NULL);
		else
			lr_fc_update(p->fc, pp, k, t->port, ns);
	}
	lr_mbuf_free_bulk(m, n);
	if (p->in == NULL) {
		t->st.rx_pkts += n;
		t->st.rx_bytes += bytes;
	}
}

static void
probe_burst(struct lr_task *t, struct probe *p, struct rte_mbuf **m, uint16_t n,
	uint64_t now)
{
	if (unlikely(p->ext != NULL))
		account_burst(t, p, m, n, now, false, true);
	else
		account_burst(t, p, m, n, now, false, false);
}

static void
account_trace(struct lr_task *t, struct probe *p, struct rte_mbuf **m,
	      uint16_t n, uint64_t now)
{
	if (p->ext != NULL)
		account_burst(t, p, m, n, now, true, true);
	else
		account_burst(t, p, m, n, now, true, false);
}

/* --count N stops at N exactly. The burst still asks for LR_BURST:
 * vector PMDs return nothing for fewer than 4 (rte_eth_rx_burst()), so the
 * last burst's packets past N are freed unread, counted apart. @return the
 * packets to take of @p n. */
static inline uint16_t
cut_at_count(struct probe *p, struct rte_mbuf **m, uint16_t n)
{
	if (unlikely(n > p->remaining)) {
		p->c.past_count += n - p->remaining;
		lr_mbuf_free_bulk(m + p->remaining, n - (uint16_t)p->remaining);
		n = (uint16_t)p->remaining;
	}
	return n;
}

unsigned int
lr_probe_input_port(struct lr_task *t, struct probe *p)
{
	struct rte_mbuf *m[LR_BURST];
	uint16_t n = rte_eth_rx_burst(t->port, t->queue, m, LR_BURST);

	n = cut_at_count(p, m, n);
	if (n != 0)
		probe_burst(t, p, m, n, rte_rdtsc());
	return n;
}

/* A capture's queue: the same cut; a capture's --count took the whole last
 * burst into the cache (1024 packets for --count 1000). */
unsigned int
lr_probe_input_port_trace(struct lr_task *t, struct probe *p)
{
	struct rte_mbuf *m[LR_BURST];
	uint16_t n = rte_eth_rx_burst(t->port, t->queue, m, LR_BURST);

	n = cut_at_count(p, m, n);
	if (n != 0)
		account_trace(t, p, m, n, 0);
	return n;
}

unsigned int
lr_probe_input_channel(struct lr_task *t, struct probe *p)
{
	struct rte_mbuf *m[LR_BURST];
	unsigned int n = rte_ring_sc_dequeue_burst(p->in, (void **)m,
			(unsigned int)RTE_MIN(p->remaining, (uint64_t)LR_BURST), NULL);

	if (n != 0) {
		if (p->rx.trace)
			account_trace(t, p, m, (uint16_t)n, 0);
		else
			probe_burst(t, p, m, (uint16_t)n, rte_rdtsc());
	}
	return n;
}

/* Unified Header records: the cache never sees packet bytes. */
unsigned int
lr_probe_input_uh(struct lr_task *t, struct probe *p)
{
	struct lr_fw_uh uh[LR_BURST];
	struct lr_parsed pk[LR_BURST];
	const struct lr_parsed *pp[LR_BURST];
	unsigned int n, i;

	n = rte_ring_sc_dequeue_burst_elem(p->in, uh, sizeof(uh[0]),
			(unsigned int)RTE_MIN(p->remaining, (uint64_t)LR_BURST), NULL);
	if (n == 0)
		return 0;
	for (i = 0; i < n; i++) {
		lr_parsed_from_uh(&uh[i], &pk[i]);
		pp[i] = &pk[i];
	}
	p->c.parsed[LR_PARSE_OK] += n;
	if (p->rx.trace) {
		uint64_t ts[LR_BURST];

		for (i = 0; i < n; i++)
			ts[i] = uh[i].ts_ns;
		update_trace(t, p, pp, ts, n);	/* no bytes: no extension */
	} else {
		lr_fc_update(p->fc, pp, n, t->port, uh[n - 1].ts_ns);
	}
	return n;
}

/* A burst of the loaded capture (--pcap): each frame parsed where it lies
 * in memory, at its own capture time, as lr_probe_input_port_trace() takes
 * it from net_pcap's mbufs (the same lengths: the captured bytes, trimmed
 * as a trimming NIC would; the same trace time, moved by every frame).
 * @p ext: with each frame's bytes for the flow extensions. Inlined into
 * its caller twice, so that the path without keeps its code. */
static __rte_always_inline unsigned int
input_pcap(struct lr_task *t, struct probe *p, const bool ext)
{
	struct lr_parsed pk[LR_BURST];
	const struct lr_parsed *pp[LR_BURST];
	struct lr_fc_data dd[ext ? LR_BURST : 1];
	uint64_t ts[LR_BURST];
	uint64_t bytes = 0, ns = 0;
	unsigned int want = (unsigned int)RTE_MIN(p->remaining, (uint64_t)LR_BURST);
	unsigned int n = 0, k = 0;
	const uint8_t *d;
	uint32_t len;

	while (n < want && lr_pcapmap_next(&p->pcap, &d, &len, &ns)) {
		enum lr_parse_result r;

		n++;
		bytes += len;
		r = lr_parse_wire(d, RTE_MIN(len, p->trim), len, &pk[k]);
		p->c.parsed[r]++;
		if (r == LR_PARSE_OK) {
			ts[k] = ns;
			if (ext) {
				dd[k].frame = d;
				dd[k].len = RTE_MIN(len, p->trim);
			}
			pp[k] = &pk[k];
			k++;
		}
	}
	if (n < want)
		p->pcap_end = true;
	if (n == 0)
		return 0;
	if (ext)
		update_trace_data(t, p, pp, ts, k, dd);
	else
		update_trace(t, p, pp, ts, k);
	if (ns > p->trace_ns)
		p->trace_ns = ns;
	t->st.rx_pkts += n;
	t->st.rx_bytes += bytes;
	return n;
}

unsigned int
lr_probe_input_pcap(struct lr_task *t, struct probe *p)
{
	if (unlikely(p->ext != NULL))
		return input_pcap(t, p, true);
	return input_pcap(t, p, false);
}

/* The expiry walk in trace time: a capture replayed in a fraction of a
 * second still ends an idle flow by its inactive timeout, as it would have
 * live. A channel's probe that has emptied its ring takes its distributor's
 * trace time, so that its flows age while the trace goes on elsewhere (as
 * one probe for the whole port would see them). */
static void
expire_trace(struct probe *p, unsigned int n)
{
	if (n == 0 && p->dist_clock != NULL) {
		uint64_t c = __atomic_load_n(p->dist_clock, __ATOMIC_ACQUIRE);

		/* Loaded before the check: every packet of this channel up
		 * to c was in the ring, and the ring is empty. */
		if (c > p->trace_ns && rte_ring_empty(p->in))
			p->trace_ns = c;
	}
	if (p->trace_ns != 0 && p->trace_ns >= p->walk_ns) {
		lr_fc_expire(p->fc, p->trace_ns);
		p->walk_ns = p->trace_ns + EXPIRE_EVERY_NS;
	}
}

int
lr_probe_poll(struct lr_task *t, uint64_t now)
{
	struct probe *p = t->priv;
	unsigned int n;

	now = rte_rdtsc();
	n = p->input(t, p);
	if (n != 0) {
		p->c.busy_tsc += rte_rdtsc() - now;
		if (p->remaining <= n) {
			p->remaining = 0;
			return 1;
		}
		p->remaining -= n;
	} else if (p->dist != NULL &&
		   lr_task_state(p->dist) == LR_TASK_DONE &&
		   rte_ring_empty(p->in)) {
		return 1;	/* the distributor is done, its ring empty */
	} else if (p->pcap_end) {
		return 1;	/* --pcap: its last frame is in */
	} else if (p->in == NULL && lr_task_capture_end(t)) {
		return 1;	/* the capture file is read to its end */
	}
	if (p->rx.trace) {
		expire_trace(p, n);
	} else if (now >= p->expire_tsc) {
		lr_fc_expire(p->fc, lr_clock_ns(&p->clk, now));
		p->expire_tsc = now + p->expire_step;
	}
	return 0;
}
