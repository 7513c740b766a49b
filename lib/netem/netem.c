/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * netem's per-frame decisions (Linux 6.18 net/sched/sch_netem.c): the
 * kernel's PRNG, correlated draws, table distribution, loss models, the
 * enqueue's order of draws, rate and slots. Written from reading the
 * kernel; the formulas are the kernel's, the code is ours.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "lr_netem.h"

/* The kernel's state numbers (struct netem_sched_data's enums). */
enum {
	TX_IN_GAP_PERIOD = 1,
	TX_IN_BURST_PERIOD,
	LOST_IN_GAP_PERIOD,
	LOST_IN_BURST_PERIOD,
};

enum {
	GOOD_STATE = 1,
	BAD_STATE,
};

/* The lfsr113 minimum values (random32.c's erratum note): s1 > 1, s2 > 7,
 * s3 > 15, s4 > 127. */
static inline uint32_t
seed_min(uint32_t x, uint32_t m)
{
	return x < m ? x + m : x;
}

void
lr_netem_prng_seed(struct lr_netem_prng *s, uint64_t seed)
{
	uint32_t i = (uint32_t)((seed >> 32) ^ (seed << 10) ^ seed);

	s->s1 = seed_min(i, 2U);
	s->s2 = seed_min(i, 8U);
	s->s3 = seed_min(i, 16U);
	s->s4 = seed_min(i, 128U);
}

/* One Tausworthe component: ((s & c) << d) ^ (((s << a) ^ s) >> b). */
#define TAUS(s, a, b, c, d) ((((s) & (c)) << (d)) ^ ((((s) << (a)) ^ (s)) >> (b)))

uint32_t
lr_netem_prng_u32(struct lr_netem_prng *s)
{
	s->s1 = TAUS(s->s1, 6U, 13U, 4294967294U, 18U);
	s->s2 = TAUS(s->s2, 2U, 27U, 4294967288U, 2U);
	s->s3 = TAUS(s->s3, 13U, 21U, 4294967280U, 7U);
	s->s4 = TAUS(s->s4, 3U, 12U, 4294967168U, 13U);
	return s->s1 ^ s->s2 ^ s->s3 ^ s->s4;
}

/* get_crandom(): a weighted mean of a fresh value and the last one. */
static inline uint32_t
crandom(struct lr_netem_crnd *st, struct lr_netem_prng *p)
{
	uint64_t value, rho;
	uint32_t answer;

	if (st == NULL || st->rho == 0)
		return lr_netem_prng_u32(p);
	value = lr_netem_prng_u32(p);
	rho = (uint64_t)st->rho + 1;
	answer = (uint32_t)((value * ((1ULL << 32) - rho) +
			     (uint64_t)st->last * rho) >> 32);
	st->last = answer;
	return answer;
}

/* tabledist() for a table entry @p t: sigma split as the kernel splits it
 * so that sigma * t does not overflow, rounded half away from zero. */
static inline int64_t
table_value(int64_t mu, int32_t sigma, int64_t t)
{
	int64_t x = (int64_t)(sigma % LR_NETEM_DIST_SCALE) * t;

	if (x >= 0)
		x += LR_NETEM_DIST_SCALE / 2;
	else
		x -= LR_NETEM_DIST_SCALE / 2;
	return x / LR_NETEM_DIST_SCALE +
	       (int64_t)(sigma / LR_NETEM_DIST_SCALE) * t + mu;
}

static int64_t
tabledist(int64_t mu, int32_t sigma, struct lr_netem_crnd *st,
	  struct lr_netem_prng *p, const struct lr_netem_dist *d)
{
	uint32_t rnd;

	if (sigma == 0)
		return mu;
	rnd = crandom(st, p);
	if (d == NULL)
		return (int64_t)(rnd % (2 * (uint32_t)sigma)) + mu - sigma;
	return table_value(mu, sigma, lr_netem_dist_at(d, rnd));
}

/* jitter-ar1 (see lr_netem.h): an AR(1) of normals through Phi. */
static int64_t
ar1_dist(struct lr_netem *q, int64_t mu, int32_t sigma,
	 const struct lr_netem_dist *d)
{
	double u1, u2, e, u;
	uint32_t r;

	if (sigma == 0)
		return mu;
	u1 = ((double)lr_netem_prng_u32(&q->prng) + 1.0) / 4294967296.0;
	u2 = (double)lr_netem_prng_u32(&q->prng) / 4294967296.0;
	e = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
	q->ar1_z = q->ar1_rho * q->ar1_z + q->ar1_s * e;
	u = 0.5 * erfc(-q->ar1_z / M_SQRT2);
	r = u >= 1.0 ? UINT32_MAX : (uint32_t)(u * 4294967296.0);
	if (d == NULL)
		return (int64_t)(((uint64_t)r * (2 * (uint64_t)(uint32_t)sigma))
				 >> 32) + mu - sigma;
	return table_value(mu, sigma,
			   d->table[((uint64_t)r * d->size) >> 32]);
}

/* loss_4state(): GI's four-state Markov chain. */
static bool
loss_4state(struct lr_netem *q)
{
	const struct lr_netem_conf *c = q->c;
	uint32_t rnd = lr_netem_prng_u32(&q->prng);

	switch (q->loss_state) {
	case TX_IN_GAP_PERIOD:
		if (rnd < c->a4) {
			q->loss_state = LOST_IN_GAP_PERIOD;
			return true;
		} else if (rnd < c->a1 + c->a4) {
			/* u32 sum as the kernel's: it may wrap */
			q->loss_state = LOST_IN_BURST_PERIOD;
			return true;
		}
		q->loss_state = TX_IN_GAP_PERIOD;
		break;
	case TX_IN_BURST_PERIOD:
		if (rnd < c->a5) {
			q->loss_state = LOST_IN_BURST_PERIOD;
			return true;
		}
		q->loss_state = TX_IN_BURST_PERIOD;
		break;
	case LOST_IN_BURST_PERIOD:
		if (rnd < c->a3) {
			q->loss_state = TX_IN_BURST_PERIOD;
		} else if (rnd < c->a2 + c->a3) {
			q->loss_state = TX_IN_GAP_PERIOD;
		} else {
			q->loss_state = LOST_IN_BURST_PERIOD;
			return true;
		}
		break;
	case LOST_IN_GAP_PERIOD:
		q->loss_state = TX_IN_GAP_PERIOD;
		break;
	}
	return false;
}

/* loss_gilb_ell(): the state moves first, then a second draw decides. */
static bool
loss_gilb_ell(struct lr_netem *q)
{
	const struct lr_netem_conf *c = q->c;

	switch (q->loss_state) {
	case GOOD_STATE:
		if (lr_netem_prng_u32(&q->prng) < c->a1)
			q->loss_state = BAD_STATE;
		if (lr_netem_prng_u32(&q->prng) < c->a4)
			return true;
		break;
	case BAD_STATE:
		if (lr_netem_prng_u32(&q->prng) < c->a2)
			q->loss_state = GOOD_STATE;
		if (lr_netem_prng_u32(&q->prng) > c->a3)
			return true;
		break;
	}
	return false;
}

static inline bool
loss_event(struct lr_netem *q)
{
	const struct lr_netem_conf *c = q->c;

	switch (c->loss_model) {
	case LR_NETEM_LOSS_RANDOM:
		return c->loss && c->loss >= crandom(&q->loss_cor, &q->prng);
	case LR_NETEM_LOSS_4STATE:
		return loss_4state(q);
	case LR_NETEM_LOSS_GEMODEL:
		return loss_gilb_ell(q);
	}
	return false;
}

/* packet_time_ns(): the kernel's u32 cell arithmetic, then len * 1e9 /
 * rate in u64. */
static inline uint64_t
packet_time_ns(const struct lr_netem_conf *c, uint64_t len)
{
	len += (uint64_t)(int64_t)c->packet_overhead;
	if (c->cell_size) {
		uint32_t cells = (uint32_t)len / c->cell_size;

		if (len > (uint64_t)(uint32_t)(cells * c->cell_size))
			cells++;
		len = (uint32_t)(cells * (c->cell_size +
					  (uint32_t)c->cell_overhead));
	}
	return len * 1000000000ULL / c->rate_Bps;
}

static inline void
corrupt_draw(struct lr_netem *q, uint32_t len, struct lr_netem_copy *o)
{
	const struct lr_netem_conf *c = q->c;

	o->corrupt = false;
	if (c->corrupt && c->corrupt >= crandom(&q->corrupt_cor, &q->prng)) {
		o->corrupt = true;
		if (len > 0) {
			o->corrupt_byte = (uint32_t)(((uint64_t)
				lr_netem_prng_u32(&q->prng2) * len) >> 32);
			o->corrupt_bit = (uint8_t)(lr_netem_prng_u32(&q->prng2)
						   >> 29);
		}
	}
}

/*
 * The tail of netem_enqueue() once the copy is kept: reorder to the head,
 * or the delay, with rate's reference to the latest frame in the queue.
 * @p head_tts: a duplicate of this call went to the head queue (its
 * time_to_send is the kernel's sch->q.tail), else 0 with !head.
 */
static void
place(struct lr_netem *q, uint32_t len, uint64_t now, bool head,
      uint64_t head_tts, struct lr_netem_copy *o)
{
	const struct lr_netem_conf *c = q->c;
	int64_t delay;
	uint64_t tts;

	if (c->gap != 0 && q->counter >= c->gap - 1 &&
	    c->reorder >= crandom(&q->reorder_cor, &q->prng)) {
		o->fate = LR_NETEM_HEAD;
		o->tts = now;
		q->counter = 0;
		return;
	}
	if (!c->ar1)
		delay = tabledist(c->latency_ns, (int32_t)c->jitter_ns,
				  &q->delay_cor, &q->prng, c->delay_dist);
	else
		delay = ar1_dist(q, c->latency_ns, (int32_t)c->jitter_ns,
				 c->delay_dist);
	if (c->rate_Bps) {
		uint64_t last = q->last_tts, pt = packet_time_ns(c, len);
		bool have = q->last_valid;

		if (head && (!have || head_tts > last)) {
			have = true;
			last = head_tts;
		}
		if (have) {
			delay = (int64_t)((uint64_t)delay - (last - now));
			if (delay < 0)
				delay = 0;
			now = last;
		}
		/* Saturating: a rate of a few bytes a second and a long
		 * delay would overflow the signed sum (UB). */
		if (pt > (uint64_t)INT64_MAX ||
		    __builtin_add_overflow(delay, (int64_t)pt, &delay))
			delay = INT64_MAX;
	}
	/* Due times saturate too: a wrapped sum would send the frame now. */
	if (delay > 0 && now > UINT64_MAX - (uint64_t)delay)
		tts = UINT64_MAX;
	else
		tts = now + (uint64_t)delay;
	if (c->no_reorder) {
		if (tts < q->max_tts)
			tts = q->max_tts;
		q->max_tts = tts;
	}
	if (!q->last_valid || tts > q->last_tts)
		q->last_tts = tts;
	q->last_valid = true;
	q->counter++;
	o->fate = LR_NETEM_QUEUED;
	o->tts = tts;
}

unsigned int
lr_netem_enqueue_any(struct lr_netem *q, uint32_t len, uint64_t now_ns,
		     uint32_t qlen, struct lr_netem_copy out[2])
{
	const struct lr_netem_conf *c = q->c;
	struct lr_netem_copy *o, *d;
	bool dup = false;

	if (qlen == 0)
		q->last_valid = false;
	if (c->duplicate && c->duplicate >= crandom(&q->dup_cor, &q->prng))
		dup = true;
	if (loss_event(q)) {
		if (!dup) {
			out[0].fate = LR_NETEM_LOST;
			out[0].tts = 0;
			out[0].corrupt = false;
			return 1;
		}
		dup = false;	/* count 2 - 1: the original goes on alone */
	}
	o = &out[dup ? 1 : 0];
	corrupt_draw(q, len, o);
	if (qlen >= c->limit) {
		o->fate = LR_NETEM_OVER_LIMIT;
		o->tts = 0;
		if (dup) {
			out[0].fate = LR_NETEM_OVER_LIMIT;
			out[0].tts = 0;
			out[0].corrupt = false;
			return 2;
		}
		return 1;
	}
	if (!dup) {
		place(q, len, now_ns, false, 0, o);
		return 1;
	}
	/* The clone's own netem_enqueue() at the root, tc_depth 1: no
	 * duplicate draw, the same qlen (the original is not in yet). */
	d = &out[0];
	d->tts = 0;
	if (loss_event(q)) {
		d->fate = LR_NETEM_LOST;
		d->corrupt = false;
	} else {
		corrupt_draw(q, len, d);
		if (qlen >= c->limit)
			d->fate = LR_NETEM_OVER_LIMIT;
		else
			place(q, len, now_ns, false, 0, d);
	}
	place(q, len, now_ns, d->fate == LR_NETEM_HEAD, d->tts, o);
	return 2;
}

/* get_slot_next() */
void
lr_netem_slot_next(struct lr_netem *q, uint64_t now)
{
	const struct lr_netem_conf *c = q->c;
	int64_t next;

	if (c->slot_dist == NULL)
		next = c->slot_min_ns + (int64_t)(((unsigned __int128)
			(uint64_t)(c->slot_max_ns - c->slot_min_ns) *
			lr_netem_prng_u32(&q->prng2)) >> 32);
	else
		next = tabledist(c->slot_dist_delay_ns,
				 (int32_t)c->slot_dist_jitter_ns, NULL,
				 &q->prng, c->slot_dist);
	q->slot_next = now + (uint64_t)next;
	q->slot_packets_left = c->slot_max_packets;
	q->slot_bytes_left = c->slot_max_bytes;
}

static uint64_t
random_seed(void)
{
	uint64_t s;
	struct timespec ts;

	if (getrandom(&s, sizeof(s), 0) == (ssize_t)sizeof(s))
		return s;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^
	       (uint64_t)ts.tv_sec;
}

void
lr_netem_init(struct lr_netem *q, const struct lr_netem_conf *c)
{
	double u1, u2;

	memset(q, 0, sizeof(*q));
	q->c = c;
	q->seed = c->seed_given ? c->seed : random_seed();
	lr_netem_prng_seed(&q->prng, q->seed);
	lr_netem_prng_seed(&q->prng2, q->seed ^ LR_NETEM_PRNG2_XOR);
	/* init_crandom(): rho as given, last from the unseeded source */
	q->delay_cor.rho = c->delay_corr;
	q->delay_cor.last = lr_netem_prng_u32(&q->prng2);
	q->loss_cor.rho = c->loss_corr;
	q->loss_cor.last = lr_netem_prng_u32(&q->prng2);
	q->dup_cor.rho = c->dup_corr;
	q->dup_cor.last = lr_netem_prng_u32(&q->prng2);
	q->reorder_cor.rho = c->reorder_corr;
	q->reorder_cor.last = lr_netem_prng_u32(&q->prng2);
	q->corrupt_cor.rho = c->corrupt_corr;
	q->corrupt_cor.last = lr_netem_prng_u32(&q->prng2);
	/* jitter-ar1 starts stationary: z_0 standard normal */
	u1 = ((double)lr_netem_prng_u32(&q->prng2) + 1.0) / 4294967296.0;
	u2 = (double)lr_netem_prng_u32(&q->prng2) / 4294967296.0;
	q->ar1_z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
	q->ar1_rho = (double)c->delay_corr / (double)UINT32_MAX;
	q->ar1_s = sqrt(1.0 - q->ar1_rho * q->ar1_rho);

	q->loss_state = c->loss_model == LR_NETEM_LOSS_GEMODEL ? GOOD_STATE :
			TX_IN_GAP_PERIOD;
	q->slot_on = c->slot && (c->slot_min_ns | c->slot_max_ns |
				 c->slot_dist_jitter_ns) != 0;
	q->slot_next = 0;
	q->slot_packets_left = c->slot_max_packets;
	q->slot_bytes_left = c->slot_max_bytes;
	/* What lr_netem_enqueue() decides inline: no draw (a zero
	 * probability draws nothing, nor does tabledist() without jitter),
	 * no rate, no reorder, no no-reorder (its max_tts may come from an
	 * earlier SPEC). */
	q->fixed = c->loss_model == LR_NETEM_LOSS_RANDOM && c->loss == 0 &&
		   c->duplicate == 0 && c->corrupt == 0 && c->gap == 0 &&
		   c->jitter_ns == 0 && !c->ar1 && c->rate_Bps == 0 &&
		   !c->no_reorder;
}
