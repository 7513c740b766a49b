/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the IPFIX transports share, inside lib/ipfix only: the collector's
 * address, a monotonic clock, and the queue of whole messages that paced
 * UDP and TCP hold until they leave.
 */
#ifndef LR_IPFIX_TX_PRIV_H
#define LR_IPFIX_TX_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "lr_ipfix.h"

/* The first address getaddrinfo() gives for "HOST:PORT" or "[IPv6]:PORT". */
int lr_ipfix_collector_addr(const char *dest, int socktype,
			    struct sockaddr_storage *sa, socklen_t *salen);

uint64_t lr_ipfix_mono_ns(void);
uint64_t lr_ipfix_mono_ms(void);

/*
 * A FIFO of whole messages for the transports that hold them (paced UDP,
 * TCP), each with its count of data records, so that the exporter learns
 * the fate of every record: delivered or lost, once. Entries sit in
 * [head, tail) of one buffer: an 8 B header (length, records) and the
 * message. Popping moves head; room at the end is made by moving what
 * waits to the front, which costs at most what was popped before it.
 */
struct lr_ipfix_mq {
	uint8_t *buf;
	size_t cap;
	size_t head;
	size_t tail;
	size_t bytes;			/* message bytes waiting */
};

int lr_ipfix_mq_init(struct lr_ipfix_mq *q, size_t cap);
/* 0, or -ENOBUFS: no room, the message is not taken. */
int lr_ipfix_mq_push(struct lr_ipfix_mq *q, const void *msg, size_t len,
		     uint32_t records);
/* A transport's send: @return LR_IPFIX_QUEUED, or -ENOBUFS (no room: the
 * message is lost, counted in *refused). */
int lr_ipfix_mq_take(struct lr_ipfix_mq *q, const void *msg, size_t len,
		     uint32_t records, uint64_t *refused);
/* The oldest message, NULL when none. */
const uint8_t *lr_ipfix_mq_head(const struct lr_ipfix_mq *q, size_t *len,
				uint32_t *records);
void lr_ipfix_mq_pop(struct lr_ipfix_mq *q);
/* Drop every message that waits, each counted lost in @p x (may be NULL).
 * @return messages dropped. */
uint64_t lr_ipfix_mq_discard(struct lr_ipfix_mq *q, struct lr_ipfix *x);
void lr_ipfix_mq_free(struct lr_ipfix_mq *q);

/* RFC 7011 3.1: the export time is when the message leaves the exporter,
 * not when it was made: one that waited for the pace or a collector gets
 * the time it starts to go. */
void lr_ipfix_stamp_export_time(const uint8_t *msg);

/* A message header's sequence number. */
uint32_t lr_ipfix_msg_seq(const uint8_t *msg);

#endif
