/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Linux netem's decisions, exactly: what sch_netem's netem_enqueue() and
 * netem_dequeue() decide for each frame (lost, duplicated, corrupted, sent
 * to the head of the queue, when it is due), from a SPEC in tc-netem(8)'s
 * own grammar, with the kernel's formulas, its 8192-scaled distribution
 * tables and, with "seed N", its pseudo-random generator (prandom_u32_state
 * seeded by prandom_seed_state), so that a run's decisions can be replayed
 * by anyone who reads sch_netem.c.
 *
 * This library holds no frames: the delay role (lib/delay) stores them and
 * asks it. Times are nanoseconds on any monotonic clock the caller keeps.
 *
 * Threading: lr_netem_parse() and lr_netem_conf_free() are control path;
 * an struct lr_netem belongs to one lcore (no locks, no allocation after
 * lr_netem_init()).
 *
 * Reference: Linux 6.18.y net/sched/sch_netem.c and iproute2 >= 6.9's
 * tc/q_netem.c: latency and jitter through get_time64() (ns; a bare number
 * is ns), "seed", "slot". Debian 12's tc 6.1 differs there only: it reads
 * latency and jitter with get_time() (a bare number is us) and sends 64 ns
 * ticks ("delay 10.5us" is 9984 ns), and has no "seed". "ecn" is refused
 * (no CE marking here); "distribution uniform" is the kernel's default
 * (tc would look for a uniform.dist). tests/unit/netem/tc_xcheck checks
 * the parser against the tc binary's netlink message.
 * What follows the kernel to the letter, including its quirks:
 *  - The order of draws from q->prng in netem_enqueue(): duplicate, loss,
 *    corrupt, [the duplicate's own pass: loss, corrupt, reorder, delay],
 *    reorder, delay; in netem_dequeue() the slot table's draw.
 *  - 6.18 re-enqueues the duplicate at the root (tc_depth != 0 stops it
 *    from duplicating again) after the original's limit check and before
 *    the original's reorder and delay, so the duplicate is in the queue
 *    when the original's rate reference ("last") is looked for.
 *  - Correlation is netem's: next = (rnd * (2^32 - rho') + last * rho')
 *    >> 32 with rho' = rho + 1, a weighted mean of a fresh value and the
 *    last one. It narrows the spread (the mean of two uniforms is not
 *    uniform) and a table's shape is not kept; "jitter-ar1" is the option
 *    that keeps the marginal.
 *  - tc sends TCA_NETEM_CORR only when a delay, loss, reorder or corrupt
 *    correlation is given: "duplicate P C" alone leaves dup_corr 0.
 *  - A delay below 0 (jitter > latency) is kept as the kernel keeps it:
 *    time_to_send = now + delay in u64 arithmetic.
 * What the kernel draws from its unseeded get_random_u32*() comes from
 * q->prng2, seeded with prandom_seed_state(seed ^ LR_NETEM_PRNG2_XOR) and
 * drawn in this order: at lr_netem_init() the initial "last" of the delay,
 * loss, duplicate, reorder and corrupt correlations (init_crandom()), then
 * two draws for jitter-ar1's first state (always, used or not); then for
 * each corrupted copy of len > 0 bytes the byte ((u32 * len) >> 32) and the
 * bit (u32 >> 29); for each uniform slot the kernel's get_random_u32().
 * Slots start on at time 0 (the kernel's slot_next = the time of tc's
 * command; here slot_on says they are on, as slot_next = 0 would not).
 */
#ifndef LR_NETEM_H
#define LR_NETEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LR_NETEM_DIST_SCALE 8192	/**< the kernel's NETEM_DIST_SCALE */
#define LR_NETEM_DIST_MAX 16384		/**< the kernel's NETEM_DIST_MAX */
#define LR_NETEM_PRNG2_XOR 0x9e3779b97f4a7c15ULL /**< prng2's seed: seed ^ this */

/** A distribution table as tc hands it to the kernel: s16 values scaled
 *  by 8192 (an iproute2 .dist file, or one maketable wrote). */
struct lr_netem_dist {
	uint32_t size;
	uint64_t size_m;	/**< 2^64 / size rounded up: lr_netem_dist_at() */
	int16_t *table;
	char name[64];		/**< "normal", or the file's path */
};

/** The kernel's table[rnd % size], without a division: a table's size is
 *  any count up to LR_NETEM_DIST_MAX, and a divl was a third of the cost
 *  of placing a jittered frame (perf). Lemire's remainder by a 64-bit
 *  reciprocal, exact for every 32-bit @p rnd and size. */
static inline int16_t
lr_netem_dist_at(const struct lr_netem_dist *d, uint32_t rnd)
{
	uint64_t low = d->size_m * rnd;

	return d->table[(uint32_t)(((unsigned __int128)low * d->size) >> 64)];
}

enum lr_netem_loss_model {
	LR_NETEM_LOSS_RANDOM,	/**< loss [random] P [C] (CLG_RANDOM) */
	LR_NETEM_LOSS_4STATE,	/**< loss state p13 ... (CLG_4_STATES) */
	LR_NETEM_LOSS_GEMODEL,	/**< loss gemodel p ... (CLG_GILB_ELL) */
};

/** A probability as the kernel keeps it: P in [0, 1] as P * UINT32_MAX,
 *  rounded as tc does; a correlation likewise. */
typedef uint32_t lr_netem_prob_t;

/**
 * A parsed SPEC, in the units the kernel keeps (tc's conversions done):
 * what struct netem_sched_data holds after netem_change().
 */
struct lr_netem_conf {
	/* delay TIME [JITTER [CORRELATION]] [distribution NAME|FILE] */
	int64_t latency_ns;
	int64_t jitter_ns;
	lr_netem_prob_t delay_corr;
	struct lr_netem_dist *delay_dist;	/**< NULL: uniform */

	/* loss */
	enum lr_netem_loss_model loss_model;
	lr_netem_prob_t loss, loss_corr;	/**< random */
	lr_netem_prob_t a1, a2, a3, a4, a5;	/**< as the kernel's clg: 4-state
						 *   a1 p13, a2 p31, a3 p32, a4 p14,
						 *   a5 p23; gemodel a1 p, a2 r,
						 *   a3 h (tc's 1-h turned over),
						 *   a4 1-k */

	lr_netem_prob_t duplicate, dup_corr;
	lr_netem_prob_t corrupt, corrupt_corr;
	lr_netem_prob_t reorder, reorder_corr;
	uint32_t gap;

	/* rate RATE [PACKETOVERHEAD [CELLSIZE [CELLOVERHEAD]]] */
	uint64_t rate_Bps;		/**< bytes per second, 0: no rate */
	int32_t packet_overhead;
	uint32_t cell_size;
	int32_t cell_overhead;

	/* slot MIN [MAX] [packets N] [bytes N], or
	 * slot distribution DIST DELAY JITTER [packets N] [bytes N] */
	bool slot;
	int64_t slot_min_ns, slot_max_ns;
	int64_t slot_dist_delay_ns, slot_dist_jitter_ns;
	struct lr_netem_dist *slot_dist;	/**< NULL: uniform min..max */
	int32_t slot_max_packets;	/**< the kernel's default: INT32_MAX */
	int32_t slot_max_bytes;

	uint32_t limit;			/**< frames held at most */
	bool limit_given;		/**< "limit N" was in the SPEC: else the
					 *   delay role sizes it from the BDP */
	uint64_t seed;
	bool seed_given;		/**< else a random seed at init */

	/* beyond netem */
	bool no_reorder;	/**< "no-reorder": jitter never reorders, a
				 *   frame is due no earlier than the one
				 *   before it */
	bool ar1;		/**< "jitter-ar1": correlated jitter whose
				 *   marginal is the asked distribution, not
				 *   netem's weighted mean. The model (a
				 *   Gaussian copula AR(1)): z_n = rho z_n-1 +
				 *   sqrt(1 - rho^2) e_n, e_n standard normal
				 *   (Box-Muller from two q->prng draws u1, u2:
				 *   sqrt(-2 ln((u1 + 1) / 2^32)) cos(2 pi u2 /
				 *   2^32)), rho the delay CORRELATION; u_n =
				 *   Phi(z_n) is uniform and correlated; it
				 *   picks the value r = u_n 2^32 maps to:
				 *   uniform mu - sigma + (r 2 sigma) >> 32,
				 *   table entry (r size) >> 32 scaled as
				 *   tabledist() does. Lag-1 correlation of
				 *   the delays is about rho (exactly rho's
				 *   rank correlation). */
};

/**
 * Parse @p spec (tc-netem(8): "delay 184ms 8us distribution normal loss
 * 0.1%"; "" or "none": no impairment) into @p c, tc's units and defaults.
 * Distribution names are looked up as tc does ($TC_LIB_DIR, then iproute2's
 * directories); a name with a '/' is a file.
 *
 * @return 0, or -EINVAL with @p err (@p errlen bytes) saying what is wrong
 *   and at which word: "netem: 'delay 10xs': bad time '10xs' (word 2)".
 */
int lr_netem_parse(const char *spec, struct lr_netem_conf *c, char *err,
		   size_t errlen);

/** A TIME of the SPEC's grammar ("184ms", "8us", "1.5s"; a bare number is
 *  ns) into @p ns. @return 0 or -EINVAL. */
int lr_netem_parse_time(const char *s, int64_t *ns);

/** Free the tables a parsed conf holds. */
void lr_netem_conf_free(struct lr_netem_conf *c);

/** True when @p c changes nothing (a plain wire). */
bool lr_netem_conf_is_none(const struct lr_netem_conf *c);

/** The SPEC of @p c back in tc's words, for reports. */
void lr_netem_conf_format(const struct lr_netem_conf *c, char *buf, size_t len);

/** Least and greatest delay tabledist() can give (ns), rate and slots left
 *  out: what the delay role sizes its storage and timing wheel for. */
void lr_netem_delay_bounds(const struct lr_netem_conf *c, int64_t *min_ns,
			   int64_t *max_ns);

/** The kernel's struct rnd_state (lib/random32.c). */
struct lr_netem_prng {
	uint32_t s1, s2, s3, s4;
};

/** The kernel's struct crndstate. */
struct lr_netem_crnd {
	uint32_t last;
	uint32_t rho;
};

/** The per-lcore state of one direction: netem_sched_data's moving parts. */
struct lr_netem {
	const struct lr_netem_conf *c;
	struct lr_netem_prng prng;	/**< the kernel's q->prng */
	struct lr_netem_prng prng2;	/**< what the kernel draws unseeded
					 *   (corrupt's byte and bit, uniform
					 *   slots): ours, seeded from seed */
	struct lr_netem_crnd delay_cor, loss_cor, dup_cor, reorder_cor,
			     corrupt_cor;
	uint32_t counter;		/**< frames since the last reorder */
	uint8_t loss_state;		/**< 4-state / GE state */
	/* slots */
	uint64_t slot_next;
	int32_t slot_packets_left;
	int32_t slot_bytes_left;
	bool slot_on;			/**< slot given with min|max|jitter != 0 */
	/* rate: the latest time_to_send in the tfifo (the kernel's "last") */
	uint64_t last_tts;
	bool last_valid;		/**< the tfifo holds a frame: last_tts is
					 *   its latest time_to_send */
	/* no-reorder: the latest time_to_send ever given (QUEUED) */
	uint64_t max_tts;
	/* jitter-ar1 */
	double ar1_z;
	double ar1_rho, ar1_s;		/**< rho, sqrt(1 - rho^2) */
	uint64_t seed;			/**< the seed in use (given or drawn) */
	bool fixed;			/**< the SPEC is a constant delay and
					 *   nothing else netem_enqueue() draws
					 *   for: lr_netem_enqueue() decides
					 *   inline, as place() would */
};

/** Start @p q on @p c (seeded as the kernel seeds: c->seed, or a random
 *  one when none was given). @p c must outlive @p q. */
void lr_netem_init(struct lr_netem *q, const struct lr_netem_conf *c);

/** The kernel's prandom_seed_state() and prandom_u32_state(). */
void lr_netem_prng_seed(struct lr_netem_prng *s, uint64_t seed);
uint32_t lr_netem_prng_u32(struct lr_netem_prng *s);

/** What netem_enqueue() decided for one copy of a frame. */
enum lr_netem_fate {
	LR_NETEM_QUEUED,	/**< into the tfifo, due at tts */
	LR_NETEM_HEAD,		/**< reordered: to the head, due now */
	LR_NETEM_LOST,		/**< the loss model dropped it */
	LR_NETEM_OVER_LIMIT,	/**< qlen >= limit: dropped */
};

struct lr_netem_copy {
	enum lr_netem_fate fate;
	uint64_t tts;		/**< time_to_send (QUEUED, HEAD) */
	bool corrupt;		/**< flip bit corrupt_bit of byte corrupt_byte */
	uint32_t corrupt_byte;
	uint8_t corrupt_bit;
};

/**
 * One frame of @p len bytes (qdisc_pkt_len: the frame without FCS) arrives
 * at @p now_ns, with @p qlen frames held. Fills @p out with one or two
 * copies in the order the kernel enqueues them (a duplicate first: the
 * kernel's root enqueue of the clone, then the original).
 *
 * The caller sends HEAD copies before the next arrival (the head queue is
 * then empty at each call but for this call's duplicate), and tells
 * lr_netem_queue_empty() when nothing is held; qlen == 0 says it too.
 *
 * @return copies written (1 or 2). A lost frame is one copy LOST. When the
 *   original is over the limit and was duplicated, both copies are
 *   OVER_LIMIT (the kernel frees the clone with it): out[0] the duplicate.
 *   A duplicate drawn while the loss model drops the original cancels it:
 *   one copy, the original, goes on (the kernel's count 2 - 1).
 */
static inline unsigned int lr_netem_enqueue(struct lr_netem *q, uint32_t len,
					    uint64_t now_ns, uint32_t qlen,
					    struct lr_netem_copy out[2]);

/** lr_netem_enqueue() for any SPEC: what it calls but for a constant
 *  delay below the limit. */
unsigned int lr_netem_enqueue_any(struct lr_netem *q, uint32_t len,
				  uint64_t now_ns, uint32_t qlen,
				  struct lr_netem_copy out[2]);

/*
 * A constant delay (q->fixed): what netem_enqueue() decides for frames that
 * arrive at @p now_ns with @p qlen held, below the limit, is the same for
 * each: queued, due at the time returned (place()'s steps for that case:
 * no number is drawn). A call a frame into lib/netem cost the delay role
 * 5-8 % of its cycles (perf, `delay 184ms` at 64 B). After the frames, tell
 * lr_netem_fixed_queued() how many were decided.
 */
static inline uint64_t
lr_netem_fixed_tts(struct lr_netem *q, uint64_t now_ns, uint32_t qlen)
{
	int64_t delay = q->c->latency_ns;

	if (qlen == 0)
		q->last_valid = false;
	if (delay > 0 && now_ns > UINT64_MAX - (uint64_t)delay)
		return UINT64_MAX;
	return now_ns + (uint64_t)delay;
}

/* @p n frames due at @p tts were queued (a queue that went empty between
 * them, lr_netem_queue_empty(), starts its reference again at @p tts). */
static inline void
lr_netem_fixed_queued(struct lr_netem *q, uint64_t tts, uint32_t n)
{
	if (!q->last_valid || tts > q->last_tts)
		q->last_tts = tts;
	q->last_valid = true;
	q->counter += n;
}

static inline unsigned int
lr_netem_enqueue(struct lr_netem *q, uint32_t len, uint64_t now_ns,
		 uint32_t qlen, struct lr_netem_copy out[2])
{
	uint64_t tts;

	if (!q->fixed || qlen >= q->c->limit)
		return lr_netem_enqueue_any(q, len, now_ns, qlen, out);
	tts = lr_netem_fixed_tts(q, now_ns, qlen);
	lr_netem_fixed_queued(q, tts, 1);
	out[0].fate = LR_NETEM_QUEUED;
	out[0].tts = tts;
	out[0].corrupt = false;
	return 1;
}

/**
 * netem_dequeue()'s slot check for the frame at the head of the tfifo, due
 * at @p tts: may it leave at @p now_ns? (Without slots: tts <= now.) When
 * the head's time is past the slot, a new slot is drawn at @p now_ns, as
 * the kernel does, so call it at the times the kernel would dequeue: after
 * each enqueue, and when false, next at max(tts, q->slot_next) (the
 * watchdog's time). Frames of the head queue (HEAD) skip it.
 */
static inline bool lr_netem_may_send(struct lr_netem *q, uint64_t tts,
				     uint64_t now_ns);

/** A frame of @p len bytes from the tfifo (QUEUED, not HEAD: the kernel
 *  counts only those in a slot) left at @p now_ns. */
static inline void lr_netem_sent(struct lr_netem *q, uint32_t len,
				 uint64_t now_ns);

/** The queue went empty: rate's "last" reference is gone (the kernel
 *  finds no tail). */
static inline void
lr_netem_queue_empty(struct lr_netem *q)
{
	q->last_valid = false;
}

/** get_slot_next(): the next slot opens after a delay, with a fresh
 *  budget (what lr_netem_may_send() and lr_netem_sent() call). */
void lr_netem_slot_next(struct lr_netem *q, uint64_t now_ns);

/* Inline: called for every frame that leaves, and without slots they
 * compare two times. */
static inline bool
lr_netem_may_send(struct lr_netem *q, uint64_t tts, uint64_t now_ns)
{
	if (q->slot_on && q->slot_next < tts)
		lr_netem_slot_next(q, now_ns);
	return tts <= now_ns && q->slot_next <= now_ns;
}

static inline void
lr_netem_sent(struct lr_netem *q, uint32_t len, uint64_t now_ns)
{
	if (!q->slot_on)
		return;
	q->slot_packets_left--;
	q->slot_bytes_left -= (int32_t)len;
	if (q->slot_packets_left <= 0 || q->slot_bytes_left <= 0)
		lr_netem_slot_next(q, now_ns);
}

/** A distribution table from an iproute2 .dist file or maketable's output
 *  (@p path), or by name from tc's directories. NULL with lr_errmsg(). */
struct lr_netem_dist *lr_netem_dist_load(const char *name_or_path);
void lr_netem_dist_free(struct lr_netem_dist *d);

/**
 * iproute2's maketable: a distribution table from @p n samples (any unit),
 * written to @p path in the .dist format tc reads; *@p mu and *@p sigma
 * (the samples' mean and standard deviation, the "delay MU SIGMA" to use
 * with it). The 4096 values are maketable's own, to the digit (checked
 * against it); the file has one more '#' line saying n, mu and sigma.
 * @return 0 or -errno with lr_errmsg(): -EINVAL fewer than 2 samples or
 *   no spread, -ENOMEM, or fopen's.
 */
int lr_netem_maketable(const double *samples, size_t n, const char *path,
		       double *mu, double *sigma);

#endif
