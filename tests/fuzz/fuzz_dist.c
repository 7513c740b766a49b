/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: the distributor's per-frame path (lib/distributor/distributor.c's poll, the
 * fast backend lr_fw_fast.h and firmware-model/'s) on any frames, in each
 * ingress mode (full, trim=B, uh), either backend, 1..64 channels, l3 or l4
 * hash, with or without a NIC's RSS hash, and chained mbufs: every frame
 * goes twice, once split into 1..4 segments at points the input chooses,
 * once whole. A dist task is made on one end of a virtual wire per input,
 * polled here on the main lcore (no worker runs) and freed.
 *
 * Input: byte 0 mode (bits 0-1 ingress, 2 model backend, 3 l3 hash, 4 the
 * ms key), byte 1 channels - 1 (mod 64), bytes 2-3 trim; then frames, each
 * [len 2][segs 1: bits 0-1 segments - 1, bit 2 RSS hash given][3 cut
 * points][RSS hash 4][len bytes].
 *
 * Invariants beside ASan/UBSan: every frame is counted once (handed to a
 * channel or counted malformed, none refused by a ring), the report's
 * counts are what the rings hold; a channel < N; an mbuf handed on is the
 * frame as it came (bytes and length); a UH record is the backend's
 * record of the frame (the fast and the model backends agree on every
 * frame), its lengths inside the frame; both copies of a frame land on
 * one channel, the one its hash (or the NIC's) picks unless it is a
 * fragment; the channel tells the probes the trim asked for, and the
 * bytes a packet moves to a probe are no more than it; every mbuf back in
 * its pool.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "lr_common.h"
#include "lr_distributor.h"
#include "lr_engine.h"
#include "lr_fw.h"
#include "lr_fw_fast.h"
#include "lr_parse.h"
#include "lr_parse_mbuf.h"
#include "lr_port.h"
#include "lr_thash.h"
#include "lr_fuzz_eal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PAIRS (LR_BURST / 2)
#define POOL_MBUFS 255
#define FRAME_MAX 9216

static uint16_t wire[2];
static unsigned int lcore;
static struct rte_mempool *pool;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	lr_fuzz_eal_init("fuzz_dist");
	lr_fuzz_wire("fzd", &lcore, wire, &pool, POOL_MBUFS, FRAME_MAX);
	return 0;
}

struct frame {
	const uint8_t *b;
	uint32_t len;
	bool rss;
	uint32_t rss_hash;
	struct lr_fw_uh ref;	/* the backend's record of it, whole */
	struct rte_mbuf *m[2];	/* chained, whole */
	enum lr_parse_result st[2];	/* as the distributor parses it */
	int ch[2];		/* ring it came out of, -1: none */
};

static struct rte_mbuf *
build(const uint8_t *b, uint32_t len, const uint8_t cut[3], unsigned int segs)
{
	uint32_t at[5], i, n = 1;
	struct rte_mbuf *head = NULL, *last = NULL;

	/* Cut points in (0, len), increasing: no empty segment. */
	at[0] = 0;
	for (i = 0; i + 1 < segs; i++) {
		uint32_t p = (uint32_t)(((uint64_t)cut[i] * len) >> 8);

		if (p > at[n - 1] && p < len)
			at[n++] = p;
	}
	at[n] = len;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		char *p;

		if (m == NULL)
			abort();
		p = rte_pktmbuf_append(m, (uint16_t)(at[i + 1] - at[i]));
		if (p == NULL && at[i + 1] > at[i])
			abort();
		if (at[i + 1] > at[i])
			memcpy(p, b + at[i], at[i + 1] - at[i]);
		if (head == NULL) {
			head = m;
		} else {
			last->next = m;
			head->nb_segs++;
			head->pkt_len += m->data_len;
		}
		last = m;
	}
	return head;
}

/* UH records equal but for what the distributor may set apart. */
static bool
uh_same(const struct lr_fw_uh *a, const struct lr_fw_uh *b)
{
	struct lr_fw_uh x = *a, y = *b;

	x.ts_ns = y.ts_ns = 0;
	x.channel = y.channel = 0;
	x.hash = y.hash = 0;
	return memcmp(&x, &y, sizeof(x)) == 0;
}

static uint64_t
jint(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	if (!json_is_integer(v))
		abort();
	return (uint64_t)json_integer_value(v);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct frame fr[PAIRS];
	struct lr_dist_conf dc;
	struct lr_dist_channel dch;
	struct lr_fw_conf fc;
	/* The reference's tables, one per key (default, "ms"): built once. */
	static struct lr_thash th[2];
	static bool th_built[2];
	struct lr_task *t;
	struct rte_mbuf *tx[LR_BURST];
	char buf[16];
	uint8_t ingress;
	uint16_t trim;
	unsigned int key_ms, nf = 0, n = 0, i, k, ch, channels, polls;
	uint64_t handed = 0, malformed = 0, want_bad[LR_PARSE_REASONS] = { 0 };
	uint64_t got_ch[LR_DIST_CHANNELS_MAX] = { 0 };
	size_t off;
	json_t *rep, *mal, *per;
	double bpp;

	if (size < 4)
		return 0;
	ingress = (data[0] & 3) == 3 ? LR_INGRESS_FULL : data[0] & 3;
	channels = data[1] % LR_DIST_CHANNELS_MAX + 1u;
	trim = (uint16_t)(64 + ((data[2] << 8 | data[3]) % (9018 - 64 + 1)));
	key_ms = (data[0] & 16) != 0;
	lr_dist_conf_init(&dc);
	snprintf(buf, sizeof(buf), "%u", channels);
	if (lr_dist_conf_set(&dc, "channels", buf) != 0 ||
	    lr_dist_conf_set(&dc, "channel-ring", "64") != 0 ||
	    lr_dist_conf_set(&dc, "backend", data[0] & 4 ? "model" : "fast") != 0 ||
	    lr_dist_conf_set(&dc, "hash", data[0] & 8 ? "l3" : "l4") != 0 ||
	    (key_ms && lr_dist_conf_set(&dc, "hash-key", "ms") != 0))
		abort();
	if (ingress == LR_INGRESS_TRIM) {
		snprintf(buf, sizeof(buf), "%u", trim);
		if (lr_dist_conf_set(&dc, "trim", buf) != 0)
			abort();
	} else if (lr_dist_conf_set(&dc, "ingress", ingress == LR_INGRESS_UH ?
				    "uh" : "full") != 0) {
		abort();
	}
	/* The reference: both backends on the whole frame, as the
	 * distributor sets them up. */
	lr_fw_conf_init(&fc);
	memcpy(fc.key, dc.key, dc.key_len);
	fc.key_len = dc.key_len;
	fc.channels = (uint8_t)channels;
	fc.l4 = !dc.l3;
	if (!th_built[key_ms]) {
		lr_thash_init(&th[key_ms], fc.key, fc.key_len);
		th_built[key_ms] = true;
	}
	fc.state = &th[key_ms];

	for (off = 4; off + 10 <= size && nf < PAIRS; nf++) {
		struct frame *f = &fr[nf];
		struct lr_fw_uh other;
		size_t left = size - off - 10;
		uint32_t len = (uint32_t)((data[off] << 8 | data[off + 1]) %
					  (RTE_MIN(left, (size_t)FRAME_MAX) + 1));
		unsigned int segs = (data[off + 2] & 3) + 1u;

		f->rss = (data[off + 2] & 4) != 0;
		memcpy(&f->rss_hash, data + off + 6, 4);
		f->b = data + off + 10;
		f->len = len;
		lr_fw_fast_ops.parse(&fc, f->b, len, 0, &f->ref);
		lr_fw_model_ops.parse(&fc, f->b, len, 0, &other);
		if (memcmp(&f->ref, &other, sizeof(other)) != 0)
			abort();	/* the backends disagree */
		if (f->ref.status == LR_PARSE_OK) {
			if (f->ref.channel >= channels || f->ref.wire_len != len ||
			    (f->ref.ip_ver != 4 && f->ref.ip_ver != 6) ||
			    f->ref.frag > LR_FRAG_LATER ||
			    f->ref.ip_bytes + 14u > len)
				abort();
		} else if (f->ref.status >= LR_PARSE_REASONS) {
			abort();
		}
		f->m[0] = build(f->b, len, data + off + 3, segs);
		f->m[1] = build(f->b, len, data + off + 3, 1);
		for (k = 0; k < 2; k++) {
			struct lr_parsed p;

			if (f->rss) {
				f->m[k]->hash.rss = f->rss_hash;
				f->m[k]->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
			}
			f->st[k] = dc.model ? (enum lr_parse_result)f->ref.status :
				   lr_parse_mbuf(f->m[k], UINT32_MAX, &p);
			f->ch[k] = -1;
			tx[n++] = f->m[k];
		}
		/* A chain is parsed as the whole frame, but for headers past
		 * the bytes the fast path gathers (cut, as behind a trim). */
		if (f->st[1] != f->ref.status)
			abort();
		if (f->st[0] != f->st[1] &&
		    (len <= LR_PARSE_GATHER_BYTES || f->st[1] != LR_PARSE_OK ||
		     (f->st[0] != LR_PARSE_TRUNC_L3 && f->st[0] != LR_PARSE_TRUNC_L4 &&
		      f->st[0] != LR_PARSE_BAD_EXT)))
			abort();
		off += 10 + len;
	}
	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (tx[i]->pkt_len != fr[i / 2].len)
			abort();

	t = lr_task_create(&lr_dist_role, lcore, wire[1], 0, 0, &dc);
	if (t == NULL)
		abort();
	if (lr_dist_channel(t, channels, &dch) != -ENOENT ||
	    lr_dist_channel(t, channels - 1, &dch) != 0 ||
	    dch.ingress != ingress ||
	    dch.trim != (ingress == LR_INGRESS_TRIM ? trim : 0))
		abort();
	if (rte_eth_tx_burst(wire[0], 0, tx, (uint16_t)n) != n)
		abort();
	for (polls = 0; t->st.rx_pkts < n && polls < 8; polls++)
		lr_dist_role.task->poll(t, 0);
	if (t->st.rx_pkts != n)
		abort();

	/* What each channel holds. */
	for (ch = 0; ch < channels; ch++) {
		struct lr_fw_uh u[LR_BURST];
		struct rte_mbuf *m[LR_BURST];
		unsigned int got;

		if (lr_dist_channel(t, ch, &dch) != 0)
			abort();
		if (ingress == LR_INGRESS_UH) {
			got = rte_ring_sc_dequeue_burst_elem(dch.ring, u, sizeof(u[0]),
							     LR_BURST, NULL);
			for (i = 0; i < got; i++) {
				unsigned int same = 0;
				bool found = false;

				if (u[i].channel != ch || u[i].status != 0)
					abort();
				/* Its hash's channel (the model's or the NIC's),
				 * unless a fragment steered to its first's. */
				if (u[i].frag == LR_FRAG_NONE &&
				    u[i].channel != u[i].hash % channels)
					abort();
				/* A record of some frame that parsed... */
				for (k = 0; k < nf; k++)
					if (uh_same(&u[i], &fr[k].ref) &&
					    fr[k].ref.status == LR_PARSE_OK)
						found = true;
				if (!found)
					abort();
				/* ...each of them twice on this channel. */
				for (k = 0; k < got; k++)
					same += uh_same(&u[i], &u[k]);
				if (same % 2 != 0 && !dc.model &&
				    nf * 2 == n && !(u[i].wire_len > LR_PARSE_GATHER_BYTES))
					abort();
				if (same % 2 != 0 && dc.model)
					abort();
			}
		} else {
			got = rte_ring_sc_dequeue_burst(dch.ring, (void **)m, LR_BURST,
							NULL);
			for (i = 0; i < got; i++) {
				for (k = 0; k < n && tx[k] != m[i]; k++)
					;
				if (k == n || fr[k / 2].ch[k % 2] != -1)
					abort();	/* not ours, or twice */
				fr[k / 2].ch[k % 2] = (int)ch;
				if (m[i]->pkt_len != fr[k / 2].len ||
				    rte_pktmbuf_read(m[i], 0, 0, NULL) == NULL)
					abort();
				if (fr[k / 2].len > 0) {
					uint8_t *cp = malloc(fr[k / 2].len);
					const void *p;

					if (cp == NULL)
						abort();
					p = rte_pktmbuf_read(m[i], 0, fr[k / 2].len, cp);
					if (p == NULL || memcmp(p, fr[k / 2].b,
								fr[k / 2].len) != 0)
						abort();	/* changed */
					free(cp);
				}
			}
			rte_pktmbuf_free_bulk(m, got);
		}
		if (rte_ring_count(dch.ring) != 0)
			abort();
		got_ch[ch] = got;
		handed += got;
	}
	if (ingress != LR_INGRESS_UH) {
		for (k = 0; k < nf; k++) {
			struct frame *f = &fr[k];

			for (i = 0; i < 2; i++)
				if ((f->ch[i] >= 0) != (f->st[i] == LR_PARSE_OK))
					abort();	/* lost, or a bad one handed */
			if (f->ch[0] < 0 || f->ch[1] < 0)
				continue;
			if (f->ch[0] != f->ch[1])
				abort();		/* a frame on two channels */
			if (f->ref.frag == LR_FRAG_NONE &&
			    f->ch[0] != (int)(f->rss ? f->rss_hash % channels :
					      f->ref.channel))
				abort();		/* not its hash's channel */
		}
	}
	for (k = 0; k < nf; k++)
		for (i = 0; i < 2; i++)
			if (fr[k].st[i] != LR_PARSE_OK) {
				want_bad[fr[k].st[i]]++;
				malformed++;
			}

	/* The report says what the rings held. */
	rep = lr_task_report(t);
	mal = json_object_get(rep, "malformed");
	per = json_object_get(rep, "per_channel");
	if (rep == NULL || mal == NULL || json_array_size(per) != channels ||
	    jint(rep, "handed") != handed || jint(rep, "channel_ring_full") != 0 ||
	    handed + malformed != n || t->st.drops != malformed)
		abort();
	/* What a probe is handed per packet: no more than the trim, a UH
	 * record with uh. */
	bpp = json_real_value(json_object_get(rep, "bytes_per_packet"));
	if ((ingress == LR_INGRESS_TRIM && bpp > trim) ||
	    (ingress == LR_INGRESS_UH && bpp != sizeof(struct lr_fw_uh)))
		abort();
	for (ch = 0; ch < channels; ch++)
		if ((uint64_t)json_integer_value(json_array_get(per, ch)) != got_ch[ch])
			abort();
	for (k = 1; k < LR_PARSE_REASONS; k++)
		if (jint(mal, lr_parse_reason_names[k]) != want_bad[k])
			abort();
	json_decref(rep);
	lr_engine_cleanup();
	if (rte_mempool_avail_count(pool) != POOL_MBUFS)
		abort();			/* an mbuf not freed */
	return 0;
}
