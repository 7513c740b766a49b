/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_udp.h>

#include <arpa/inet.h>

#include "lr_common.h"
#include "lr_gen.h"
#include "lr_port.h"

#define GEN_POOL_MBUFS 8191	/* fills a 4096-entry wire ring twice over */
#define GEN_POOL_CACHE 256
/* A stalled sender catches up at most this far: never an unbounded burst. */
#define GEN_MAX_LAG_US 100

struct gen {
	struct rte_mempool *pool;	/**< mbufs pre-filled with the template */
	uint32_t *seq;			/**< next sequence number per flow */
	uint32_t flows;
	uint32_t flow_base;
	uint32_t next_flow;		/**< round-robin position */
	uint16_t src_port;
	uint16_t burst;
	uint32_t pkt_len;		/**< frame without FCS */
	uint64_t remaining;		/**< packets still to build, UINT64_MAX: no limit */
	double tsc_per_pkt;		/**< TSC cycles per packet, 0: unpaced */
	double next_tsc;		/**< when the next packet is due, 0: now */
	double max_lag_tsc;
	uint16_t nb_pend;		/**< built but not yet taken by the queue */
	struct rte_mbuf *pend[LR_BURST];
	struct lr_gen_conf conf;
	uint8_t tmpl[LR_UDP4_HDRS_BYTES + LR_HDR_BYTES];
};

void
lr_gen_conf_init(struct lr_gen_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->frame_bytes = 64;
	c->flows = 1;
	c->src_ip = RTE_IPV4(10, 0, 0, 1);
	c->dst_ip = RTE_IPV4(10, 0, 0, 2);
	c->src_port = 1024;
	c->dst_port = 5001;
	c->burst = LR_BURST;
	/* Locally administered addresses. */
	c->src_mac = (struct rte_ether_addr){{ 0x02, 0, 0, 0, 0, 0x01 }};
	c->dst_mac = (struct rte_ether_addr){{ 0x02, 0, 0, 0, 0, 0x02 }};
}

static int
set_u64(const char *key, const char *val, uint64_t min, uint64_t max,
	uint64_t *out)
{
	uint64_t v;

	if (lr_parse_u64(val, &v) != 0 || v < min || v > max)
		return lr_err(EINVAL, "gen: %s '%s': want a number in %" PRIu64
			      "..%" PRIu64, key, val, min, max);
	*out = v;
	return 0;
}

static int
set_ip(const char *key, const char *val, uint32_t *out)
{
	struct in_addr a;

	if (inet_pton(AF_INET, val, &a) != 1)
		return lr_err(EINVAL, "gen: %s '%s' is not an IPv4 address", key, val);
	*out = rte_be_to_cpu_32(a.s_addr);
	return 0;
}

static int
set_mac(const char *key, const char *val, struct rte_ether_addr *out)
{
	if (rte_ether_unformat_addr(val, out) != 0)
		return lr_err(EINVAL, "gen: %s '%s' is not a MAC address", key, val);
	return 0;
}

static int
gen_conf_set(void *conf, const char *key, const char *val)
{
	struct lr_gen_conf *c = conf;
	uint64_t v = 0;
	int ret = 0;

	if (strcmp(key, "size") == 0) {
		ret = set_u64(key, val, LR_FRAME_MIN_BYTES, LR_FRAME_MAX_BYTES, &v);
		c->frame_bytes = (uint32_t)v;
	} else if (strcmp(key, "count") == 0) {
		ret = set_u64(key, val, 0, UINT64_MAX, &c->count);
	} else if (strcmp(key, "rate") == 0) {
		ret = set_u64(key, val, 0, UINT64_MAX, &c->rate_pps);
	} else if (strcmp(key, "flows") == 0) {
		ret = set_u64(key, val, 1, 65535, &v);
		c->flows = (uint32_t)v;
	} else if (strcmp(key, "flow-base") == 0) {
		ret = set_u64(key, val, 0, UINT32_MAX, &v);
		c->flow_base = (uint32_t)v;
	} else if (strcmp(key, "burst") == 0) {
		ret = set_u64(key, val, 1, LR_BURST, &v);
		c->burst = (uint16_t)v;
	} else if (strcmp(key, "src-port") == 0) {
		ret = set_u64(key, val, 0, 65535, &v);
		c->src_port = (uint16_t)v;
	} else if (strcmp(key, "dst-port") == 0) {
		ret = set_u64(key, val, 0, 65535, &v);
		c->dst_port = (uint16_t)v;
	} else if (strcmp(key, "src-ip") == 0) {
		ret = set_ip(key, val, &c->src_ip);
	} else if (strcmp(key, "dst-ip") == 0) {
		ret = set_ip(key, val, &c->dst_ip);
	} else if (strcmp(key, "src-mac") == 0) {
		ret = set_mac(key, val, &c->src_mac);
	} else if (strcmp(key, "dst-mac") == 0) {
		ret = set_mac(key, val, &c->dst_mac);
	} else {
		return -ENOENT;
	}
	return ret;
}

static void
gen_conf_init(void *conf)
{
	lr_gen_conf_init(conf);
}

void
lr_pkt_hdr_write(void *payload, uint32_t flow, uint32_t seq, uint64_t tsc)
{
	struct lr_pkt_hdr *h = payload;

	h->magic = rte_cpu_to_be_16(LR_HDR_MAGIC);
	h->flow = rte_cpu_to_be_32(flow);
	h->seq = rte_cpu_to_be_32(seq);
	h->tx_tsc = rte_cpu_to_be_64(tsc);
}

int
lr_pkt_hdr_read(const void *payload, uint32_t *flow, uint32_t *seq,
		uint64_t *tsc)
{
	const struct lr_pkt_hdr *h = payload;

	if (h->magic != rte_cpu_to_be_16(LR_HDR_MAGIC))
		return -EINVAL;
	*flow = rte_be_to_cpu_32(h->flow);
	*seq = rte_be_to_cpu_32(h->seq);
	*tsc = rte_be_to_cpu_64(h->tx_tsc);
	return 0;
}

/* Ethernet, IPv4 and UDP headers of flow 0, and an empty lr_pkt_hdr. */
static void
build_template(struct gen *g)
{
	const struct lr_gen_conf *c = &g->conf;
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)g->tmpl;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint16_t ip_len = (uint16_t)(g->pkt_len - RTE_ETHER_HDR_LEN);

	memset(g->tmpl, 0, sizeof(g->tmpl));
	eth->src_addr = c->src_mac;
	eth->dst_addr = c->dst_mac;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(ip_len);
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(c->src_ip);
	ip->dst_addr = rte_cpu_to_be_32(c->dst_ip);
	/* Flows differ only in the UDP source port: the IPv4 checksum is the
	 * same for all of them. UDP checksum 0 means "none" over IPv4. */
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(c->src_port);
	udp->dst_port = rte_cpu_to_be_16(c->dst_port);
	udp->dgram_len = rte_cpu_to_be_16(ip_len - 20);
	lr_pkt_hdr_write(udp + 1, 0, 0, 0);
}

/* rte_mempool_obj_iter callback: write the whole frame once (libmoon's
 * archetype packet), so that the fast path only patches changing fields. */
static void
fill_mbuf(struct rte_mempool *mp, void *arg, void *obj, unsigned int idx)
{
	const struct gen *g = arg;
	struct rte_mbuf *m = obj;
	uint8_t *d;
	uint32_t i;

	RTE_SET_USED(mp);
	RTE_SET_USED(idx);
	d = (uint8_t *)m->buf_addr + RTE_PKTMBUF_HEADROOM;
	memcpy(d, g->tmpl, sizeof(g->tmpl));
	for (i = sizeof(g->tmpl); i < g->pkt_len; i++)
		d[i] = (uint8_t)i;	/* payload pattern: byte offset */
}

static int
gen_init(struct lr_task *t, const void *arg)
{
	const struct lr_gen_conf *c = arg;
	const struct lr_port_info *pi = lr_port_info(t->port);
	static unsigned int pool_seq;
	char name[RTE_MEMPOOL_NAMESIZE];
	struct gen *g;
	uint64_t hz = rte_get_tsc_hz();

	if (c->frame_bytes < LR_FRAME_MIN_BYTES || c->frame_bytes > LR_FRAME_MAX_BYTES)
		return lr_err(EINVAL, "gen: frame size %u B outside %u..%u",
			      c->frame_bytes, LR_FRAME_MIN_BYTES, LR_FRAME_MAX_BYTES);
	if (c->frame_bytes - RTE_ETHER_HDR_LEN - LR_FCS_BYTES > pi->mtu)
		return lr_err(EINVAL, "gen: %u B frames exceed port %s's MTU %u "
			      "(set mtu=%u)", c->frame_bytes, pi->name, pi->mtu,
			      c->frame_bytes - RTE_ETHER_HDR_LEN - LR_FCS_BYTES);
	if (c->flows == 0 || c->flows > 65536u - c->src_port)
		return lr_err(EINVAL, "gen: %u flows from UDP port %u: need "
			      "1..%u", c->flows, c->src_port, 65536u - c->src_port);
	if (c->burst == 0 || c->burst > LR_BURST)
		return lr_err(EINVAL, "gen: burst %u outside 1..%u", c->burst, LR_BURST);

	g = rte_zmalloc_socket("lr_gen", sizeof(*g), RTE_CACHE_LINE_SIZE, t->socket);
	if (g == NULL)
		return lr_err(ENOMEM, "gen: no memory on socket %d", t->socket);
	g->seq = rte_zmalloc_socket("lr_gen_seq", sizeof(uint32_t) * c->flows,
				    RTE_CACHE_LINE_SIZE, t->socket);
	if (g->seq == NULL) {
		rte_free(g);
		return lr_err(ENOMEM, "gen: no memory for %u flows", c->flows);
	}
	g->conf = *c;
	g->flows = c->flows;
	g->flow_base = c->flow_base;
	g->src_port = c->src_port;
	g->burst = c->burst;
	g->pkt_len = c->frame_bytes - LR_FCS_BYTES;
	g->remaining = c->count ? c->count : UINT64_MAX;
	if (c->rate_pps != 0) {
		g->tsc_per_pkt = (double)hz / (double)c->rate_pps;
		g->max_lag_tsc = (double)hz * GEN_MAX_LAG_US / 1e6;
	}
	build_template(g);
	snprintf(name, sizeof(name), "lr_gen_%u", pool_seq++);
	g->pool = rte_pktmbuf_pool_create(name, GEN_POOL_MBUFS, GEN_POOL_CACHE, 0,
					  RTE_PKTMBUF_HEADROOM +
					  RTE_MAX(g->pkt_len, 128u), t->socket);
	if (g->pool == NULL) {
		int err = rte_errno;

		rte_free(g->seq);
		rte_free(g);
		return lr_err(err, "gen: no pool of %u mbufs of %u B on socket %d",
			      GEN_POOL_MBUFS, g->pkt_len, t->socket);
	}
	rte_mempool_obj_iter(g->pool, fill_mbuf, g);
	t->priv = g;
	return 0;
}

/* Send what is pending; @return true when the queue took all of it. */
static inline bool
flush(struct lr_task *t, struct gen *g)
{
	uint16_t sent = rte_eth_tx_burst(t->port, t->queue, g->pend, g->nb_pend);

	t->st.tx_pkts += sent;
	t->st.tx_bytes += (uint64_t)sent * g->pkt_len;
	if (sent == g->nb_pend) {
		g->nb_pend = 0;
		return true;
	}
	/* The queue is full: keep the rest for the next turn, in order. */
	memmove(g->pend, g->pend + sent, (g->nb_pend - sent) * sizeof(g->pend[0]));
	g->nb_pend -= sent;
	t->st.tx_retry++;
	return false;
}

static int
gen_poll(struct lr_task *t, uint64_t now)
{
	struct gen *g = t->priv;
	uint16_t n, i;

	if (g->nb_pend != 0 && !flush(t, g))
		return 0;
	if (g->remaining == 0)
		return 1;
	n = g->burst;
	if (g->tsc_per_pkt != 0) {
		double d = (double)now;

		if (g->next_tsc == 0)
			g->next_tsc = d;	/* first burst */
		if (g->next_tsc > d)
			return 0;		/* not yet due */
		if (d - g->next_tsc > g->max_lag_tsc)
			g->next_tsc = d - g->max_lag_tsc;
	}
	if (n > g->remaining)
		n = (uint16_t)g->remaining;
	if (rte_pktmbuf_alloc_bulk(g->pool, g->pend, n) != 0) {
		t->st.alloc_fail++;
		return 0;
	}
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = g->pend[i];
		uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
		struct rte_udp_hdr *udp = (struct rte_udp_hdr *)
			(d + RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr));
		uint32_t f = g->next_flow;

		m->data_len = (uint16_t)g->pkt_len;
		m->pkt_len = g->pkt_len;
		udp->src_port = rte_cpu_to_be_16((uint16_t)(g->src_port + f));
		lr_pkt_hdr_write(udp + 1, g->flow_base + f, g->seq[f]++, now);
		if (++g->next_flow == g->flows)
			g->next_flow = 0;
	}
	g->nb_pend = n;
	g->remaining -= n;
	g->next_tsc += n * g->tsc_per_pkt;
	flush(t, g);
	return 0;
}

static void
gen_finish(struct lr_task *t)
{
	struct gen *g = t->priv;

	/* Stopped with packets the queue never took: they were not sent. */
	rte_pktmbuf_free_bulk(g->pend, g->nb_pend);
	t->st.drops += g->nb_pend;
	g->nb_pend = 0;
}

static void
gen_report(const struct lr_task *t, json_t *o)
{
	const struct gen *g = t->priv;

	json_object_set_new(o, "frame_bytes", json_integer(g->conf.frame_bytes));
	json_object_set_new(o, "flows", json_integer(g->flows));
	json_object_set_new(o, "rate_pps", json_integer((json_int_t)g->conf.rate_pps));
}

static void
gen_free(struct lr_task *t)
{
	struct gen *g = t->priv;

	if (g == NULL)
		return;
	/* Mbufs may still sit in a peer's queue: free the pool only when
	 * all of them came back. */
	if (rte_mempool_full(g->pool))
		rte_mempool_free(g->pool);
	rte_free(g->seq);
	rte_free(g);
	t->priv = NULL;
}

const struct lr_role lr_gen_role = {
	.name = "gen",
	.help =
	"  --size BYTES      frame size on the wire with FCS, 64..9018 (64)\n"
	"  --count N         packets to send, 0: no limit (0)\n"
	"  --rate PPS        packets per second, 0: as fast as possible (0)\n"
	"  --flows N         flows, one UDP source port each (1)\n"
	"  --flow-base ID    flow id of the first flow (0)\n"
	"  --burst N         packets per tx burst, 1..32 (32)\n"
	"  --src-ip A --dst-ip A        IPv4 addresses (10.0.0.1, 10.0.0.2)\n"
	"  --src-port P --dst-port P    UDP ports of flow 0 (1024, 5001)\n"
	"  --src-mac M --dst-mac M      Ethernet addresses (02:00:00:00:00:01/02)\n",
	.uses_tx = true,
	.conf_bytes = sizeof(struct lr_gen_conf),
	.conf_init = gen_conf_init,
	.conf_set = gen_conf_set,
	.init = gen_init,
	.poll = gen_poll,
	.finish = gen_finish,
	.report = gen_report,
	.free = gen_free,
};
