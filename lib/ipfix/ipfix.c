/* SPDX-License-Identifier: BSD-3-Clause */
/* The RFC 7011 encoder: templates, records, messages, sequence numbers.
 * The transports are tx_*.c, the process-wide exporter exporter.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lr_common.h"
#include "lr_ipfix.h"

#define MSG_HDR_BYTES 16
#define SET_HDR_BYTES 4
#define SET_TEMPLATE 2
#define SET_OPTIONS_TEMPLATE 3
#define NTP_UNIX_OFFSET 2208988800ull	/* seconds from 1900 to 1970 */

/* IANA information element ids. */
enum {
	IE_OCTETS = 1, IE_PACKETS = 2, IE_PROTO = 4, IE_TOS = 5, IE_TCP_FLAGS = 6,
	IE_SPORT = 7, IE_SRC4 = 8, IE_INGRESS = 10, IE_DPORT = 11, IE_DST4 = 12,
	IE_SRC6 = 27, IE_DST6 = 28, IE_EXP_MSGS = 41, IE_EXP_RECS = 42,
	IE_MIN_TTL = 52, IE_MAX_TTL = 53, IE_VLAN = 58, IE_DROPPED_PKTS = 135,
	IE_END_REASON = 136, IE_DOMAIN = 149, IE_START_MS = 152, IE_END_MS = 153,
	IE_START_NS = 156, IE_END_NS = 157, IE_IGNORED_PKTS = 164,
	IE_NOT_SENT_FLOWS = 166,
};

struct field {
	uint16_t id;
	uint16_t len;
};

/* One list for both families: the address elements are picked by family,
 * the time elements by the conf. */
static const struct field flow_fields[] = {
	{ IE_SRC4, 4 }, { IE_DST4, 4 }, { IE_SPORT, 2 }, { IE_DPORT, 2 },
	{ IE_PROTO, 1 }, { IE_TOS, 1 }, { IE_TCP_FLAGS, 2 }, { IE_MIN_TTL, 1 },
	{ IE_MAX_TTL, 1 }, { IE_END_REASON, 1 }, { IE_VLAN, 2 },
	{ IE_INGRESS, 4 }, { IE_PACKETS, 8 }, { IE_OCTETS, 8 },
	{ IE_START_MS, 8 }, { IE_END_MS, 8 },
};

/* RFC 5103: the reverse direction's elements, same ids under PEN 29305. */
static const struct field rev_fields[] = {
	{ IE_OCTETS, 8 }, { IE_PACKETS, 8 }, { IE_TCP_FLAGS, 2 },
	{ IE_MIN_TTL, 1 }, { IE_MAX_TTL, 1 },
};

/* RFC 7011 4.2 and 4.3's reliability statistics, and notSentFlowTotalCount
 * (IANA 166: flows the Metering or Exporting Process dropped instead of
 * sending), so that a collector sees the records it will never get. */
static const struct field stats_fields[] = {
	{ IE_DOMAIN, 4 },	/* scope */
	{ IE_EXP_MSGS, 8 }, { IE_EXP_RECS, 8 }, { IE_IGNORED_PKTS, 8 },
	{ IE_DROPPED_PKTS, 8 }, { IE_NOT_SENT_FLOWS, 8 },
};
#define STATS_REC_BYTES (4 + 5 * 8)

void
lr_ipfix_conf_init(struct lr_ipfix_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->mtu = LR_IPFIX_UDP_MTU_DEFAULT;
	c->template_every = 100;
	c->template_period_s = 60;
}

/* The element a flow field stands for in this exporter. */
static struct field
field_of(const struct lr_ipfix *x, struct field f, bool ipv6)
{
	if (ipv6 && f.id == IE_SRC4)
		return (struct field){ IE_SRC6, 16 };
	if (ipv6 && f.id == IE_DST4)
		return (struct field){ IE_DST6, 16 };
	if (x->conf.nanoseconds && f.id == IE_START_MS)
		return (struct field){ IE_START_NS, 8 };
	if (x->conf.nanoseconds && f.id == IE_END_MS)
		return (struct field){ IE_END_NS, 8 };
	return f;
}

size_t
lr_ipfix_record_bytes(const struct lr_ipfix *x, bool ipv6)
{
	size_t i, n = 0;

	for (i = 0; i < RTE_DIM(flow_fields); i++)
		n += field_of(x, flow_fields[i], ipv6).len;
	if (x->conf.biflow)
		for (i = 0; i < RTE_DIM(rev_fields); i++)
			n += rev_fields[i].len;
	return n;
}

static inline uint8_t *
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return p + 2;
}

static inline uint8_t *
put32(uint8_t *p, uint32_t v)
{
	p = put16(p, (uint16_t)(v >> 16));
	return put16(p, (uint16_t)v);
}

static inline uint8_t *
put64(uint8_t *p, uint64_t v)
{
	p = put32(p, (uint32_t)(v >> 32));
	return put32(p, (uint32_t)v);
}

/* dateTimeNanoseconds: NTP seconds since 1900 and a binary fraction. */
static uint64_t
ntp_of_ns(uint64_t ns)
{
	uint64_t s = ns / 1000000000ull + NTP_UNIX_OFFSET;
	uint64_t frac = ((ns % 1000000000ull) << 32) / 1000000000ull;

	return s << 32 | frac;
}

/* A flow template: header, field specifiers, 8 B each with a PEN. */
static size_t
flow_template_bytes(bool biflow)
{
	return 4 + 4 * RTE_DIM(flow_fields) + (biflow ? 8 * RTE_DIM(rev_fields) : 0);
}

/* Template set (both flow templates) and options template set. */
static void
put_templates(struct lr_ipfix *x)
{
	uint8_t *p = x->buf + x->len, *start = p;
	size_t i, n = RTE_DIM(flow_fields);
	bool bi = x->conf.biflow;
	int fam;

	p = put16(p, SET_TEMPLATE);
	p = put16(p, (uint16_t)(SET_HDR_BYTES + 2 * flow_template_bytes(bi)));
	for (fam = 0; fam < 2; fam++) {
		p = put16(p, fam ? LR_IPFIX_TMPL_V6 : LR_IPFIX_TMPL_V4);
		p = put16(p, (uint16_t)(n + (bi ? RTE_DIM(rev_fields) : 0)));
		for (i = 0; i < n; i++) {
			struct field f = field_of(x, flow_fields[i], fam);

			p = put16(p, f.id);
			p = put16(p, f.len);
		}
		for (i = 0; bi && i < RTE_DIM(rev_fields); i++) {
			p = put16(p, 0x8000 | rev_fields[i].id);
			p = put16(p, rev_fields[i].len);
			p = put32(p, LR_IPFIX_PEN_REVERSE);
		}
	}
	n = RTE_DIM(stats_fields);
	p = put16(p, SET_OPTIONS_TEMPLATE);
	p = put16(p, (uint16_t)RTE_ALIGN(SET_HDR_BYTES + 6 + 4 * n, 4));
	p = put16(p, LR_IPFIX_TMPL_STATS);
	p = put16(p, (uint16_t)n);
	p = put16(p, 1);		/* scope fields */
	for (i = 0; i < n; i++) {
		p = put16(p, stats_fields[i].id);
		p = put16(p, stats_fields[i].len);
	}
	while ((p - start) % 4 != 0)
		*p++ = 0;		/* pad the set to 4 bytes */
	x->len += (size_t)(p - start);
}

static size_t
templates_size(const struct lr_ipfix_conf *c)
{
	return SET_HDR_BYTES + 2 * flow_template_bytes(c->biflow) +
	       RTE_ALIGN(SET_HDR_BYTES + 6 + 4 * RTE_DIM(stats_fields), 4);
}

int
lr_ipfix_init(struct lr_ipfix *x, const struct lr_ipfix_conf *c,
	      lr_ipfix_send_t send, void *ctx)
{
	memset(x, 0, sizeof(*x));
	x->conf = *c;
	/* A message must hold the templates, and the largest data record
	 * (IPv6, with this conf's timestamps and reverse fields) in a set
	 * with its up to 3 B of padding. */
	if (c->mtu < MSG_HDR_BYTES + templates_size(c) ||
	    c->mtu < MSG_HDR_BYTES + SET_HDR_BYTES +
		     lr_ipfix_record_bytes(x, true) + 3)
		return lr_err(EINVAL, "ipfix: MTU %u cannot hold the templates "
			      "(%zu B)", c->mtu, MSG_HDR_BYTES + templates_size(c));
	x->buf = calloc(1, c->mtu);
	if (x->buf == NULL)
		return lr_err(ENOMEM, "ipfix: no memory");
	x->send = send;
	x->ctx = ctx;
	x->tmpl_due = !c->transport_templates;
	return 0;
}

static void
close_set(struct lr_ipfix *x)
{
	if (x->set_off == 0)
		return;
	while ((x->len - x->set_off) % 4 != 0)
		x->buf[x->len++] = 0;	/* shorter than any record (RFC 7011 3.3.1) */
	put16(x->buf + x->set_off + 2, (uint16_t)(x->len - x->set_off));
	x->set_off = 0;
	x->set_id = 0;
}

static void
begin_msg(struct lr_ipfix *x, uint64_t now_s)
{
	const struct lr_ipfix_conf *c = &x->conf;

	x->len = MSG_HDR_BYTES;
	x->msg_records = 0;
	if (((c->template_every && x->msgs_since_tmpl >= c->template_every) ||
	     (c->template_period_s && now_s >= x->tmpl_time_s + c->template_period_s)) &&
	    !c->transport_templates)
		x->tmpl_due = true;
	if (x->tmpl_due) {
		put_templates(x);
		x->tmpl_due = false;
		x->msgs_since_tmpl = 0;
		x->tmpl_time_s = now_s;
	}
}

static int
send_msg(struct lr_ipfix *x, uint64_t now_s)
{
	int ret;

	close_set(x);
	put16(x->buf, LR_IPFIX_VERSION);
	put16(x->buf + 2, (uint16_t)x->len);
	put32(x->buf + 4, (uint32_t)now_s);
	put32(x->buf + 8, x->seq);
	put32(x->buf + 12, x->conf.domain);
	/* Waiting first: a transport that holds it may report its fate
	 * from inside send(). */
	x->c.waiting++;
	x->c.records_waiting += x->msg_records;
	ret = x->send(x->ctx, x->buf, x->len, x->msg_records);
	/* The sequence moves on either way: a collector sees the gap. */
	x->seq += x->msg_records;
	x->msgs_since_tmpl++;
	if (ret == 0)
		lr_ipfix_delivered(x, x->len, x->msg_records);
	else if (ret < 0)
		lr_ipfix_lost(x, x->msg_records);
	x->len = 0;
	x->msg_records = 0;
	return ret < 0 ? ret : 0;
}

void
lr_ipfix_delivered(struct lr_ipfix *x, size_t len, uint32_t records)
{
	x->c.waiting--;
	x->c.records_waiting -= records;
	x->c.messages++;
	x->c.records += records;
	x->c.bytes += len;
}

void
lr_ipfix_lost(struct lr_ipfix *x, uint32_t records)
{
	x->c.waiting--;
	x->c.records_waiting -= records;
	x->c.send_errors++;
	x->c.records_lost += records;
	/* A collector that was away gets the templates again. */
	x->tmpl_due = !x->conf.transport_templates;
}

/* Room for @p rec bytes in a data set @p id; sends and restarts the message
 * when it would not fit. */
static int
make_room(struct lr_ipfix *x, uint16_t id, size_t rec, uint64_t now_s)
{
	size_t need;
	int ret = 0;

	if (x->len == 0)
		begin_msg(x, now_s);
	need = rec + (x->set_id == id ? 0 : 3 + SET_HDR_BYTES);
	if (x->len + need + 3 > x->conf.mtu) {
		ret = send_msg(x, now_s);
		begin_msg(x, now_s);
	}
	if (x->set_id != id) {
		close_set(x);
		x->set_off = x->len;
		x->set_id = id;
		put16(x->buf + x->len, id);
		x->len += SET_HDR_BYTES;
	}
	return ret;
}

int
lr_ipfix_add(struct lr_ipfix *x, const struct lr_flow_rec *r, uint64_t now_s)
{
	bool v6 = r->ipv6 != 0;
	uint8_t *p;
	size_t i;
	int ret;

	ret = make_room(x, v6 ? LR_IPFIX_TMPL_V6 : LR_IPFIX_TMPL_V4,
			lr_ipfix_record_bytes(x, v6), now_s);
	p = x->buf + x->len;
	for (i = 0; i < RTE_DIM(flow_fields); i++) {
		struct field f = field_of(x, flow_fields[i], v6);

		switch (f.id) {
		case IE_SRC4: memcpy(p, r->src, 4); p += 4; break;
		case IE_DST4: memcpy(p, r->dst, 4); p += 4; break;
		case IE_SRC6: memcpy(p, r->src, 16); p += 16; break;
		case IE_DST6: memcpy(p, r->dst, 16); p += 16; break;
		case IE_SPORT: p = put16(p, r->sport); break;
		case IE_DPORT: p = put16(p, r->dport); break;
		case IE_PROTO: *p++ = r->proto; break;
		case IE_TOS: *p++ = r->tos; break;
		case IE_TCP_FLAGS: p = put16(p, r->tcp_flags); break;
		case IE_MIN_TTL: *p++ = r->min_ttl; break;
		case IE_MAX_TTL: *p++ = r->max_ttl; break;
		case IE_END_REASON: *p++ = r->end_reason; break;
		case IE_VLAN: p = put16(p, r->vlan); break;
		case IE_INGRESS: p = put32(p, r->ingress); break;
		case IE_PACKETS: p = put64(p, r->packets); break;
		case IE_OCTETS: p = put64(p, r->bytes); break;
		case IE_START_MS: p = put64(p, r->first_ns / 1000000); break;
		case IE_END_MS: p = put64(p, r->last_ns / 1000000); break;
		case IE_START_NS: p = put64(p, ntp_of_ns(r->first_ns)); break;
		case IE_END_NS: p = put64(p, ntp_of_ns(r->last_ns)); break;
		default: break;
		}
	}
	if (x->conf.biflow) {
		p = put64(p, r->rev_bytes);
		p = put64(p, r->rev_packets);
		p = put16(p, r->rev_tcp_flags);
		*p++ = r->rev_min_ttl;
		*p++ = r->rev_max_ttl;
	}
	x->len = (size_t)(p - x->buf);
	x->msg_records++;
	return ret;
}

int
lr_ipfix_stats(struct lr_ipfix *x, uint64_t ignored, uint64_t dropped,
	       uint64_t not_sent, uint64_t now_s)
{
	uint8_t *p;
	int ret;

	ret = make_room(x, LR_IPFIX_TMPL_STATS, STATS_REC_BYTES, now_s);
	p = x->buf + x->len;
	p = put32(p, x->conf.domain);
	/* What this exporter has sent, waiting in a transport included, and
	 * this message. */
	p = put64(p, x->c.messages + x->c.waiting + 1);
	p = put64(p, x->c.records + x->c.records_waiting + x->msg_records);
	p = put64(p, ignored);
	p = put64(p, dropped);
	p = put64(p, not_sent + x->c.records_lost);
	x->len = (size_t)(p - x->buf);
	x->msg_records++;	/* an options record is a data record too */
	if (ret == 0)
		ret = send_msg(x, now_s);
	else
		send_msg(x, now_s);
	return ret;
}

int
lr_ipfix_flush(struct lr_ipfix *x, uint64_t now_s)
{
	if (x->len == 0 || x->msg_records == 0) {
		if (x->len > MSG_HDR_BYTES)
			x->tmpl_due = !x->conf.transport_templates;
		x->len = 0;
		x->set_off = 0;
		x->set_id = 0;
		return 0;
	}
	return send_msg(x, now_s);
}

void
lr_ipfix_close(struct lr_ipfix *x, uint64_t now_s)
{
	if (x->buf != NULL)
		lr_ipfix_flush(x, now_s);
	free(x->buf);
	x->buf = NULL;
}

size_t
lr_ipfix_template_msg(struct lr_ipfix *x, uint8_t *buf, size_t len,
		      uint32_t seq, uint64_t now_s)
{
	size_t n = MSG_HDR_BYTES + templates_size(&x->conf);
	uint8_t *save_buf = x->buf;
	size_t save_len = x->len;

	if (len < n)
		return 0;
	/* Build it in @p buf with the exporter's own writer. */
	x->buf = buf;
	x->len = MSG_HDR_BYTES;
	put_templates(x);
	put16(buf, LR_IPFIX_VERSION);
	put16(buf + 2, (uint16_t)x->len);
	put32(buf + 4, (uint32_t)now_s);
	put32(buf + 8, seq);
	put32(buf + 12, x->conf.domain);
	n = x->len;
	x->buf = save_buf;
	x->len = save_len;
	return n;
}
