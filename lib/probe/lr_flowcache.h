/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The probe's flow cache: one per worker lcore (a shard), fixed capacity,
 * bucketized: a bucket is one cache line of 8 signatures and 8 expiry times,
 * followed by its 8 records, each a line of its key, flags, TTLs, last time
 * and packet count, then their tails (first time and bytes: 16 bytes each).
 * A lookup hashes the key, reads the bucket's line, and compares the full
 * key of the records whose signature matches: two flows whose hashes
 * collide stay two flows. A burst is hashed and its buckets fetched first;
 * the record lines then 8 packets ahead of the update.
 *
 * Expiry: each record carries its deadline, min(last + inactive, first +
 * active) in ticks of 2^20 ns rounded down, in the bucket line; a flow
 * found past it ends when its timeout is up to the ns (idle or active,
 * whichever came first), never before. lr_fc_expire() walks the buckets so
 * that the whole table is seen once a second, so a flow leaves no later than
 * its timeout + 1 s even when no more packets arrive. A packet stamped
 * before the flow's last (a merged capture) widens it, never shortens it:
 * first <= last always. Time is what the caller
 * says: Unix ns now, or a capture's own times (the walk then follows the
 * trace: a second of trace walks the whole table once). TCP FIN or RST ends
 * a flow at once; a full bucket evicts its oldest record (lackOfResources);
 * lr_fc_flush() ends them all (forced end).
 *
 * Fragments: a first fragment leaves its ports in a small table (4096
 * entries, by addresses, protocol and fragment id, kept 30 s); a later
 * fragment takes them from there, so that its bytes count in its flow. A
 * later fragment whose first was not seen (lost, or out of order) counts
 * in frag_unmatched and goes to the flow of its addresses with ports 0.
 *
 * Threading: a cache belongs to one lcore. Expired records go to the
 * export callback, on that lcore.
 */
#ifndef LR_FLOWCACHE_H
#define LR_FLOWCACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "lr_ipfix.h"
#include "lr_parse.h"

#define LR_FC_WAYS 8

/* The defaults of a flow cache, for lr_fc_conf_init(), the probe's conf
 * and its --help alike: integer literals, so that RTE_STR() writes them in
 * the help text as they are. 2^20 entries: 88 MB a queue (lr_fc_entry_bytes())
 * The timeouts are ipfixprobe's and Cisco's: 300 s active, 30 s inactive. */
#define LR_FC_ENTRIES_DEFAULT 1048576
#define LR_FC_ACTIVE_S_DEFAULT 300
#define LR_FC_INACTIVE_S_DEFAULT 30

/**
 * The full flow key: compared whole, its 43 bytes before the padding (where
 * the cache keeps a flow's flags, TTLs and ToS: key and flags fill one
 * cache line, flowcache.c). Both VLAN ids are in it, so that QinQ flows
 * that differ only in the customer's VID stay apart; a VID has 12 bits, and
 * the inner one's top 4 ride in the outer's spare ones, so the pair takes 3
 * bytes: read them with lr_fc_key_vlan() and lr_fc_key_vlan_inner().
 */
struct lr_flow_key {
	uint8_t src[16];
	uint8_t dst[16];
	uint16_t sport;
	uint16_t dport;
	uint16_t vid_packed;	/**< the outer VID in bits 0-11, the inner
				 *   VID's bits 8-11 in 12-15 */
	uint16_t ingress;
	uint8_t proto;
	uint8_t ipv6;
	uint8_t vid_inner_lo;	/**< the inner VID's bits 0-7 */
	uint8_t pad[5];
} __attribute__((aligned(8)));	/* hashed and compared as 64-bit words (rte_hash_crc,
			 * key_eq()): a key on the stack at 4 mod 8 was a
			 * misaligned load (UBSan) */

/** The key's outer VLAN id (IPFIX vlanId), 0: untagged. */
static inline uint16_t
lr_fc_key_vlan(const struct lr_flow_key *k)
{
	return k->vid_packed & 0x0fff;
}

/** The key's inner VLAN id (the second tag's, QinQ's C-VID: IPFIX
 *  dot1qCustomerVlanId), 0: fewer than two tags. */
static inline uint16_t
lr_fc_key_vlan_inner(const struct lr_flow_key *k)
{
	return (uint16_t)((k->vid_packed >> 12) << 8 | k->vid_inner_lo);
}

/** A packet of a flow the extensions look at. */
struct lr_fc_ext_pkt {
	const struct lr_parsed *p;
	const uint8_t *frame;		/**< its frame, frame_len bytes at hand */
	const uint8_t *l4;		/**< its L4 payload, len bytes (0: none,
					 *   a fragment, a header cut) */
	uint32_t frame_len, len;
	uint64_t now_ns;		/**< its Unix time */
	bool created;			/**< it made the flow */
	bool reverse;			/**< it goes against the flow's first */
};

struct lr_fc_conf {
	uint32_t entries;		/**< capacity, rounded up to 8 x 2^k */
	uint32_t active_s;		/**< active timeout, s */
	uint32_t inactive_s;		/**< inactive timeout, s */
	int socket;			/**< NUMA socket of the table */
	/** Export one ended record; returns 0, or < 0 when it was dropped. */
	int (*export)(void *arg, const struct lr_flow_rec *r);
	void *arg;
	bool biflow;			/**< both directions in one record (RFC
					 *   5103); the first packet's sender is
					 *   the source */
	/** The hash of a key; NULL: CRC32. Tests give a bad one. */
	uint32_t (*hash)(const struct lr_flow_key *k);
	/**
	 * Flow extensions (lib/probe/probe_ext.c), NULL: none. A new TCP or
	 * UDP flow is looked at: each of its packets that comes with its
	 * frame (lr_fc_update_data()) goes to ext() with the flow's slot
	 * (0 .. capacity - 1) and struct lr_fc_ext_pkt, until ext()
	 * returns false; then its packets cost what they cost without.
	 * ext_end() puts what it found in the record as the flow ends.
	 */
	bool (*ext)(void *arg, uint32_t slot, const struct lr_fc_ext_pkt *k);
	void (*ext_end)(void *arg, uint32_t slot, struct lr_flow_rec_app *out);
	void *ext_arg;
};

/** A packet's frame as the parser saw it: for the flow extensions. */
struct lr_fc_data {
	const uint8_t *frame;
	uint32_t len;		/**< bytes of it at hand */
};

/*
 * A cache's counters, each named once: X(field, JSON key or NULL, metric
 * or NULL, kind, unit, help) (lr_counter.h's rows).
 * The struct, the probe's result document and its totals come from it;
 * ended[] (by reason) apart.
 */
#define LR_FC_COUNTERS(X) \
	X(packets, NULL, NULL, NONE, "frames", \
	  "packets accounted (cycles_per_packet's divisor)") \
	X(created, "flows_created", "probe_flows_created_total", COUNTER, "flows", \
	  "Flows the probe's cache created.") \
	X(active, "flows_active", "probe_flows_active", GAUGE, "flows", \
	  "Flows in the probe's cache now.") \
	X(frag_later, "later_fragments", NULL, NONE, "frames", \
	  "later fragments") \
	X(frag_unmatched, "unmatched_fragments", NULL, NONE, "frames", \
	  "of those, no first fragment seen: ports 0") \
	X(export_drops, "export_drops", "probe_records_not_sent_total", COUNTER, "records", \
	  "Flow records a full export ring refused: never sent.")

/** Counters of one cache (written by its lcore). */
struct lr_fc_counts {
#define LR_FC_FIELD(name, ...) uint64_t name;
	LR_FC_COUNTERS(LR_FC_FIELD)
#undef LR_FC_FIELD
	uint64_t ended[6];		/**< by enum lr_flow_end (1..5) */
};

struct lr_fc;

void lr_fc_conf_init(struct lr_fc_conf *c);

/** @return a cache, or NULL with lr_errmsg() (no memory on the socket). */
struct lr_fc *lr_fc_create(const struct lr_fc_conf *c);
void lr_fc_free(struct lr_fc *fc);

/** Bytes of memory per entry (tables / capacity). */
size_t lr_fc_entry_bytes(bool biflow);

/** The capacity after rounding. */
uint32_t lr_fc_capacity(const struct lr_fc *fc);

/** Set the flow extensions' hooks (lr_fc_conf's ext, ext_end, ext_arg)
 *  of a cache with no flow yet: their side table is sized by its
 *  capacity. */
void lr_fc_set_ext(struct lr_fc *fc,
		   bool (*ext)(void *arg, uint32_t slot,
			       const struct lr_fc_ext_pkt *k),
		   void (*ext_end)(void *arg, uint32_t slot,
				   struct lr_flow_rec_app *out),
		   void *arg);

/**
 * Account @p n parsed packets received at Unix time @p now_ns on
 * @p ingress. Looks up the burst in two passes with prefetching.
 */
void lr_fc_update(struct lr_fc *fc, const struct lr_parsed *const *pkts,
		  unsigned int n, uint16_t ingress, uint64_t now_ns);

/**
 * lr_fc_update() with each packet's own Unix time, @p ts_ns[i]: a capture
 * replayed faster than it was taken keeps its times (flow start and end,
 * timeouts), as softflowd -r and YAF do.
 */
void lr_fc_update_ts(struct lr_fc *fc, const struct lr_parsed *const *pkts,
		     unsigned int n, uint16_t ingress, const uint64_t *ts_ns);

/** The same with each packet's frame @p d[i], for the flow extensions;
 *  @p ts_ns NULL: all at @p now_ns. */
void lr_fc_update_data(struct lr_fc *fc, const struct lr_parsed *const *pkts,
		       const struct lr_fc_data *d, unsigned int n,
		       uint16_t ingress, uint64_t now_ns, const uint64_t *ts_ns);

/**
 * End the flows whose timeout has passed at @p now_ns, walking the part of
 * the table due since the last call (all of it once a second).
 * @return records ended.
 */
unsigned int lr_fc_expire(struct lr_fc *fc, uint64_t now_ns);

/** End every flow (end of run). @return records ended. */
unsigned int lr_fc_flush(struct lr_fc *fc);

/** The cache's counters. */
const struct lr_fc_counts *lr_fc_counts(const struct lr_fc *fc);

/**
 * The key of a parsed packet (also what tests compare with). With
 * @p biflow the endpoints are put in a fixed order, so that both
 * directions have one key. @return true when they were swapped.
 */
bool lr_fc_key(const struct lr_parsed *p, uint16_t ingress, bool biflow,
	       struct lr_flow_key *k);

#endif
