/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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

static inline uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
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

int
lr_ipfix_file_open(const char *path, void **ctx)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");

	if (f == NULL)
		return lr_err(errno, "ipfix: cannot write %s", path);
	*ctx = f;
	return 0;
}

int
lr_ipfix_file_send(void *ctx, const void *msg, size_t len, uint32_t records)
{
	RTE_SET_USED(records);
	if (fwrite(msg, 1, len, ctx) != len)
		return -EIO;
	return 0;
}

void
lr_ipfix_file_close(void *ctx)
{
	if (ctx != stdout)
		fclose(ctx);
	else
		fflush(ctx);
}

/* Split "HOST:PORT" or "[IPv6]:PORT" in @p host (of @p len bytes) and the
 * port number. A port is 1..65535 in decimal: getaddrinfo() would take
 * 99999 and the kernel keep its low 16 bits (34463), a collector nobody
 * runs. */
static int
split_dest(const char *dest, char *host, size_t len, uint16_t *port)
{
	char *p, *end;
	unsigned long v;

	if (strlen(dest) >= len)
		return lr_err(EINVAL, "ipfix: collector '%s' is too long", dest);
	snprintf(host, len, "%s", dest);
	p = strrchr(host, ':');
	if (p == NULL || p == host)
		return lr_err(EINVAL, "ipfix: collector '%s': want HOST:PORT", dest);
	*p++ = '\0';
	if (host[0] == '[' && p[-2] == ']') {
		p[-2] = '\0';
		memmove(host, host + 1, strlen(host));
	}
	errno = 0;
	v = strtoul(p, &end, 10);
	if (*p < '0' || *p > '9' || *end != '\0' || errno != 0 || v < 1 ||
	    v > 65535)
		return lr_err(EINVAL, "ipfix: collector '%s': port '%s': want "
			      "1..65535", dest, p);
	*port = (uint16_t)v;
	return 0;
}

int
lr_ipfix_dest_check(const char *dest)
{
	char host[256];
	uint16_t port;

	return split_dest(dest, host, sizeof(host), &port);
}

/* The first address getaddrinfo() gives for @p dest. */
static int
collector_addr(const char *dest, int socktype, struct sockaddr_storage *sa,
	       socklen_t *salen)
{
	char host[256], port[8];
	struct addrinfo hints, *ai = NULL;
	uint16_t pn;
	int ret;

	ret = split_dest(dest, host, sizeof(host), &pn);
	if (ret != 0)
		return ret;
	snprintf(port, sizeof(port), "%u", pn);
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = socktype;
	hints.ai_flags = AI_NUMERICSERV;
	ret = getaddrinfo(host, port, &hints, &ai);
	if (ret != 0)
		return lr_err(EINVAL, "ipfix: collector '%s': %s", dest,
			      gai_strerror(ret));
	memcpy(sa, ai->ai_addr, ai->ai_addrlen);
	*salen = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t
mono_ms(void)
{
	return mono_ns() / 1000000;
}

/*
 * A FIFO of whole messages for the transports that hold them (paced UDP,
 * TCP), each with its count of data records, so that the exporter learns
 * the fate of every record: delivered or lost, once. Entries sit in
 * [head, tail) of one buffer: an 8 B header (length, records) and the
 * message. Popping moves head; room at the end is made by moving what
 * waits to the front, which costs at most what was popped before it.
 */
#define MQ_HDR 8

struct msgq {
	uint8_t *buf;
	size_t cap;
	size_t head;
	size_t tail;
	size_t bytes;			/* message bytes waiting */
};

static int
mq_init(struct msgq *q, size_t cap)
{
	q->buf = malloc(cap);
	q->cap = cap;
	q->head = q->tail = q->bytes = 0;
	return q->buf == NULL ? -ENOMEM : 0;
}

static int
mq_push(struct msgq *q, const void *msg, size_t len, uint32_t records)
{
	uint32_t h[2] = { (uint32_t)len, records };

	if (q->tail + MQ_HDR + len > q->cap && q->head != 0) {
		memmove(q->buf, q->buf + q->head, q->tail - q->head);
		q->tail -= q->head;
		q->head = 0;
	}
	if (q->tail + MQ_HDR + len > q->cap)
		return -ENOBUFS;
	memcpy(q->buf + q->tail, h, MQ_HDR);
	memcpy(q->buf + q->tail + MQ_HDR, msg, len);
	q->tail += MQ_HDR + len;
	q->bytes += len;
	return 0;
}

/* The oldest message, NULL when none. */
static const uint8_t *
mq_head(const struct msgq *q, size_t *len, uint32_t *records)
{
	uint32_t h[2];

	if (q->head == q->tail)
		return NULL;
	memcpy(h, q->buf + q->head, MQ_HDR);
	*len = h[0];
	*records = h[1];
	return q->buf + q->head + MQ_HDR;
}

static void
mq_pop(struct msgq *q)
{
	size_t len;
	uint32_t rec;

	if (mq_head(q, &len, &rec) == NULL)
		return;
	q->head += MQ_HDR + len;
	q->bytes -= len;
	if (q->head == q->tail)
		q->head = q->tail = 0;
}

/* RFC 7011 3.1: the export time is when the message leaves the exporter,
 * not when it was made: one that waited for the pace or a collector gets
 * the time it starts to go. */
static void
stamp_export_time(const uint8_t *m)
{
	put32((uint8_t *)(uintptr_t)m + 4, (uint32_t)time(NULL));
}

/* Drop every message that waits, each counted lost. @return messages. */
static uint64_t
mq_discard(struct msgq *q, struct lr_ipfix *x)
{
	uint64_t n = 0;
	size_t len;
	uint32_t rec;

	while (mq_head(q, &len, &rec) != NULL) {
		if (x != NULL)
			lr_ipfix_lost(x, rec);
		mq_pop(q);
		n++;
	}
	return n;
}

/* A burst the collector's socket buffer takes whole after a quiet spell:
 * Linux's default 208 KiB hold about 90 datagrams of 1472 B (each takes
 * about 2.3 KB of truesize). */
#define UDP_BURST 16

struct udp_ctx {
	int fd;
	uint64_t gap_ns;		/* between messages, 0: unpaced */
	uint64_t next_ns;		/* when the next message may go */
	struct msgq q;
	struct lr_ipfix *x;
	uint64_t refused;		/* messages refused: no room */
};

int
lr_ipfix_udp_open(const char *dest, uint32_t rate_mps, size_t buffer_bytes,
		  void **ctx)
{
	struct sockaddr_storage sa;
	socklen_t salen;
	struct udp_ctx *u;
	int ret, fd;

	ret = collector_addr(dest, SOCK_DGRAM, &sa, &salen);
	if (ret != 0)
		return ret;
	fd = socket(sa.ss_family, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, salen) != 0) {
		ret = errno;
		if (fd >= 0)
			close(fd);
		return lr_err(ret, "ipfix: collector '%s'", dest);
	}
	u = calloc(1, sizeof(*u));
	if (u == NULL || (rate_mps != 0 && mq_init(&u->q, buffer_bytes) != 0)) {
		free(u);
		close(fd);
		return lr_err(ENOMEM, "ipfix: no memory for a %zu B buffer",
			      buffer_bytes);
	}
	u->fd = fd;
	u->gap_ns = rate_mps ? 1000000000ull / rate_mps : 0;
	*ctx = u;
	return 0;
}

void
lr_ipfix_udp_attach(void *ctx, struct lr_ipfix *x)
{
	struct udp_ctx *u = ctx;

	u->x = x;
}

/* Send what is due by the pace. */
static void
udp_push(struct udp_ctx *u)
{
	uint64_t now = mono_ns();
	const uint8_t *m;
	size_t len;
	uint32_t rec;

	/* A quiet spell earns a small burst, never a backlog's worth. */
	if (u->next_ns + UDP_BURST * u->gap_ns < now)
		u->next_ns = now - (UDP_BURST - 1) * u->gap_ns;
	while (u->next_ns <= now && (m = mq_head(&u->q, &len, &rec)) != NULL) {
		stamp_export_time(m);
		if (send(u->fd, m, len, MSG_DONTWAIT) == (ssize_t)len) {
			lr_ipfix_delivered(u->x, len, rec);
		} else if (errno == EAGAIN || errno == EWOULDBLOCK ||
			   errno == ENOBUFS || errno == EINTR) {
			return;		/* our own socket is full: later */
		} else {
			/* ECONNREFUSED: an ICMP port unreachable for an
			 * earlier datagram; Linux then sends nothing. */
			lr_ipfix_lost(u->x, rec);
		}
		mq_pop(&u->q);
		u->next_ns += u->gap_ns;
	}
}

int
lr_ipfix_udp_send(void *ctx, const void *msg, size_t len, uint32_t records)
{
	struct udp_ctx *u = ctx;

	if (u->gap_ns == 0) {
		/* A collector that is down answers with ICMP: ECONNREFUSED
		 * on this or the next send, counted by the exporter. */
		if (send(u->fd, msg, len, MSG_DONTWAIT) != (ssize_t)len)
			return -errno;
		return 0;
	}
	udp_push(u);			/* what waits goes first */
	if (mq_push(&u->q, msg, len, records) != 0) {
		u->refused++;
		return -ENOBUFS;
	}
	udp_push(u);
	return LR_IPFIX_QUEUED;
}

int
lr_ipfix_udp_poll(void *ctx, unsigned int wait_ms)
{
	struct udp_ctx *u = ctx;
	uint64_t end = mono_ms() + wait_ms;

	for (;;) {
		udp_push(u);
		if (u->q.bytes == 0)
			return 0;
		if (mono_ms() >= end)
			return -EAGAIN;
		usleep(RTE_MAX(u->gap_ns / 1000, 100ul));
	}
}

uint64_t
lr_ipfix_udp_discard(void *ctx)
{
	struct udp_ctx *u = ctx;

	return mq_discard(&u->q, u->x);
}

void
lr_ipfix_udp_state(const void *ctx, size_t *waiting, uint64_t *refused)
{
	const struct udp_ctx *u = ctx;

	*waiting = u->q.bytes;
	*refused = u->refused;
}

void
lr_ipfix_udp_close(void *ctx)
{
	struct udp_ctx *u = ctx;

	mq_discard(&u->q, u->x);
	free(u->q.buf);
	close(u->fd);
	free(u);
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

#define TCP_BACKOFF_MIN_MS 500
#define TCP_BACKOFF_MAX_MS 30000
#define TCP_TMPL_MAX 1024

/*
 * One connection at a time. The templates go first on each connection,
 * then the queue in order; a message leaves the queue once the socket has
 * taken all of it. qoff bytes of the head have gone on this connection: a
 * cut there sends it again whole on the next (the collector drops the
 * half it saw with the stream), so the sequence numbers a collector sees
 * never go back.
 */
struct tcp_ctx {
	int fd;				/* -1: down */
	bool connecting;		/* non-blocking connect under way */
	struct sockaddr_storage sa;
	socklen_t salen;
	uint64_t next_try_ms;
	uint64_t backoff_ms;
	struct msgq q;
	size_t qoff;
	uint8_t tm[TCP_TMPL_MAX];	/* the templates message of this connection */
	size_t tm_len;
	size_t tm_off;
	struct lr_ipfix *x;
	uint64_t connects;
	uint64_t refused;		/* messages refused: no room */
	uint64_t cuts;			/* connections lost (FIN, RST, error) */
};

static void
tcp_down(struct tcp_ctx *t)
{
	if (t->fd >= 0) {
		close(t->fd);
		if (!t->connecting)
			t->cuts++;
	}
	t->fd = -1;
	t->connecting = false;
	t->qoff = 0;
	t->tm_len = t->tm_off = 0;
	t->next_try_ms = mono_ms() + t->backoff_ms;
	t->backoff_ms = RTE_MIN(t->backoff_ms * 2, (uint64_t)TCP_BACKOFF_MAX_MS);
}

/* A new connection: the templates go first, numbered as the first message
 * that waits (or the next one the exporter makes), so that the sequence
 * numbers on the stream never go back. */
static void
tcp_up(struct tcp_ctx *t)
{
	const uint8_t *m;
	size_t len;
	uint32_t rec, seq;

	t->connecting = false;
	t->backoff_ms = TCP_BACKOFF_MIN_MS;
	t->connects++;
	t->tm_off = t->tm_len = 0;
	if (t->x == NULL)
		return;
	m = mq_head(&t->q, &len, &rec);
	seq = m != NULL ? (uint32_t)get16(m + 8) << 16 | get16(m + 10) : t->x->seq;
	t->tm_len = lr_ipfix_template_msg(t->x, t->tm, sizeof(t->tm), seq,
					  (uint64_t)time(NULL));
}

/* Try to (re)connect when it is time; finish a connect under way. */
static void
tcp_connect(struct tcp_ctx *t)
{
	struct pollfd pfd;
	int err = 0;
	socklen_t el = sizeof(err);

	if (t->fd >= 0 && t->connecting) {
		pfd.fd = t->fd;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, 0) <= 0)
			return;
		if (getsockopt(t->fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0 || err)
			tcp_down(t);
		else
			tcp_up(t);
		return;
	}
	if (t->fd >= 0 || mono_ms() < t->next_try_ms)
		return;
	t->fd = socket(t->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (t->fd < 0) {
		tcp_down(t);
		return;
	}
	t->connecting = true;
	if (connect(t->fd, (struct sockaddr *)&t->sa, t->salen) == 0)
		tcp_up(t);
	else if (errno != EINPROGRESS)
		tcp_down(t);
}

/*
 * Has the collector closed or reset the connection? An IPFIX collector
 * sends nothing (RFC 7011 10.4), so readable means FIN (recv 0) or an
 * error (ECONNRESET); what a peer does send is read and ignored. Writing
 * on after a FIN would put messages into a socket whose peer has gone:
 * the kernel takes them and the collector never sees them.
 */
static bool
tcp_peer_gone(struct tcp_ctx *t)
{
	uint8_t b[512];
	int i;

	for (i = 0; i < 64; i++) {
		ssize_t n = recv(t->fd, b, sizeof(b), MSG_DONTWAIT);

		if (n == 0)
			return true;
		if (n < 0)
			return errno != EAGAIN && errno != EWOULDBLOCK &&
			       errno != EINTR;
	}
	return false;
}

/* Write @p len - *off bytes of @p p. @return 0 all gone, 1 later, -1 cut. */
static int
tcp_write(struct tcp_ctx *t, const uint8_t *p, size_t len, size_t *off)
{
	while (*off < len) {
		ssize_t n = send(t->fd, p + *off, len - *off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				return 1;
			return -1;
		}
		*off += (size_t)n;
	}
	return 0;
}

/* Send what waits, as far as the socket takes it now. */
static void
tcp_push(struct tcp_ctx *t)
{
	const uint8_t *m;
	size_t len;
	uint32_t rec;
	int ret;

	if (t->fd < 0 || t->connecting)
		return;
	if (tcp_peer_gone(t)) {
		tcp_down(t);
		return;
	}
	ret = tcp_write(t, t->tm, t->tm_len, &t->tm_off);
	while (ret == 0 && (m = mq_head(&t->q, &len, &rec)) != NULL) {
		if (t->qoff == 0)
			stamp_export_time(m);
		ret = tcp_write(t, m, len, &t->qoff);
		if (ret == 0) {
			lr_ipfix_delivered(t->x, len, rec);
			mq_pop(&t->q);
			t->qoff = 0;
		}
	}
	if (ret < 0)
		tcp_down(t);
}

int
lr_ipfix_tcp_open(const char *dest, size_t buffer_bytes, void **ctx)
{
	struct sockaddr_storage sa;
	socklen_t salen;
	struct tcp_ctx *t;
	int ret;

	ret = collector_addr(dest, SOCK_STREAM, &sa, &salen);
	if (ret != 0)
		return ret;
	t = calloc(1, sizeof(*t));
	if (t == NULL || mq_init(&t->q, buffer_bytes) != 0) {
		free(t);
		return lr_err(ENOMEM, "ipfix: no memory for a %zu B buffer",
			      buffer_bytes);
	}
	t->sa = sa;
	t->salen = salen;
	t->fd = -1;
	t->backoff_ms = TCP_BACKOFF_MIN_MS;
	*ctx = t;
	return 0;
}

void
lr_ipfix_tcp_attach(void *ctx, struct lr_ipfix *x)
{
	struct tcp_ctx *t = ctx;

	t->x = x;
	tcp_connect(t);		/* the first try, now that templates exist */
}

int
lr_ipfix_tcp_poll(void *ctx, unsigned int wait_ms)
{
	struct tcp_ctx *t = ctx;
	uint64_t end = mono_ms() + wait_ms;

	/* The end of a run waits for a collector: try now, not after the
	 * backoff, and every half second while the wait lasts. */
	if (wait_ms != 0 && t->fd < 0) {
		t->next_try_ms = 0;
		t->backoff_ms = TCP_BACKOFF_MIN_MS;
	}
	for (;;) {
		tcp_connect(t);
		tcp_push(t);
		if (t->q.bytes == 0 && t->tm_off == t->tm_len)
			return 0;
		if (mono_ms() >= end)
			break;
		if (wait_ms != 0 && t->fd < 0)
			t->backoff_ms = TCP_BACKOFF_MIN_MS;
		usleep(1000);
	}
	return t->fd >= 0 && !t->connecting ? -EAGAIN : -ENOTCONN;
}

int
lr_ipfix_tcp_send(void *ctx, const void *msg, size_t len, uint32_t records)
{
	struct tcp_ctx *t = ctx;

	tcp_connect(t);
	tcp_push(t);
	if (mq_push(&t->q, msg, len, records) != 0) {
		t->refused++;
		return -ENOBUFS;
	}
	tcp_push(t);
	return LR_IPFIX_QUEUED;
}

uint64_t
lr_ipfix_tcp_discard(void *ctx)
{
	struct tcp_ctx *t = ctx;

	/* A message half written is cut by the close that follows. */
	t->qoff = 0;
	return mq_discard(&t->q, t->x);
}

void
lr_ipfix_tcp_state(const void *ctx, struct lr_ipfix_tcp_state *s)
{
	const struct tcp_ctx *t = ctx;

	s->waiting_bytes = t->q.bytes;
	s->connects = t->connects;
	s->refused = t->refused;
	s->cuts = t->cuts;
	s->up = t->fd >= 0 && !t->connecting;
}

void
lr_ipfix_tcp_close(void *ctx)
{
	struct tcp_ctx *t = ctx;

	mq_discard(&t->q, t->x);
	if (t->fd >= 0)
		close(t->fd);
	free(t->q.buf);
	free(t);
}
