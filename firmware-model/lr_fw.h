/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A software model of the flow-monitoring NIC firmware of the CESNET paper
 * (COMBO-80G, §III-A): a 64-bit nanosecond timestamp per packet, trimming
 * to a set length, parsing into a fixed-layout Unified Header (UH) record,
 * and a Toeplitz hash of header fields that picks one of N channels so that
 * a flow stays whole on one channel.
 *
 * It is written plainly and independently of lib/: the parser walks the
 * headers one step at a time, the hash goes bit by bit, so that it can be
 * the golden model the fast code is tested against (lr_parse, rte_softrss).
 *
 * struct lr_fw_ops is the interface a real SmartNIC or FPGA backend would
 * fill instead; lr_fw_model_ops is this model.
 *
 * Threading: pure functions, for any thread.
 */
#ifndef LR_FW_H
#define LR_FW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LR_FW_KEY_MAX 52	/**< longest RSS key: 40 B (IPv4/6), 52 B */

/**
 * The Unified Header: what the firmware hands the host instead of the
 * packet. 72 bytes, host byte order except the addresses (network order,
 * IPv4 in the first 4 bytes).
 */
struct lr_fw_uh {
	uint64_t ts_ns;		/**< reception time, ns */
	uint32_t hash;		/**< Toeplitz hash of the RSS fields */
	uint32_t ip_bytes;	/**< IP total length */
	uint16_t wire_len;	/**< frame length as received, without FCS */
	uint16_t vlan;		/**< outer VLAN id, 0 untagged */
	uint16_t sport;		/**< 0 without ports; ICMP: 0 */
	uint16_t dport;		/**< ICMP: type << 8 | code */
	uint16_t tcp_flags;
	uint8_t ip_ver;		/**< 4, 6, or 0 when status says why not */
	uint8_t proto;
	uint8_t tos;
	uint8_t ttl;
	uint8_t frag;		/**< 0 none, 1 first, 2 later (as lr_parse.h) */
	uint8_t status;		/**< 0 ok, else the reason (as lr_parse.h) */
	uint8_t channel;	/**< hash % channels */
	uint8_t pad;
	uint16_t vlan_inner;	/**< the second tag's VLAN id (QinQ's C-VID),
				 *   0: fewer than two tags */
	uint32_t frag_id;
	uint8_t src[16];
	uint8_t dst[16];
};

/* The layout doc/architecture.md gives, the one a hardware backend writes. */
_Static_assert(sizeof(struct lr_fw_uh) == 72 &&
	       offsetof(struct lr_fw_uh, vlan_inner) == 34 &&
	       offsetof(struct lr_fw_uh, frag_id) == 36,
	       "struct lr_fw_uh is not doc/architecture.md's 72 B record");

/** What the firmware is asked to do. */
struct lr_fw_conf {
	uint8_t key[LR_FW_KEY_MAX];
	uint8_t key_len;	/**< 40 */
	uint8_t channels;	/**< 1..64 */
	bool l4;		/**< hash the ports too, not only the addresses */
	uint16_t trim;		/**< bytes kept of each packet, 0: all */
	const void *state;	/**< the backend's own (tables), NULL: none */
};

/** A firmware backend. */
struct lr_fw_ops {
	const char *name;
	/** Parse @p len bytes received at @p ts_ns into @p uh. */
	void (*parse)(const struct lr_fw_conf *c, const uint8_t *d, uint32_t len,
		      uint64_t ts_ns, struct lr_fw_uh *uh);
	/** Toeplitz hash of @p len bytes with the conf's key. */
	uint32_t (*hash)(const struct lr_fw_conf *c, const uint8_t *in, size_t len);
};

extern const struct lr_fw_ops lr_fw_model_ops;

/** Defaults: the 40 B key of the Microsoft RSS specification, 8 channels,
 *  addresses and ports, no trimming. */
void lr_fw_conf_init(struct lr_fw_conf *c);

/** Toeplitz, bit by bit: for every set input bit, XOR the 32 key bits
 *  starting at that bit's position. */
uint32_t lr_fw_toeplitz(const uint8_t *key, size_t key_len, const uint8_t *in,
			size_t len);

/** How many bytes trimming keeps of a @p len byte packet. */
static inline uint32_t
lr_fw_trimmed(const struct lr_fw_conf *c, uint32_t len)
{
	return c->trim != 0 && c->trim < len ? c->trim : len;
}

#endif
