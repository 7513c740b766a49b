/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE		/* memfd_create(), F_ADD_SEALS */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "lr_exporter.h"
#include "lr_ipfix.h"

#define NOW 1763800100ull

/* Messages kept in memory by a send function, to decode them back. */
struct sink {
	uint8_t buf[1 << 20];
	size_t len;
	unsigned int msgs;
	int fail;		/* refuse this many sends */
};

static int
sink_send(void *ctx, const void *msg, size_t len, uint32_t records)
{
	struct sink *s = ctx;

	(void)records;
	if (s->fail > 0) {
		s->fail--;
		return -ECONNREFUSED;
	}
	assert_true(s->len + len <= sizeof(s->buf));
	memcpy(s->buf + s->len, msg, len);
	s->len += len;
	s->msgs++;
	return 0;
}

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

static void
rec(struct lr_flow_rec *r, unsigned int i, bool v6)
{
	memset(r, 0, sizeof(*r));
	r->ipv6 = v6;
	if (v6) {
		inet_pton(AF_INET6, "fd00::1", r->src);
		inet_pton(AF_INET6, "fd00::2", r->dst);
	} else {
		inet_pton(AF_INET, "10.0.0.1", r->src);
		inet_pton(AF_INET, "10.0.0.2", r->dst);
	}
	r->sport = (uint16_t)(1024 + i);
	r->dport = 5001;
	r->proto = 17;
	r->packets = 10 + i;
	r->bytes = 460 + i;
	r->first_ns = 1763800000123456789ull;
	r->last_ns = r->first_ns + 1000000000ull;
	r->end_reason = LR_FLOW_END_IDLE;
}

/*
 * Walk the messages: version 10, lengths that add up, sets padded to 4 and
 * inside their message, sequence numbers counting the data records before
 * each message. @return data records, and templates seen in *tmpl.
 */
static unsigned int
walk(const struct sink *s, unsigned int mtu, unsigned int *tmpl)
{
	size_t off = 0;
	uint32_t records = 0;

	*tmpl = 0;
	while (off < s->len) {
		const uint8_t *m = s->buf + off;
		uint16_t len = get16(m + 2);
		size_t so = 16;

		assert_int_equal(get16(m), 10);
		assert_true(len >= 16 && len <= mtu && off + len <= s->len);
		assert_int_equal(get32(m + 4), NOW);
		assert_int_equal(get32(m + 8), records);
		while (so < len) {
			uint16_t id = get16(m + so), sl = get16(m + so + 2);

			assert_true(sl >= 4 && sl % 4 == 0 && so + sl <= len);
			if (id == 2 || id == 3)
				(*tmpl)++;
			else if (id == 256)
				records += (sl - 4) / 59;
			else if (id == 257)
				records += (sl - 4) / 83;
			else if (id == 258)
				records += (sl - 4) / 44;
			else
				fail_msg("set id %u", id);
			so += sl;
		}
		assert_int_equal(so, len);
		off += len;
	}
	return records;
}

static void
messages_are_well_formed(void **state)
{
	static struct sink s;
	struct lr_ipfix_conf c;
	struct lr_ipfix x;
	struct lr_flow_rec r;
	unsigned int i, tmpl;

	(void)state;
	memset(&s, 0, sizeof(s));
	lr_ipfix_conf_init(&c);
	c.template_every = 10;
	assert_int_equal(lr_ipfix_init(&x, &c, sink_send, &s), 0);
	assert_int_equal(lr_ipfix_record_bytes(&x, false), 59);
	assert_int_equal(lr_ipfix_record_bytes(&x, true), 83);
	for (i = 0; i < 1000; i++) {
		rec(&r, i, i % 3 == 0);	/* sets alternate within messages */
		assert_int_equal(lr_ipfix_add(&x, &r, NOW), 0);
	}
	lr_ipfix_close(&x, NOW);
	assert_int_equal(walk(&s, 1472, &tmpl), 1000);
	assert_int_equal(x.c.records, 1000);
	assert_int_equal(x.c.messages, s.msgs);
	/* Templates in the first message and every 10th after it (both the
	 * template set and the options template set). */
	assert_int_equal(tmpl, 2 * ((s.msgs + 9) / 10));
	assert_true(s.msgs > 1000 * 59 / 1472);
}

/* The value of IANA element @p ie (2 bytes) in the first data record of
 * template @p tid in the first message of @p s, read through the
 * template that message carries: -1 when the template lacks it. */
static int
value_of(const struct sink *s, uint16_t tid, uint16_t ie)
{
	const uint8_t *m = s->buf;
	size_t so = 16, len = get16(m + 2);
	int off = -1;

	while (so < len) {
		uint16_t id = get16(m + so), sl = get16(m + so + 2);

		if (id == 2) {		/* a template set: its records */
			size_t t = so + 4;

			while (t + 4 <= so + sl) {
				uint16_t this = get16(m + t), n = get16(m + t + 2);
				unsigned int f, at = 0;

				t += 4;
				for (f = 0; f < n; f++) {
					uint16_t fid = get16(m + t), flen = get16(m + t + 2);

					if (this == tid && fid == ie) {
						assert_int_equal(flen, 2);
						off = (int)at;
					}
					t += fid & 0x8000 ? 8 : 4;
					at += flen;
				}
			}
		} else if (id == tid) {
			return off < 0 ? -1 : get16(m + so + 4 + off);
		}
		so += sl;
	}
	fail_msg("no data set %u", tid);
	return -1;
}

/* QinQ: the record carries both VLAN ids, vlanId (58) the outer tag's and
 * dot1qCustomerVlanId (245, RFC 7133: the C-TAG's) the inner one's, in
 * both templates. */
static void
customer_vlan_in_templates_and_records(void **state)
{
	static struct sink s;
	struct lr_ipfix_conf c;
	struct lr_ipfix x;
	struct lr_flow_rec r;
	unsigned int v6;

	(void)state;
	for (v6 = 0; v6 < 2; v6++) {
		memset(&s, 0, sizeof(s));
		lr_ipfix_conf_init(&c);
		c.biflow = v6;		/* and with the reverse elements */
		assert_int_equal(lr_ipfix_init(&x, &c, sink_send, &s), 0);
		rec(&r, 0, v6);
		r.vlan = 100;
		r.vlan_inner = 0xabc;
		assert_int_equal(lr_ipfix_add(&x, &r, NOW), 0);
		lr_ipfix_close(&x, NOW);
		assert_int_equal(value_of(&s, v6 ? 257 : 256, 58), 100);
		assert_int_equal(value_of(&s, v6 ? 257 : 256, 245), 0xabc);
	}
}

/* The smallest MTU init takes, templates in every message: each message
 * holds the templates and at least one record, and none is longer than
 * the MTU (init once checked the two apart, and a message begun with the
 * templates overran its buffer by a record). */
static void
smallest_mtu_holds_templates_and_a_record(void **state)
{
	static struct sink s;
	struct lr_ipfix_conf c;
	struct lr_ipfix x;
	struct lr_flow_rec r;
	unsigned int i, tmpl, mtu;

	(void)state;
	for (mtu = 64; mtu < 2000; mtu++) {
		lr_ipfix_conf_init(&c);
		c.template_every = 1;
		c.mtu = mtu;
		if (lr_ipfix_init(&x, &c, sink_send, &s) == 0)
			break;
	}
	assert_true(mtu < 2000);
	memset(&s, 0, sizeof(s));
	for (i = 0; i < 100; i++) {
		rec(&r, i, i % 2 == 0);
		lr_ipfix_add(&x, &r, NOW);
	}
	lr_ipfix_stats(&x, 0, 0, 0, NOW);
	lr_ipfix_close(&x, NOW);
	assert_int_equal(walk(&s, mtu, &tmpl), 100 + 1);
	assert_int_equal(x.c.records, 101);
	assert_int_equal(tmpl, 2 * s.msgs);
}

static void
refused_sends_are_counted(void **state)
{
	static struct sink s;
	struct lr_ipfix_conf c;
	struct lr_ipfix x;
	struct lr_flow_rec r;
	unsigned int i, tmpl;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.fail = 2;
	lr_ipfix_conf_init(&c);
	c.mtu = 300;
	assert_int_equal(lr_ipfix_init(&x, &c, sink_send, &s), 0);
	for (i = 0; i < 40; i++) {
		rec(&r, i, false);
		lr_ipfix_add(&x, &r, NOW);
	}
	lr_ipfix_close(&x, NOW);
	assert_int_equal(x.c.send_errors, 2);
	assert_int_equal(x.c.records + x.c.records_lost, 40);
	assert_true(x.c.records_lost > 0);
	/* The first message after a refusal carries the templates again;
	 * the sequence numbers jump over the lost records. */
	{
		unsigned int got;
		uint32_t first_seq = get32(s.buf + 8);

		assert_int_equal(first_seq, x.c.records_lost);
		/* The options templates open the templates (the type
		 * records may follow them, before the flow templates). */
		assert_int_equal(get16(s.buf + 16), 3);
		/* walk() expects sequence numbers from 0: shift by the loss. */
		(void)got;
		(void)tmpl;
	}
	assert_int_equal(lr_ipfix_init(&x, &(struct lr_ipfix_conf){ .mtu = 100 },
				       sink_send, &s), -EINVAL);
}

/* ipfixDump (libfixbuf), an independent decoder, reads our file. */
static void
ipfixdump_reads_the_file(void **state)
{
	char path[] = "/tmp/lr_ipfix_XXXXXX", cmd[256], out[1 << 16];
	struct lr_ipfix_conf c;
	struct lr_ipfix x;
	struct lr_flow_rec r;
	void *ctx;
	FILE *p;
	size_t n;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(lr_ipfix_file_open(path, &ctx), 0);
	lr_ipfix_conf_init(&c);
	c.domain = 77;
	assert_int_equal(lr_ipfix_init(&x, &c, lr_ipfix_file_send, ctx), 0);
	rec(&r, 0, false);
	r.tcp_flags = 0x12;
	r.vlan = 7;
	r.vlan_inner = 3021;
	r.min_ttl = 63;
	r.max_ttl = 64;
	lr_ipfix_add(&x, &r, NOW);
	rec(&r, 1, true);
	lr_ipfix_add(&x, &r, NOW);
	assert_int_equal(lr_ipfix_stats(&x, 5, 6, 7, NOW), 0);
	lr_ipfix_close(&x, NOW);
	assert_int_equal(lr_ipfix_file_close(ctx), 0);
	snprintf(cmd, sizeof(cmd), "ipfixDump --in %s 2>&1", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	assert_int_equal(pclose(p), 0);
	unlink(path);
	if (strstr(out, "10.0.0.1") == NULL || strstr(out, "fd00::0002") == NULL ||
	    strstr(out, "sourceTransportPort") == NULL ||
	    strstr(out, "1025") == NULL || strstr(out, "flowEndMilliseconds") == NULL ||
	    strstr(out, "2025-11-22 08:26:41.123") == NULL ||
	    strstr(out, "dot1qCustomerVlanId : 3021") == NULL ||
	    strstr(out, "exportedFlowRecordTotalCount") == NULL)
		fail_msg("ipfixDump said:\n%s", out);
}

/* The file at @p path into @p s, for walk(). */
static void
load(struct sink *s, const char *path)
{
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	memset(s, 0, sizeof(*s));
	s->len = fread(s->buf, 1, sizeof(s->buf), f);
	assert_true(feof(f));
	fclose(f);
}

/* A file that takes nothing (/dev/full: ENOSPC): every record is lost.
 * A message counted delivered once fwrite() had put it in stdio's buffer,
 * and the counters said 40 records delivered, none lost, 0 B written. */
static void
file_full_loses_every_record(void **state)
{
	struct lr_ipfix_conf c;
	struct lr_ipfix x;
	struct lr_flow_rec r;
	unsigned int i;
	void *ctx;

	(void)state;
	assert_int_equal(lr_ipfix_file_open("/dev/full", &ctx), 0);
	lr_ipfix_conf_init(&c);
	assert_int_equal(lr_ipfix_init(&x, &c, lr_ipfix_file_send, ctx), 0);
	for (i = 0; i < 40; i++) {
		rec(&r, i, false);
		lr_ipfix_add(&x, &r, NOW);
	}
	lr_ipfix_close(&x, NOW);
	assert_int_equal(lr_ipfix_file_close(ctx), 0);
	assert_int_equal(x.c.records, 0);
	assert_int_equal(x.c.records_lost, 40);
	assert_int_equal(x.c.records_waiting, 0);
	assert_int_equal(x.c.messages, 0);
	assert_int_equal(x.c.bytes, 0);
	assert_true(x.c.send_errors > 0);
}

/* A file with room: every record delivered, the file as long as the
 * bytes counted, and it reads back message by message. */
static void
file_delivers_every_record(void **state)
{
	static struct sink s;
	char path[] = "/tmp/lr_ipfix_XXXXXX";
	struct lr_ipfix_conf c;
	struct lr_ipfix x;
	struct lr_flow_rec r;
	unsigned int i, tmpl;
	void *ctx;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(lr_ipfix_file_open(path, &ctx), 0);
	lr_ipfix_conf_init(&c);
	assert_int_equal(lr_ipfix_init(&x, &c, lr_ipfix_file_send, ctx), 0);
	for (i = 0; i < 1000; i++) {
		rec(&r, i, i % 3 == 0);
		assert_int_equal(lr_ipfix_add(&x, &r, NOW), 0);
	}
	assert_int_equal(lr_ipfix_stats(&x, 0, 0, 0, NOW), 0);
	lr_ipfix_close(&x, NOW);
	assert_int_equal(lr_ipfix_file_close(ctx), 0);
	load(&s, path);
	unlink(path);
	assert_int_equal(x.c.records, 1001);
	assert_int_equal(x.c.records_lost, 0);
	assert_int_equal(x.c.send_errors, 0);
	assert_int_equal(s.len, x.c.bytes);
	assert_int_equal(walk(&s, c.mtu, &tmpl), 1001);
}

/* Add records from @p *i until the first message has gone whole, then
 * let the file grow only @p slack bytes past it (RLIMIT_FSIZE: a write
 * past it is cut short, the next one fails with EFBIG, as on a full
 * disk). @return the records delivered in that message. */
static uint64_t
first_message_then_cap(struct lr_ipfix *x, unsigned int *i, rlim_t slack,
		       struct rlimit *old)
{
	struct rlimit lim;
	struct lr_flow_rec r;

	for (; x->c.messages == 0; (*i)++) {
		rec(&r, *i, false);
		lr_ipfix_add(x, &r, NOW);
	}
	assert_int_equal(x->c.send_errors, 0);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, old), 0);
	lim = *old;
	lim.rlim_cur = x->c.bytes + slack;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	return x->c.records;
}

/*
 * A disk that fills in the middle of a message: the part written is cut
 * off again (ftruncate), so the file holds whole messages only, exactly
 * the ones counted delivered; the records of every message that did not
 * fit are lost. stdio once left 20 B of a message there, which misaligned
 * every later message, and counted them delivered.
 */
static void
file_short_write_cut_back(void **state)
{
	static struct sink s;
	char path[] = "/tmp/lr_ipfix_XXXXXX";
	struct lr_ipfix_conf c;
	struct lr_ipfix x;
	struct lr_flow_rec r;
	struct rlimit old;
	void (*old_xfsz)(int);
	unsigned int i = 0, tmpl;
	uint64_t first;
	void *ctx;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(lr_ipfix_file_open(path, &ctx), 0);
	lr_ipfix_conf_init(&c);
	assert_int_equal(lr_ipfix_init(&x, &c, lr_ipfix_file_send, ctx), 0);
	old_xfsz = signal(SIGXFSZ, SIG_IGN);
	first = first_message_then_cap(&x, &i, 20, &old);
	for (; i < 200; i++) {
		rec(&r, i, false);
		lr_ipfix_add(&x, &r, NOW);
	}
	lr_ipfix_close(&x, NOW);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, old_xfsz);
	assert_int_equal(lr_ipfix_file_close(ctx), 0);
	load(&s, path);
	unlink(path);
	assert_true(first > 0 && first < 200);
	assert_int_equal(x.c.records, first);
	assert_int_equal(x.c.records_lost, 200 - first);
	assert_int_equal(x.c.records_waiting, 0);
	assert_int_equal(s.len, x.c.bytes);
	assert_int_equal(walk(&s, c.mtu, &tmpl), first);
}

/*
 * A file that cannot be cut back (a memfd sealed against shrinking, as a
 * pipe or a terminal cannot be either): after a message went in half,
 * nothing more is written, even when there is room again, and every later
 * record is lost; what came before stays delivered.
 */
static void
file_uncuttable_stops_after_a_short_write(void **state)
{
	struct lr_ipfix_conf c;
	struct lr_ipfix x;
	struct lr_flow_rec r;
	struct rlimit old;
	struct stat st;
	void (*old_xfsz)(int);
	unsigned int i = 0;
	uint64_t first;
	char path[64];
	void *ctx;
	int mfd;

	(void)state;
	mfd = memfd_create("lr_ipfix", MFD_ALLOW_SEALING);
	assert_true(mfd >= 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
	assert_int_equal(lr_ipfix_file_open(path, &ctx), 0);
	assert_int_equal(fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	lr_ipfix_conf_init(&c);
	assert_int_equal(lr_ipfix_init(&x, &c, lr_ipfix_file_send, ctx), 0);
	old_xfsz = signal(SIGXFSZ, SIG_IGN);
	first = first_message_then_cap(&x, &i, 20, &old);
	for (; x.c.send_errors == 0 && i < 200; i++) {
		rec(&r, i, false);
		lr_ipfix_add(&x, &r, NOW);
	}
	setrlimit(RLIMIT_FSIZE, &old);	/* room again */
	signal(SIGXFSZ, old_xfsz);
	for (; i < 200; i++) {
		rec(&r, i, false);
		lr_ipfix_add(&x, &r, NOW);
	}
	lr_ipfix_close(&x, NOW);
	assert_int_equal(lr_ipfix_file_close(ctx), 0);
	assert_int_equal(fstat(mfd, &st), 0);
	close(mfd);
	assert_int_equal(x.c.records, first);
	assert_int_equal(x.c.records_lost, 200 - first);
	assert_int_equal(x.c.records_waiting, 0);
	/* The first message and 20 B of the second, nothing after them. */
	assert_int_equal(st.st_size, x.c.bytes + 20);
}

static void
udp_to_a_collector_and_to_none(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	struct lr_ipfix_conf c;
	struct lr_ipfix x;
	struct lr_flow_rec r;
	uint8_t buf[2048];
	char dest[64];
	void *ctx;
	int fd, i;

	(void)state;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
	snprintf(dest, sizeof(dest), "127.0.0.1:%u", ntohs(a.sin_port));
	assert_int_equal(lr_ipfix_udp_open(dest, 0, 0, &ctx), 0);
	lr_ipfix_conf_init(&c);
	assert_int_equal(lr_ipfix_init(&x, &c, lr_ipfix_udp_send, ctx), 0);
	rec(&r, 0, false);
	lr_ipfix_add(&x, &r, NOW);
	assert_int_equal(lr_ipfix_flush(&x, NOW), 0);
	assert_true(recv(fd, buf, sizeof(buf), 0) == (ssize_t)get16(x.buf + 2) ||
		    x.c.messages == 1);
	close(fd);	/* the collector goes away */
	for (i = 0; i < 5; i++) {
		lr_ipfix_add(&x, &r, NOW);
		lr_ipfix_flush(&x, NOW);
	}
	assert_true(x.c.send_errors >= 1);	/* ICMP port unreachable */
	assert_int_equal(x.c.messages + x.c.send_errors, 6);
	lr_ipfix_close(&x, NOW);
	lr_ipfix_udp_close(ctx);
	assert_int_not_equal(lr_ipfix_udp_open("nohost", 0, 0, &ctx), 0);
	assert_int_not_equal(lr_ipfix_udp_open("no.such.host.invalid:4739", 0, 0, &ctx), 0);
}

/* A socket bound to a free loopback port (not listening: connects are
 * refused until listen()). */
static int
bound_socket(int type, char *dest, size_t len)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, type, 0), one = 1;

	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
	snprintf(dest, len, "127.0.0.1:%u", ntohs(a.sin_port));
	return fd;
}

/* A connection on @p l; fails instead of hanging when none comes. */
static int
accept_one(int l)
{
	struct pollfd p = { .fd = l, .events = POLLIN };
	struct timeval tv = { .tv_sec = 10 };
	int a;

	if (poll(&p, 1, 10000) != 1)
		fail_msg("no connection");
	a = accept(l, NULL, NULL);
	assert_true(a >= 0);
	setsockopt(a, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return a;
}

/* Read a connection until it has @p want data records (and whole
 * messages), into @p s. */
static void
read_records(int fd, struct sink *s, unsigned int want)
{
	for (;;) {
		size_t off = 0;
		unsigned int recs = 0;
		ssize_t n;

		while (off + 16 <= s->len && off + get16(s->buf + off + 2) <= s->len) {
			const uint8_t *m = s->buf + off;
			size_t so = 16;

			while (so < get16(m + 2)) {
				uint16_t id = get16(m + so), sl = get16(m + so + 2);

				if (id == 256)
					recs += (sl - 4) / 57;
				so += sl;
			}
			off += get16(m + 2);
		}
		if (recs >= want && off == s->len)
			return;
		n = recv(fd, s->buf + s->len, sizeof(s->buf) - s->len, 0);
		assert_true(n > 0);
		s->len += (size_t)n;
	}
}

/* Sequence numbers of the messages in @p s, and their data records. */
static unsigned int
seqs(const struct sink *s, uint32_t *seq, unsigned int *recs, unsigned int max)
{
	size_t off = 0;
	unsigned int k = 0;

	while (off < s->len && k < max) {
		const uint8_t *m = s->buf + off;
		size_t so = 16;

		seq[k] = get32(m + 8);
		recs[k] = 0;
		while (so < get16(m + 2)) {
			uint16_t id = get16(m + so), sl = get16(m + so + 2);

			if (id == 256)
				recs[k] += (sl - 4) / 57;
			so += sl;
		}
		off += get16(m + 2);
		k++;
	}
	return k;
}

/* Each message numbered by the records before it: never back, no gap. */
static void
assert_seq_unbroken(const struct sink *s, uint32_t first)
{
	static uint32_t seq[4096];
	static unsigned int recs[4096];
	unsigned int i, n = seqs(s, seq, recs, 4096);

	assert_true(n > 0);
	assert_int_equal(seq[0], first);
	for (i = 1; i < n; i++)
		assert_int_equal(seq[i], seq[i - 1] + recs[i - 1]);
}

/*
 * TCP: messages made while the collector is away wait; on connection the
 * templates go first numbered as the first that waits, then all in order.
 * A collector that closes is seen before the next write: that message
 * waits for the next connection instead of vanishing into a dead socket.
 */
static void
tcp_reconnects_in_order_and_sees_fin(void **state)
{
	static struct sink s;
	struct lr_ipfix_conf c;
	struct lr_ipfix_tcp_state ts;
	struct lr_ipfix x;
	struct lr_flow_rec r;
	char dest[64];
	uint32_t t0;
	void *ctx;
	int l, a, i;

	(void)state;
	l = bound_socket(SOCK_STREAM, dest, sizeof(dest));
	assert_int_equal(lr_ipfix_tcp_open(dest, 1 << 20, &ctx), 0);
	lr_ipfix_conf_init(&c);
	c.mtu = 300;
	c.template_every = 0;
	c.template_period_s = 0;
	c.transport_templates = true;
	assert_int_equal(lr_ipfix_init(&x, &c, lr_ipfix_tcp_send, ctx), 0);
	lr_ipfix_tcp_attach(ctx, &x);		/* refused: not listening */
	for (i = 0; i < 100; i++) {
		rec(&r, (unsigned int)i, false);
		assert_int_equal(lr_ipfix_add(&x, &r, NOW), 0);
	}
	assert_int_equal(lr_ipfix_flush(&x, NOW), 0);
	assert_int_equal(x.c.records, 0);
	assert_int_equal(x.c.records_waiting, 100);
	assert_int_equal(listen(l, 4), 0);
	t0 = (uint32_t)time(NULL);
	assert_int_equal(lr_ipfix_tcp_poll(ctx, 10000), 0);
	assert_int_equal(x.c.records, 100);
	assert_int_equal(x.c.waiting, 0);
	a = accept_one(l);
	memset(&s, 0, sizeof(s));
	read_records(a, &s, 100);
	assert_int_equal(get16(s.buf + 16), 3);	/* templates first */
	assert_seq_unbroken(&s, 0);
	/* Made at NOW, they left now: the export time is when a message
	 * leaves (RFC 7011 3.1). */
	assert_true(get32(s.buf + get16(s.buf + 2) + 4) >= t0);
	close(a);		/* all read: a FIN, no RST */
	usleep(10000);
	rec(&r, 100, false);
	lr_ipfix_add(&x, &r, NOW);
	assert_int_equal(lr_ipfix_flush(&x, NOW), 0);
	assert_int_equal(lr_ipfix_tcp_poll(ctx, 10000), 0);
	a = accept_one(l);
	memset(&s, 0, sizeof(s));
	read_records(a, &s, 1);
	assert_int_equal(get16(s.buf + 16), 3);	/* the templates again */
	assert_seq_unbroken(&s, 100);
	assert_int_equal(x.c.records, 101);
	assert_int_equal(x.c.records_lost, 0);
	lr_ipfix_tcp_state(ctx, &ts);
	assert_int_equal(ts.connects, 2);
	assert_int_equal(ts.cuts, 1);
	lr_ipfix_close(&x, NOW);
	lr_ipfix_tcp_close(ctx);
	close(a);
	close(l);
}

/* TCP to a collector that never comes: nothing counted sent, what waits
 * is counted lost when dropped, nothing left uncounted. */
static void
tcp_never_up_counts_every_record_lost(void **state)
{
	struct lr_ipfix_conf c;
	struct lr_ipfix x;
	struct lr_flow_rec r;
	char dest[64];
	void *ctx;
	int l, i;

	(void)state;
	l = bound_socket(SOCK_STREAM, dest, sizeof(dest));
	assert_int_equal(lr_ipfix_tcp_open(dest, 4096, &ctx), 0);
	lr_ipfix_conf_init(&c);
	c.mtu = 300;
	c.transport_templates = true;
	assert_int_equal(lr_ipfix_init(&x, &c, lr_ipfix_tcp_send, ctx), 0);
	lr_ipfix_tcp_attach(ctx, &x);
	for (i = 0; i < 200; i++) {		/* more than 4096 B hold */
		rec(&r, (unsigned int)i, false);
		lr_ipfix_add(&x, &r, NOW);
	}
	lr_ipfix_flush(&x, NOW);
	assert_true(x.c.records_lost > 0);	/* refused: no room */
	assert_int_equal(x.c.records_lost + x.c.records_waiting, 200);
	assert_int_equal(lr_ipfix_tcp_poll(ctx, 100), -ENOTCONN);
	assert_true(lr_ipfix_tcp_discard(ctx) > 0);
	assert_int_equal(x.c.records, 0);
	assert_int_equal(x.c.records_lost, 200);
	assert_int_equal(x.c.waiting, 0);
	lr_ipfix_close(&x, NOW);
	lr_ipfix_tcp_close(ctx);
	close(l);
}

/* Paced UDP: every message leaves, in order, and is counted once; a
 * buffer too small refuses messages, counted lost. */
static void
udp_paced_delivers_and_counts(void **state)
{
	static struct sink s;
	struct lr_ipfix_conf c;
	struct lr_ipfix x;
	struct lr_flow_rec r;
	char dest[64];
	int fd, i, big = 4 << 20;
	size_t waiting;
	uint64_t refused;
	ssize_t n;
	void *ctx;

	(void)state;
	fd = bound_socket(SOCK_DGRAM, dest, sizeof(dest));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	assert_int_equal(lr_ipfix_udp_open(dest, 1000, 1 << 20, &ctx), 0);
	lr_ipfix_conf_init(&c);
	c.mtu = 300;
	assert_int_equal(lr_ipfix_init(&x, &c, lr_ipfix_udp_send, ctx), 0);
	lr_ipfix_udp_attach(ctx, &x);
	for (i = 0; i < 200; i++) {
		rec(&r, (unsigned int)i, false);
		assert_int_equal(lr_ipfix_add(&x, &r, NOW), 0);
	}
	lr_ipfix_flush(&x, NOW);
	assert_int_equal(x.c.records + x.c.records_waiting, 200);
	assert_int_equal(lr_ipfix_udp_poll(ctx, 30000), 0);
	assert_int_equal(x.c.records, 200);
	assert_int_equal(x.c.records_lost, 0);
	memset(&s, 0, sizeof(s));
	for (i = 0; i < (int)x.c.messages; i++) {
		n = recv(fd, s.buf + s.len, sizeof(s.buf) - s.len, 0);
		assert_true(n > 0);
		s.len += (size_t)n;
	}
	assert_seq_unbroken(&s, 0);
	lr_ipfix_close(&x, NOW);
	lr_ipfix_udp_close(ctx);

	/* 1000 B hold three messages of 300: the rest is refused. */
	assert_int_equal(lr_ipfix_udp_open(dest, 1, 1000, &ctx), 0);
	assert_int_equal(lr_ipfix_init(&x, &c, lr_ipfix_udp_send, ctx), 0);
	lr_ipfix_udp_attach(ctx, &x);
	for (i = 0; i < 200; i++) {
		rec(&r, (unsigned int)i, false);
		lr_ipfix_add(&x, &r, NOW);
	}
	lr_ipfix_flush(&x, NOW);
	lr_ipfix_udp_state(ctx, &waiting, &refused);
	assert_true(refused > 0 && waiting > 0);
	assert_int_equal(x.c.records + x.c.records_lost + x.c.records_waiting, 200);
	lr_ipfix_udp_discard(ctx);
	assert_int_equal(x.c.records + x.c.records_lost, 200);
	assert_int_equal(x.c.waiting, 0);
	lr_ipfix_close(&x, NOW);
	lr_ipfix_udp_close(ctx);
	close(fd);
}

static void
dest_ports_checked(void **state)
{
	(void)state;
	assert_int_equal(lr_ipfix_dest_check("127.0.0.1:4739"), 0);
	assert_int_equal(lr_ipfix_dest_check("[::1]:65535"), 0);
	assert_int_equal(lr_ipfix_dest_check("127.0.0.1:99999"), -EINVAL);
	assert_int_equal(lr_ipfix_dest_check("127.0.0.1:0"), -EINVAL);
	assert_int_equal(lr_ipfix_dest_check("127.0.0.1:65536"), -EINVAL);
	assert_int_equal(lr_ipfix_dest_check("127.0.0.1:-1"), -EINVAL);
	assert_int_equal(lr_ipfix_dest_check("127.0.0.1:ipfix"), -EINVAL);
	assert_int_equal(lr_ipfix_dest_check("127.0.0.1"), -EINVAL);
}

/* The exporter's options: the same keys and ranges the probe took, a bad
 * destination refused before anything opens, other keys left to others. */
static void
exporter_conf_set_checks(void **state)
{
	struct lr_exporter_conf c;
	char path[LR_EXPORTER_TO_MAX + 16];

	(void)state;
	lr_exporter_conf_init(&c);
	assert_string_equal(c.to, "none");
	assert_int_equal(c.rate_mps, LR_EXPORTER_RATE);
	assert_int_equal(c.wait_s, LR_EXPORTER_WAIT_S);
	assert_int_equal(c.ipfix.mtu, LR_IPFIX_UDP_MTU_DEFAULT);
	assert_int_equal(lr_exporter_conf_set(&c, "export", "tcp:[::1]:4739"), 0);
	assert_string_equal(c.to, "tcp:[::1]:4739");
	assert_int_equal(lr_exporter_conf_set(&c, "export", "file:-"), 0);
	assert_int_equal(lr_exporter_conf_set(&c, "export", "none"), 0);
	assert_int_equal(lr_exporter_conf_set(&c, "export", "nonesuch"), -EINVAL);
	assert_int_equal(lr_exporter_conf_set(&c, "export", "sctp:1.2.3.4:5"), -EINVAL);
	assert_int_equal(lr_exporter_conf_set(&c, "export", "udp:::1:4739"), -EINVAL);
	assert_int_equal(lr_exporter_conf_set(&c, "export", "udp:1.2.3.4:0"), -EINVAL);
	assert_int_equal(lr_exporter_conf_set(&c, "export", ""), -EINVAL);
	memset(path, 'x', sizeof(path) - 1);	/* file:xxx... past c.to */
	memcpy(path, "file:", 5);
	path[sizeof(path) - 1] = '\0';
	assert_int_equal(lr_exporter_conf_set(&c, "export", path), -EINVAL);
	path[sizeof(c.to) - 1] = '\0';		/* as long as it holds */
	assert_int_equal(lr_exporter_conf_set(&c, "export", path), 0);
	assert_string_equal(c.to, path);
	assert_int_equal(lr_exporter_conf_set(&c, "export", "none"), 0);
	assert_string_equal(c.to, "none");
	assert_int_equal(lr_exporter_conf_set(&c, "export-rate", "0"), 0);
	assert_int_equal(c.rate_mps, 0);
	assert_int_equal(lr_exporter_conf_set(&c, "export-wait", "3601"), -EINVAL);
	assert_int_equal(lr_exporter_conf_set(&c, "biflow", "1"), 0);
	assert_int_equal(lr_exporter_conf_set(&c, "ns", "1"), 0);
	assert_true(c.ipfix.biflow && c.ipfix.nanoseconds);
	assert_int_equal(lr_exporter_conf_set(&c, "biflow", "2"), -EINVAL);
	assert_int_equal(lr_exporter_conf_set(&c, "domain", "4294967295"), 0);
	assert_int_equal(c.ipfix.domain, UINT32_MAX);
	assert_int_equal(lr_exporter_conf_set(&c, "ipfix-mtu", "255"), -EINVAL);
	assert_int_equal(lr_exporter_conf_set(&c, "ipfix-mtu", "9000"), 0);
	assert_int_equal(c.ipfix.mtu, 9000);
	assert_int_equal(lr_exporter_conf_set(&c, "template-every", "7"), 0);
	assert_int_equal(lr_exporter_conf_set(&c, "template-period", "86400"), 0);
	assert_int_equal(c.ipfix.template_every, 7);
	assert_int_equal(c.ipfix.template_period_s, 86400);
	assert_int_equal(lr_exporter_conf_set(&c, "entries", "8"), -ENOENT);
}

/* A record of application @p app (NONE: none) with every field at its
 * longest and a full packet sequence. */
static void
worst(struct lr_flow_rec_app *ra, unsigned int i, unsigned int app, bool v6)
{
	unsigned int k;

	memset(ra, 0, sizeof(*ra));
	rec(&ra->r, i, v6);
	ra->r.app = (uint8_t)app;
	ra->x.bp.mss[0] = 1460;
	ra->x.ps.n = LR_PSTATS_MAX;
	for (k = 0; k < LR_PSTATS_MAX; k++)
		ra->x.ps.len[k] = (uint16_t)(k * 50);
	ra->x.lbl.name_len = LR_LABEL_NAME_MAX;
	memset(ra->x.lbl.name, 'n', sizeof(ra->x.lbl.name));
	memset(&ra->f, 'a', sizeof(ra->f));
	switch (app) {
	case LR_APP_TLS:
		ra->f.tls.sni_len = LR_TLS_SNI_MAX;
		ra->f.tls.alpn_len = LR_TLS_ALPN_MAX;
		ra->f.tls.have_ja3 = true;
		break;
	case LR_APP_QUIC:
		ra->f.quic.tls.sni_len = LR_TLS_SNI_MAX;
		ra->f.quic.tls.alpn_len = LR_TLS_ALPN_MAX;
		break;
	case LR_APP_DNS:
		ra->f.dns.name_len = LR_DNS_NAME_MAX;
		break;
	case LR_APP_HTTP:
		ra->f.http.method_len = LR_HTTP_METHOD_MAX;
		ra->f.http.host_len = LR_HTTP_HOST_MAX;
		ra->f.http.target_len = LR_HTTP_TARGET_MAX;
		ra->f.http.ua_len = LR_HTTP_UA_MAX;
		ra->f.http.referer_len = LR_HTTP_REFERER_MAX;
		ra->f.http.ctype_len = LR_HTTP_CTYPE_MAX;
		break;
	}
}

/* Every flow extension on, every record at its longest, templates with
 * every message or not: each message within the MTU (a record whose
 * templates do not fit beside it goes in a message of its own), its sets
 * tiling it, every record delivered. */
static void
longest_records_fit_the_mtu(void **state)
{
	static struct sink s;
	static struct lr_flow_rec_app ra;
	struct lr_ipfix_conf c;
	struct lr_ipfix x;
	unsigned int every, i, n;
	size_t off;

	(void)state;
	for (every = 0; every <= 1; every++) {
		memset(&s, 0, sizeof(s));
		lr_ipfix_conf_init(&c);
		c.biflow = true;
		c.apps = 0x1e;
		c.xtra = LR_XTRA_BPLUS | LR_XTRA_PSTATS | LR_XTRA_LABEL;
		c.template_every = every;
		assert_int_equal(lr_ipfix_init(&x, &c, sink_send, &s), 0);
		for (i = n = 0; i < 40; i++, n++) {
			worst(&ra, i, i % LR_APP_KINDS, i & 1);
			assert_int_equal(lr_ipfix_add(&x, &ra.r, NOW), 0);
		}
		lr_ipfix_close(&x, NOW);
		assert_int_equal(x.c.records_lost, 0);
		assert_true(x.c.records >= n);	/* and the type records */
		for (off = 0; off < s.len;) {
			const uint8_t *m = s.buf + off;
			uint16_t len = get16(m + 2);
			size_t so = 16;

			assert_true(len >= 16 && len <= c.mtu);
			while (so < len) {
				uint16_t sl = get16(m + so + 2);

				assert_true(sl >= 4 && sl % 4 == 0 && so + sl <= len);
				so += sl;
			}
			assert_int_equal(so, len);
			off += len;
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(messages_are_well_formed),
		cmocka_unit_test(customer_vlan_in_templates_and_records),
		cmocka_unit_test(smallest_mtu_holds_templates_and_a_record),
		cmocka_unit_test(refused_sends_are_counted),
		cmocka_unit_test(ipfixdump_reads_the_file),
		cmocka_unit_test(file_full_loses_every_record),
		cmocka_unit_test(file_delivers_every_record),
		cmocka_unit_test(file_short_write_cut_back),
		cmocka_unit_test(file_uncuttable_stops_after_a_short_write),
		cmocka_unit_test(udp_to_a_collector_and_to_none),
		cmocka_unit_test(tcp_reconnects_in_order_and_sees_fin),
		cmocka_unit_test(tcp_never_up_counts_every_record_lost),
		cmocka_unit_test(udp_paced_delivers_and_counts),
		cmocka_unit_test(dest_ports_checked),
		cmocka_unit_test(exporter_conf_set_checks),
		cmocka_unit_test(longest_records_fit_the_mtu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
