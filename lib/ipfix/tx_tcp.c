/* SPDX-License-Identifier: BSD-3-Clause */
/* IPFIX over TCP (RFC 7011 10.4): a non-blocking client that reconnects
 * and holds what waits; see lr_ipfix_tcp_open(). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_log.h>

#include "lr_common.h"
#include "tx_priv.h"

/* The collector's comings and goings, one line each (journald's events);
 * said on the main lcore or EAL's interrupt thread, never a worker's. */
RTE_LOG_REGISTER(lr_ipfix_logtype, user.lr.ipfix, INFO);
#define TLOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, lr_ipfix_logtype, "probe: export tcp:%s: " \
		fmt "\n", t->dest, ##__VA_ARGS__)

#define TCP_BACKOFF_MIN_MS 500
#define TCP_BACKOFF_MAX_MS 30000
#define TCP_TMPL_MAX 8192	/* every template, the applications' too */

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
	struct lr_ipfix_mq q;
	size_t qoff;
	uint8_t tm[TCP_TMPL_MAX];	/* the templates message of this connection */
	size_t tm_len;
	size_t tm_off;
	struct lr_ipfix *x;
	uint64_t connects;
	uint64_t refused;		/* messages refused: no room */
	uint64_t cuts;			/* connections lost (FIN, RST, error) */
	bool said_down;			/* this outage is said already */
	char dest[128];			/* HOST:PORT, for what is said */
};

/* The connection is down or a try failed (@p err: errno, 0 for the
 * collector's FIN). Said once an outage: when it is lost, or when the
 * first try of one fails; not each try of the backoff. */
static void
tcp_down(struct tcp_ctx *t, int err)
{
	bool was_up = t->fd >= 0 && !t->connecting;

	if (was_up)
		TLOG(WARNING, "connection lost (%s): reconnecting, messages "
		     "held meanwhile (%zu B waiting)",
		     err ? strerror(err) : "closed by the collector", t->q.bytes);
	else if (!t->said_down)
		TLOG(WARNING, "cannot connect (%s): trying again every %.1f to "
		     "%.0f s, messages held meanwhile", strerror(err ? err : EIO),
		     TCP_BACKOFF_MIN_MS / 1e3, TCP_BACKOFF_MAX_MS / 1e3);
	t->said_down = true;
	if (t->fd >= 0) {
		close(t->fd);
		if (!t->connecting)
			t->cuts++;
	}
	t->fd = -1;
	t->connecting = false;
	t->qoff = 0;
	t->tm_len = t->tm_off = 0;
	t->next_try_ms = lr_ipfix_mono_ms() + t->backoff_ms;
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
	TLOG(NOTICE, "connected (connection %" PRIu64 ")", t->connects);
	t->said_down = false;
	t->tm_off = t->tm_len = 0;
	if (t->x == NULL)
		return;
	m = lr_ipfix_mq_head(&t->q, &len, &rec);
	seq = m != NULL ? lr_ipfix_msg_seq(m) : t->x->seq;
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
			tcp_down(t, err ? err : errno);
		else
			tcp_up(t);
		return;
	}
	if (t->fd >= 0 || lr_ipfix_mono_ms() < t->next_try_ms)
		return;
	t->fd = socket(t->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (t->fd < 0) {
		tcp_down(t, errno);
		return;
	}
	t->connecting = true;
	if (connect(t->fd, (struct sockaddr *)&t->sa, t->salen) == 0)
		tcp_up(t);
	else if (errno != EINPROGRESS)
		tcp_down(t, errno);
}

/*
 * Has the collector closed or reset the connection? An IPFIX collector
 * sends nothing (RFC 7011 10.4), so readable means FIN (recv 0) or an
 * error (ECONNRESET); what a peer does send is read and ignored. Writing
 * on after a FIN would put messages into a socket whose peer has gone:
 * the kernel takes them and the collector never sees them.
 */
static bool
tcp_peer_gone(struct tcp_ctx *t, int *err)
{
	uint8_t b[512];
	int i;

	for (i = 0; i < 64; i++) {
		ssize_t n = recv(t->fd, b, sizeof(b), MSG_DONTWAIT);

		*err = n < 0 ? errno : 0;
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
	int ret, err;

	if (t->fd < 0 || t->connecting)
		return;
	if (tcp_peer_gone(t, &err)) {
		tcp_down(t, err);
		return;
	}
	ret = tcp_write(t, t->tm, t->tm_len, &t->tm_off);
	while (ret == 0 && (m = lr_ipfix_mq_head(&t->q, &len, &rec)) != NULL) {
		if (t->qoff == 0)
			lr_ipfix_stamp_export_time(m);
		ret = tcp_write(t, m, len, &t->qoff);
		if (ret == 0) {
			lr_ipfix_delivered(t->x, len, rec);
			lr_ipfix_mq_pop(&t->q);
			t->qoff = 0;
		}
	}
	if (ret < 0)
		tcp_down(t, errno);
}

int
lr_ipfix_tcp_open(const char *dest, size_t buffer_bytes, void **ctx)
{
	struct sockaddr_storage sa;
	socklen_t salen;
	struct tcp_ctx *t;
	int ret;

	ret = lr_ipfix_collector_addr(dest, SOCK_STREAM, &sa, &salen);
	if (ret != 0)
		return ret;
	t = calloc(1, sizeof(*t));
	if (t == NULL || lr_ipfix_mq_init(&t->q, buffer_bytes) != 0) {
		free(t);
		return lr_err(ENOMEM, "ipfix: no memory for a %zu B buffer",
			      buffer_bytes);
	}
	t->sa = sa;
	t->salen = salen;
	snprintf(t->dest, sizeof(t->dest), "%s", dest);
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
	uint64_t end = lr_ipfix_mono_ms() + wait_ms;

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
		if (lr_ipfix_mono_ms() >= end)
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
	int ret;

	tcp_connect(t);
	tcp_push(t);
	ret = lr_ipfix_mq_take(&t->q, msg, len, records, &t->refused);
	if (ret == LR_IPFIX_QUEUED)
		tcp_push(t);
	return ret;
}

uint64_t
lr_ipfix_tcp_discard(void *ctx)
{
	struct tcp_ctx *t = ctx;

	/* A message half written is cut by the close that follows. */
	t->qoff = 0;
	return lr_ipfix_mq_discard(&t->q, t->x);
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

int
lr_ipfix_tcp_close(void *ctx)
{
	struct tcp_ctx *t = ctx;

	lr_ipfix_mq_discard(&t->q, t->x);
	if (t->fd >= 0)
		close(t->fd);
	lr_ipfix_mq_free(&t->q);
	free(t);
	return 0;
}

static int
tcp_open(const char *where, const struct lr_ipfix_tx_conf *c, void **ctx)
{
	return lr_ipfix_tcp_open(where, c->buffer_bytes, ctx);
}

static void
tcp_report(const void *ctx, json_t *o)
{
	struct lr_ipfix_tcp_state ts;

	lr_ipfix_tcp_state(ctx, &ts);
	json_object_set_new(o, "tcp_waiting_bytes", json_integer((json_int_t)ts.waiting_bytes));
	json_object_set_new(o, "tcp_connects", json_integer((json_int_t)ts.connects));
	json_object_set_new(o, "tcp_refused_messages", json_integer((json_int_t)ts.refused));
	json_object_set_new(o, "tcp_cuts", json_integer((json_int_t)ts.cuts));
	json_object_set_new(o, "tcp_connected", json_boolean(ts.up));
}

static void
tcp_stuck(const void *ctx, int poll_ret, unsigned int wait_s, char *buf,
	  size_t len)
{
	RTE_SET_USED(ctx);
	snprintf(buf, len, "not delivered within %u s: %s", wait_s,
		 poll_ret == -ENOTCONN ? "no connection to the collector" :
		 "the collector reads too slowly");
}

/* One stream per connection: the templates start each one, sent by the
 * transport, never again inside it. */
const struct lr_ipfix_transport_ops lr_ipfix_tx_tcp = {
	.scheme = "tcp:",
	.templates = LR_IPFIX_TX_TMPL_STREAM,
	.open = tcp_open,
	.attach = lr_ipfix_tcp_attach,
	.send = lr_ipfix_tcp_send,
	.poll = lr_ipfix_tcp_poll,
	.discard = lr_ipfix_tcp_discard,
	.close = lr_ipfix_tcp_close,
	.report = tcp_report,
	.stuck = tcp_stuck,
};
