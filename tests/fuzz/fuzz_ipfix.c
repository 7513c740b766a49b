/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: the IPFIX encoder (RFC 7011) under any conf the options allow
 * and any records, with a transport that refuses some messages. The first
 * input bytes choose the conf (MTU, timestamps, biflow, template cadence)
 * and which sends fail; the rest are records. Every message is decoded
 * back by a reader of our own (not the encoder's tables): version 10, a
 * length within the MTU and within the bytes sent, sets of known ids that
 * tile the message, 4-byte aligned, each data set a whole number of
 * records; the sequence numbers count the data records before each
 * message, lost ones included; every record added is delivered or counted
 * lost.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lr_ipfix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sink {
	uint32_t fail_mask;	/* bit i: refuse send i (mod 32) */
	unsigned int sends;
	uint16_t mtu;
	size_t rec4, rec6, rec_st;
	uint64_t records;	/* data records the messages carried */
};

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static int
sink_send(void *ctx, const void *msg, size_t len, uint32_t records)
{
	struct sink *s = ctx;
	const uint8_t *m = msg;
	size_t off = 16;
	uint32_t got = 0;

	if (len < 16 || len > s->mtu || get16(m) != 10 || get16(m + 2) != len)
		abort();
	while (off < len) {
		uint16_t id, sl;
		size_t rl;

		if (off + 4 > len)
			abort();
		id = get16(m + off);
		sl = get16(m + off + 2);
		if (sl < 4 || sl % 4 != 0 || off + sl > len)
			abort();
		if (id == 2 || id == 3) {
			off += sl;
			continue;
		}
		rl = id == LR_IPFIX_TMPL_V4 ? s->rec4 :
		     id == LR_IPFIX_TMPL_V6 ? s->rec6 :
		     id == LR_IPFIX_TMPL_STATS ? s->rec_st : 0;
		if (rl == 0)
			abort();
		/* whole records, then less than one record of padding */
		if ((sl - 4) % rl > 3)
			abort();
		got += (uint32_t)((sl - 4) / rl);
		off += sl;
	}
	if (off != len || got != records)
		abort();
	if (s->fail_mask >> (s->sends++ % 32) & 1)
		return -ECONNREFUSED;
	s->records += records;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lr_ipfix_conf c;
	struct lr_ipfix x;
	struct sink s;
	struct lr_flow_rec r;
	uint64_t added = 0, now = 1763800100;
	size_t off;

	if (size < 8)
		return 0;
	memset(&s, 0, sizeof(s));
	lr_ipfix_conf_init(&c);
	c.mtu = (uint16_t)(256 + (get16(data) % 1400));
	c.nanoseconds = data[2] & 1;
	c.biflow = data[2] & 2;
	c.template_every = data[2] >> 4;
	c.template_period_s = data[3] & 3;
	s.fail_mask = get32(data + 4);
	s.mtu = c.mtu;
	if (lr_ipfix_init(&x, &c, sink_send, &s) != 0)
		return 0;
	s.rec4 = lr_ipfix_record_bytes(&x, false);
	s.rec6 = lr_ipfix_record_bytes(&x, true);
	s.rec_st = 44;
	for (off = 8; off + 48 <= size; off += 48) {
		const uint8_t *d = data + off;

		memset(&r, 0, sizeof(r));
		r.ipv6 = d[0] & 1;
		memcpy(r.src, d + 1, 16);
		memcpy(r.dst, d + 17, 16);
		memcpy(&r.packets, d + 33, 8);
		r.bytes = r.packets * 3;
		r.sport = get16(d + 41);
		r.dport = get16(d + 43);
		r.proto = d[45];
		r.first_ns = (uint64_t)get32(d + 41) * 1000003u;
		r.last_ns = r.first_ns + d[46];
		r.end_reason = d[47] % 5;
		now += d[46] >> 6;
		lr_ipfix_add(&x, &r, now);
		added++;
		if (d[0] & 0x80) {
			lr_ipfix_stats(&x, d[1], d[2], d[3], now);
			added++;
		}
	}
	lr_ipfix_close(&x, now);
	if (x.c.records + x.c.records_lost != added || x.c.records != s.records ||
	    x.c.waiting != 0)
		abort();
	return 0;
}
