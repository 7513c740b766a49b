/* SPDX-License-Identifier: BSD-3-Clause */
/* IPFIX over UDP (RFC 7011 10.3), paced: see lr_ipfix_udp_open(). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lr_common.h"
#include "tx_priv.h"

/* A burst the collector's socket buffer takes whole after a quiet spell:
 * Linux's default 208 KiB hold about 90 datagrams of 1472 B (each takes
 * about 2.3 KB of truesize). */
#define UDP_BURST 16

struct udp_ctx {
	int fd;
	uint32_t rate_mps;		/* messages a second, 0: unpaced */
	uint64_t gap_ns;		/* between messages, 0: unpaced */
	uint64_t next_ns;		/* when the next message may go */
	struct lr_ipfix_mq q;
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

	ret = lr_ipfix_collector_addr(dest, SOCK_DGRAM, &sa, &salen);
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
	if (u == NULL ||
	    (rate_mps != 0 && lr_ipfix_mq_init(&u->q, buffer_bytes) != 0)) {
		free(u);
		close(fd);
		return lr_err(ENOMEM, "ipfix: no memory for a %zu B buffer",
			      buffer_bytes);
	}
	u->fd = fd;
	u->rate_mps = rate_mps;
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
	uint64_t now = lr_ipfix_mono_ns();
	const uint8_t *m;
	size_t len;
	uint32_t rec;

	/* A quiet spell earns a small burst, never a backlog's worth. */
	if (u->next_ns + UDP_BURST * u->gap_ns < now)
		u->next_ns = now - (UDP_BURST - 1) * u->gap_ns;
	while (u->next_ns <= now &&
	       (m = lr_ipfix_mq_head(&u->q, &len, &rec)) != NULL) {
		lr_ipfix_stamp_export_time(m);
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
		lr_ipfix_mq_pop(&u->q);
		u->next_ns += u->gap_ns;
	}
}

int
lr_ipfix_udp_send(void *ctx, const void *msg, size_t len, uint32_t records)
{
	struct udp_ctx *u = ctx;
	int ret;

	if (u->gap_ns == 0) {
		/* A collector that is down answers with ICMP: ECONNREFUSED
		 * on this or the next send, counted by the exporter. */
		if (send(u->fd, msg, len, MSG_DONTWAIT) != (ssize_t)len)
			return -errno;
		return 0;
	}
	udp_push(u);			/* what waits goes first */
	ret = lr_ipfix_mq_take(&u->q, msg, len, records, &u->refused);
	if (ret == LR_IPFIX_QUEUED)
		udp_push(u);
	return ret;
}

int
lr_ipfix_udp_poll(void *ctx, unsigned int wait_ms)
{
	struct udp_ctx *u = ctx;
	uint64_t end = lr_ipfix_mono_ms() + wait_ms;

	for (;;) {
		udp_push(u);
		if (u->q.bytes == 0)
			return 0;
		if (lr_ipfix_mono_ms() >= end)
			return -EAGAIN;
		usleep(RTE_MAX(u->gap_ns / 1000, 100ul));
	}
}

uint64_t
lr_ipfix_udp_discard(void *ctx)
{
	struct udp_ctx *u = ctx;

	return lr_ipfix_mq_discard(&u->q, u->x);
}

void
lr_ipfix_udp_state(const void *ctx, size_t *waiting, uint64_t *refused)
{
	const struct udp_ctx *u = ctx;

	*waiting = u->q.bytes;
	*refused = u->refused;
}

int
lr_ipfix_udp_close(void *ctx)
{
	struct udp_ctx *u = ctx;

	lr_ipfix_mq_discard(&u->q, u->x);
	lr_ipfix_mq_free(&u->q);
	close(u->fd);
	free(u);
	return 0;
}

static int
udp_open(const char *where, const struct lr_ipfix_tx_conf *c, void **ctx)
{
	return lr_ipfix_udp_open(where, c->rate_mps, c->buffer_bytes, ctx);
}

/* Unpaced, nothing waits: the result document says nothing of a pace. */
static void
udp_report(const void *ctx, json_t *o)
{
	const struct udp_ctx *u = ctx;

	if (u->gap_ns == 0)
		return;
	json_object_set_new(o, "export_rate", json_integer(u->rate_mps));
	json_object_set_new(o, "udp_waiting_bytes", json_integer((json_int_t)u->q.bytes));
	json_object_set_new(o, "udp_refused_messages", json_integer((json_int_t)u->refused));
}

static void
udp_stuck(const void *ctx, int poll_ret, unsigned int wait_s, char *buf,
	  size_t len)
{
	const struct udp_ctx *u = ctx;

	RTE_SET_USED(poll_ret);
	snprintf(buf, len, "still waiting after %u s at %u messages/s (raise "
		 "--export-rate or --export-wait)", wait_s, u->rate_mps);
}

/* RFC 7011 8.4: a collector that starts late, or lost a datagram with the
 * templates, gets them again in a later message. */
const struct lr_ipfix_transport_ops lr_ipfix_tx_udp = {
	.scheme = "udp:",
	.templates = LR_IPFIX_TX_TMPL_RESEND,
	.open = udp_open,
	.attach = lr_ipfix_udp_attach,
	.send = lr_ipfix_udp_send,
	.poll = lr_ipfix_udp_poll,
	.discard = lr_ipfix_udp_discard,
	.close = lr_ipfix_udp_close,
	.report = udp_report,
	.stuck = udp_stuck,
};
