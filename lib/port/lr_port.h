/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Bring up any ethdev the same way: a vfio-pci NIC, a vdev given on the EAL
 * command line, or a vdev created here from its devargs ("net_null0",
 * "net_memif0,role=server,socket=/tmp/lr.sock"). Also the virtual wire: two
 * ring ports joined back to back inside one process.
 *
 * Each port gets N rx/tx queues, an rx mempool on the port's NUMA socket,
 * RSS with chosen fields and key when it has several rx queues, an MTU up to
 * 9000 with mbufs that hold a 9018 B frame, and the offloads it has.
 *
 * Threading: every function here is control path (main lcore). Worker lcores
 * only read the struct lr_port_info of a port they were given, which does not
 * change while they run.
 */
#ifndef LR_PORT_H
#define LR_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ethdev.h>

#include "lr_opt.h"

#define LR_RSS_KEY_MAX 64		/**< longest RSS key a PMD takes here */
#define LR_LINK_TIMEOUT_MS 5000		/**< default wait for link up */

/** What to ask of a port. lr_port_conf_init() gives the defaults. */
struct lr_port_conf {
	uint16_t nb_rxq;		/**< rx queues (default 1) */
	uint16_t nb_txq;		/**< tx queues (default 1) */
	uint16_t nb_rxd;		/**< rx descriptors per queue, 0: 1024 */
	uint16_t nb_txd;		/**< tx descriptors per queue, 0: 1024 */
	uint16_t mtu;			/**< bytes of L3 payload, 0: leave as is */
	uint32_t nb_mbufs;		/**< rx pool size, 0: derived */
	uint64_t rss_hf;		/**< RTE_ETH_RSS_* used with nb_rxq > 1 */
	bool rss_required;		/**< fail if the PMD lacks rss_hf; else a
					 *   PMD without RSS keeps its queues apart
					 *   (ring, memif: queue i is the peer's i) */
	uint8_t rss_key[LR_RSS_KEY_MAX];/**< RSS key, see rss_key_len */
	uint8_t rss_key_len;		/**< 0: the PMD's own key */
	bool promisc;			/**< promiscuous rx (default true) */
	uint32_t link_timeout_ms;	/**< 0: do not wait for link up */
	uint32_t speed_mbps;		/**< link speed to assume for rates in %
					 *   and line-rate checks, 0: the link's */
};

/** A port as it was set up; valid until lr_port_close(). */
struct lr_port_info {
	uint16_t id;
	char name[RTE_ETH_NAME_MAX_LEN];
	char driver[32];
	int socket;			/**< NUMA socket of queues and pool */
	uint16_t nb_rxq;
	uint16_t nb_txq;
	uint16_t mtu;
	uint64_t rx_offloads;		/**< offloads enabled, RTE_ETH_RX_OFFLOAD_* */
	uint64_t tx_offloads;		/**< offloads enabled, RTE_ETH_TX_OFFLOAD_* */
	uint64_t rx_offloads_asked;	/**< what setup asked for, had or not */
	uint64_t tx_offloads_asked;
	uint64_t rx_offload_capa;	/**< the PMD's (rte_eth_dev_info) */
	uint64_t tx_offload_capa;
	uint64_t rss_capa;		/**< RSS fields the PMD hashes, 0: no RSS */
	uint8_t rss_key_size;		/**< the PMD's RSS key, bytes (0: unsaid) */
	uint64_t rss_hf;		/**< RSS fields in use, 0 without RSS */
	uint32_t link_speed_mbps;	/**< conf speed, else the link's; 0 unknown */
	bool speed_from_conf;		/**< link_speed_mbps is conf's speed= */
	bool link_up;			/**< up when setup's wait ended */
	uint32_t link_mbps;		/**< the link's own speed then, 0 unknown */
	bool link_full_duplex;
	bool link_autoneg;
	uint32_t link_timeout_ms;	/**< the wait's bound (0: not waited) */
	double link_wait_s;		/**< how long setup waited for it */
	bool started;
	struct rte_mempool *pool;	/**< rx mbufs, on @c socket */
	uint32_t mbuf_data_bytes;	/**< data room of one pool mbuf */
};

/** The port options (lr_opt.h): name, range, help, example. */
extern const struct lr_opt lr_port_opts[];

/** Fill @p conf with the defaults. */
void lr_port_conf_init(struct lr_port_conf *conf);

/**
 * Set one option of @p conf from its text form, as the CLI and Lua give it:
 * queues (rx and tx), rxq, txq, rxd, txd, mtu, mbufs, rss (fields),
 * rss-key, promisc (0/1), link-timeout (seconds), speed (bit/s: "10G",
 * what rates in % refer to; virtual ports report their own: 10G null, ring, pcap; 100G memif).
 *
 * @return 0, -ENOENT (not a port option) or -EINVAL (bad value).
 */
int lr_port_conf_set(struct lr_port_conf *conf, const char *key, const char *val);

/**
 * Find a port by id ("0"), by ethdev name ("net_null0") or by vdev devargs,
 * creating the vdev when it does not exist yet.
 *
 * @return 0 and *port_id, or -ENODEV (no such port, vdev not created).
 */
int lr_port_find(const char *spec, uint16_t *port_id);

/**
 * lr_port_find(), creating a vdev suited to @p conf: a net_memif port
 * without bsize= gets buffers that hold a whole frame of conf's MTU
 * (lr_port_memif_bsize), since DPDK 22.11's memif corrupts the stream of
 * frames that span several buffers.
 */
int lr_port_find_for(const char *spec, const struct lr_port_conf *conf,
		     uint16_t *port_id);

/** memif buffer size (bsize=) that holds a whole frame of @p mtu (0: 1500). */
uint32_t lr_port_memif_bsize(uint16_t mtu);

/** The conf port @p port_id was set up with, or NULL: a role that brings
 *  up a second port (the delay role's peer) sets it up alike. */
const struct lr_port_conf *lr_port_conf_of(uint16_t port_id);

/**
 * The peer of a role that forwards between two ports (delay's --peer,
 * reflect's): @p spec among the set-up ports, or, with @p like (a set-up
 * port; LR_PORT_NONE: none), found or made and set up as @p like was.
 * @p who names the role in the error.
 * @return 0 and *@p peer, or -EINVAL with lr_errmsg().
 */
int lr_port_peer(const char *who, const char *spec, uint16_t like, uint16_t *peer);
#define LR_PORT_NONE UINT16_MAX

/**
 * Configure, set up queues and start a port, then wait for its link.
 * A port that is already set up is stopped and set up again.
 *
 * @return 0, -EINVAL (more queues, an MTU or RSS fields the PMD cannot do),
 *   -ENOMEM (no memory for the pool on the port's socket), -ETIMEDOUT (link
 *   still down), or the PMD's own error. lr_errmsg() names port and cause.
 */
int lr_port_setup(uint16_t port_id, const struct lr_port_conf *conf);

/**
 * Create the virtual wire: ports "<name>a" and "<name>b" whose queues are
 * rte_rings crossed so that what one sends the other receives.
 * The ports still need lr_port_setup() with at most @p nb_queues queues.
 *
 * @return 0 and ports[0..1], -EEXIST, -ENOMEM or -EINVAL.
 */
int lr_port_wire(const char *name, uint16_t nb_queues, int socket,
		 uint16_t ports[2]);

/**
 * Arrival stamps on @p port_id's rx: where the port is an end of the
 * virtual wire (set up, as its other end), the other end's tx stamps each
 * frame with the TSC at which it entered the ring, in an mbuf dynfield;
 * the receiver reads when a frame arrived, not when it was polled, as a
 * NIC's rx timestamps tell it. Control path, before the workers poll.
 *
 * @return the dynfield's offset (a uint64_t TSC), or -ENOTSUP: the port
 *   gives no arrival times (a frame arrived when it is read).
 */
int lr_port_arrival_stamps(uint16_t port_id);

/** The port as set up, or NULL when lr_port_setup() did not succeed on it. */
const struct lr_port_info *lr_port_info(uint16_t port_id);

/**
 * net_pcap (DPDK 22.11, drivers/net/pcap) writes each frame's pcap time
 * as tv_sec * 10^6 + tv_usec into the rx timestamp dynfield and sets its
 * flag, whatever the rx offloads: microseconds, not the ns of a NIC clock.
 */
#define LR_PORT_CAPTURE_TS_NS 1000u

/**
 * Wait up to @p timeout_ms for link up, polling rte_eth_link_get_nowait();
 * the link as it was then is in lr_port_info() (link_up, link_mbps, ...).
 * @return 0, -ETIMEDOUT (still down) or -EINTR (SIGINT, SIGTERM).
 */
int lr_port_link_wait(uint16_t port_id, uint32_t timeout_ms);

/**
 * The port's own drop counters (rte_eth_stats), X(field, key, unit, help):
 * over the run, the growth since lr_port_setup() started the port, not
 * since the device's.
 */
#define LR_PORT_DROPS(X) \
	X(imissed, "imissed", "frames", \
	  "frames the port dropped itself: no room in its rx queue") \
	X(rx_nombuf, "rx_nombuf", "mbufs", \
	  "rx mbuf allocation failures: frames the port could not take in") \
	X(ierrors, "ierrors", "frames", "erroneous frames received") \
	X(oerrors, "oerrors", "frames", "frames it failed to send")

/** LR_PORT_DROPS's counters. */
struct lr_port_drops {
#define LR_PORT_DROP_FIELD(f, ...) uint64_t f;
	LR_PORT_DROPS(LR_PORT_DROP_FIELD)
#undef LR_PORT_DROP_FIELD
};

/**
 * The port's drops over the run (LR_PORT_DROPS). Control path.
 * @return 0, or the PMD's error from rte_eth_stats_get() (*@p d zeroed).
 */
int lr_port_drops_get(uint16_t port_id, struct lr_port_drops *d);

/** Frames the port dropped itself on rx over the run: imissed, rx_nombuf
 *  and ierrors (the tester's own loss when the port is the tester's). */
uint64_t lr_port_rx_drops(const struct lr_port_drops *d);

/**
 * Each extended statistic (rte_eth_xstats) whose name says a drop, a
 * discard, a miss or an error, that grew over the run: @p fn(@p arg, its
 * name, its growth), in the PMD's order. Control path.
 * @return how many, or the PMD's error.
 */
int lr_port_xdrops(uint16_t port_id,
		   void (*fn)(void *arg, const char *name, uint64_t n), void *arg);

/**
 * The RSS hash fields of @p hf as names (DPDK's testpmd's: "ipv4-udp",
 * "l2-payload", ...): @p fn(@p arg, name) for each, in bit order; a bit
 * without a name as "bit-N".
 */
void lr_rss_hf_names(uint64_t hf, void (*fn)(void *arg, const char *name),
		     void *arg);

/**
 * Stop and close one port set up here.
 * @return 0, or a negative errno with lr_errmsg(): a capture file the port
 *   wrote (net_pcap tx_pcap=) does not hold what the PMD sent into it
 *   (lr_capture_out.h).
 */
int lr_port_close(uint16_t port_id);

/**
 * Stop and close every port set up here.
 * @return 0, or the first lr_port_close() failure (its lr_errmsg(); later
 *   ones are logged at ERR).
 */
int lr_port_close_all(void);

/**
 * Parse RSS fields: a comma list of ip, ipv4, ipv6, udp, tcp, sctp, l2,
 * or "none".  @return 0 or -EINVAL naming the unknown field.
 */
int lr_rss_fields_parse(const char *list, uint64_t *rss_hf);

/**
 * Parse an RSS key: "symmetric" (0x6d5a repeated, so that both directions
 * of a flow hash alike), "default" (the PMD's key), or hex bytes.
 * @return 0 or -EINVAL.
 */
int lr_rss_key_parse(const char *s, uint8_t key[LR_RSS_KEY_MAX],
		     uint8_t *len);

#endif
