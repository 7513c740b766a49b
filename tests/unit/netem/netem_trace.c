/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * netem_trace 'SPEC' < arrivals: one netem qdisc with an ideal dequeue,
 * driven through lr_netem.h, for an independent re-implementation of
 * sch_netem.c to compare against (the golden test).
 *
 * stdin: "T_NS LEN" a line, T non-decreasing. Events in time order: at
 * each arrival time T, first every dequeue attempt due at or before T (the
 * watchdog's times: max(time_to_send, slot_next) of the tfifo's head after
 * an attempt that found nothing to send), then the arrival is enqueued with
 * qlen = frames held, then a dequeue attempt at T (qdisc_run after the
 * enqueue; it sends the head queue, last in first out as the kernel's
 * __qdisc_enqueue_head/__qdisc_dequeue_head). After the last line, drain.
 *
 * stdout, a line per event:
 *   E <i> <o|d> <queued|head|lost|limit> <tts> <corrupt 0|1>
 *   D <i> <o|d> <t>
 * i the 0-based arrival index; per arrival the duplicate's E line first.
 * tts is 0 for lost and limit; corrupt is what the enqueue decided (an
 * original over the limit was corrupted before the kernel's limit check;
 * a duplicate dropped with it never had its own pass: 0).
 * Exit 2 when SPEC does not parse, 1 on bad input.
 *
 * netem_trace --conf 'SPEC' prints the parsed SPEC in the kernel's units,
 * "name value" a line (what netem_change() would hold), and exits.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_netem.h"

struct frame {
	uint64_t tts;
	uint64_t seq;		/* insertion order: ties leave in it */
	uint64_t i;
	uint32_t len;
	bool dup;
};

struct heap {
	struct frame *f;
	size_t n, cap;
};

static bool
before(const struct frame *a, const struct frame *b)
{
	return a->tts < b->tts || (a->tts == b->tts && a->seq < b->seq);
}

static void
grow(struct frame **f, size_t *cap, size_t n)
{
	if (n < *cap)
		return;
	*cap = *cap ? *cap * 2 : 1024;
	*f = realloc(*f, *cap * sizeof(**f));
	if (*f == NULL) {
		perror("netem_trace");
		exit(1);
	}
}

static void
heap_push(struct heap *h, const struct frame *x)
{
	size_t k, up;

	grow(&h->f, &h->cap, h->n);
	k = h->n++;
	while (k > 0) {
		up = (k - 1) / 2;
		if (!before(x, &h->f[up]))
			break;
		h->f[k] = h->f[up];
		k = up;
	}
	h->f[k] = *x;
}

static struct frame
heap_pop(struct heap *h)
{
	struct frame top = h->f[0], last = h->f[--h->n];
	size_t k = 0, c;

	while ((c = 2 * k + 1) < h->n) {
		if (c + 1 < h->n && before(&h->f[c + 1], &h->f[c]))
			c++;
		if (!before(&h->f[c], &last))
			break;
		h->f[k] = h->f[c];
		k = c;
	}
	if (h->n > 0)
		h->f[k] = last;
	return top;
}

static struct lr_netem q;
static struct heap tfifo;
static struct frame *headq;	/* a stack: the kernel's head queue */
static size_t headq_n, headq_cap;
static uint64_t wd;		/* the watchdog's next attempt */
static bool wd_on;

static void
depart(const struct frame *f, uint64_t t)
{
	printf("D %" PRIu64 " %c %" PRIu64 "\n", f->i, f->dup ? 'd' : 'o', t);
}

/* qdisc_run at @p t: netem_dequeue() until it returns nothing. */
static void
dequeue_at(uint64_t t)
{
	struct frame f;

	wd_on = false;
	for (;;) {
		if (headq_n > 0) {
			f = headq[--headq_n];
			depart(&f, t);
		} else if (tfifo.n == 0) {
			return;
		} else if (lr_netem_may_send(&q, tfifo.f[0].tts, t)) {
			f = heap_pop(&tfifo);
			lr_netem_sent(&q, f.len, t);
			depart(&f, t);
		} else {
			wd = tfifo.f[0].tts > q.slot_next ? tfifo.f[0].tts :
			     q.slot_next;
			wd_on = true;
			return;
		}
		if (headq_n == 0 && tfifo.n == 0)
			lr_netem_queue_empty(&q);
	}
}

static void
fire_until(uint64_t t)
{
	while (wd_on && wd <= t)
		dequeue_at(wd);
}

static void
print_conf(const struct lr_netem_conf *c)
{
	printf("latency_ns %" PRId64 "\njitter_ns %" PRId64 "\n"
	       "delay_corr %u\ndelay_dist %s\ndelay_dist_size %u\n",
	       c->latency_ns, c->jitter_ns, c->delay_corr,
	       c->delay_dist ? c->delay_dist->name : "-",
	       c->delay_dist ? c->delay_dist->size : 0);
	printf("loss_model %d\nloss %u\nloss_corr %u\n"
	       "a1 %u\na2 %u\na3 %u\na4 %u\na5 %u\n",
	       (int)c->loss_model, c->loss, c->loss_corr, c->a1, c->a2, c->a3,
	       c->a4, c->a5);
	printf("duplicate %u\ndup_corr %u\ncorrupt %u\ncorrupt_corr %u\n"
	       "reorder %u\nreorder_corr %u\ngap %u\n",
	       c->duplicate, c->dup_corr, c->corrupt, c->corrupt_corr,
	       c->reorder, c->reorder_corr, c->gap);
	printf("rate_Bps %" PRIu64 "\npacket_overhead %d\ncell_size %u\n"
	       "cell_overhead %d\n", c->rate_Bps, c->packet_overhead,
	       c->cell_size, c->cell_overhead);
	printf("slot %d\nslot_min_ns %" PRId64 "\nslot_max_ns %" PRId64 "\n"
	       "slot_dist %s\nslot_dist_delay_ns %" PRId64 "\n"
	       "slot_dist_jitter_ns %" PRId64 "\nslot_max_packets %d\n"
	       "slot_max_bytes %d\n", c->slot, c->slot_min_ns, c->slot_max_ns,
	       c->slot_dist ? c->slot_dist->name : "-", c->slot_dist_delay_ns,
	       c->slot_dist_jitter_ns, c->slot_max_packets, c->slot_max_bytes);
	printf("limit %u\nseed %" PRIu64 "\nseed_given %d\nno_reorder %d\n"
	       "ar1 %d\n", c->limit, c->seed, c->seed_given, c->no_reorder,
	       c->ar1);
}

int
main(int argc, char **argv)
{
	static const char *const fate[] = {
		[LR_NETEM_QUEUED] = "queued",
		[LR_NETEM_HEAD] = "head",
		[LR_NETEM_LOST] = "lost",
		[LR_NETEM_OVER_LIMIT] = "limit",
	};
	struct lr_netem_conf c;
	struct lr_netem_copy out[2];
	char err[512], line[256];
	unsigned long long t, len;
	uint64_t i = 0, seq = 0;
	unsigned int n, k;
	struct frame f;

	if (argc == 3 && strcmp(argv[1], "--conf") == 0) {
		if (lr_netem_parse(argv[2], &c, err, sizeof(err)) != 0) {
			fprintf(stderr, "%s\n", err);
			return 2;
		}
		print_conf(&c);
		lr_netem_conf_free(&c);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: netem_trace [--conf] 'SPEC' < arrivals\n");
		return 2;
	}
	if (lr_netem_parse(argv[1], &c, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	lr_netem_init(&q, &c);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (line[0] == '\n' || line[0] == '#')
			continue;
		if (sscanf(line, "%llu %llu", &t, &len) != 2 ||
		    len > UINT32_MAX) {
			fprintf(stderr, "netem_trace: line %" PRIu64 ": want "
				"'T_NS LEN'\n", i + 1);
			return 1;
		}
		fire_until(t);
		n = lr_netem_enqueue(&q, (uint32_t)len, t,
				     (uint32_t)(tfifo.n + headq_n), out);
		for (k = 0; k < n; k++) {
			f.i = i;
			f.dup = n == 2 && k == 0;
			f.len = (uint32_t)len;
			f.tts = out[k].tts;
			f.seq = seq++;
			printf("E %" PRIu64 " %c %s %" PRIu64 " %d\n", i,
			       f.dup ? 'd' : 'o', fate[out[k].fate],
			       out[k].fate <= LR_NETEM_HEAD ? out[k].tts : 0,
			       out[k].corrupt ? 1 : 0);
			if (out[k].fate == LR_NETEM_QUEUED) {
				heap_push(&tfifo, &f);
			} else if (out[k].fate == LR_NETEM_HEAD) {
				grow(&headq, &headq_cap, headq_n);
				headq[headq_n++] = f;
			}
		}
		dequeue_at(t);
		i++;
	}
	while (wd_on)
		dequeue_at(wd);
	lr_netem_conf_free(&c);
	free(tfifo.f);
	free(headq);
	return 0;
}
