/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * IPFIX export (RFC 7011): flow records encoded with IANA information
 * elements under two templates (IPv4 and IPv6), packed into messages no
 * larger than the path MTU allows, handed to a transport (a file in the
 * RFC 5655 format, UDP, or anything with a send function).
 *
 * The sequence number of a message counts the data records exported before
 * it; templates are sent in the first message and, for UDP, again every
 * template_every messages and every template_period_s seconds (RFC 7011
 * §8.4). Sets are padded to 4 bytes.
 *
 * The transports sit behind struct lr_ipfix_transport_ops, one file
 * each: tx_file.c, tx_udp.c, tx_tcp.c. The process-wide exporter that the
 * probe feeds is lr_exporter.h.
 *
 * Threading: an encoder and its transport belong to one thread at a time;
 * they are not for the fast path of workers, which hand records to the
 * exporter through rings.
 */
#ifndef LR_IPFIX_H
#define LR_IPFIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lr_flowext.h"

#define LR_IPFIX_VERSION 10
#define LR_IPFIX_TMPL_V4 256		/**< template id of IPv4 records */
#define LR_IPFIX_TMPL_V6 257		/**< template id of IPv6 records */
#define LR_IPFIX_TMPL_STATS 258		/**< options template: exporter stats */
#define LR_IPFIX_TMPL_TYPES 259		/**< options template: RFC 5610
					 *   information element type records */
/** The template of a record of application @p app (enum lr_app). */
#define LR_IPFIX_TMPL_APP(app, ipv6) (260 + 2 * ((app) - 1) + ((ipv6) ? 1 : 0))
#define LR_IPFIX_MSG_MAX 65535
#define LR_IPFIX_UDP_MTU_DEFAULT 1472	/**< 1500 - IPv4 20 - UDP 8 */
#define LR_IPFIX_PEN_REVERSE 29305	/**< RFC 5103's reverse elements */

/** flowEndReason (IANA). */
enum lr_flow_end {
	LR_FLOW_END_IDLE = 1,		/**< idle timeout */
	LR_FLOW_END_ACTIVE = 2,		/**< active timeout */
	LR_FLOW_END_DETECTED = 3,	/**< TCP FIN or RST */
	LR_FLOW_END_FORCED = 4,		/**< end of run */
	LR_FLOW_END_RESOURCES = 5,	/**< cache full */
};

/** A flow's application, as the probe's flow extensions found it: its
 *  record then carries the application's fields (struct lr_flow_rec_app)
 *  under a template of its own. */
enum lr_app {
	LR_APP_NONE,
	LR_APP_TLS,
	LR_APP_QUIC,
	LR_APP_DNS,
	LR_APP_HTTP,
	LR_APP_KINDS,
};

union lr_app_fields {
	struct lr_tls tls;
	struct lr_quic quic;
	struct lr_dns dns;
	struct lr_http http;
};

/**
 * What the probe's flow-wide extensions (--flow-ext basicplus, pstats)
 * found in a TCP or UDP flow's first packets, whatever its application:
 * exported with every record when enabled (lr_ipfix_conf's xtra).
 */
enum lr_xtra {
	LR_XTRA_BPLUS = 1,	/**< basicplus: TTL, IP flags, TCP window,
				 *   options and MSS of each direction's first
				 *   packet, the SYN's size */
	LR_XTRA_PSTATS = 2,	/**< pstats: the first payload packets'
				 *   lengths, times, TCP flags, directions */
	LR_XTRA_LABEL = 4,	/**< app: the application nDPI names */
};

#define LR_PSTATS_MAX 30	/**< packets a flow's sequence holds, as
				 *   ipfixprobe's pstats */

/** basicplus: [0] the flow's direction, [1] the reverse (biflow). */
struct lr_bplus {
	uint64_t tcp_opt[2];		/**< tcpOptions: kind K is bit 63 - K
					 *   (RFC 9565), ORed over the packets
					 *   looked at */
	uint32_t mss[2];		/**< the MSS option's value, 0: none */
	uint16_t win[2];		/**< TCP window of the first packet */
	uint16_t syn_size;		/**< IP length of a SYN (no ACK) */
	uint8_t ttl[2];			/**< TTL, hop limit of the first packet */
	uint8_t ip_flags[2];		/**< fragmentFlags: DF 0x40, MF 0x20 */
	uint8_t seen;			/**< bit d: direction d's first packet */
	uint8_t pad[3];
};

/** pstats: the flow's first LR_PSTATS_MAX packets that carry payload. */
struct lr_pstats {
	uint64_t base_ns;		/**< Unix time of the first, ns */
	uint32_t dt_us[LR_PSTATS_MAX];	/**< each one's time after base_ns */
	uint16_t len[LR_PSTATS_MAX];	/**< its L4 payload's bytes */
	uint8_t flags[LR_PSTATS_MAX];	/**< its TCP flags (low 8 bits) */
	int8_t dir[LR_PSTATS_MAX];	/**< 1: the flow's direction, -1: back */
	uint8_t n;
	uint8_t pad[7];
};

#define LR_LABEL_NAME_MAX 31
#define LR_LABEL_ENGINE 20		/**< RFC 6759 PANA-L7-PEN */
#define LR_LABEL_PEN 35632		/**< ntop's, whose nDPI numbers them */

/** app: the flow's application as nDPI names it. */
struct lr_label {
	uint8_t id[7];			/**< applicationId (RFC 6759): engine
					 *   LR_LABEL_ENGINE, LR_LABEL_PEN, nDPI's
					 *   protocol id (its app's, else its
					 *   master's), big-endian */
	uint8_t name_len;
	char name[LR_LABEL_NAME_MAX];	/**< applicationName: nDPI's
					 *   "master.app" ("TLS.YouTube") */
	uint8_t guessed;		/**< named by its ports, the payload
					 *   not recognised */
};

struct lr_flow_xtra {
	struct lr_bplus bp;
	struct lr_pstats ps;
	struct lr_label lbl;
};

/** A flow record as the exporter takes it. */
struct lr_flow_rec {
	uint8_t src[16];		/**< network order; IPv4 in src[0..3] */
	uint8_t dst[16];
	uint64_t first_ns;		/**< Unix time of the first packet, ns */
	uint64_t last_ns;
	uint64_t packets;
	uint64_t bytes;			/**< IP bytes, as octetDeltaCount counts */
	uint32_t ingress;		/**< ingressInterface */
	uint16_t sport;			/**< host order; ICMP: type << 8 | code in dport */
	uint16_t dport;
	uint16_t tcp_flags;		/**< union over the flow */
	uint16_t vlan;			/**< vlanId: the outer tag's id */
	uint16_t vlan_inner;		/**< dot1qCustomerVlanId: the second
					 *   tag's (QinQ's C-VID), 0: none */
	uint8_t proto;
	uint8_t tos;
	uint8_t min_ttl;
	uint8_t max_ttl;
	uint8_t end_reason;		/**< enum lr_flow_end */
	uint8_t ipv6;			/**< 0: IPv4, 1: IPv6 */
	/* Biflow (RFC 5103): the reverse direction, dst -> src. */
	uint64_t rev_packets;
	uint64_t rev_bytes;
	uint16_t rev_tcp_flags;
	uint8_t rev_min_ttl;
	uint8_t rev_max_ttl;
	uint8_t app;			/**< enum lr_app; not NONE, or with the
					 *   conf's xtra: the record is a struct
					 *   lr_flow_rec_app's */
};

/** A flow record with its flow-wide extensions and its application's
 *  fields: what the exporter takes when any flow extension is on. */
struct lr_flow_rec_app {
	struct lr_flow_rec r;
	struct lr_flow_xtra x;
	union lr_app_fields f;
};

struct lr_ipfix_conf {
	uint32_t domain;		/**< observation domain id (0) */
	uint16_t mtu;			/**< largest message, bytes (1472) */
	bool nanoseconds;		/**< flowStart/EndNanoseconds instead of
					 *   the Milliseconds pair (false) */
	uint32_t template_every;	/**< resend templates every N messages,
					 *   0: never again (UDP: 100) */
	uint32_t template_period_s;	/**< and every S seconds, 0: never (UDP: 60) */
	bool transport_templates;	/**< the transport sends them (TCP: at
					 *   each connection); messages never do */
	uint8_t apps;			/**< applications whose templates may be
					 *   used: bit 1 << enum lr_app */
	uint8_t xtra;			/**< enum lr_xtra bits: every flow
					 *   record (all templates) carries them,
					 *   from a struct lr_flow_rec_app */
	bool biflow;			/**< records carry the reverse direction:
					 *   reverseOctetDeltaCount, ...Packet...,
					 *   ...TcpControlBits, ...Minimum/MaximumTTL
					 *   (PEN 29305, RFC 5103) */
};

/** lr_ipfix_send_t's return: the transport holds the message and reports
 *  its fate later with lr_ipfix_delivered() or lr_ipfix_lost(). */
#define LR_IPFIX_QUEUED 1

/**
 * Send one whole message that holds @p records data records.
 * @return 0 (written to the file or socket), LR_IPFIX_QUEUED, or -errno
 *   (refused: the message is lost).
 */
typedef int (*lr_ipfix_send_t)(void *ctx, const void *msg, size_t len,
			       uint32_t records);

/**
 * Counters of an exporter. Every data record handed to the transport is
 * in exactly one of records, records_lost and records_waiting.
 */
struct lr_ipfix_counts {
	uint64_t messages;		/**< delivered: written whole to the
					 *   file or socket */
	uint64_t records;		/**< data records in them */
	uint64_t bytes;			/**< their bytes */
	uint64_t send_errors;		/**< messages not delivered: refused by
					 *   the transport, dropped from its
					 *   buffer, still waiting at the end */
	uint64_t records_lost;		/**< data records in them */
	uint64_t waiting;		/**< messages a transport holds */
	uint64_t records_waiting;	/**< data records in them */
};

struct lr_ipfix {
	struct lr_ipfix_conf conf;
	lr_ipfix_send_t send;
	void *ctx;
	uint8_t *buf;			/**< the message being built */
	size_t len;			/**< its bytes so far */
	size_t set_off;			/**< offset of the open data set, 0: none */
	uint16_t set_id;
	uint32_t msg_records;		/**< data records in the message */
	uint32_t seq;			/**< data records sent before it */
	uint64_t msgs_since_tmpl;
	uint64_t tmpl_time_s;		/**< when templates were last sent */
	bool tmpl_due;
	uint16_t apps_sent;		/**< application templates (and their
					 *   elements' type records) sent since
					 *   the templates were last due: bit
					 *   app * 2 + ipv6 */
	struct lr_ipfix_counts c;
};

/** Fill @p c with the defaults for UDP. */
void lr_ipfix_conf_init(struct lr_ipfix_conf *c);

/**
 * Start an exporter that hands whole messages to @p send.
 * @return 0, -EINVAL (an MTU too small for a template), -ENOMEM.
 */
int lr_ipfix_init(struct lr_ipfix *x, const struct lr_ipfix_conf *c,
		  lr_ipfix_send_t send, void *ctx);

/**
 * Add one record, sending the message first when it would not fit.
 * @p now_s is the Unix time in seconds (export time, template period).
 * @return 0, or the transport's error (the message is counted as lost).
 */
int lr_ipfix_add(struct lr_ipfix *x, const struct lr_flow_rec *r,
		 uint64_t now_s);

/** Send the message being built, if it holds records. */
int lr_ipfix_flush(struct lr_ipfix *x, uint64_t now_s);

/**
 * Send an options record with the exporter's statistics (scope:
 * observationDomainId): exportedMessageTotalCount and
 * exportedFlowRecordTotalCount (sent or waiting in the transport, this
 * message included), ignoredPacketTotalCount (@p ignored),
 * droppedPacketTotalCount (@p dropped) and notSentFlowTotalCount: @p not_sent
 * (records the metering side dropped before the exporter) and the records
 * this exporter has lost so far.
 */
int lr_ipfix_stats(struct lr_ipfix *x, uint64_t ignored, uint64_t dropped,
		   uint64_t not_sent, uint64_t now_s);

/** A transport that returned LR_IPFIX_QUEUED has written the message. */
void lr_ipfix_delivered(struct lr_ipfix *x, size_t len, uint32_t records);

/** A transport that returned LR_IPFIX_QUEUED has dropped the message. */
void lr_ipfix_lost(struct lr_ipfix *x, uint32_t records);

/** Flush and free. */
void lr_ipfix_close(struct lr_ipfix *x, uint64_t now_s);

/** Bytes a record of this exporter takes in a data set. */
size_t lr_ipfix_record_bytes(const struct lr_ipfix *x, bool ipv6);

/* Transports. Each returns 0 and fills *ctx for lr_ipfix_init. */

/**
 * Check a collector "HOST:PORT" or "[IPv6]:PORT" without resolving it: the
 * port must be 1..65535. @return 0 or -EINVAL (lr_errmsg() says why).
 */
int lr_ipfix_dest_check(const char *dest);

/**
 * A file of messages back to back (RFC 5655); "-" is stdout, which then
 * carries nothing else (lr_stdout_set_binary()).
 */
int lr_ipfix_file_open(const char *path, void **ctx);
/**
 * Write one message whole (write(2), over short writes and EINTR).
 * @return 0 once all of it is in the file; else -errno, the message is
 *   lost, and a part of it that went in is cut off again (ftruncate). A
 *   file that cannot be cut (a pipe, a terminal) takes nothing more after
 *   such a part: every later send returns -EPIPE.
 */
int lr_ipfix_file_send(void *ctx, const void *msg, size_t len,
		       uint32_t records);
/** @return 0, or close(2)'s -errno (lr_errmsg() says so). */
int lr_ipfix_file_close(void *ctx);

/**
 * UDP to "host:port" (IPv4 or [IPv6]:port). UDP has no acknowledgement: a
 * datagram the collector's socket buffer has no room for is dropped there,
 * unseen by the sender. So with @p rate_mps (messages a second, 0: as they
 * come) messages wait in a buffer of @p buffer_bytes and leave at that pace
 * (lr_ipfix_udp_poll), at most 16 back to back after a quiet spell; a
 * message that finds the buffer full is refused (lost). A paced transport
 * needs lr_ipfix_udp_attach().
 */
int lr_ipfix_udp_open(const char *dest, uint32_t rate_mps, size_t buffer_bytes,
		      void **ctx);
/** The exporter told of the fate of each message (paced). */
void lr_ipfix_udp_attach(void *ctx, struct lr_ipfix *x);
int lr_ipfix_udp_send(void *ctx, const void *msg, size_t len,
		      uint32_t records);
/**
 * Send what is due, and go on for up to @p wait_ms until nothing waits.
 * @return 0 (nothing waits) or -EAGAIN.
 */
int lr_ipfix_udp_poll(void *ctx, unsigned int wait_ms);
/** Drop what waits, each message counted lost. @return messages dropped. */
uint64_t lr_ipfix_udp_discard(void *ctx);
/** Message bytes waiting, messages refused for want of room. */
void lr_ipfix_udp_state(const void *ctx, size_t *waiting, uint64_t *refused);
/** Drop what waits (counted lost) and close. @return 0. */
int lr_ipfix_udp_close(void *ctx);

/**
 * TCP to "host:port" (RFC 7011 §10.4): one stream, templates at the start
 * of every connection. Every message waits in a buffer of @p buffer_bytes
 * until the socket has taken all of it (a message that finds the buffer
 * full is refused and lost); while the collector is away the transport
 * reconnects with backoff (0.5 s doubling to 30 s) and sends the templates,
 * numbered as the first message that waits, then what waited, in order.
 * A FIN or RST from the collector is a cut, seen before the next write; the
 * message a cut interrupts goes again whole on the next connection.
 * Non-blocking: a send never waits. Needs lr_ipfix_tcp_attach().
 */
int lr_ipfix_tcp_open(const char *dest, size_t buffer_bytes, void **ctx);
/** The exporter whose templates start each connection and which is told
 *  of the fate of each message (after init). */
void lr_ipfix_tcp_attach(void *ctx, struct lr_ipfix *x);
int lr_ipfix_tcp_send(void *ctx, const void *msg, size_t len,
		      uint32_t records);
/**
 * Try to send what waits for up to @p wait_ms (0: what goes at once; else
 * a collector that is away is tried at once and every 0.5 s).
 * @return 0 (nothing waits), -EAGAIN (connected, the collector reads too
 *   slowly) or -ENOTCONN.
 */
int lr_ipfix_tcp_poll(void *ctx, unsigned int wait_ms);
/** Drop what waits, each message counted lost. @return messages dropped. */
uint64_t lr_ipfix_tcp_discard(void *ctx);

struct lr_ipfix_tcp_state {
	size_t waiting_bytes;		/**< message bytes waiting */
	uint64_t connects;		/**< connections made */
	uint64_t refused;		/**< messages refused: buffer full */
	uint64_t cuts;			/**< connections lost: FIN, RST, error */
	bool up;			/**< connected now */
};

void lr_ipfix_tcp_state(const void *ctx, struct lr_ipfix_tcp_state *s);
/** Drop what waits (counted lost) and close. @return 0. */
int lr_ipfix_tcp_close(void *ctx);

/** What a transport's open() takes beside its destination. */
struct lr_ipfix_tx_conf {
	uint32_t rate_mps;		/**< UDP pace, messages a second, 0: unpaced */
	size_t buffer_bytes;		/**< messages that may wait to leave */
};

/** Where the templates go, by what the transport is. */
enum lr_ipfix_tx_templates {
	LR_IPFIX_TX_TMPL_RESEND,	/**< in messages, again as the conf's
					 *   template_every/period say (UDP) */
	LR_IPFIX_TX_TMPL_ONCE,		/**< in the first message (one stream
					 *   read from its start: a file) */
	LR_IPFIX_TX_TMPL_STREAM,	/**< by the transport at the start of
					 *   each connection (TCP) */
};

/**
 * A transport, so that the exporter needs to know none of them (Redis's
 * aeApi* behind ae_epoll.c and ae_kqueue.c). Every function runs on the
 * thread that owns the encoder.
 */
struct lr_ipfix_transport_ops {
	const char *scheme;		/**< prefix of the destination: "udp:" */
	enum lr_ipfix_tx_templates templates;
	/** Open towards @p where (the destination after the scheme).
	 *  @return 0 and *ctx, or -errno with lr_errmsg(). */
	int (*open)(const char *where, const struct lr_ipfix_tx_conf *c,
		    void **ctx);
	/** May be NULL. The encoder told of each held message's fate,
	 *  whose templates start a connection; after lr_ipfix_init(). */
	void (*attach)(void *ctx, struct lr_ipfix *x);
	lr_ipfix_send_t send;
	/** May be NULL: nothing is ever held. Send what is due, for up to
	 *  @p wait_ms until nothing waits. @return 0 (nothing waits) or
	 *  -EAGAIN, -ENOTCONN. */
	int (*poll)(void *ctx, unsigned int wait_ms);
	/** NULL with poll. Drop what waits, each message counted lost.
	 *  @return messages dropped. */
	uint64_t (*discard)(void *ctx);
	/** Drop what waits (counted lost) and close. @return 0, or -errno
	 *  with lr_errmsg(): the file may not hold what was counted
	 *  delivered. */
	int (*close)(void *ctx);
	/** May be NULL. Add the transport's own counters to @p o. */
	void (*report)(const void *ctx, json_t *o);
	/** May be NULL. Why messages still wait after @p wait_s seconds of
	 *  poll (its last return @p poll_ret), as words for a sentence. */
	void (*stuck)(const void *ctx, int poll_ret, unsigned int wait_s,
		      char *buf, size_t len);
};

extern const struct lr_ipfix_transport_ops lr_ipfix_tx_file;
extern const struct lr_ipfix_transport_ops lr_ipfix_tx_udp;
extern const struct lr_ipfix_transport_ops lr_ipfix_tx_tcp;

/** A message that holds only the templates, with sequence number @p seq
 *  (for a new TCP connection). @return its bytes, 0 if @p len is short. */
size_t lr_ipfix_template_msg(struct lr_ipfix *x, uint8_t *buf, size_t len,
			     uint32_t seq, uint64_t now_s);

#endif
