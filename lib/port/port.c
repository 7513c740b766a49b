/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>

#include "lr_capture_out.h"
#include "lr_cleanup.h"
#include "lr_common.h"
#include "lr_port.h"

RTE_LOG_REGISTER(lr_port_logtype, user.lr.port, INFO);
#define PLOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, lr_port_logtype, "port: " fmt "\n", ##__VA_ARGS__)

#define DEFAULT_DESC 1024
#define POOL_CACHE 256
/* Room for QinQ on top of the Ethernet header, and the FCS some PMDs keep. */
#define FRAME_OVERHEAD (RTE_ETHER_HDR_LEN + 2 * RTE_VLAN_HLEN + RTE_ETHER_CRC_LEN)

static struct lr_port_info ports[RTE_MAX_ETHPORTS];
static bool is_setup[RTE_MAX_ETHPORTS];
/* The conf each port was set up with: a role that brings up a second port
 * (the delay role's peer) sets it up alike. */
static struct lr_port_conf confs[RTE_MAX_ETHPORTS];
/* The virtual wire's ends: wire_peer[p] is the port whose tx p receives,
 * + 1 (0: p is not a wire end); wire_stamps[p]: that peer stamps. */
static uint16_t wire_peer[RTE_MAX_ETHPORTS];
static bool wire_stamps[RTE_MAX_ETHPORTS];
static int arrival_off = -1;

static void take_baseline(uint16_t p);

/*
 * The symmetric key of Woo and Park ("Scalable TCP session monitoring with
 * symmetric receive-side scaling", 2012): with 0x6d5a repeated, swapping
 * source and destination leaves the Toeplitz hash unchanged.
 */
static const uint8_t symmetric_key[40] = {
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
};

void
lr_port_conf_init(struct lr_port_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	conf->nb_rxq = 1;
	conf->nb_txq = 1;
	conf->rss_hf = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP;
	conf->promisc = true;
	conf->link_timeout_ms = LR_LINK_TIMEOUT_MS;
}

static int
set_queues(void *conf, const char *key, const char *val)
{
	struct lr_port_conf *c = conf;
	uint64_t v;

	if (lr_parse_u64(val, &v) != 0 || v < 1 || v > RTE_MAX_QUEUES_PER_PORT)
		return lr_err(EINVAL, "port: %s '%s': want a number in 1..%u", key,
			      val, RTE_MAX_QUEUES_PER_PORT);
	c->nb_rxq = c->nb_txq = (uint16_t)v;
	return 0;
}

static int
set_rss(void *conf, const char *key, const char *val)
{
	struct lr_port_conf *c = conf;

	RTE_SET_USED(key);
	c->rss_required = true;
	return lr_rss_fields_parse(val, &c->rss_hf);
}

static int
set_rss_key(void *conf, const char *key, const char *val)
{
	struct lr_port_conf *c = conf;

	RTE_SET_USED(key);
	return lr_rss_key_parse(val, c->rss_key, &c->rss_key_len);
}

static int
set_speed(void *conf, const char *key, const char *val)
{
	struct lr_port_conf *c = conf;
	double v;

	/* Read as every speed is (lr_parse_bps(): 10G, 10Gbps, 2.5G). */
	if (lr_parse_bps(val, &v) != 0 || v < 1e6 || v > 1e12)
		return lr_err(EINVAL, "port: %s '%s': want bit/s in 1M..1T", key, val);
	c->speed_mbps = (uint32_t)(v / 1e6);
	return 0;
}

#define PC(field) LR_OPT_FIELD(struct lr_port_conf, field)

/* The port options, in --help's and doc/usage.md's order. */
const struct lr_opt lr_port_opts[] = {
	{ "queues", LR_OPT_FUNC, 0, 0, 0, 0, set_queues, "N",
	  "rx and tx queues (1)", "`--queues 4`", NULL },
	{ "rxq", LR_OPT_UINT, PC(nb_rxq), 0, RTE_MAX_QUEUES_PER_PORT, NULL, "N",
	  "rx queues apart from tx", "`--rxq 4 --txq 1`", NULL },
	{ "txq", LR_OPT_UINT, PC(nb_txq), 0, RTE_MAX_QUEUES_PER_PORT, NULL, "N",
	  "tx queues apart from rx", NULL, NULL },
	{ "rxd", LR_OPT_UINT, PC(nb_rxd), 0, 65535, NULL, "N",
	  "descriptors per rx queue (1024)", "`--rxd 4096`", NULL },
	{ "txd", LR_OPT_UINT, PC(nb_txd), 0, 65535, NULL, "N",
	  "descriptors per tx queue (1024)", "`--txd 4096`", NULL },
	{ "mtu", LR_OPT_UINT, PC(mtu), 68, 9600, NULL, "BYTES",
	  "MTU; 9000 carries 9018 B frames (port default)", "`--mtu 9000`", NULL },
	{ "mbufs", LR_OPT_UINT, PC(nb_mbufs), 0, UINT32_MAX, NULL, "N",
	  "rx mbufs in the port's pool (derived from queues)", "`--mbufs 65535`", NULL },
	{ "rss", LR_OPT_FUNC, 0, 0, 0, 0, set_rss, "FIELDS",
	  "RSS hash fields with several rx queues: ip, ipv4, ipv6, udp, tcp, "
	  "sctp, l2, none; asked for explicitly, a PMD that cannot hash them is "
	  "an error (ip,udp,tcp where the PMD can)", "`--rss ip,udp`", NULL },
	{ "rss-key", LR_OPT_FUNC, 0, 0, 0, 0, set_rss_key, "KEY",
	  "`symmetric` (0x6d5a..., both directions alike), `default` (PMD's), "
	  "or hex bytes", "`--rss-key symmetric`", NULL },
	{ "promisc", LR_OPT_BOOL, PC(promisc), 0, 1, NULL, "0|1",
	  "promiscuous rx (1)", "`--promisc 0`", NULL },
	{ "link-timeout", LR_OPT_MS, PC(link_timeout_ms), 0, 3600, NULL, "S",
	  "wait for link up at start, seconds (5); a link still down "
	  "then is said on stderr and in the result (link_up false), and the run "
	  "goes on", "`--link-timeout 30`", NULL },
	{ "speed", LR_OPT_FUNC, 0, 0, 0, 0, set_speed, "BPS",
	  "the link speed rates in % and the line-rate check refer to (what "
	  "the PMD reports: 10G for net_null, net_ring, net_pcap and the virtual "
	  "wire, 100G for net_memif, a NIC its link's; gen logs the speed a % "
	  "took); `10G`, `10Gbps`, `2.5G`, `100mbit`, `1e10` as a scenario's "
	  "`speed=` (linerate.parse_bps)", "`--speed 100G`, `--speed 2.5Gbps`",
	  NULL },
	{ 0 },
};

int
lr_port_conf_set(struct lr_port_conf *c, const char *key, const char *val)
{
	return lr_opt_set(lr_port_opts, c, "port", key, val);
}

static bool
all_digits(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/*
 * net_memif in DPDK 22.11 breaks frames that span several of its buffers
 * (bsize, 2048 B by default): its copy-mode tx never clears the "next"
 * flag of a frame's first descriptor, so a slot that once held the start
 * of a jumbo frame still says "continued" when a later, shorter frame
 * lands in it; the receiver then chains unrelated frames, and its rx loop
 * follows that flag past the slots the sender published, reading stale
 * frames again and moving its tail beyond the sender's head. We saw
 * 16,282,297 frames received for 2,428,244 sent, duplicates and losses
 * (per-sweep mode=memif, 8972 B then 1472 B). Buffers that hold a whole
 * frame never take that path: the client, which lays out the shared
 * memory, gets a bsize that holds the largest frame of its MTU, and setup
 * refuses a memif port whose buffers are smaller than its frames.
 */
#define MEMIF_BSIZE_DEFAULT 2048	/* the PMD's own default */
#define MEMIF_FRAME_OVERHEAD (RTE_ETHER_HDR_LEN + 2 * RTE_VLAN_HLEN)

static bool
is_memif(const char *name)
{
	return strncmp(name, "net_memif", 9) == 0;
}

/* bsize= of memif devargs, or 0 when they do not give one. */
static uint32_t
memif_bsize_of(const char *args)
{
	struct rte_kvargs *kv = args != NULL ? rte_kvargs_parse(args, NULL) : NULL;
	const char *v = kv != NULL ? rte_kvargs_get(kv, "bsize") : NULL;
	uint32_t bsize = v != NULL ? (uint32_t)strtoul(v, NULL, 0) : 0;

	rte_kvargs_free(kv);
	return bsize;
}

uint32_t
lr_port_memif_bsize(uint16_t mtu)
{
	uint32_t frame = (uint32_t)(mtu ? mtu : RTE_ETHER_MTU) + MEMIF_FRAME_OVERHEAD;

	return RTE_MAX((uint32_t)MEMIF_BSIZE_DEFAULT, RTE_ALIGN_CEIL(frame, 128));
}

/*
 * A memif server's socket file (socket-abstract=no; DPDK 22.11's
 * defaults: role server, an abstract socket) is removed when its port
 * closes, which a process stopped at once (a second signal) never does:
 * the next server on that path then cannot bind it ("cannot create
 * vdev"). It goes at exit, whatever the end (lr_cleanup.h). Only after
 * the probe made it: a file that was there already made the probe fail.
 */
static void
remove_memif_socket_at_exit(const char *args)
{
	struct rte_kvargs *kv = args != NULL ? rte_kvargs_parse(args, NULL) : NULL;
	const char *role = kv != NULL ? rte_kvargs_get(kv, "role") : NULL;
	const char *abst = kv != NULL ? rte_kvargs_get(kv, "socket-abstract") : NULL;
	const char *sock = kv != NULL ? rte_kvargs_get(kv, "socket") : NULL;

	if (kv != NULL && (role == NULL || strcmp(role, "server") == 0) &&
	    abst != NULL && strcmp(abst, "no") == 0)
		lr_cleanup_add(sock != NULL ? sock : "/run/memif.sock");
	rte_kvargs_free(kv);
}

static int
find_port(const char *spec, uint16_t mtu, uint16_t *port_id);

int
lr_port_find(const char *spec, uint16_t *port_id)
{
	return find_port(spec, 0, port_id);
}

int
lr_port_find_for(const char *spec, const struct lr_port_conf *conf,
		 uint16_t *port_id)
{
	return find_port(spec, conf->mtu, port_id);
}

int
lr_port_peer(const char *who, const char *spec, uint16_t like, uint16_t *peer)
{
	const struct lr_port_conf *pc =
		like == LR_PORT_NONE ? NULL : lr_port_conf_of(like);

	if (lr_port_find(spec, peer) == 0 && lr_port_info(*peer) != NULL)
		return 0;
	if (pc == NULL)
		return lr_err(EINVAL, "%s: peer '%s' is not a set-up port", who, spec);
	if (lr_port_find_for(spec, pc, peer) != 0 || lr_port_setup(*peer, pc) != 0)
		return -EINVAL;
	return 0;
}

static int
find_port(const char *spec, uint16_t mtu, uint16_t *port_id)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	char with_bsize[1024];
	size_t n;
	int ret;

	if (spec == NULL || *spec == '\0')
		return lr_err(EINVAL, "port: empty port name");
	if (all_digits(spec)) {
		unsigned long id = strtoul(spec, NULL, 10);

		if (id >= RTE_MAX_ETHPORTS || !rte_eth_dev_is_valid_port(id))
			return lr_err(ENODEV, "port %s: no such port (%u ports)",
				      spec, rte_eth_dev_count_avail());
		*port_id = (uint16_t)id;
		return 0;
	}
	n = strcspn(spec, ",");
	if (n >= sizeof(name))
		return lr_err(ENAMETOOLONG, "port %s: name too long", spec);
	memcpy(name, spec, n);
	name[n] = '\0';
	if (rte_eth_dev_get_port_by_name(name, port_id) == 0)
		return 0;
	/* Not there yet: a vdev can be created from its devargs. */
	if (strncmp(name, "net_", 4) != 0)
		return lr_err(ENODEV, "port %s: no such port", name);
	if (is_memif(name) && memif_bsize_of(spec + n + (spec[n] == ',')) == 0) {
		if (snprintf(with_bsize, sizeof(with_bsize), "%s,bsize=%u", spec,
			     lr_port_memif_bsize(mtu)) >= (int)sizeof(with_bsize))
			return lr_err(ENAMETOOLONG, "port %s: devargs too long", name);
		spec = with_bsize;
	}
	ret = rte_dev_probe(spec);
	if (ret < 0)
		return lr_err(ENODEV, "port %s: cannot create vdev '%s': no such "
			      "driver or bad devargs (rte_dev_probe: %s)", name,
			      spec, rte_strerror(-ret));
	if (rte_eth_dev_get_port_by_name(name, port_id) != 0)
		return lr_err(ENODEV, "port %s: vdev '%s' made no ethdev", name, spec);
	if (is_memif(name))
		remove_memif_socket_at_exit(spec + n + (spec[n] == ','));
	return 0;
}

static int
make_pool(struct lr_port_info *pi, const struct lr_port_conf *conf,
	  uint32_t data_bytes)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	uint32_t n = conf->nb_mbufs;

	if (pi->pool != NULL && pi->mbuf_data_bytes >= data_bytes &&
	    pi->pool->size >= n)
		return 0;	/* the pool of an earlier setup still fits */
	if (n == 0) {
		uint16_t rxd = conf->nb_rxd ? conf->nb_rxd : DEFAULT_DESC;

		/* Fill every rx ring, keep each lcore's cache and bursts. */
		n = conf->nb_rxq * rxd + rte_lcore_count() * (POOL_CACHE + LR_BURST)
		    + 2048;
		n = rte_align32pow2(n) - 1;
	}
	snprintf(name, sizeof(name), "lr_rx_%u_%u", pi->id,
		 pi->pool != NULL ? pi->pool->size : 0);
	pi->pool = rte_pktmbuf_pool_create(name, n, POOL_CACHE, 0,
					   RTE_PKTMBUF_HEADROOM + data_bytes,
					   pi->socket);
	if (pi->pool == NULL)
		return lr_err(rte_errno, "port %s: no pool of %u mbufs of %u B "
			      "on socket %d", pi->name, n, data_bytes, pi->socket);
	pi->mbuf_data_bytes = data_bytes;
	return 0;
}

static int
check_conf(const struct lr_port_info *pi, const struct rte_eth_dev_info *di,
	   const struct lr_port_conf *c)
{
	if (c->nb_rxq == 0 && c->nb_txq == 0)
		return lr_err(EINVAL, "port %s: no rx and no tx queue", pi->name);
	if (c->nb_rxq > di->max_rx_queues)
		return lr_err(EINVAL, "port %s: %u rx queues > max %u", pi->name,
			      c->nb_rxq, di->max_rx_queues);
	if (c->nb_txq > di->max_tx_queues)
		return lr_err(EINVAL, "port %s: %u tx queues > max %u", pi->name,
			      c->nb_txq, di->max_tx_queues);
	/* net_af_packet opens its qpairs= sockets at probe time, in one
	 * fanout group: the kernel hashes frames to every one of them, and
	 * those of a socket no rx queue reads are lost, in no counter. */
	if (di->driver_name != NULL &&
	    strcmp(di->driver_name, "net_af_packet") == 0 &&
	    c->nb_rxq != 0 && c->nb_rxq < di->max_rx_queues)
		return lr_err(EINVAL, "port %s: net_af_packet spreads frames "
			      "over its %u sockets (qpairs=%u) and %u rx "
			      "queue(s) read %u of them: the frames of the "
			      "others would be lost uncounted; give the port "
			      "%u queues (--queues %u) or qpairs=%u", pi->name,
			      di->max_rx_queues, di->max_rx_queues, c->nb_rxq,
			      c->nb_rxq, di->max_rx_queues, di->max_rx_queues,
			      c->nb_rxq);
	if (c->mtu != 0 && (c->mtu < di->min_mtu || c->mtu > di->max_mtu))
		return lr_err(EINVAL, "port %s: MTU %u outside %u..%u", pi->name,
			      c->mtu, di->min_mtu, di->max_mtu);
	if (c->nb_rxq > 1 && c->rss_required &&
	    (c->rss_hf & ~di->flow_type_rss_offloads) != 0)
		return lr_err(EINVAL, "port %s: PMD %s cannot hash RSS fields "
			      "0x%" PRIx64 " (it can 0x%" PRIx64 ")", pi->name,
			      di->driver_name, c->rss_hf, di->flow_type_rss_offloads);
	if (is_memif(di->driver_name)) {
		const struct rte_devargs *da = rte_dev_devargs(di->device);
		uint32_t bsize = da != NULL ? memif_bsize_of(da->args) : 0;
		uint32_t frame = (uint32_t)(c->mtu ? c->mtu : RTE_ETHER_MTU) +
				 MEMIF_FRAME_OVERHEAD;

		if (bsize == 0)
			bsize = MEMIF_BSIZE_DEFAULT;
		if (bsize < frame)
			return lr_err(EINVAL, "port %s: memif buffers of %u B are "
				      "smaller than its %u B frames (MTU %u); DPDK "
				      "22.11's memif loses, repeats and invents "
				      "frames that span buffers: create the port "
				      "with bsize=%u", pi->name, bsize, frame,
				      c->mtu ? c->mtu : RTE_ETHER_MTU,
				      lr_port_memif_bsize(c->mtu));
	}
	if (c->rss_key_len != 0 && di->hash_key_size != 0 &&
	    c->rss_key_len != di->hash_key_size)
		return lr_err(EINVAL, "port %s: RSS key of %u B, the PMD wants %u B",
			      pi->name, c->rss_key_len, di->hash_key_size);
	return 0;
}

int
lr_port_setup(uint16_t port_id, const struct lr_port_conf *c)
{
	struct lr_port_info *pi = &ports[port_id];
	struct rte_eth_conf ec;
	struct rte_eth_dev_info di;
	struct rte_eth_rxconf rxc;
	struct rte_eth_txconf txc;
	uint16_t rxd = c->nb_rxd ? c->nb_rxd : DEFAULT_DESC;
	uint16_t txd = c->nb_txd ? c->nb_txd : DEFAULT_DESC;
	uint64_t rx_asked, tx_asked;
	uint16_t mtu;
	uint32_t data_bytes;
	uint16_t q;
	int ret, sock;

	if (!rte_eth_dev_is_valid_port(port_id))
		return lr_err(ENODEV, "port %u: no such port", port_id);
	if (is_setup[port_id] && pi->started) {
		rte_eth_dev_stop(port_id);
		pi->started = false;
	}
	pi->id = port_id;
	rte_eth_dev_get_name_by_port(port_id, pi->name);
	ret = rte_eth_dev_info_get(port_id, &di);
	if (ret != 0)
		return lr_err(-ret, "port %s: no device info", pi->name);
	snprintf(pi->driver, sizeof(pi->driver), "%s", di.driver_name);
	sock = rte_eth_dev_socket_id(port_id);
	pi->socket = sock < 0 ? (int)rte_socket_id() : sock;

	ret = check_conf(pi, &di, c);
	if (ret != 0)
		return ret;

	memset(&ec, 0, sizeof(ec));
	pi->rss_hf = 0;
	if (c->nb_rxq > 1 && (c->rss_hf & di.flow_type_rss_offloads) != 0) {
		uint64_t hf = c->rss_hf & di.flow_type_rss_offloads;

		if (hf != c->rss_hf)
			PLOG(WARNING, "%s: RSS fields 0x%" PRIx64 " not supported, "
			     "using 0x%" PRIx64, pi->name, c->rss_hf, hf);
		ec.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		ec.rx_adv_conf.rss_conf.rss_hf = hf;
		if (c->rss_key_len != 0) {
			ec.rx_adv_conf.rss_conf.rss_key = (uint8_t *)(uintptr_t)c->rss_key;
			ec.rx_adv_conf.rss_conf.rss_key_len = c->rss_key_len;
		}
		pi->rss_hf = hf;
		ec.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_RSS_HASH &
				      di.rx_offload_capa;
	}
	/* Offloads where the port has them; the roles do the rest in
	 * software. What was asked is kept apart from what the port took:
	 * the result says both. */
	rx_asked = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM |
		   RTE_ETH_RX_OFFLOAD_TCP_CKSUM | RTE_ETH_RX_OFFLOAD_TIMESTAMP;
	tx_asked = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
		   RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	if (ec.rxmode.mq_mode == RTE_ETH_MQ_RX_RSS)
		rx_asked |= RTE_ETH_RX_OFFLOAD_RSS_HASH;
	ec.rxmode.offloads |= di.rx_offload_capa & rx_asked;
	ec.txmode.offloads = di.tx_offload_capa & tx_asked;

	mtu = c->mtu;
	if (mtu == 0 && rte_eth_dev_get_mtu(port_id, &mtu) != 0)
		mtu = RTE_ETHER_MTU;
	data_bytes = RTE_MAX((uint32_t)RTE_MBUF_DEFAULT_DATAROOM,
			     (uint32_t)mtu + FRAME_OVERHEAD);
	if (mtu > RTE_ETHER_MTU) {
		rx_asked |= RTE_ETH_RX_OFFLOAD_SCATTER;
		ec.rxmode.offloads |= di.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER;
	}

	ret = rte_eth_dev_configure(port_id, c->nb_rxq, c->nb_txq, &ec);
	if (ret != 0)
		return lr_err(-ret, "port %s: configure with %u rx, %u tx queues",
			      pi->name, c->nb_rxq, c->nb_txq);
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(port_id, &rxd, &txd);
	if (ret != 0)
		return lr_err(-ret, "port %s: %u/%u descriptors", pi->name, rxd, txd);
	if (c->mtu != 0) {
		ret = rte_eth_dev_set_mtu(port_id, c->mtu);
		/* Rings, memif and the like have no MTU to set: they carry
		 * what they are given (memif chains its buffers), whatever
		 * max_rx_pktlen they report. */
		if (ret == -ENOTSUP) {
			if (di.max_rx_pktlen < (uint32_t)c->mtu + RTE_ETHER_HDR_LEN)
				PLOG(INFO, "%s: no MTU to set; max_rx_pktlen %u "
				     "is below MTU %u, which it may still carry",
				     pi->name, di.max_rx_pktlen, c->mtu);
			ret = 0;
		}
		if (ret != 0)
			return lr_err(-ret, "port %s: MTU %u refused", pi->name, c->mtu);
	}
	if (c->nb_rxq > 0) {
		ret = make_pool(pi, c, data_bytes);
		if (ret != 0)
			return ret;
	}
	rxc = di.default_rxconf;
	rxc.offloads = ec.rxmode.offloads;
	for (q = 0; q < c->nb_rxq; q++) {
		ret = rte_eth_rx_queue_setup(port_id, q, rxd, pi->socket, &rxc,
					     pi->pool);
		if (ret != 0)
			return lr_err(-ret, "port %s: rx queue %u", pi->name, q);
	}
	txc = di.default_txconf;
	txc.offloads = ec.txmode.offloads;
	for (q = 0; q < c->nb_txq; q++) {
		ret = rte_eth_tx_queue_setup(port_id, q, txd, pi->socket, &txc);
		if (ret != 0)
			return lr_err(-ret, "port %s: tx queue %u", pi->name, q);
	}
	ret = rte_eth_dev_start(port_id);
	if (ret != 0)
		return lr_err(-ret, "port %s: start", pi->name);
	pi->started = true;
	is_setup[port_id] = true;
	confs[port_id] = *c;
	lr_capture_out_start(port_id, c->nb_txq);
	if (c->promisc)
		rte_eth_promiscuous_enable(port_id);	/* not all PMDs can */
	pi->nb_rxq = c->nb_rxq;
	pi->nb_txq = c->nb_txq;
	pi->link_speed_mbps = c->speed_mbps;
	pi->speed_from_conf = c->speed_mbps != 0;
	pi->rx_offloads_asked = rx_asked;
	pi->tx_offloads_asked = tx_asked;
	pi->rx_offload_capa = di.rx_offload_capa;
	pi->tx_offload_capa = di.tx_offload_capa;
	pi->rss_capa = di.flow_type_rss_offloads;
	pi->rss_key_size = di.hash_key_size;
	/* What the port was configured with, read back. */
	pi->rx_offloads = ec.rxmode.offloads;
	pi->tx_offloads = ec.txmode.offloads;
	if (rte_eth_dev_conf_get(port_id, &ec) == 0) {
		pi->rx_offloads = ec.rxmode.offloads;
		pi->tx_offloads = ec.txmode.offloads;
	}
	if (c->mtu != 0 || rte_eth_dev_get_mtu(port_id, &pi->mtu) != 0)
		pi->mtu = mtu;
	/* The counters' baseline: the result says the port's drops over
	 * the run, not since the device started (a NIC's since boot). */
	take_baseline(port_id);
	pi->link_timeout_ms = c->link_timeout_ms;
	ret = lr_port_link_wait(port_id, c->link_timeout_ms);
	if (ret == -ETIMEDOUT) {
		/* A port without a link is not hung on: said once here and
		 * in the result (link_up false); the run goes on (a gen on
		 * it ends as failed when it takes no frame). */
		PLOG(WARNING, "%s: link down after %.1f s (--link-timeout): "
		     "going on without it", pi->name, c->link_timeout_ms / 1e3);
		ret = 0;
	}
	return ret;
}

int
lr_port_link_wait(uint16_t port_id, uint32_t timeout_ms)
{
	struct lr_port_info *pi = &ports[port_id];
	uint64_t start = rte_get_timer_cycles(), hz = rte_get_timer_hz();
	uint64_t end = start + (uint64_t)timeout_ms * hz / 1000;
	struct rte_eth_link link;
	bool up;
	int ret = 0;

	for (;;) {
		memset(&link, 0, sizeof(link));
		up = rte_eth_link_get_nowait(port_id, &link) == 0 &&
		     link.link_status == RTE_ETH_LINK_UP;
		if (up || timeout_ms == 0)
			break;
		if (rte_get_timer_cycles() > end) {
			ret = lr_err(ETIMEDOUT, "port %s: link down after %u ms",
				     pi->name, timeout_ms);
			break;
		}
		/* A memif with no peer waits the whole --link-timeout: Ctrl-C
		 * must end it as it ends every other wait. */
		if (lr_interrupted())
			return lr_err(EINTR, "port %s: interrupted while waiting "
				      "for link up", pi->name);
		rte_delay_us_sleep(10 * 1000);
	}
	/* The link as the wait left it, up or not: the result says it. */
	pi->link_wait_s = (double)(rte_get_timer_cycles() - start) / (double)hz;
	pi->link_up = up;
	pi->link_mbps = link.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN ? 0 :
			link.link_speed;
	pi->link_full_duplex = link.link_duplex == RTE_ETH_LINK_FULL_DUPLEX;
	pi->link_autoneg = link.link_autoneg == RTE_ETH_LINK_AUTONEG;
	if (up && pi->link_speed_mbps == 0)
		pi->link_speed_mbps = pi->link_mbps;
	return ret;
}

/* The counters' baselines: the ethdev stats and the drop xstats as they
 * were when the port started (lr_port_drops_get(), lr_port_xdrops()). */
static struct rte_eth_stats base_stats[RTE_MAX_ETHPORTS];
static struct {
	unsigned int n;
	uint64_t *ids;
	uint64_t *vals;
	struct rte_eth_xstat_name *names;
} xbase[RTE_MAX_ETHPORTS];

/* An xstat's name that says a frame was dropped, discarded, missed or in
 * error (DPDK's own "rx_missed_errors", a NIC's "rx_discards_phy",
 * af_xdp's and virtio's "..._dropped"). */
static bool
drop_name(const char *n)
{
	return strstr(n, "drop") != NULL || strstr(n, "discard") != NULL ||
	       strstr(n, "miss") != NULL || strstr(n, "error") != NULL ||
	       strstr(n, "nombuf") != NULL || strstr(n, "allocation_err") != NULL;
}

static void
xbase_free(uint16_t p)
{
	free(xbase[p].ids);
	free(xbase[p].vals);
	free(xbase[p].names);
	memset(&xbase[p], 0, sizeof(xbase[p]));
}

static void
take_baseline(uint16_t p)
{
	struct rte_eth_xstat_name *all = NULL;
	int n, i, k = 0;

	if (rte_eth_stats_get(p, &base_stats[p]) != 0)
		memset(&base_stats[p], 0, sizeof(base_stats[p]));
	xbase_free(p);
	n = rte_eth_xstats_get_names(p, NULL, 0);
	if (n <= 0)
		return;
	all = calloc((size_t)n, sizeof(*all));
	xbase[p].ids = calloc((size_t)n, sizeof(uint64_t));
	xbase[p].vals = calloc((size_t)n, sizeof(uint64_t));
	xbase[p].names = calloc((size_t)n, sizeof(*xbase[p].names));
	if (all == NULL || xbase[p].ids == NULL || xbase[p].vals == NULL ||
	    xbase[p].names == NULL || rte_eth_xstats_get_names(p, all, n) != n)
		goto fail;
	for (i = 0; i < n; i++) {
		if (!drop_name(all[i].name))
			continue;
		xbase[p].ids[k] = (uint64_t)i;
		xbase[p].names[k++] = all[i];
	}
	xbase[p].n = (unsigned int)k;
	if (k > 0 && rte_eth_xstats_get_by_id(p, xbase[p].ids, xbase[p].vals,
					      (unsigned int)k) != k)
		goto fail;
	free(all);
	return;
fail:
	PLOG(INFO, "%s: no extended statistics to read drops from", ports[p].name);
	free(all);
	xbase_free(p);
}

static uint64_t
grown(uint64_t now, uint64_t then)
{
	return now >= then ? now - then : 0;
}

int
lr_port_drops_get(uint16_t port_id, struct lr_port_drops *d)
{
	struct rte_eth_stats es;
	int ret;

	memset(d, 0, sizeof(*d));
	if (port_id >= RTE_MAX_ETHPORTS || !is_setup[port_id])
		return -ENODEV;
	ret = rte_eth_stats_get(port_id, &es);
	if (ret != 0)
		return ret;
#define DROP_GROWN(f, ...) d->f = grown(es.f, base_stats[port_id].f);
	LR_PORT_DROPS(DROP_GROWN)
#undef DROP_GROWN
	return 0;
}

uint64_t
lr_port_rx_drops(const struct lr_port_drops *d)
{
	return d->imissed + d->rx_nombuf + d->ierrors;
}

int
lr_port_xdrops(uint16_t port_id,
	       void (*fn)(void *arg, const char *name, uint64_t n), void *arg)
{
	uint64_t *v;
	unsigned int i, n;
	int ret, k = 0;

	if (port_id >= RTE_MAX_ETHPORTS || !is_setup[port_id])
		return -ENODEV;
	n = xbase[port_id].n;
	if (n == 0)
		return 0;
	v = calloc(n, sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	ret = rte_eth_xstats_get_by_id(port_id, xbase[port_id].ids, v, n);
	if (ret != (int)n) {
		free(v);
		return ret < 0 ? ret : -EIO;
	}
	for (i = 0; i < n; i++) {
		uint64_t g = grown(v[i], xbase[port_id].vals[i]);

		if (g == 0)
			continue;
		fn(arg, xbase[port_id].names[i].name, g);
		k++;
	}
	free(v);
	return k;
}

const struct lr_port_info *
lr_port_info(uint16_t port_id)
{
	if (port_id >= RTE_MAX_ETHPORTS || !is_setup[port_id])
		return NULL;
	return &ports[port_id];
}

const struct lr_port_conf *
lr_port_conf_of(uint16_t port_id)
{
	if (port_id >= RTE_MAX_ETHPORTS || !is_setup[port_id])
		return NULL;
	return &confs[port_id];
}

struct close_req {
	uint16_t port_id;
	bool stop;
	int done;
};

static void
stop_and_close(uint16_t port_id, bool stop)
{
	if (stop)
		rte_eth_dev_stop(port_id);
	rte_eth_dev_close(port_id);
}

static void
close_cb(void *arg)
{
	struct close_req *req = arg;

	stop_and_close(req->port_id, req->stop);
	__atomic_store_n(&req->done, 1, __ATOMIC_RELEASE);
}

int
lr_port_close(uint16_t port_id)
{
	struct lr_port_info *pi;
	struct close_req req;
	uint64_t end;

	if (port_id >= RTE_MAX_ETHPORTS || !is_setup[port_id])
		return 0;
	pi = &ports[port_id];
	/* The tx counters its capture files are checked against: final, the
	 * lcores are done; gone once the port is closed. */
	lr_capture_out_stop(port_id);
	/*
	 * Close in the EAL interrupt thread, where PMDs such as memif handle
	 * their peer's messages: when both ends of a memif link close at
	 * once, DPDK 22.11 runs the peer's "disconnect" there while our
	 * close frees the same regions here, and one of the two processes
	 * crashes (seen with 9018 B frames and both sides stopping at a
	 * count). An alarm callback runs in that thread, one at a time with
	 * the PMD's handlers.
	 */
	req.port_id = port_id;
	req.stop = pi->started;
	req.done = 0;
	if (rte_eal_alarm_set(1, close_cb, &req) == 0) {
		end = rte_get_timer_cycles() + 5 * rte_get_timer_hz();
		while (!__atomic_load_n(&req.done, __ATOMIC_ACQUIRE) &&
		       rte_get_timer_cycles() < end)
			rte_delay_us_sleep(1000);
		/* Not run yet after 5 s: cancel (waits for a running one). */
		if (!__atomic_load_n(&req.done, __ATOMIC_ACQUIRE) &&
		    rte_eal_alarm_cancel(close_cb, &req) > 0)
			stop_and_close(port_id, req.stop);
	} else {
		stop_and_close(port_id, req.stop);
	}
	/* The pool may still hold mbufs parked in other ports' rings. */
	is_setup[port_id] = false;
	xbase_free(port_id);
	/* A closed end is no wire's: its id may be a new port's. */
	if (wire_peer[port_id] != 0) {
		wire_stamps[port_id] = false;
		wire_stamps[wire_peer[port_id] - 1] = false;
		wire_peer[wire_peer[port_id] - 1] = 0;
		wire_peer[port_id] = 0;
	}
	pi->started = false;
	/* The PMD closed its capture files above: were they written whole? */
	return lr_capture_out_check(port_id);
}

static void
settle_cb(void *arg)
{
	struct close_req *req = arg;

	__atomic_store_n(&req->done, 1, __ATOMIC_RELEASE);
}

int
lr_port_close_all(void)
{
	uint16_t p;

	struct close_req settle = { .done = 0 };
	char first[256] = "";
	uint64_t end;
	bool any = false;
	int ret = 0, r;

	for (p = 0; p < RTE_MAX_ETHPORTS; p++) {
		any |= is_setup[p];
		r = lr_port_close(p);
		if (r == 0)
			continue;
		/* The first failure is returned; any later one is logged. */
		if (ret == 0) {
			ret = r;
			snprintf(first, sizeof(first), "%s", lr_errmsg());
		} else {
			PLOG(ERR, "%s", lr_errmsg());
		}
	}
	if (ret != 0)
		lr_err(0, "%s", first);
	/*
	 * A closed memif port leaves its control channel to the interrupt
	 * thread, which sends the "disconnect" and tears the channel down
	 * on its next turn; rte_eal_cleanup() unmaps memory under that
	 * thread's feet if it is still at it (a crash at exit in DPDK 22.11
	 * when the peer closes at the same moment). Give it a turn, 20 ms
	 * later, and wait for it.
	 */
	if (!any || rte_eal_alarm_set(20 * 1000, settle_cb, &settle) != 0)
		return ret;
	end = rte_get_timer_cycles() + 2 * rte_get_timer_hz();
	while (!__atomic_load_n(&settle.done, __ATOMIC_ACQUIRE) &&
	       rte_get_timer_cycles() < end)
		rte_delay_us_sleep(1000);
	if (!__atomic_load_n(&settle.done, __ATOMIC_ACQUIRE))
		rte_eal_alarm_cancel(settle_cb, &settle);
	return ret;
}

int
lr_port_wire(const char *name, uint16_t nb_queues, int socket, uint16_t ports_out[2])
{
	struct rte_ring *ab[RTE_MAX_QUEUES_PER_PORT], *ba[RTE_MAX_QUEUES_PER_PORT];
	char rname[RTE_RING_NAMESIZE], pname[RTE_ETH_NAME_MAX_LEN];
	uint16_t q, p;
	int ret;

	if (nb_queues == 0 || nb_queues > 64)
		return lr_err(EINVAL, "wire %s: %u queues, 1..64 allowed", name,
			      nb_queues);
	if (strlen(name) > 16)
		return lr_err(ENAMETOOLONG, "wire %s: name longer than 16", name);
	if (socket < 0)
		socket = (int)rte_socket_id();
	for (q = 0; q < nb_queues; q++) {
		/* Each queue belongs to one lcore at each end: single producer,
		 * single consumer rings. */
		snprintf(rname, sizeof(rname), "%s_ab%u", name, q);
		ab[q] = rte_ring_create(rname, 4096, socket,
					RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(rname, sizeof(rname), "%s_ba%u", name, q);
		ba[q] = rte_ring_create(rname, 4096, socket,
					RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (ab[q] == NULL || ba[q] == NULL)
			return lr_err(rte_errno, "wire %s: ring for queue %u", name, q);
	}
	snprintf(pname, sizeof(pname), "%sa", name);
	ret = rte_eth_from_rings(pname, ba, nb_queues, ab, nb_queues, socket);
	if (ret < 0)
		return lr_err(rte_errno, "wire %s: port %s", name, pname);
	p = (uint16_t)ret;
	snprintf(pname, sizeof(pname), "%sb", name);
	ret = rte_eth_from_rings(pname, ab, nb_queues, ba, nb_queues, socket);
	if (ret < 0)
		return lr_err(rte_errno, "wire %s: port %s", name, pname);
	ports_out[0] = p;
	ports_out[1] = (uint16_t)ret;
	wire_peer[p] = (uint16_t)(ret + 1);
	wire_peer[ret] = (uint16_t)(p + 1);
	return 0;
}

/* A tx callback on a wire end: what enters the ring is stamped with the
 * TSC of its entry, as a NIC stamps what its MAC receives. Frames the
 * ring refuses go back to the sender and are stamped again when sent. */
static uint16_t
stamp_entry(uint16_t port, uint16_t queue, struct rte_mbuf **m, uint16_t n,
	    void *arg)
{
	uint64_t tsc = rte_rdtsc();
	uint16_t i;

	RTE_SET_USED(port);
	RTE_SET_USED(queue);
	RTE_SET_USED(arg);
	for (i = 0; i < n; i++)
		*RTE_MBUF_DYNFIELD(m[i], arrival_off, uint64_t *) = tsc;
	return n;
}

int
lr_port_arrival_stamps(uint16_t port_id)
{
	static const struct rte_mbuf_dynfield field = {
		.name = "linerate_dynfield_arrival_tsc",
		.size = sizeof(uint64_t),
		.align = __alignof__(uint64_t),
	};
	uint16_t peer, q;

	if (port_id >= RTE_MAX_ETHPORTS || wire_peer[port_id] == 0)
		return -ENOTSUP;
	peer = wire_peer[port_id] - 1;
	if (!is_setup[peer])
		return -ENOTSUP;
	if (wire_stamps[port_id])
		return arrival_off;
	if (arrival_off < 0) {
		arrival_off = rte_mbuf_dynfield_register(&field);
		if (arrival_off < 0)
			return lr_err(rte_errno, "port %s: no mbuf field for "
				      "arrival stamps", ports[port_id].name);
	}
	for (q = 0; q < ports[peer].nb_txq; q++)
		if (rte_eth_add_tx_callback(peer, q, stamp_entry, NULL) == NULL)
			return lr_err(rte_errno, "port %s: no tx callback for "
				      "arrival stamps", ports[peer].name);
	wire_stamps[port_id] = true;
	return arrival_off;
}

static const struct {
	const char *name;
	uint64_t hf;
} rss_names[] = {
	{ "ip", RTE_ETH_RSS_IP },
	{ "ipv4", RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_FRAG_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_OTHER },
	{ "ipv6", RTE_ETH_RSS_IPV6 | RTE_ETH_RSS_FRAG_IPV6 | RTE_ETH_RSS_NONFRAG_IPV6_OTHER },
	{ "udp", RTE_ETH_RSS_UDP },
	{ "tcp", RTE_ETH_RSS_TCP },
	{ "sctp", RTE_ETH_RSS_SCTP },
	{ "l2", RTE_ETH_RSS_L2_PAYLOAD },
	{ "none", 0 },
};

/* RSS hash fields by name: testpmd's words for DPDK's RTE_ETH_RSS_* bits
 * (app/test-pmd's rss_type_table), so that a result reads as a testpmd
 * "show port N rss-hash" does. */
static const struct {
	const char *name;
	uint64_t bit;
} rss_bits[] = {
	{ "l2-payload", RTE_ETH_RSS_L2_PAYLOAD },
	{ "eth", RTE_ETH_RSS_ETH },
	{ "s-vlan", RTE_ETH_RSS_S_VLAN },
	{ "c-vlan", RTE_ETH_RSS_C_VLAN },
	{ "ipv4", RTE_ETH_RSS_IPV4 },
	{ "ipv4-frag", RTE_ETH_RSS_FRAG_IPV4 },
	{ "ipv4-tcp", RTE_ETH_RSS_NONFRAG_IPV4_TCP },
	{ "ipv4-udp", RTE_ETH_RSS_NONFRAG_IPV4_UDP },
	{ "ipv4-sctp", RTE_ETH_RSS_NONFRAG_IPV4_SCTP },
	{ "ipv4-other", RTE_ETH_RSS_NONFRAG_IPV4_OTHER },
	{ "ipv6", RTE_ETH_RSS_IPV6 },
	{ "ipv6-frag", RTE_ETH_RSS_FRAG_IPV6 },
	{ "ipv6-tcp", RTE_ETH_RSS_NONFRAG_IPV6_TCP },
	{ "ipv6-udp", RTE_ETH_RSS_NONFRAG_IPV6_UDP },
	{ "ipv6-sctp", RTE_ETH_RSS_NONFRAG_IPV6_SCTP },
	{ "ipv6-other", RTE_ETH_RSS_NONFRAG_IPV6_OTHER },
	{ "ipv6-ex", RTE_ETH_RSS_IPV6_EX },
	{ "ipv6-tcp-ex", RTE_ETH_RSS_IPV6_TCP_EX },
	{ "ipv6-udp-ex", RTE_ETH_RSS_IPV6_UDP_EX },
	{ "port", RTE_ETH_RSS_PORT },
	{ "vxlan", RTE_ETH_RSS_VXLAN },
	{ "geneve", RTE_ETH_RSS_GENEVE },
	{ "nvgre", RTE_ETH_RSS_NVGRE },
	{ "gtpu", RTE_ETH_RSS_GTPU },
	{ "esp", RTE_ETH_RSS_ESP },
	{ "ah", RTE_ETH_RSS_AH },
	{ "l2tpv3", RTE_ETH_RSS_L2TPV3 },
	{ "pfcp", RTE_ETH_RSS_PFCP },
	{ "pppoe", RTE_ETH_RSS_PPPOE },
	{ "ecpri", RTE_ETH_RSS_ECPRI },
	{ "mpls", RTE_ETH_RSS_MPLS },
	{ "ipv4-chksum", RTE_ETH_RSS_IPV4_CHKSUM },
	{ "l4-chksum", RTE_ETH_RSS_L4_CHKSUM },
	{ "l2tpv2", RTE_ETH_RSS_L2TPV2 },
	{ "l3-src-only", RTE_ETH_RSS_L3_SRC_ONLY },
	{ "l3-dst-only", RTE_ETH_RSS_L3_DST_ONLY },
	{ "l4-src-only", RTE_ETH_RSS_L4_SRC_ONLY },
	{ "l4-dst-only", RTE_ETH_RSS_L4_DST_ONLY },
	{ "l2-src-only", RTE_ETH_RSS_L2_SRC_ONLY },
	{ "l2-dst-only", RTE_ETH_RSS_L2_DST_ONLY },
};

void
lr_rss_hf_names(uint64_t hf, void (*fn)(void *arg, const char *name), void *arg)
{
	char buf[16];
	unsigned int b;
	size_t i;

	for (b = 0; b < 64; b++) {
		if ((hf & RTE_BIT64(b)) == 0)
			continue;
		for (i = 0; i < RTE_DIM(rss_bits); i++)
			if (rss_bits[i].bit == RTE_BIT64(b))
				break;
		if (i < RTE_DIM(rss_bits)) {
			fn(arg, rss_bits[i].name);
		} else {
			snprintf(buf, sizeof(buf), "bit-%u", b);
			fn(arg, buf);
		}
	}
}

int
lr_rss_fields_parse(const char *list, uint64_t *rss_hf)
{
	char buf[128], *tok, *save;
	uint64_t hf = 0;
	size_t i;

	if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf))
		return lr_err(EINVAL, "rss: field list too long");
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < RTE_DIM(rss_names); i++)
			if (strcmp(tok, rss_names[i].name) == 0)
				break;
		if (i == RTE_DIM(rss_names))
			return lr_err(EINVAL, "rss: unknown field '%s' "
				      "(ip, ipv4, ipv6, udp, tcp, sctp, l2, none)", tok);
		hf |= rss_names[i].hf;
	}
	*rss_hf = hf;
	return 0;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int
lr_rss_key_parse(const char *s, uint8_t key[LR_RSS_KEY_MAX], uint8_t *len)
{
	size_t n, i;

	if (strcmp(s, "default") == 0) {
		*len = 0;
		return 0;
	}
	if (strcmp(s, "symmetric") == 0) {
		memcpy(key, symmetric_key, sizeof(symmetric_key));
		*len = sizeof(symmetric_key);
		return 0;
	}
	if (strncmp(s, "0x", 2) == 0)
		s += 2;
	n = strlen(s);
	if (n == 0 || n % 2 != 0 || n / 2 > LR_RSS_KEY_MAX)
		return lr_err(EINVAL, "rss key: want 'symmetric', 'default' or "
			      "2..%u hex digits in pairs", 2 * LR_RSS_KEY_MAX);
	for (i = 0; i < n / 2; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return lr_err(EINVAL, "rss key: '%c%c' is not hex",
				      s[2 * i], s[2 * i + 1]);
		key[i] = (uint8_t)(hi << 4 | lo);
	}
	*len = (uint8_t)(n / 2);
	return 0;
}
