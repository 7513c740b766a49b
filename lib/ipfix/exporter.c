/* SPDX-License-Identifier: BSD-3-Clause */
/* The process's one IPFIX exporter: see lr_exporter.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_alarm.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>
#include <rte_spinlock.h>

#include "lr_common.h"
#include "lr_exporter.h"
#include "lr_opt.h"

#define DRAIN_BURST 64
/* The interrupt thread's turn: as often as the main lcore's tick, so that
 * a ring drains as fast whatever the main lcore does. */
#define ALARM_US 1000
/* Rings at once: one per probe task alive. */
#define RINGS_MAX 1024

static int
none_send(void *ctx, const void *msg, size_t len, uint32_t records)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(msg);
	RTE_SET_USED(len);
	RTE_SET_USED(records);
	return 0;	/* export=none: count, send nowhere */
}

static int
none_open(const char *where, const struct lr_ipfix_tx_conf *c, void **ctx)
{
	RTE_SET_USED(where);
	RTE_SET_USED(c);
	*ctx = NULL;
	return 0;
}

static int
none_close(void *ctx)
{
	RTE_SET_USED(ctx);
	return 0;
}

/* Counts what it would have sent: the probe's cost without a collector. */
static const struct lr_ipfix_transport_ops tx_none = {
	.scheme = "none",
	.templates = LR_IPFIX_TX_TMPL_ONCE,
	.open = none_open,
	.send = none_send,
	.close = none_close,
};

static const struct lr_ipfix_transport_ops *const transports[] = {
	&lr_ipfix_tx_udp, &lr_ipfix_tx_tcp, &lr_ipfix_tx_file, &tx_none,
};

static struct {
	rte_spinlock_t lock;		/* who drains, sends and counts: the
					 * main lcore or the alarm */
	bool up;
	bool alarm;			/* the alarm sets itself again (atomic) */
	struct lr_exporter_conf conf;
	const struct lr_ipfix_transport_ops *ops;
	void *ctx;
	struct lr_ipfix x;
	uint64_t flush_s;
	uint64_t lost_before;		/* records lost by a closed exporter */
	char close_err[256];		/* why a transport's close failed, "" */
	unsigned int users;		/* opens not yet closed */
	struct rte_ring *rings[RINGS_MAX];
	unsigned int nb_rings;
} ex = { .lock = RTE_SPINLOCK_INITIALIZER };

void
lr_exporter_conf_init(struct lr_exporter_conf *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->to, sizeof(c->to), "none");
	c->rate_mps = LR_EXPORTER_RATE;
	c->wait_s = LR_EXPORTER_WAIT_S;
	c->buffer_bytes = LR_EXPORTER_BUFFER;
	lr_ipfix_conf_init(&c->ipfix);
}

static const struct lr_ipfix_transport_ops *
transport_of(const char *to, const char **where)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(transports); i++) {
		const char *s = transports[i]->scheme;

		if (strncmp(to, s, strlen(s)) == 0 &&
		    (s[strlen(s) - 1] == ':' || to[strlen(s)] == '\0')) {
			*where = to + strlen(s);
			return transports[i];
		}
	}
	return NULL;
}

/*
 * The host part of a collector, checked when the option is given (a bad
 * option: exit 2 before EAL) where getaddrinfo() at exporter start would
 * only find it after the ports are up: "[IPv6]" with a valid address and
 * its closing bracket, or a name or IPv4 address without colons (a bare
 * IPv6 address needs brackets). lr_ipfix_dest_check() checks the port;
 * names are resolved when the exporter starts.
 */
static int
check_collector_host(const char *spec, const char *dest)
{
	char host[INET6_ADDRSTRLEN];
	struct in6_addr a6;
	const char *colon = strrchr(dest, ':'), *close;
	size_t n;

	if (colon == NULL || colon == dest)
		goto bad;
	if (dest[0] == '[') {
		close = strchr(dest, ']');
		n = close == NULL ? 0 : (size_t)(close - dest - 1);
		if (close == NULL || close + 1 != colon || n == 0 ||
		    n >= sizeof(host))
			goto bad;
		memcpy(host, dest + 1, n);
		host[n] = '\0';
		if (inet_pton(AF_INET6, host, &a6) != 1)
			goto bad;
	} else if (memchr(dest, ':', (size_t)(colon - dest)) != NULL) {
		goto bad;
	}
	return 0;
bad:
	return lr_err(EINVAL, "probe: export '%s': want HOST:PORT or "
		      "[IPv6]:PORT", spec);
}

/* --export's check (LR_OPT_STR: the table copies it once it passes): a
 * transport of ours and, for UDP and TCP, a port and a host form that can
 * be, so that a bad one is a bad option (exit 2), found before EAL. */
static int
check_to(void *conf, const char *key, const char *val)
{
	const struct lr_ipfix_transport_ops *ops;
	const char *where;
	int ret;

	RTE_SET_USED(conf);
	RTE_SET_USED(key);
	ops = transport_of(val, &where);
	if (ops == NULL)
		return lr_err(EINVAL, "probe: export '%s': want udp:HOST:PORT, "
			      "tcp:HOST:PORT, file:PATH or none", val);
	if (ops == &lr_ipfix_tx_udp || ops == &lr_ipfix_tx_tcp) {
		ret = lr_ipfix_dest_check(where);
		if (ret == 0)
			ret = check_collector_host(val, where);
		if (ret != 0)
			return ret;
	}
	return 0;
}

#define EC(field) LR_OPT_FIELD(struct lr_exporter_conf, field)

/* The export's options, in the probe's table (lr_opt.h). */
const struct lr_opt lr_exporter_opts[] = {
	{ "export", LR_OPT_STRING(struct lr_exporter_conf, to, 0, check_to), "TO",
	  "`udp:HOST:PORT` (IPv4, a name, or `[IPv6]:PORT`; PORT 1..65535, "
	  "anything else is a bad option), `tcp:HOST:PORT`, `file:PATH` (IPFIX "
	  "file, RFC 5655; `file:-` is stdout, which then holds IPFIX alone: "
	  "the live line and the summary go to stderr), or `none` (none)",
	  "`--export tcp:192.0.2.10:4739`", NULL },
	{ "export-rate", LR_OPT_UINT, EC(rate_mps), 0, 10000000, NULL, "N",
	  "UDP: IPFIX messages a second, the end-of-run flush included; 0: as "
	  "fast as they come (2000: about 50,000 records/s, 18 Mbit/s at the "
	  "default MTU)", "`--export-rate 20000`", NULL },
	{ "export-wait", LR_OPT_UINT, EC(wait_s), 0, 3600, NULL, "S",
	  "when the tasks stop, what still waits for the pace (UDP) or for the "
	  "collector (TCP) gets up to S s; then it is dropped, counted in "
	  "`records_lost`, and said on stderr (10)", "`--export-wait 60`", NULL },
	{ "biflow", LR_OPT_BOOL, EC(ipfix.biflow), 0, 1, NULL, "0|1",
	  "both directions of a flow in one record (RFC 5103): the first "
	  "packet's sender is the source, the other direction in "
	  "reverseOctetDeltaCount, reversePacketDeltaCount, "
	  "reverseTcpControlBits, reverseMinimumTTL, reverseMaximumTTL (PEN "
	  "29305) (0)", "`--biflow 1`", NULL },
	{ "ns", LR_OPT_BOOL, EC(ipfix.nanoseconds), 0, 1, NULL, "0|1",
	  "flowStartNanoseconds/flowEndNanoseconds instead of the Milliseconds "
	  "pair (0)", "`--ns 1`", NULL },
	{ "domain", LR_OPT_UINT, EC(ipfix.domain), 0, UINT32_MAX, NULL, "ID",
	  "IPFIX observation domain id (0)", "`--domain 7`", NULL },
	/* The templates and an IPv6 biflow record must fit (lr_ipfix_init). */
	{ "ipfix-mtu", LR_OPT_UINT, EC(ipfix.mtu), 256, 65535, NULL, "B",
	  "largest IPFIX message (1472: 1500 B IPv4 path MTU less headers)",
	  "`--ipfix-mtu 8972`", NULL },
	{ "template-every", LR_OPT_UINT, EC(ipfix.template_every), 0, UINT32_MAX,
	  NULL, "N", "UDP: templates again every N messages (100); a file gets "
	  "them once", "`--template-every 10`", NULL },
	{ "template-period", LR_OPT_UINT, EC(ipfix.template_period_s), 0, 86400,
	  NULL, "S", "UDP: templates again every S s (60)",
	  "`--template-period 10`", NULL },
	{ 0 },
};

int
lr_exporter_conf_set(struct lr_exporter_conf *c, const char *key,
		     const char *val)
{
	return lr_opt_set(lr_exporter_opts, c, "probe", key, val);
}

static uint64_t
unix_s(void)
{
	return (uint64_t)time(NULL);
}

/* Take what @p r holds into IPFIX messages. Lock held: the one consumer. */
static void
drain(struct rte_ring *r, uint64_t now_s)
{
	/* Records with their applications' fields, or without. */
	static struct lr_flow_rec_app buf[DRAIN_BURST];
	size_t esize = lr_exporter_rec_bytes();
	unsigned int n, i;

	do {
		n = rte_ring_sc_dequeue_burst_elem(r, buf, (unsigned int)esize,
						   DRAIN_BURST, NULL);
		for (i = 0; i < n; i++)
			lr_ipfix_add(&ex.x, (const struct lr_flow_rec *)
				     ((const uint8_t *)buf + i * esize), now_s);
	} while (n == DRAIN_BURST);
}

/* Lock held. */
static void
poll_locked(void)
{
	uint64_t now_s = unix_s();
	unsigned int i;

	for (i = 0; i < ex.nb_rings; i++)
		drain(ex.rings[i], now_s);
	if (ex.ops->poll != NULL)
		ex.ops->poll(ex.ctx, 0);	/* the pace, a reconnect: what is due */
	/* Records do not wait in a half-full message for more than 1 s. */
	if (now_s > ex.flush_s) {
		lr_ipfix_flush(&ex.x, now_s);
		ex.flush_s = now_s;
	}
}

/* The interrupt thread's turn; skipped while the main lcore has the lock
 * (it may deliver for seconds, and the interrupt thread also serves the
 * ports' events: it must never wait here). */
static void
alarm_cb(void *arg)
{
	RTE_SET_USED(arg);
	if (!__atomic_load_n(&ex.alarm, __ATOMIC_ACQUIRE))
		return;
	if (rte_spinlock_trylock(&ex.lock)) {
		if (ex.up)
			poll_locked();
		rte_spinlock_unlock(&ex.lock);
	}
	if (__atomic_load_n(&ex.alarm, __ATOMIC_ACQUIRE) &&
	    rte_eal_alarm_set(ALARM_US, alarm_cb, NULL) != 0)
		__atomic_store_n(&ex.alarm, false, __ATOMIC_RELEASE);
}

/* Stop the alarm; returns once no callback runs or is due. */
static void
alarm_stop(void)
{
	__atomic_store_n(&ex.alarm, false, __ATOMIC_RELEASE);
	/* Waits for a callback running on the interrupt thread, and removes
	 * the alarm it may have set again meanwhile (eal_alarm.c loops while
	 * one executes). */
	rte_eal_alarm_cancel(alarm_cb, NULL);
}

static int
same_conf(const struct lr_exporter_conf *c)
{
	if (strcmp(ex.conf.to, c->to) != 0 ||
	    ex.conf.ipfix.biflow != c->ipfix.biflow ||
	    ex.conf.ipfix.nanoseconds != c->ipfix.nanoseconds ||
	    ex.conf.ipfix.apps != c->ipfix.apps ||
	    ex.conf.ipfix.xtra != c->ipfix.xtra ||
	    (ex.ops == &lr_ipfix_tx_udp && ex.conf.rate_mps != c->rate_mps))
		return lr_err(EINVAL, "probe: one exporter per process: "
			      "'%s'%s%s already; every probe task must "
			      "give the same export, biflow, ns, flow-ext and "
			      "export-rate", ex.conf.to,
			      ex.conf.ipfix.biflow ? " biflow" : "",
			      ex.conf.ipfix.nanoseconds ? " ns" : "");
	return 0;
}

int
lr_exporter_open(const struct lr_exporter_conf *c)
{
	const struct lr_ipfix_transport_ops *ops;
	struct lr_ipfix_tx_conf tc = { c->rate_mps, c->buffer_bytes };
	struct lr_ipfix_conf ic = c->ipfix;
	const char *where;
	int ret;

	if (ex.up) {
		ret = same_conf(c);
		if (ret == 0)
			ex.users++;
		return ret;
	}
	ops = transport_of(c->to, &where);
	if (ops == NULL)
		return lr_err(EINVAL, "probe: export '%s': want udp:HOST:PORT, "
			      "tcp:HOST:PORT, file:PATH or none", c->to);
	if (ops->templates != LR_IPFIX_TX_TMPL_RESEND) {
		ic.template_every = 0;
		ic.template_period_s = 0;
	}
	ic.transport_templates = ops->templates == LR_IPFIX_TX_TMPL_STREAM;
	ret = ops->open(where, &tc, &ex.ctx);
	if (ret != 0)
		return ret;
	ret = lr_ipfix_init(&ex.x, &ic, ops->send, ex.ctx);
	if (ret != 0)
		goto close_tx;
	if (ops->attach != NULL)
		ops->attach(ex.ctx, &ex.x);
	ex.conf = *c;
	ex.ops = ops;
	ex.flush_s = unix_s();
	ex.users = 1;
	ex.up = true;
	/* Without the alarm (no EAL interrupt thread) the tick hook alone
	 * drives the export, as it did before there was one. */
	__atomic_store_n(&ex.alarm, true, __ATOMIC_RELEASE);
	if (rte_eal_alarm_set(ALARM_US, alarm_cb, NULL) != 0)
		__atomic_store_n(&ex.alarm, false, __ATOMIC_RELEASE);
	return 0;

close_tx:
	ops->close(ex.ctx);
	return ret;
}

/* The tasks have stopped, the last message is out of the encoder: what
 * waits in the transport (for the pace, or for a TCP collector) gets up to
 * wait_s, and what is still there then is dropped and counted lost, so
 * that the results read after a stop are final and the process never ends
 * with records it neither sent nor counted. Lock held. */
static void
deliver_locked(void)
{
	uint64_t msgs, recs, hz = rte_get_timer_hz(), now, end;
	char why[160] = "";
	int ret = 0;

	if (ex.ops->poll == NULL || ex.x.c.waiting == 0)
		return;
	now = rte_get_timer_cycles();
	end = now + (uint64_t)ex.conf.wait_s * hz;
	/* In slices of 0.5 s (TCP's reconnect step), so that Ctrl-C cuts the
	 * wait short. */
	do {
		ret = ex.ops->poll(ex.ctx, (unsigned int)RTE_MIN((end - now) * 1000 / hz,
								 (uint64_t)500));
		now = rte_get_timer_cycles();
	} while (ret != 0 && now < end && !lr_interrupted());
	if (ex.x.c.waiting == 0)
		return;
	msgs = ex.x.c.waiting;
	recs = ex.x.c.records_waiting;
	ex.ops->discard(ex.ctx);
	if (ex.ops->stuck != NULL)
		ex.ops->stuck(ex.ctx, ret, ex.conf.wait_s, why, sizeof(why));
	fprintf(stderr, "linerate: probe: export %s: %" PRIu64 " messages "
		"(%" PRIu64 " records) %s; dropped, counted in records_lost\n",
		ex.conf.to, msgs, recs, why);
}

void
lr_exporter_deliver(void)
{
	uint64_t now_s = unix_s();
	unsigned int i;

	if (!ex.up)
		return;
	rte_spinlock_lock(&ex.lock);
	for (i = 0; i < ex.nb_rings; i++)
		drain(ex.rings[i], now_s);
	lr_ipfix_flush(&ex.x, now_s);
	deliver_locked();
	rte_spinlock_unlock(&ex.lock);
}

void
lr_exporter_close(void)
{
	if (!ex.up || --ex.users != 0)
		return;
	alarm_stop();
	rte_spinlock_lock(&ex.lock);
	lr_ipfix_close(&ex.x, unix_s());
	deliver_locked();
	if (ex.ops->close(ex.ctx) != 0)
		snprintf(ex.close_err, sizeof(ex.close_err), "%s", lr_errmsg());
	ex.lost_before += ex.x.c.records_lost;
	ex.up = false;
	rte_spinlock_unlock(&ex.lock);
}

size_t
lr_exporter_rec_bytes(void)
{
	RTE_BUILD_BUG_ON(sizeof(struct lr_flow_rec) % 4 != 0 ||
			 sizeof(struct lr_flow_rec_app) % 4 != 0);
	return ex.conf.ipfix.apps != 0 || ex.conf.ipfix.xtra != 0 ?
	       sizeof(struct lr_flow_rec_app) :
	       sizeof(struct lr_flow_rec);
}

struct rte_ring *
lr_exporter_ring(unsigned int records, int socket)
{
	static unsigned int seq;
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *r;

	if (ex.nb_rings == RINGS_MAX) {
		rte_errno = ENOSPC;
		lr_err(ENOSPC, "probe: more than %u export rings", RINGS_MAX);
		return NULL;
	}
	snprintf(name, sizeof(name), "lr_probe_%u", seq++);
	/* One producer (a task's lcore), one consumer (the lock's holder). */
	r = rte_ring_create_elem(name, (unsigned int)lr_exporter_rec_bytes(),
				 rte_align32pow2(records), socket,
				 RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r == NULL) {
		lr_err(ENOMEM, "probe: no export ring of %u records", records);
		return NULL;
	}
	rte_spinlock_lock(&ex.lock);
	ex.rings[ex.nb_rings++] = r;
	rte_spinlock_unlock(&ex.lock);
	return r;
}

void
lr_exporter_ring_free(struct rte_ring *r)
{
	unsigned int i;

	if (r == NULL)
		return;
	rte_spinlock_lock(&ex.lock);
	for (i = 0; i < ex.nb_rings; i++) {
		if (ex.rings[i] != r)
			continue;
		if (ex.up)
			drain(r, unix_s());
		ex.rings[i] = ex.rings[--ex.nb_rings];
		break;
	}
	rte_spinlock_unlock(&ex.lock);
	rte_ring_free(r);
}

void
lr_exporter_poll(void)
{
	if (!ex.up)
		return;
	rte_spinlock_lock(&ex.lock);
	poll_locked();
	rte_spinlock_unlock(&ex.lock);
}

int
lr_exporter_add(const struct lr_flow_rec *r)
{
	int ret;

	rte_spinlock_lock(&ex.lock);
	ret = lr_ipfix_add(&ex.x, r, unix_s());
	rte_spinlock_unlock(&ex.lock);
	return ret;
}

int
lr_exporter_stats(uint64_t ignored, uint64_t dropped, uint64_t not_sent)
{
	int ret;

	rte_spinlock_lock(&ex.lock);
	ret = lr_ipfix_stats(&ex.x, ignored, dropped, not_sent, unix_s());
	rte_spinlock_unlock(&ex.lock);
	return ret;
}

bool
lr_exporter_up(void)
{
	return ex.up;
}

uint64_t
lr_exporter_records(void)
{
	uint64_t n;

	if (!ex.up)
		return 0;
	rte_spinlock_lock(&ex.lock);
	n = ex.x.c.records;
	rte_spinlock_unlock(&ex.lock);
	return n;
}

void
lr_exporter_report(json_t *e)
{
	json_object_set_new(e, "to", json_string(ex.up ? ex.conf.to : "closed"));
	if (!ex.up)
		return;
	rte_spinlock_lock(&ex.lock);
	json_object_set_new(e, "messages", json_integer((json_int_t)ex.x.c.messages));
	json_object_set_new(e, "records", json_integer((json_int_t)ex.x.c.records));
	json_object_set_new(e, "bytes", json_integer((json_int_t)ex.x.c.bytes));
	json_object_set_new(e, "send_errors", json_integer((json_int_t)ex.x.c.send_errors));
	json_object_set_new(e, "records_lost", json_integer((json_int_t)ex.x.c.records_lost));
	json_object_set_new(e, "records_waiting", json_integer((json_int_t)ex.x.c.records_waiting));
	if (ex.ops->report != NULL)
		ex.ops->report(ex.ctx, e);
	rte_spinlock_unlock(&ex.lock);
}

int
lr_exporter_check(void)
{
	uint64_t lost;

	rte_spinlock_lock(&ex.lock);
	lost = ex.lost_before + (ex.up ? ex.x.c.records_lost : 0);
	rte_spinlock_unlock(&ex.lock);
	if (lost != 0)
		return lr_err(EIO, "probe: %" PRIu64 " IPFIX records not "
			      "delivered to %s (records_lost)", lost, ex.conf.to);
	if (ex.close_err[0] != '\0')
		return lr_err(EIO, "probe: export %s: %s: the records counted "
			      "delivered may not all be there", ex.conf.to,
			      ex.close_err);
	return 0;
}
