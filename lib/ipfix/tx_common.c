/* SPDX-License-Identifier: BSD-3-Clause */
/* What the transports share: collector addresses and the message queue. */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lr_common.h"
#include "tx_priv.h"

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

int
lr_ipfix_collector_addr(const char *dest, int socktype,
			struct sockaddr_storage *sa, socklen_t *salen)
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

uint64_t
lr_ipfix_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t
lr_ipfix_mono_ms(void)
{
	return lr_ipfix_mono_ns() / 1000000;
}

#define MQ_HDR 8

int
lr_ipfix_mq_init(struct lr_ipfix_mq *q, size_t cap)
{
	q->buf = malloc(cap);
	q->cap = cap;
	q->head = q->tail = q->bytes = 0;
	return q->buf == NULL ? -ENOMEM : 0;
}

int
lr_ipfix_mq_push(struct lr_ipfix_mq *q, const void *msg, size_t len,
		 uint32_t records)
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

int
lr_ipfix_mq_take(struct lr_ipfix_mq *q, const void *msg, size_t len,
		 uint32_t records, uint64_t *refused)
{
	if (lr_ipfix_mq_push(q, msg, len, records) != 0) {
		(*refused)++;
		return -ENOBUFS;
	}
	return LR_IPFIX_QUEUED;
}

const uint8_t *
lr_ipfix_mq_head(const struct lr_ipfix_mq *q, size_t *len, uint32_t *records)
{
	uint32_t h[2];

	if (q->head == q->tail)
		return NULL;
	memcpy(h, q->buf + q->head, MQ_HDR);
	*len = h[0];
	*records = h[1];
	return q->buf + q->head + MQ_HDR;
}

void
lr_ipfix_mq_pop(struct lr_ipfix_mq *q)
{
	size_t len;
	uint32_t rec;

	if (lr_ipfix_mq_head(q, &len, &rec) == NULL)
		return;
	q->head += MQ_HDR + len;
	q->bytes -= len;
	if (q->head == q->tail)
		q->head = q->tail = 0;
}

uint64_t
lr_ipfix_mq_discard(struct lr_ipfix_mq *q, struct lr_ipfix *x)
{
	uint64_t n = 0;
	size_t len;
	uint32_t rec;

	while (lr_ipfix_mq_head(q, &len, &rec) != NULL) {
		if (x != NULL)
			lr_ipfix_lost(x, rec);
		lr_ipfix_mq_pop(q);
		n++;
	}
	return n;
}

void
lr_ipfix_mq_free(struct lr_ipfix_mq *q)
{
	free(q->buf);
	q->buf = NULL;
}

void
lr_ipfix_stamp_export_time(const uint8_t *msg)
{
	uint32_t t = (uint32_t)time(NULL);
	uint8_t *p = (uint8_t *)(uintptr_t)msg + 4;

	p[0] = (uint8_t)(t >> 24);
	p[1] = (uint8_t)(t >> 16);
	p[2] = (uint8_t)(t >> 8);
	p[3] = (uint8_t)t;
}

uint32_t
lr_ipfix_msg_seq(const uint8_t *msg)
{
	return (uint32_t)msg[8] << 24 | (uint32_t)msg[9] << 16 |
	       (uint32_t)msg[10] << 8 | msg[11];
}
