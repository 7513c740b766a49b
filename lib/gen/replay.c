/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen --pcap: a capture's frames replayed. The capture is read once, with
 * libpcap, into one buffer on the task's socket, with what the fast path
 * needs of each frame worked out beforehand: where its IP and L4 headers
 * are, its flow (for --stamp) and its gap to the next frame in the
 * capture. Its slot in the schedule is that gap over the multiplier, or
 * its share of --rate: the pacing block's factors (gen_pace), which
 * task:set{} changes live as it does a gen's rate. Per packet the fast path copies the frame into an mbuf of the
 * task's pool and, when asked, rewrites it in place: MAC addresses, the
 * source address shifted per loop (checksums by incremental update, RFC
 * 1624), linerate's header in the UDP data.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_hash.h>
#include <rte_ip.h>
#include <rte_jhash.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "lr_common.h"
#include "lr_pkt.h"
#include "lr_pool.h"
#include "lr_port.h"
#include "gen_conf.h"
#include "gen_internal.h"
#include "gen_replay.h"

#define REPLAY_MAX_BYTES (1ull << 30)	/* frame bytes loaded, at most */
#define REPLAY_MAX_FRAMES (1u << 24)
#define REPLAY_POOL_MBUFS 8191
#define REPLAY_POOL_CACHE 256

enum { L3_NONE, L3_V4, L3_V6 };

/* One frame of the capture, as the fast path sends it. */
struct rp_frame {
	uint64_t off;		/* in rp->data */
	double cost;		/* TSC cycles to the next frame in the
				 * capture (at multiplier 1) */
	uint32_t len;		/* bytes captured, sent as they are */
	uint32_t flow;		/* index of its 5-tuple, UINT32_MAX: none */
	uint16_t l3;		/* IP header, 0: not IP */
	uint16_t l4csum;	/* UDP/TCP checksum field, 0: none to fix */
	uint16_t stamp;		/* UDP data with room for the header, 0: none */
	uint8_t l3type;
	bool udp;		/* l4csum is UDP's: 0 is sent as 0xffff */
};

struct lr_replay {
	uint8_t *data;
	struct rp_frame *f;
	uint32_t nb;
	uint32_t next;		/* the next frame to send */
	uint64_t loop;		/* loops begun before the current one */
	uint64_t loops;		/* 0: no end */
	uint32_t step;
	uint32_t nb_flows;	/* 5-tuples of the stamped frames */
	uint32_t flow_base;
	uint32_t *seq;		/* per 5-tuple */
	bool stamp;
	bool set_src_mac, set_dst_mac;
	struct rte_ether_addr src_mac, dst_mac;
	/* report */
	uint64_t stamped, unstamped;
	uint64_t bytes;
	uint64_t truncated, skipped;
	bool cut;		/* the last record cut short, not read */
	uint64_t backwards;	/* frames stamped before the one before */
	uint32_t first_back;	/* the first of them (0-based) */
	double first_back_s;	/* and how far back */
	double span_s, loop_gap_s;
	double gaps_tsc;	/* the frames' costs summed: a loop's time at
				 * multiplier 1 */
	bool timing;
};

/* Frame @p f's slot at the pacing in force: its capture gap over the
 * multiplier (gap_k), or its share of --rate (gap_k 0). */
static inline double
slot_of(const struct gen *g, const struct rp_frame *f)
{
	return f->cost * g->gap_k + g->per_pkt_tsc +
	       g->per_byte_tsc * (f->len + LR_FCS_BYTES);
}

/* RFC 1624's eqn. 3: checksum @p c after a 32-bit word changed. */
static inline rte_be16_t
csum_replace4(rte_be16_t c, rte_be32_t from, rte_be32_t to)
{
	uint32_t s = (uint16_t)~c;

	s += (uint16_t)~(from & 0xffff);
	s += (uint16_t)~(from >> 16);
	s += to & 0xffff;
	s += to >> 16;
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (rte_be16_t)~s;
}

/* The same over @p n bytes (even, at an even offset of the sum). */
static inline rte_be16_t
csum_replace(rte_be16_t c, const void *from, const void *to, size_t n)
{
	uint32_t s = (uint16_t)~c;

	s += (uint16_t)~rte_raw_cksum(from, n);
	s += rte_raw_cksum(to, n);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (rte_be16_t)~s;
}

struct rp_key {
	uint8_t src[16];
	uint8_t dst[16];
	uint16_t sport;
	uint16_t dport;
	uint8_t proto;
	uint8_t pad[3];
};

/* Where a frame's headers are (struct rp_frame), and its 5-tuple: where
 * the locator finds them (lr_pkt.h), as rx will when it counts them. */
static void
parse(const uint8_t *d, uint32_t len, struct rp_frame *f, struct rp_key *k,
      bool *has_key)
{
	uint32_t l4, ulen, ip_end;
	enum lr_pkt_result r;
	struct lr_pkt p;
	uint8_t proto;

	*has_key = false;
	memset(k, 0, sizeof(*k));
	r = lr_pkt_locate(d, len, len, &p);
	/* An IP header with its options or extensions in the capture; its
	 * length is not judged (the bytes are sent as captured). */
	if (r != LR_PKT_OK && r != LR_PKT_BAD_LEN)
		return;
	f->l3 = p.l3;
	if (p.l3type == LR_PKT_L3_IPV4) {
		const struct rte_ipv4_hdr *ip = (const void *)(d + p.l3);

		f->l3type = L3_V4;
		memcpy(k->src, &ip->src_addr, 4);
		memcpy(k->dst, &ip->dst_addr, 4);
	} else {
		const struct rte_ipv6_hdr *ip = (const void *)(d + p.l3);

		f->l3type = L3_V6;
		memcpy(k->src, ip->src_addr, 16);
		memcpy(k->dst, ip->dst_addr, 16);
	}
	/* A later fragment has no L4 header. */
	if (p.l4 == 0)
		return;
	proto = p.proto;
	l4 = p.l4;
	ip_end = p.l3_end;
	/* The first fragment's L4 sum covers the whole datagram: fixable,
	 * but its data is not all here to stamp. */
	if (p.frag == LR_PKT_FRAG_FIRST)
		proto = proto == IPPROTO_UDP ? 0xfe : proto;
	if (proto == IPPROTO_TCP && l4 + sizeof(struct rte_tcp_hdr) <= len) {
		f->l4csum = (uint16_t)(l4 + offsetof(struct rte_tcp_hdr, cksum));
	} else if ((proto == IPPROTO_UDP || proto == 0xfe) &&
		   l4 + sizeof(struct rte_udp_hdr) <= len) {
		const struct rte_udp_hdr *u = (const void *)(d + l4);

		/* IPv4's UDP may have no checksum (0): it stays so. */
		if (u->dgram_cksum != 0 || f->l3type == L3_V6)
			f->l4csum = (uint16_t)(l4 + offsetof(struct rte_udp_hdr,
							     dgram_cksum));
		f->udp = true;
		ulen = rte_be_to_cpu_16(u->dgram_len);
		/* The header inside the frame, the UDP length and the IP
		 * length: the sum covers what the IP length says, and a
		 * stamp in the bytes past it (a trailer, padding) would
		 * spoil a right sum. */
		if (proto == IPPROTO_UDP &&
		    ulen >= sizeof(*u) + LR_HDR_BYTES &&
		    l4 + sizeof(*u) + LR_HDR_BYTES <= RTE_MIN(len, ip_end))
			f->stamp = (uint16_t)(l4 + sizeof(*u));
		proto = IPPROTO_UDP;
	} else {
		return;
	}
	memcpy(&k->sport, d + l4, 2);
	memcpy(&k->dport, d + l4 + 2, 2);
	k->proto = proto;
	*has_key = true;
}

/* A capture opened (by path, or a stream for the fuzzer): Ethernet only.
 * @p p is closed when it is refused. */
static pcap_t *
check_link(pcap_t *p, const char *path)
{
	if (pcap_datalink(p) != DLT_EN10MB) {
		lr_err(EINVAL, "gen: pcap %s: link type %s, not Ethernet", path,
		       pcap_datalink_val_to_name(pcap_datalink(p)) ?: "unknown");
		pcap_close(p);
		return NULL;
	}
	return p;
}

static pcap_t *
open_capture(const char *path)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p;

	p = pcap_open_offline_with_tstamp_precision(path,
		PCAP_TSTAMP_PRECISION_NANO, err);
	if (p == NULL) {
		lr_err(EINVAL, "gen: pcap %s: %s", path, err);
		return NULL;
	}
	return check_link(p, path);
}

/* A frame's capture time as libpcap gives it (ns precision asked). */
struct rp_time {
	int64_t sec;
	int64_t ns;
};

/*
 * The gap in ns from capture time @p a to @p b; negative: @p b is stamped
 * before @p a. Seconds are taken as pcap stores them, 32 bits: libpcap
 * reads them signed, so a capture that runs past 2038-01-19 steps back
 * by 2^32 s there (and past 2106 an unsigned reader would): a step of
 * more than 68 years either way is that wrap, not the capture's timing.
 * It gave a span of 1.8e10 s (a negative gap through uint64).
 */
static int64_t
gap_ns(const struct rp_time *a, const struct rp_time *b)
{
	int64_t ds = (int32_t)(uint32_t)((uint64_t)b->sec - (uint64_t)a->sec);

	return ds * 1000000000ll + (b->ns - a->ns);
}

/* The capture as read, on the heap until it is moved to the task's
 * socket: frame bytes, frames and their capture times. */
struct rp_heap {
	uint8_t *data;
	size_t cap;		/* bytes data holds */
	struct rp_frame *f;
	struct rp_time *ts;
	uint32_t fcap;		/* frames f and ts hold */
};

static void
heap_free(struct rp_heap *b)
{
	free(b->data);
	free(b->f);
	free(b->ts);
	memset(b, 0, sizeof(*b));
}

/* Room for @p frames frames and @p bytes bytes, doubling. */
static int
heap_grow(struct rp_heap *b, uint32_t frames, uint64_t bytes)
{
	if (bytes > b->cap) {
		size_t cap = RTE_MAX(b->cap * 2, (size_t)65536);
		uint8_t *d;

		cap = RTE_MIN(RTE_MAX(cap, (size_t)bytes), (size_t)REPLAY_MAX_BYTES);
		d = realloc(b->data, cap);
		if (d == NULL)
			return -ENOMEM;
		b->data = d;
		b->cap = cap;
	}
	if (frames > b->fcap) {
		uint32_t cap = RTE_MIN(RTE_MAX(b->fcap * 2, 1024u),
				       REPLAY_MAX_FRAMES);
		struct rp_frame *f = realloc(b->f, sizeof(*f) * cap);
		struct rp_time *ts;

		if (f == NULL)
			return -ENOMEM;
		b->f = f;
		ts = realloc(b->ts, sizeof(*ts) * cap);
		if (ts == NULL)
			return -ENOMEM;
		b->ts = ts;
		b->fcap = cap;
	}
	return 0;
}

/*
 * The capture read in one pass into @p b: each frame's bytes copied as
 * libpcap hands them, bounded by the port's frame (@p max_frame) and the
 * totals by REPLAY_MAX_*, before the copy. Read twice (once to size, once
 * to copy), a file replaced by mv or a FIFO gave the second pass other
 * frames than the first had sized: copies past the buffer (SIGSEGV). One
 * pass reads one file, whatever happens to the path meanwhile.
 */
static int
slurp(struct lr_replay *rp, pcap_t *p, const char *path, uint32_t max_frame,
      uint32_t *max_len, struct rp_heap *b)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	uint64_t k = 0;
	int r;

	*max_len = 0;
	while ((r = pcap_next_ex(p, &h, &d)) == 1) {
		/* h is libpcap's: read before pcap_close frees it. */
		uint32_t caplen = h->caplen;
		struct rp_frame *f;

		k++;
		if (caplen < RTE_ETHER_HDR_LEN) {
			rp->skipped++;
			continue;
		}
		if (caplen > max_frame)
			return lr_err(EINVAL, "gen: pcap %s: frame %" PRIu64 " has "
				      "%u B, more than the port takes (%u B: "
				      "set its mtu=)", path, k, caplen,
				      max_frame);
		if (rp->nb >= REPLAY_MAX_FRAMES ||
		    rp->bytes + caplen > REPLAY_MAX_BYTES)
			return lr_err(EFBIG, "gen: pcap %s: more than %u frames or "
				      "%llu MB: the replay holds a capture in "
				      "memory (split it with editcap -c)", path,
				      REPLAY_MAX_FRAMES, REPLAY_MAX_BYTES >> 20);
		if (heap_grow(b, rp->nb + 1, rp->bytes + caplen) != 0)
			return lr_err(ENOMEM, "gen: pcap %s: no memory for %"
				      PRIu64 " MB", path,
				      (rp->bytes + caplen) >> 20);
		if (caplen < h->len)
			rp->truncated++;
		memcpy(b->data + rp->bytes, d, caplen);
		f = &b->f[rp->nb];
		memset(f, 0, sizeof(*f));
		f->off = rp->bytes;
		f->len = caplen;
		f->flow = UINT32_MAX;
		b->ts[rp->nb].sec = (int64_t)h->ts.tv_sec;
		b->ts[rp->nb].ns = (int64_t)h->ts.tv_usec;
		rp->nb++;
		rp->bytes += caplen;
		*max_len = RTE_MAX(*max_len, caplen);
	}
	/* A last record cut short (a capture whose writer was killed):
	 * the frames before it, as the probe reads such a file (issue 35
	 * L15), and said. libpcap has no code for it but its message. */
	if (r == PCAP_ERROR && strstr(pcap_geterr(p), "truncated dump file") != NULL)
		rp->cut = true;
	else if (r == PCAP_ERROR)
		return lr_err(EIO, "gen: pcap %s: frame %" PRIu64 ": %s", path,
			      k + 1, pcap_geterr(p));
	if (rp->nb == 0)
		return lr_err(EINVAL, "gen: pcap %s: no Ethernet frame in it", path);
	return 0;
}

/* The frames loaded (rp->data, rp->f) parsed, flows numbered; the gaps
 * (ns, from @p ts) into the costs for now. */
static int
index_frames(struct lr_replay *rp, const struct rp_time *ts, const char *hname,
	     int socket)
{
	struct rte_hash_parameters hp = {
		.name = hname, .entries = RTE_MAX(rp->nb, 8u),
		.key_len = sizeof(struct rp_key), .hash_func = rte_jhash,
		.socket_id = socket,
	};
	struct rte_hash *tuples = NULL;
	double span_ns = 0;
	uint32_t i;
	int ret = 0;

	if (rp->stamp) {
		tuples = rte_hash_create(&hp);
		if (tuples == NULL)
			return lr_err(ENOMEM, "gen: pcap: no memory for the flows "
				      "of %u frames", rp->nb);
	}
	for (i = 0; i < rp->nb; i++) {
		struct rp_frame *f = &rp->f[i];
		struct rp_key key;
		bool has_key;

		parse(rp->data + f->off, f->len, f, &key, &has_key);
		if (rp->stamp && f->stamp != 0 && has_key) {
			int32_t pos = rte_hash_add_key(tuples, &key);

			if (pos < 0) {
				ret = lr_err(ENOMEM, "gen: pcap: flow table full");
				break;
			}
			f->flow = (uint32_t)pos;
		}
		/* Gaps in ns for now. A frame stamped before the one
		 * before it (merged files, a clock stepped back) is sent
		 * right after that one, counted; the frames after it keep
		 * their gaps from it. Held to the latest time instead, a
		 * step back of an hour sent the next hour's frames at once. */
		if (i > 0) {
			int64_t gap = gap_ns(&ts[i - 1], &ts[i]);

			if (gap < 0) {
				if (rp->backwards++ == 0) {
					rp->first_back = i;
					rp->first_back_s = (double)-gap / 1e9;
				}
				gap = 0;
			}
			rp->f[i - 1].cost = (double)gap;
			span_ns += (double)gap;
		}
	}
	if (ret == 0 && rp->stamp) {
		/* rte_hash positions are not dense: number them 0..n-1 in
		 * order of first appearance. */
		uint32_t *ids = calloc(rte_hash_max_key_id(tuples) + 1u,
				       sizeof(*ids));

		if (ids == NULL) {
			ret = lr_err(ENOMEM, "gen: no memory");
		} else {
			for (i = 0; i < rp->nb; i++) {
				uint32_t pos = rp->f[i].flow;

				if (pos == UINT32_MAX)
					continue;
				if (ids[pos] == 0)
					ids[pos] = ++rp->nb_flows;
				rp->f[i].flow = ids[pos] - 1;
			}
			free(ids);
		}
	}
	rte_hash_free(tuples);
	/* The span replayed: the gaps sent, not the last time less the
	 * first. */
	rp->span_s = span_ns / 1e9;
	/* A loop starts a mean gap after the last frame of the one before;
	 * a capture of one frame repeats it without a gap. */
	rp->loop_gap_s = rp->nb > 1 ? rp->span_s / (rp->nb - 1) : 0;
	rp->f[rp->nb - 1].cost = rp->loop_gap_s * 1e9;
	return ret;
}

/* Does every frame's slot under pacing @p p fit a schedule
 * (LR_GEN_SLOT_MAX_S)? A longer one (a capture's gap of hours over a
 * small multiplier, a rate of 1e-300) would pass 64 bits of cycles. */
static int
slot_fits(const struct gen *g, const struct gen_pace *p, double hz)
{
	const struct lr_replay *rp = g->rp;
	double slot, max = 0;
	uint32_t i;
	char rs[64];

	for (i = 0; i < rp->nb; i++) {
		slot = rp->f[i].cost * p->gap_k + p->per_pkt_tsc +
		       p->per_byte_tsc * (rp->f[i].len + LR_FCS_BYTES);
		max = RTE_MAX(max, slot);
	}
	max /= hz;
	if (max <= LR_GEN_SLOT_MAX_S)
		return 0;
	if (p->multiplier != 0)
		return lr_err(EINVAL, "gen: multiplier %g is too low to "
			      "schedule this capture: a frame's slot of %.3g s "
			      "passes the %.0e s a schedule holds", p->multiplier,
			      max, LR_GEN_SLOT_MAX_S);
	return lr_err(EINVAL, "gen: rate %s is too low to schedule: a frame's "
		      "slot of %.3g s passes the %.0e s a schedule holds",
		      lr_rate_str(&p->rate, rs, sizeof(rs)), max,
		      LR_GEN_SLOT_MAX_S);
}

/*
 * A pacing block @p p for replay g: at the capture's timing over
 * @p multiplier, or at @p rate (--rate; NULL: the timing). The frames'
 * costs stay the capture's gaps; the block holds the factors the fast path
 * takes them by (slot_of()), at the start and at each task:set{}.
 */
static int
pace_of(const struct gen *g, const struct lr_port_info *pi,
	const struct lr_rate *rate, double multiplier, double hz,
	struct gen_pace *p)
{
	const struct lr_replay *rp = g->rp;
	double per_pkt, per_byte, line, link_bps = pi->link_speed_mbps * 1e6;
	char rs[64];

	p->rate = g->conf.rate;
	if (rate == NULL) {
		p->multiplier = multiplier;
		p->gap_k = 1 / multiplier;
		p->mean_cost = rp->gaps_tsc * p->gap_k / rp->nb;
		/* The capture's mean rate over the multiplier above the line
		 * rate is a mistake, as such a --rate is: a run that could
		 * only fall short. */
		line = (g->mean_frame + LR_L1_EXTRA_BYTES) * 8 / link_bps;
		if (link_bps > 0 && p->mean_cost > 0 &&
		    p->mean_cost / hz < line * (1 - 1e-9))
			return lr_err(EINVAL, "gen: multiplier %g asks %.4g Mpps of "
				      "this capture, above port %s's line rate of "
				      "%.4g Mpps at its %.0f B a frame on average",
				      multiplier, hz / p->mean_cost / 1e6, pi->name,
				      1e-6 / line, g->mean_frame);
	} else if (rate->unit != LR_RATE_MAX) {
		if (lr_rate_cost(rate, link_bps, &per_pkt, &per_byte) != 0)
			return lr_err(EINVAL, "gen: a rate in %% needs the link "
				      "speed; port %s reports none (give the "
				      "port speed=10G)", pi->name);
		line = (g->mean_frame + LR_L1_EXTRA_BYTES) * 8 / link_bps;
		if (link_bps > 0 && per_pkt + per_byte * g->mean_frame <
		    line * (1 - 1e-9))
			return lr_err(EINVAL, "gen: rate %s is above port %s's "
				      "line rate for this capture (%.0f B a frame "
				      "on average)", lr_rate_str(rate, rs,
				      sizeof(rs)), pi->name, g->mean_frame);
		p->rate = *rate;
		p->per_pkt_tsc = per_pkt * hz;
		p->per_byte_tsc = per_byte * hz;
		p->mean_cost = p->per_pkt_tsc + p->per_byte_tsc * g->mean_frame;
	}
	p->rate_pps = p->mean_cost > 0 ? hz / p->mean_cost : 0;
	return slot_fits(g, p, hz);
}

/* The start's pacing: the capture's gaps over the multiplier, or --rate;
 * the rate in pps it comes to. */
static int
schedule(struct lr_task *t, struct gen *g, const struct lr_port_info *pi,
	 double hz)
{
	const struct lr_gen_conf *c = &g->conf;
	struct lr_replay *rp = g->rp;
	struct gen_pace *p;
	double frames = 0;
	uint32_t i;
	int ret;

	rp->timing = !c->rate_given;
	g->paced = rp->timing ? rp->span_s + rp->loop_gap_s > 0 :
		   c->rate.unit != LR_RATE_MAX;
	for (i = 0; i < rp->nb; i++) {
		frames += rp->f[i].len + LR_FCS_BYTES;
		rp->f[i].cost *= hz / 1e9;	/* ns to cycles */
		rp->gaps_tsc += rp->f[i].cost;
	}
	g->mean_frame = frames / rp->nb;
	p = lr_gen_pace_new(g, t->socket);
	if (p == NULL)
		return lr_err(ENOMEM, "gen: no memory for the pacing");
	g->pace0 = p;	/* gen_free frees it */
	ret = pace_of(g, pi, rp->timing ? NULL : &c->rate, c->speed, hz, p);
	if (ret != 0)
		return ret;
	if (g->paced) {
		lr_gen_pace_use(g, p);
		g->rate_pps = p->rate_pps;
	}
	return 0;
}

int
lr_replay_set(struct lr_task *t, struct gen *g, const char *key,
	      const char *val, struct gen_pace **out)
{
	const struct lr_replay *rp = g->rp;
	double hz = (double)rte_get_tsc_hz(), mult = 0;
	struct gen_pace *p;
	struct lr_rate r;
	char *end;
	int ret;

	if (strcmp(key, "multiplier") == 0) {
		if (!rp->timing)
			return lr_err(EINVAL, "gen: set multiplier: this replay "
				      "is paced by --rate, not the capture's "
				      "timing (set rate= instead)");
		if (!g->paced)
			return lr_err(EINVAL, "gen: set multiplier: the capture's "
				      "frames all have one time: the replay goes "
				      "out unpaced, no gap to divide");
		errno = 0;
		mult = strtod(val, &end);
		if (errno != 0 || end == val || *end != '\0' ||
		    !(mult >= 1e-3 && mult <= 1e6))
			return lr_err(EINVAL, "gen: set multiplier '%s': want a "
				      "factor of the capture's timing in "
				      "0.001..1e6", val);
	} else if (strcmp(key, "rate") == 0) {
		if (rp->timing)
			return lr_err(EINVAL, "gen: set rate: this replay runs at "
				      "the capture's timing, not --rate (set "
				      "multiplier= instead)");
		if (lr_rate_parse(val, &r) != 0)
			return lr_err(EINVAL, "gen: set rate '%s': want PPS, "
				      "1.5Mpps, 10Gbps, 10Gbpsl1 or N%%", val);
		if (!g->paced || r.unit == LR_RATE_MAX)
			return lr_err(EINVAL, "gen: set rate %s: a task cannot "
				      "change between paced and unpaced (max) "
				      "live", val);
	} else {
		return lr_err(EINVAL, "gen: set: '%s' cannot change live (a "
			      "replay's %s can)", key, rp->timing ? "multiplier" :
			      "rate");
	}
	p = lr_gen_pace_new(g, t->socket);
	if (p == NULL)
		return lr_err(ENOMEM, "gen: set %s: no memory", key);
	ret = pace_of(g, lr_port_info(t->port), rp->timing ? NULL : &r, mult,
		      hz, p);
	if (ret != 0) {
		rte_free(p);
		return ret;
	}
	*out = p;
	return 0;
}

double
lr_replay_pend_cost(const struct gen *g)
{
	const struct lr_replay *rp = g->rp;
	uint32_t i, k = rp->next;
	double sum = 0;

	/* The frames pending are the last built: those before rp->next. */
	for (i = 0; i < g->nb_pend; i++) {
		k = k == 0 ? rp->nb - 1 : k - 1;
		sum += slot_of(g, &rp->f[k]);
	}
	return sum;
}

int
lr_replay_init(struct lr_task *t, struct gen *g, double hz)
{
	const struct lr_gen_conf *c = &g->conf;
	const struct lr_port_info *pi = lr_port_info(t->port);
	struct lr_replay *rp;
	uint32_t max_frame, max_len = 0;
	char hname[RTE_HASH_NAMESIZE];
	struct rp_heap b = { 0 };
	pcap_t *p;
	int ret;

	rp = rte_zmalloc_socket("lr_replay", sizeof(*rp), RTE_CACHE_LINE_SIZE,
				t->socket);
	if (rp == NULL)
		return lr_err(ENOMEM, "gen: no memory on socket %d", t->socket);
	g->rp = rp;
	rp->loops = c->loops;
	rp->step = c->loop_ip_step;
	rp->stamp = c->stamp;
	rp->flow_base = c->flow_base;
	rp->set_src_mac = c->src_mac_given;
	rp->set_dst_mac = c->dst_mac_given;
	rp->src_mac = c->src_mac;
	rp->dst_mac = c->dst_mac;
	/* What the port takes: its MTU plus Ethernet and two VLAN tags. */
	max_frame = RTE_MIN((uint32_t)pi->mtu + RTE_ETHER_HDR_LEN + 8,
			    (uint32_t)LR_FRAME_MAX_BYTES - LR_FCS_BYTES);
	p = open_capture(c->pcap);
	if (p == NULL)
		return -EINVAL;
	ret = slurp(rp, p, c->pcap, max_frame, &max_len, &b);
	pcap_close(p);
	if (ret != 0) {
		heap_free(&b);
		return ret;
	}
	/* Into the task's socket: one copy of what was read. */
	rp->data = rte_malloc_socket("lr_replay_data", rp->bytes, 0, t->socket);
	rp->f = rte_zmalloc_socket("lr_replay_frames", sizeof(*rp->f) * rp->nb,
				   RTE_CACHE_LINE_SIZE, t->socket);
	if (rp->data == NULL || rp->f == NULL) {
		heap_free(&b);
		return lr_err(ENOMEM, "gen: pcap %s: no memory for %" PRIu64
			      " MB on socket %d", c->pcap, rp->bytes >> 20,
			      t->socket);
	}
	memcpy(rp->data, b.data, rp->bytes);
	memcpy(rp->f, b.f, sizeof(*rp->f) * rp->nb);
	snprintf(hname, sizeof(hname), "lr_rp%u_%u", t->port, t->queue);
	ret = index_frames(rp, b.ts, hname, t->socket);
	heap_free(&b);
	if (ret != 0)
		return ret;
	if (rp->cut)
		rte_log(RTE_LOG_WARNING, lr_gen_logtype, "gen: pcap %s: its "
			"last record is cut short (after %u frames): replayed "
			"up to it, as the probe reads it\n", c->pcap, rp->nb);
	if (rp->backwards != 0)
		rte_log(RTE_LOG_WARNING, lr_gen_logtype, "gen: pcap %s: %" PRIu64
			" frame(s) stamped before the frame before them (the "
			"first: frame %u, %.6f s back), each sent right after "
			"that frame; the span replayed is %.6f s "
			"(pcap_backwards_frames)\n", c->pcap, rp->backwards,
			rp->first_back + 1, rp->first_back_s, rp->span_s);
	if (rp->nb_flows != 0) {
		rp->seq = rte_zmalloc_socket("lr_replay_seq", sizeof(*rp->seq) *
					     rp->nb_flows, 0, t->socket);
		if (rp->seq == NULL)
			return lr_err(ENOMEM, "gen: no memory");
	}
	ret = schedule(t, g, pi, hz);
	if (ret != 0)
		return ret;
	g->nb_flows = rp->nb_flows;
	g->first_flow = c->flow_base;
	g->max_len = max_len;
	g->pool = lr_pool_get("lr_gen", REPLAY_POOL_MBUFS, REPLAY_POOL_CACHE,
			      (uint16_t)(RTE_PKTMBUF_HEADROOM + max_len),
			      t->socket);
	if (g->pool == NULL)
		return lr_err(rte_errno, "gen: no pool of %u mbufs of %u B on "
			      "socket %d", REPLAY_POOL_MBUFS, max_len, t->socket);
	return 0;
}

/* The source address of frame @p f (in @p d) plus @p delta, its IPv4
 * header and L4 checksums kept right. */
static inline void
shift_src(const struct rp_frame *f, uint8_t *d, uint32_t delta)
{
	/* The address's last 32 bits: IPv4's source, IPv6's bytes 12..15. */
	uint8_t *a = d + f->l3 + (f->l3type == L3_V4 ?
				  offsetof(struct rte_ipv4_hdr, src_addr) :
				  offsetof(struct rte_ipv6_hdr, src_addr) + 12);
	rte_be32_t from, to;
	rte_be16_t c;

	memcpy(&from, a, 4);
	to = rte_cpu_to_be_32(rte_be_to_cpu_32(from) + delta);
	memcpy(a, &to, 4);
	if (f->l3type == L3_V4) {
		struct rte_ipv4_hdr *ip = (void *)(d + f->l3);

		ip->hdr_checksum = csum_replace4(ip->hdr_checksum, from, to);
	}
	if (f->l4csum != 0) {
		memcpy(&c, d + f->l4csum, 2);
		c = csum_replace4(c, from, to);
		if (c == 0 && f->udp)
			c = 0xffff;
		memcpy(d + f->l4csum, &c, 2);
	}
}

/* linerate's header at the start of the UDP data, the sum fixed. */
static inline void
stamp(struct lr_replay *rp, const struct rp_frame *f, uint8_t *d,
      uint32_t flow, uint64_t tsc)
{
	uint8_t old[LR_HDR_BYTES];
	uint8_t *p = d + f->stamp;

	memcpy(old, p, LR_HDR_BYTES);
	lr_wire_hdr_write(p, flow, rp->seq[f->flow]++, tsc);
	if (f->l4csum != 0) {
		rte_be16_t c;

		memcpy(&c, d + f->l4csum, 2);
		/* The header is 9 words from an even offset of the UDP
		 * header; a sum of 0 is sent as 0xffff (RFC 768). */
		c = csum_replace(c, old, p, LR_HDR_BYTES);
		if (c == 0)
			c = 0xffff;
		memcpy(d + f->l4csum, &c, 2);
	}
}

/* Move on by one frame; false when the last loop has ended. */
static inline bool
step(struct lr_replay *rp, uint32_t *next, uint64_t *loop)
{
	if (++*next < rp->nb)
		return true;
	*next = 0;
	++*loop;
	return rp->loops == 0 || *loop < rp->loops;
}

int
lr_replay_poll(struct lr_task *t, struct gen *g, uint64_t now)
{
	struct lr_replay *rp = g->rp;
	uint32_t next = rp->next;
	uint64_t loop = rp->loop, lag = 0, tsc;
	double pos = 0, owed = 0;
	uint16_t n = 0, i;
	bool more = true;

	if (g->nb_pend != 0 && !lr_gen_flush(t, g))
		return 0;
	if (g->remaining == 0) {
		lr_gen_note_done(g);
		return 1;
	}
	if (g->paced) {
		/* A new multiplier or rate (task:set{}): as gen's, taken
		 * here, with nothing pending: the frames before keep their
		 * slots, the next one is the new pacing's first. */
		struct gen_pace *p = (struct gen_pace *)
			lr_change_peek(&g->changes);

		if (unlikely(p != NULL))
			lr_gen_pace_switch(t, g, p, now);
		if (!lr_gen_due(g, now, &lag))
			return 0;
		owed = (double)lag - g->sched.next_frac;
	}
	/* The frames due (each one whose slot has begun), a burst at most. */
	while (n < g->burst && n < g->remaining && more &&
	       (n == 0 || pos <= owed)) {
		if (g->paced)
			pos += slot_of(g, &rp->f[next]);
		n++;
		more = step(rp, &next, &loop);
	}
	if (rte_mempool_get_bulk(g->pool, (void **)g->pend, n) != 0) {
		t->st.alloc_fail++;
		return 0;
	}
	tsc = rte_rdtsc();
	for (i = 0; i < n; i++) {
		const struct rp_frame *f = &rp->f[rp->next];
		struct rte_mbuf *m = g->pend[i];
		uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);

		rte_memcpy(d, rp->data + f->off, f->len);
		m->data_len = (uint16_t)f->len;
		m->pkt_len = f->len;
		if (rp->set_dst_mac)
			memcpy(d, &rp->dst_mac, RTE_ETHER_ADDR_LEN);
		if (rp->set_src_mac)
			memcpy(d + RTE_ETHER_ADDR_LEN, &rp->src_mac,
			       RTE_ETHER_ADDR_LEN);
		if (rp->step != 0 && rp->loop != 0 && f->l3 != 0)
			shift_src(f, d, (uint32_t)(rp->loop * rp->step));
		if (rp->stamp) {
			if (f->flow != UINT32_MAX) {
				stamp(rp, f, d, rp->flow_base + (uint32_t)
				      ((rp->step ? rp->loop : 0) * rp->nb_flows) +
				      f->flow, tsc);
				rp->stamped++;
			} else {
				rp->unstamped++;
			}
		}
		if (g->paced)
			lr_gen_advance(&g->sched, slot_of(g, f));
		if (!step(rp, &rp->next, &rp->loop)) {
			g->remaining = 0;	/* the last loop is done */
		} else if (rp->next == 0 && rp->step != 0 && rp->nb_flows != 0) {
			/* New flows: their sequences from 0. */
			memset(rp->seq, 0, sizeof(*rp->seq) * rp->nb_flows);
		}
	}
	g->nb_pend = n;
	if (g->remaining != 0 && g->remaining != UINT64_MAX)
		g->remaining -= n;
	lr_gen_flush(t, g);
	lr_gen_note_done(g);
	return 0;
}

void
lr_replay_report(const struct gen *g, json_t *o)
{
	const struct lr_replay *rp = g->rp;

	json_object_set_new(o, "pcap", json_string(g->conf.pcap));
	json_object_set_new(o, "pcap_frames", json_integer(rp->nb));
	json_object_set_new(o, "pcap_bytes", json_integer((json_int_t)rp->bytes));
	json_object_set_new(o, "pcap_span_s", json_real(rp->span_s));
	json_object_set_new(o, "pcap_truncated_frames",
			    json_integer((json_int_t)rp->truncated));
	json_object_set_new(o, "pcap_skipped_frames",
			    json_integer((json_int_t)rp->skipped));
	json_object_set_new(o, "pcap_backwards_frames",
			    json_integer((json_int_t)rp->backwards));
	json_object_set_new(o, "timing", json_string(rp->timing ? "capture" :
						     "rate"));
	json_object_set_new(o, "multiplier", json_real(g->conf.speed));
	json_object_set_new(o, "loops_done", json_integer((json_int_t)rp->loop));
	if (rp->stamp) {
		json_object_set_new(o, "stamped_packets",
				    json_integer((json_int_t)rp->stamped));
		json_object_set_new(o, "unstamped_packets",
				    json_integer((json_int_t)rp->unstamped));
	}
}

void
lr_replay_free(struct gen *g)
{
	struct lr_replay *rp = g->rp;

	if (rp == NULL)
		return;
	rte_free(rp->data);
	rte_free(rp->f);
	rte_free(rp->seq);
	rte_free(rp);
	g->rp = NULL;
}

/* For tests/fuzz/fuzz_replay: the control-path steps above without a task
 * (gen_replay.h). */
static void
frame_info(const struct rp_frame *f, bool has_key,
	   struct lr_replay_frame_info *fi)
{
	memset(fi, 0, sizeof(*fi));
	fi->l3 = f->l3;
	fi->l4csum = f->l4csum;
	fi->stamp = f->stamp;
	fi->l3type = f->l3type;
	fi->udp = f->udp;
	fi->has_key = has_key;
}

void
lr_replay_check_frame(const uint8_t *d, uint32_t len, uint32_t delta,
		      bool stamp_it, uint8_t *out,
		      struct lr_replay_frame_info *fi)
{
	struct lr_replay rp = { .stamp = stamp_it };
	struct rp_frame f = { .len = len, .flow = UINT32_MAX };
	struct rp_key key;
	uint32_t seq = 7;
	bool has_key;

	parse(d, len, &f, &key, &has_key);
	frame_info(&f, has_key, fi);
	memcpy(out, d, len);
	/* As lr_replay_poll() does. */
	if (delta != 0 && f.l3 != 0) {
		shift_src(&f, out, delta);
		fi->shifted = true;
	}
	if (stamp_it && f.stamp != 0 && has_key) {
		f.flow = 0;
		rp.seq = &seq;
		stamp(&rp, &f, out, 1, 0x0123456789abcdefull);
		fi->stamped = true;
	}
}

/* As lr_replay_init() loads @p p (closed here), then @p each per frame. */
static int
check_capture(pcap_t *p, const char *name, uint32_t max_frame, bool stamp_it,
	      void (*each)(const uint8_t *d, uint32_t len,
			   const struct lr_replay_frame_info *fi,
			   uint32_t flow, void *arg),
	      void *arg)
{
	struct lr_replay *rp = calloc(1, sizeof(*rp));
	struct rp_heap b = { 0 };
	uint32_t max_len, i;
	int ret;

	if (rp == NULL) {
		pcap_close(p);
		return lr_err(ENOMEM, "gen: no memory");
	}
	rp->stamp = stamp_it;
	ret = slurp(rp, p, name, max_frame, &max_len, &b);
	pcap_close(p);
	if (ret == 0) {
		rp->data = b.data;
		rp->f = b.f;
		ret = index_frames(rp, b.ts, "lr_rp_check", SOCKET_ID_ANY);
	}
	for (i = 0; ret == 0 && i < rp->nb; i++) {
		struct lr_replay_frame_info fi;

		frame_info(&rp->f[i], rp->f[i].flow != UINT32_MAX, &fi);
		if (rp->f[i].flow != UINT32_MAX && rp->f[i].flow >= rp->nb_flows)
			ret = lr_err(ERANGE, "gen: flow %u of %u", rp->f[i].flow,
				     rp->nb_flows);
		else if (rp->f[i].off + rp->f[i].len > rp->bytes ||
			 rp->f[i].len > max_frame)
			ret = lr_err(ERANGE, "gen: frame %u of %u B at %" PRIu64
				     " past the %" PRIu64 " B loaded", i,
				     rp->f[i].len, rp->f[i].off, rp->bytes);
		else
			each(rp->data + rp->f[i].off, rp->f[i].len, &fi,
			     rp->f[i].flow, arg);
	}
	heap_free(&b);
	free(rp);
	return ret;
}

int
lr_replay_check_file(const char *path, uint32_t max_frame, bool stamp_it,
		     void (*each)(const uint8_t *d, uint32_t len,
				  const struct lr_replay_frame_info *fi,
				  uint32_t flow, void *arg),
		     void *arg)
{
	pcap_t *p = open_capture(path);

	if (p == NULL)
		return -EINVAL;
	return check_capture(p, path, max_frame, stamp_it, each, arg);
}

int
lr_replay_check_stream(FILE *f, const char *name, uint32_t max_frame,
		       bool stamp_it,
		       void (*each)(const uint8_t *d, uint32_t len,
				    const struct lr_replay_frame_info *fi,
				    uint32_t flow, void *arg),
		       void *arg)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p;

	p = pcap_fopen_offline_with_tstamp_precision(f,
		PCAP_TSTAMP_PRECISION_NANO, err);
	if (p == NULL) {
		fclose(f);
		return lr_err(EINVAL, "gen: pcap %s: %s", name, err);
	}
	p = check_link(p, name);
	if (p == NULL)
		return -EINVAL;
	return check_capture(p, name, max_frame, stamp_it, each, arg);
}
