/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "lr_fw.h"

/* The reasons, as lib/pkt/lr_pkt.h (and lr_parse.h) number them. */
enum { OK, NOT_IP, TRUNC_L2, TRUNC_L3, BAD_IHL, BAD_LEN, BAD_EXT, TRUNC_L4 };
enum { FRAG_NONE, FRAG_FIRST, FRAG_LATER };

/* The key of the Microsoft RSS specification, as NICs ship it. */
static const uint8_t ms_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

void
lr_fw_conf_init(struct lr_fw_conf *c)
{
	memset(c, 0, sizeof(*c));
	memcpy(c->key, ms_key, sizeof(ms_key));
	c->key_len = sizeof(ms_key);
	c->channels = 8;
	c->l4 = true;
}

static int
key_bit(const uint8_t *key, size_t key_len, size_t i)
{
	if (i / 8 >= key_len)
		return 0;
	return (key[i / 8] >> (7 - i % 8)) & 1;
}

uint32_t
lr_fw_toeplitz(const uint8_t *key, size_t key_len, const uint8_t *in, size_t len)
{
	uint32_t result = 0;
	size_t bit, k;

	for (bit = 0; bit < len * 8; bit++) {
		uint32_t window = 0;

		if (((in[bit / 8] >> (7 - bit % 8)) & 1) == 0)
			continue;
		for (k = 0; k < 32; k++)
			window = (window << 1) | (uint32_t)key_bit(key, key_len, bit + k);
		result ^= window;
	}
	return result;
}

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

/* Transport fields of the IP payload at [at, end). */
static int
model_transport(const uint8_t *d, uint32_t at, uint32_t end, struct lr_fw_uh *uh)
{
	uint32_t need = 0;

	if (uh->proto == 6)
		need = 20;
	else if (uh->proto == 17)
		need = 8;
	else if (uh->proto == 132)
		need = 12;
	else if (uh->proto == 1 || uh->proto == 58)
		need = 4;
	if (need == 0 || uh->frag == FRAG_LATER)
		return OK;
	if (at + need > end)
		return TRUNC_L4;
	if (uh->proto == 1 || uh->proto == 58) {
		uh->dport = (uint16_t)((d[at] << 8) | d[at + 1]);
		return OK;
	}
	uh->sport = be16(d + at);
	uh->dport = be16(d + at + 2);
	if (uh->proto == 6)
		uh->tcp_flags = be16(d + at + 12) & 0x0fff;
	return OK;
}

static int
model_ipv4(const uint8_t *d, uint32_t at, uint32_t len, struct lr_fw_uh *uh)
{
	uint32_t hlen, total;
	uint16_t fragword;

	if (len < at + 20)
		return TRUNC_L3;
	hlen = (uint32_t)(d[at] & 0x0f) * 4;
	if (hlen < 20)
		return BAD_IHL;
	if (len < at + hlen)
		return TRUNC_L3;
	total = be16(d + at + 2);
	if (total < hlen || len < at + total)
		return BAD_LEN;
	uh->ip_ver = 4;
	uh->tos = d[at + 1];
	uh->ttl = d[at + 8];
	uh->proto = d[at + 9];
	memcpy(uh->src, d + at + 12, 4);
	memcpy(uh->dst, d + at + 16, 4);
	uh->ip_bytes = total;
	uh->frag_id = be16(d + at + 4);
	fragword = be16(d + at + 6);
	if ((fragword & 0x1fff) != 0)
		uh->frag = FRAG_LATER;
	else if ((fragword & 0x2000) != 0)
		uh->frag = FRAG_FIRST;
	return model_transport(d, at + hlen, at + total, uh);
}

static bool
is_extension(uint8_t nh)
{
	return nh == 0 || nh == 43 || nh == 44 || nh == 60 || nh == 51;
}

static int
model_ipv6(const uint8_t *d, uint32_t at, uint32_t len, struct lr_fw_uh *uh)
{
	uint32_t end, next, count = 0;
	uint8_t nh;

	if (len < at + 40)
		return TRUNC_L3;
	end = at + 40 + be16(d + at + 4);
	if (end > len)
		return BAD_LEN;
	uh->ip_ver = 6;
	uh->tos = (uint8_t)(((d[at] & 0x0f) << 4) | (d[at + 1] >> 4));
	uh->ttl = d[at + 7];
	memcpy(uh->src, d + at + 8, 16);
	memcpy(uh->dst, d + at + 24, 16);
	uh->ip_bytes = end - at;
	nh = d[at + 6];
	next = at + 40;
	while (is_extension(nh)) {
		if (count == 8 || next + 8 > end)
			return BAD_EXT;
		count++;
		if (nh == 44) {
			uint16_t off = be16(d + next + 2);

			uh->frag_id = ((uint32_t)be16(d + next + 4) << 16) |
				      be16(d + next + 6);
			if ((off & 0xfff8) != 0)
				uh->frag = FRAG_LATER;
			else if ((off & 1) != 0)
				uh->frag = FRAG_FIRST;
			else
				uh->frag = FRAG_NONE;
			nh = d[next];
			next += 8;
		} else if (nh == 51) {
			uint32_t l = ((uint32_t)d[next + 1] + 2) * 4;

			nh = d[next];
			next += l;
		} else {
			uint32_t l = ((uint32_t)d[next + 1] + 1) * 8;

			nh = d[next];
			next += l;
		}
		if (next > end)
			return BAD_EXT;
		if (uh->frag == FRAG_LATER)
			break;
	}
	uh->proto = nh;
	return model_transport(d, next, end, uh);
}

static int
model_parse(const uint8_t *d, uint32_t len, struct lr_fw_uh *uh)
{
	uint32_t at = 14, tags = 0, labels = 0;
	uint16_t type;

	if (len < 14)
		return TRUNC_L2;
	type = be16(d + 12);
	while (tags < 2 && (type == 0x8100 || type == 0x88a8 || type == 0x9100)) {
		if (len < at + 4)
			return TRUNC_L2;
		if (tags == 0)
			uh->vlan = be16(d + at) & 0x0fff;
		if (tags == 1)
			uh->vlan_inner = be16(d + at) & 0x0fff;
		type = be16(d + at + 2);
		at += 4;
		tags++;
	}
	if (type == 0x8847 || type == 0x8848) {
		bool bottom = false;

		while (!bottom) {
			if (labels == 8 || len < at + 4)
				return TRUNC_L2;
			bottom = (d[at + 2] & 1) != 0;
			at += 4;
			labels++;
		}
		if (at >= len)
			return TRUNC_L3;
		if ((d[at] >> 4) == 4)
			type = 0x0800;
		else if ((d[at] >> 4) == 6)
			type = 0x86dd;
		else
			return BAD_IHL;
	}
	if (type == 0x0800) {
		if (at < len && (d[at] >> 4) != 4)
			return BAD_IHL;
		return model_ipv4(d, at, len, uh);
	}
	if (type == 0x86dd) {
		if (at < len && (d[at] >> 4) != 6)
			return BAD_IHL;
		return model_ipv6(d, at, len, uh);
	}
	return NOT_IP;
}

static uint32_t
model_hash(const struct lr_fw_conf *c, const uint8_t *in, size_t len)
{
	return lr_fw_toeplitz(c->key, c->key_len, in, len);
}

/* The RSS input a NIC takes: addresses, then ports when asked for and the
 * packet has them (TCP, UDP, SCTP, not a later fragment). */
static void
model_channel(const struct lr_fw_conf *c, struct lr_fw_uh *uh)
{
	uint8_t in[36];
	size_t n = uh->ip_ver == 6 ? 16 : 4;
	bool ports = c->l4 && uh->frag != FRAG_LATER &&
		     (uh->proto == 6 || uh->proto == 17 || uh->proto == 132);

	memcpy(in, uh->src, n);
	memcpy(in + n, uh->dst, n);
	n *= 2;
	if (ports) {
		in[n++] = (uint8_t)(uh->sport >> 8);
		in[n++] = (uint8_t)uh->sport;
		in[n++] = (uint8_t)(uh->dport >> 8);
		in[n++] = (uint8_t)uh->dport;
	}
	uh->hash = model_hash(c, in, n);
	uh->channel = (uint8_t)(uh->hash % (c->channels ? c->channels : 1));
}

/* The firmware parses the whole packet as it arrives (trimming only cuts
 * what is copied to the host), so the UH is the same with or without it. */
static void
model_uh(const struct lr_fw_conf *c, const uint8_t *d, uint32_t len,
	 uint64_t ts_ns, struct lr_fw_uh *uh)
{
	int status;

	memset(uh, 0, sizeof(*uh));
	status = model_parse(d, len, uh);
	if (status != OK) {
		/* Nothing half-parsed leaves the firmware. */
		memset(uh, 0, sizeof(*uh));
	} else {
		model_channel(c, uh);
	}
	uh->ts_ns = ts_ns;
	uh->wire_len = (uint16_t)len;
	uh->status = (uint8_t)status;
}

const struct lr_fw_ops lr_fw_model_ops = {
	.name = "model",
	.parse = model_uh,
	.hash = model_hash,
};
