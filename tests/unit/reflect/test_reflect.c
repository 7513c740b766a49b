/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * reflect's parse, swap and mark (lr_reflect.h) on frames built here: every
 * field swapped, the 802.1Q tag kept, checksums valid after the swap, the
 * flag and the stamps (DPDK's own checksum functions are the judge), loops
 * and other frames told apart, no read past a cut frame.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "lr_reflect.h"

#define PAYLOAD 40

struct frame {
	uint8_t b[256];
	uint32_t len;
	uint32_t l3, l4;
	bool v6;
};

static const struct rte_ether_addr mac_a = {{ 2, 0, 0, 0, 0, 1 }};
static const struct rte_ether_addr mac_b = {{ 2, 0, 0, 0, 0, 2 }};

/* Ethernet [802.1Q] IPv4|IPv6 UDP|TCP, linerate's header first in the data
 * when @p magic, checksums as a sender computes them (@p udp_cksum 0:
 * IPv4 without one). */
static void
build(struct frame *f, bool v6, bool vlan, uint8_t proto, uint16_t magic,
      bool udp_cksum, uint32_t seed)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)f->b;
	uint32_t off = RTE_ETHER_HDR_LEN, i, l4len;
	uint8_t *data;

	memset(f, 0, sizeof(*f));
	f->v6 = v6;
	eth->src_addr = mac_a;
	eth->dst_addr = mac_b;
	eth->ether_type = rte_cpu_to_be_16(v6 ? RTE_ETHER_TYPE_IPV6 :
						RTE_ETHER_TYPE_IPV4);
	if (vlan) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(f->b + off);

		vh->vlan_tci = rte_cpu_to_be_16(0x6000 | 42);
		vh->eth_proto = eth->ether_type;
		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		off += sizeof(*vh);
	}
	f->l3 = off;
	l4len = (proto == IPPROTO_UDP ? sizeof(struct rte_udp_hdr) :
		 sizeof(struct rte_tcp_hdr)) + PAYLOAD;
	if (v6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(f->b + off);

		ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip->payload_len = rte_cpu_to_be_16((uint16_t)l4len);
		ip->proto = proto;
		ip->hop_limits = 64;
		for (i = 0; i < 16; i++) {
			ip->src_addr[i] = (uint8_t)(0xfd + seed + i);
			ip->dst_addr[i] = (uint8_t)(0x20 + seed * 3 + i);
		}
		off += sizeof(*ip);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f->b + off);

		ip->version_ihl = 0x45;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + l4len));
		ip->time_to_live = 64;
		ip->next_proto_id = proto;
		ip->src_addr = rte_cpu_to_be_32(0x0a000001 + seed * 7919);
		ip->dst_addr = rte_cpu_to_be_32(0xc0a80002 + seed * 104729);
		off += sizeof(*ip);
	}
	f->l4 = off;
	if (proto == IPPROTO_UDP) {
		struct rte_udp_hdr *u = (struct rte_udp_hdr *)(f->b + off);

		u->src_port = rte_cpu_to_be_16((uint16_t)(1024 + seed));
		u->dst_port = rte_cpu_to_be_16((uint16_t)(5001 + seed * 13));
		u->dgram_len = rte_cpu_to_be_16((uint16_t)l4len);
		data = (uint8_t *)(u + 1);
	} else {
		struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)(f->b + off);

		t->src_port = rte_cpu_to_be_16(80);
		t->dst_port = rte_cpu_to_be_16(4242);
		t->data_off = 5 << 4;
		data = (uint8_t *)(t + 1);
	}
	for (i = 0; i < PAYLOAD; i++)
		data[i] = (uint8_t)(i * 31 + seed);
	if (magic)
		lr_wire_hdr_write(data, seed, seed * 2, 0x1122334455667788ull);
	if (magic && magic != LR_HDR_MAGIC) {
		rte_be16_t m = rte_cpu_to_be_16(magic);

		memcpy(data, &m, 2);
	}
	f->len = (uint32_t)(data - f->b) + PAYLOAD;
	if (!v6) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f->b + f->l3);

		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	if (proto == IPPROTO_UDP && (udp_cksum || v6)) {
		struct rte_udp_hdr *u = (struct rte_udp_hdr *)(f->b + f->l4);

		u->dgram_cksum = v6 ?
			rte_ipv6_udptcp_cksum((void *)(f->b + f->l3), u) :
			rte_ipv4_udptcp_cksum((void *)(f->b + f->l3), u);
	}
	if (proto == IPPROTO_TCP) {
		struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)(f->b + f->l4);

		t->cksum = rte_ipv4_udptcp_cksum((void *)(f->b + f->l3), t);
	}
}

/* 0 when every checksum of the frame holds. */
static int
verify(const struct frame *f, bool l4)
{
	const void *ip = f->b + f->l3;
	const void *u = f->b + f->l4;

	if (!f->v6) {
		struct rte_ipv4_hdr h = *(const struct rte_ipv4_hdr *)ip;
		uint16_t c = h.hdr_checksum;

		h.hdr_checksum = 0;
		if (rte_ipv4_cksum(&h) != c)
			return -1;
	}
	if (!l4)
		return 0;
	if (!f->v6 && ((const struct rte_udp_hdr *)u)->dgram_cksum == 0)
		return 0;
	return f->v6 ? rte_ipv6_udptcp_cksum_verify(ip, u) :
		       rte_ipv4_udptcp_cksum_verify(ip, u);
}

/* Every field of @p o against @p i after a swap. */
static void
check_swapped(const struct frame *i, const struct frame *o)
{
	const struct rte_ether_hdr *ei = (const void *)i->b, *eo = (const void *)o->b;
	const struct rte_udp_hdr *ui = (const void *)(i->b + i->l4);
	const struct rte_udp_hdr *uo = (const void *)(o->b + o->l4);

	assert_memory_equal(&eo->src_addr, &ei->dst_addr, RTE_ETHER_ADDR_LEN);
	assert_memory_equal(&eo->dst_addr, &ei->src_addr, RTE_ETHER_ADDR_LEN);
	/* The tag and type between the MACs and IP: as they were. */
	assert_memory_equal(o->b + 12, i->b + 12, i->l3 - 12);
	if (i->v6) {
		const struct rte_ipv6_hdr *a = (const void *)(i->b + i->l3);
		const struct rte_ipv6_hdr *b = (const void *)(o->b + o->l3);

		assert_memory_equal(b->src_addr, a->dst_addr, 16);
		assert_memory_equal(b->dst_addr, a->src_addr, 16);
		assert_memory_equal(b, a, 8);
	} else {
		const struct rte_ipv4_hdr *a = (const void *)(i->b + i->l3);
		const struct rte_ipv4_hdr *b = (const void *)(o->b + o->l3);

		assert_int_equal(b->src_addr, a->dst_addr);
		assert_int_equal(b->dst_addr, a->src_addr);
		/* No checksum written: the swap keeps it right. */
		assert_int_equal(b->hdr_checksum, a->hdr_checksum);
		assert_memory_equal(b, a, 12);
	}
	assert_int_equal(uo->src_port, ui->dst_port);
	assert_int_equal(uo->dst_port, ui->src_port);
	assert_int_equal(uo->dgram_len, ui->dgram_len);
}

static void
test_ipv4_swap_and_flag(void **state)
{
	struct frame i, o;
	struct lr_reflect_frame f;
	const struct rte_udp_hdr *u;
	const uint8_t *data;

	(void)state;
	build(&i, false, false, IPPROTO_UDP, LR_HDR_MAGIC, true, 1);
	memcpy(&o, &i, sizeof(o));
	assert_int_equal(lr_reflect_parse(o.b, o.len, &f), LR_REFLECT_OWN);
	assert_int_equal(f.l3, 14);
	assert_int_equal(f.l4, 34);
	assert_true(f.ipv4 && f.udp);
	assert_int_equal(f.udp_data, PAYLOAD);
	lr_reflect_swap(o.b, &f);
	check_swapped(&i, &o);
	/* The swap alone changes no checksum and leaves them valid. */
	u = (const void *)(o.b + o.l4);
	assert_int_equal(u->dgram_cksum,
			 ((const struct rte_udp_hdr *)(i.b + i.l4))->dgram_cksum);
	assert_int_equal(verify(&o, true), 0);
	/* The flag: "Lr", the UDP checksum updated, the rest as it was. */
	assert_false(lr_reflect_mark(o.b, &f, false, 5));
	data = (const uint8_t *)(u + 1);
	assert_int_equal(data[0], 0x4c);
	assert_int_equal(data[1], 0x72);
	assert_memory_equal(data + 2, i.b + i.l4 + 8 + 2, PAYLOAD - 2);
	assert_int_equal(verify(&o, true), 0);
	/* Reflected once: never again. */
	assert_int_equal(lr_reflect_parse(o.b, o.len, &f), LR_REFLECT_LOOPED);
	/* Shorter than an Ethernet header: a runt, nothing to swap. */
	assert_int_equal(lr_reflect_parse(o.b, 13, &f), LR_REFLECT_RUNT);
	assert_int_equal(lr_reflect_parse(o.b, 0, &f), LR_REFLECT_RUNT);
}

static void
test_ipv6_vlan_stamps(void **state)
{
	struct frame i, o;
	struct lr_reflect_frame f;
	const struct lr_reflect_stamps *s;
	const uint8_t *data;
	uint32_t flow, seq;
	uint64_t tsc;

	(void)state;
	build(&i, true, true, IPPROTO_UDP, LR_HDR_MAGIC, true, 2);
	memcpy(&o, &i, sizeof(o));
	assert_int_equal(lr_reflect_parse(o.b, o.len, &f), LR_REFLECT_OWN);
	assert_int_equal(f.l3, 18);
	assert_false(f.ipv4);
	lr_reflect_swap(o.b, &f);
	check_swapped(&i, &o);
	assert_true(lr_reflect_mark(o.b, &f, true, 1000));
	assert_int_equal(verify(&o, true), 0);
	lr_reflect_stamp_tx(o.b, f.l4, f.ipv4, 1234567);
	assert_int_equal(verify(&o, true), 0);
	data = o.b + o.l4 + 8;
	assert_int_equal(data[1], 0x73);
	s = (const void *)(data + LR_HDR_BYTES);
	assert_int_equal(rte_be_to_cpu_64(s->rx_tsc), 1000);
	assert_int_equal(rte_be_to_cpu_64(s->tx_tsc), 1234567);
	/* rx still reads it as linerate's, flow and sequence kept. */
	assert_int_equal(lr_wire_hdr_read(data, &flow, &seq, &tsc), 0);
	assert_int_equal(flow, 2);
	assert_int_equal(seq, 4);
	assert_memory_equal(data + 34, i.b + i.l4 + 8 + 34, PAYLOAD - 34);
}

/* IPv4 without a UDP checksum keeps none, stamps or not. */
static void
test_no_udp_checksum_stays_none(void **state)
{
	struct frame o;
	struct lr_reflect_frame f;

	(void)state;
	build(&o, false, true, IPPROTO_UDP, LR_HDR_MAGIC, false, 3);
	assert_int_equal(lr_reflect_parse(o.b, o.len, &f), LR_REFLECT_OWN);
	lr_reflect_swap(o.b, &f);
	assert_true(lr_reflect_mark(o.b, &f, true, 7));
	lr_reflect_stamp_tx(o.b, f.l4, f.ipv4, 9);
	assert_int_equal(((struct rte_udp_hdr *)(o.b + o.l4))->dgram_cksum, 0);
	assert_int_equal(verify(&o, false), 0);
}

/* Many addresses, ports, payloads and stamps: the checksums always hold. */
static void
test_checksums_hold_everywhere(void **state)
{
	uint32_t k;

	(void)state;
	for (k = 0; k < 4000; k++) {
		struct frame o;
		struct lr_reflect_frame f;

		build(&o, k & 1, k & 2, IPPROTO_UDP, LR_HDR_MAGIC, true, k);
		assert_int_equal(lr_reflect_parse(o.b, o.len, &f), LR_REFLECT_OWN);
		lr_reflect_swap(o.b, &f);
		assert_int_equal(verify(&o, true), 0);
		lr_reflect_mark(o.b, &f, k & 4, (uint64_t)k * 0x9e3779b97f4a7c15ull);
		if (k & 4)
			lr_reflect_stamp_tx(o.b, f.l4, f.ipv4,
					    ~(uint64_t)k * 0xbf58476d1ce4e5b9ull);
		assert_int_equal(verify(&o, true), 0);
	}
}

static void
test_others(void **state)
{
	struct frame i, o;
	struct lr_reflect_frame f;
	struct rte_ether_hdr *e;
	const struct rte_tcp_hdr *t;

	(void)state;
	/* UDP without the magic. */
	build(&o, false, false, IPPROTO_UDP, 0, true, 4);
	assert_int_equal(lr_reflect_parse(o.b, o.len, &f), LR_REFLECT_OTHER);
	assert_true(f.udp);
	/* TCP: addresses and ports swapped, its checksum still right. */
	build(&i, false, false, IPPROTO_TCP, LR_HDR_MAGIC, true, 5);
	memcpy(&o, &i, sizeof(o));
	assert_int_equal(lr_reflect_parse(o.b, o.len, &f), LR_REFLECT_OTHER);
	assert_int_equal(f.l4, 34);
	lr_reflect_swap(o.b, &f);
	t = (const void *)(o.b + o.l4);
	assert_int_equal(rte_be_to_cpu_16(t->src_port), 4242);
	assert_int_equal(rte_be_to_cpu_16(t->dst_port), 80);
	assert_int_equal(verify(&o, true), 0);
	/* ARP: the MACs only. */
	memset(&o, 0, sizeof(o));
	e = (struct rte_ether_hdr *)o.b;
	e->src_addr = mac_a;
	e->dst_addr = mac_b;
	e->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	o.len = 60;
	memset(o.b + 14, 0xab, 46);
	assert_int_equal(lr_reflect_parse(o.b, o.len, &f), LR_REFLECT_OTHER);
	assert_int_equal(f.l3, 0);
	lr_reflect_swap(o.b, &f);
	assert_memory_equal(&e->src_addr, &mac_b, 6);
	assert_memory_equal(&e->dst_addr, &mac_a, 6);
	assert_int_equal(o.b[20], 0xab);
}

/* A second tag before the first (802.1ad, or the old 0x9100, outside an
 * 802.1Q tag): linerate's frame all the same, swapped behind both tags,
 * which stay. The reflector took one 802.1Q tag and reflected these as
 * others, unmarked, while gen --pcap stamped them (issue 26). */
static void
test_qinq(void **state)
{
	static const uint16_t outer[] = { 0x88a8, 0x9100, 0x8100 };
	unsigned int i, v6;

	(void)state;
	for (v6 = 0; v6 < 2; v6++) {
		for (i = 0; i < RTE_DIM(outer); i++) {
			struct frame o;
			struct lr_reflect_frame f;
			const struct rte_udp_hdr *u;

			build(&o, v6, true, IPPROTO_UDP, LR_HDR_MAGIC, true, 9);
			/* The outer tag goes in after the addresses. */
			memmove(o.b + 16, o.b + 12, o.len - 12);
			o.b[12] = (uint8_t)(outer[i] >> 8);
			o.b[13] = (uint8_t)outer[i];
			o.b[14] = 0x00;
			o.b[15] = 77;
			o.len += 4;
			o.l3 += 4;
			o.l4 += 4;
			assert_int_equal(lr_reflect_parse(o.b, o.len, &f), LR_REFLECT_OWN);
			assert_int_equal(f.l3, 22);
			assert_int_equal(f.l4, o.l4);
			assert_int_equal(f.udp_data, PAYLOAD);
			lr_reflect_swap(o.b, &f);
			lr_reflect_mark(o.b, &f, true, 5);
			lr_reflect_stamp_tx(o.b, f.l4, f.ipv4, 6);
			assert_int_equal(verify(&o, true), 0);
			u = (const void *)(o.b + o.l4);
			assert_int_equal(rte_be_to_cpu_16(u->dst_port), 1024 + 9);
			assert_int_equal(o.b[15], 77);	/* the tags stay */
			assert_int_equal(o.b[19], 42);
		}
	}
}

/* A frame cut anywhere: parsed as far as it goes, never OWN with less than
 * the header, nothing read past the cut (ASan's build would say). */
static void
test_cut_frames(void **state)
{
	struct frame i;
	struct lr_reflect_frame f;
	uint32_t len;

	(void)state;
	build(&i, true, true, IPPROTO_UDP, LR_HDR_MAGIC, true, 6);
	for (len = 0; len < i.len; len++) {
		uint8_t *cut = malloc(len ? len : 1);
		enum lr_reflect_kind k;

		memcpy(cut, i.b, len);
		k = lr_reflect_parse(cut, len, &f);
		if (len < 14)
			assert_int_equal(k, LR_REFLECT_RUNT);
		else if (len < i.l4 + 8 + LR_HDR_BYTES)
			assert_int_equal(k, LR_REFLECT_OTHER);
		else
			assert_int_equal(f.udp_data, len - i.l4 - 8);
		free(cut);
	}
}

/* The datagram ends where its IP length says, though the UDP length says
 * more and the frame runs on (padding, a trailer): the stamps go inside it
 * or nowhere, and the sum, which covers only it, holds. A datagram whose IP
 * length leaves no room for linerate's header is no frame of ours. (Found
 * by fuzz_parse: the stamps went past the IP length, the sum went wrong.) */
static void
test_stamps_inside_ip_length(void **state)
{
	unsigned int v6, data;

	(void)state;
	for (v6 = 0; v6 < 2; v6++) {
		for (data = 0; data <= PAYLOAD; data++) {
			struct frame o;
			struct lr_reflect_frame f;
			struct rte_udp_hdr *u;
			enum lr_reflect_kind k;
			bool room;

			build(&o, v6, false, IPPROTO_UDP, LR_HDR_MAGIC, true, data);
			u = (void *)(o.b + o.l4);
			/* The IP length cut to data bytes of UDP data. */
			if (v6) {
				struct rte_ipv6_hdr *ip = (void *)(o.b + o.l3);

				ip->payload_len = rte_cpu_to_be_16(8 + data);
				u->dgram_cksum = 0;
				u->dgram_cksum = rte_ipv6_udptcp_cksum(ip, u);
			} else {
				struct rte_ipv4_hdr *ip = (void *)(o.b + o.l3);

				ip->total_length = rte_cpu_to_be_16(20 + 8 + data);
				ip->hdr_checksum = 0;
				ip->hdr_checksum = rte_ipv4_cksum(ip);
				u->dgram_cksum = 0;
				u->dgram_cksum = rte_ipv4_udptcp_cksum(ip, u);
			}
			assert_int_equal(verify(&o, true), 0);
			k = lr_reflect_parse(o.b, o.len, &f);
			if (data < LR_HDR_BYTES) {
				assert_int_equal(k, LR_REFLECT_OTHER);
				continue;
			}
			assert_int_equal(k, LR_REFLECT_OWN);
			assert_int_equal(f.udp_data, data);
			lr_reflect_swap(o.b, &f);
			room = lr_reflect_mark(o.b, &f, true, 77);
			assert_int_equal(room, data >= LR_HDR_BYTES + LR_STAMPS_BYTES);
			if (room)
				lr_reflect_stamp_tx(o.b, f.l4, f.ipv4, 99);
			assert_int_equal(verify(&o, true), 0);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_swap_and_flag),
		cmocka_unit_test(test_ipv6_vlan_stamps),
		cmocka_unit_test(test_no_udp_checksum_stays_none),
		cmocka_unit_test(test_checksums_hold_everywhere),
		cmocka_unit_test(test_others),
		cmocka_unit_test(test_qinq),
		cmocka_unit_test(test_cut_frames),
		cmocka_unit_test(test_stamps_inside_ip_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
