/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Each device's own software latency from round-trip times measured between
 * pairs of devices (Puttnies et al., "Algorithmic Approach to Estimate
 * Variant Software Latencies", seed 001, eq. 1-6), as a streaming solver.
 *
 * The model. A frame of pair (a, b) leaves a, crosses the hardware (wires,
 * switches: h), is received and sent back by b, crosses the hardware again
 * and is received by a:
 *
 *     RTT_ab = Tx_a + Rx_b + Tx_b + Rx_a + 2 h_ab
 *
 * The seed writes RTT = 2 t_a + 2 t_b + 2 h (eq. 1): a device's one-way
 * latency is the same in both directions. As distributions this is taken to
 * mean that Rx_d and Tx_d are two independent draws from the same
 * distribution T_d (not one draw counted twice), and that the four draws of
 * one round trip are independent of each other. Cumulants add over
 * independent summands, so with mu, var, k3 the mean, variance and third
 * cumulant of T_d:
 *
 *     E[RTT_ab]   = 2 mu_a  + 2 mu_b  + 2 h_ab
 *     Var[RTT_ab] = 2 var_a + 2 var_b            (h is a constant)
 *     k3[RTT_ab]  = 2 k3_a  + 2 k3_b
 *     min RTT_ab  = 2 min_a + 2 min_b + 2 h_ab   (the minimum of a sum of
 *                                                 independent terms is the
 *                                                 sum of their minima)
 *
 * A pair (a, a) is a device measured through a loop to itself: coefficient
 * 4. If a device's receive and transmit latencies differ, the solved mu_d is
 * their average (the seed's eq. 7 bounds the error); if they are correlated
 * (one draw counted twice), the variance is 4 var_d rather than 2 var_d and
 * the solved sd is too large by sqrt(2). The sample minimum converges to
 * the true minimum from above, so min_ns is an upper bound.
 *
 * h is given (--hw: 0 unless set, or per pair), or, when no hardware
 * latency is given and a reference device of known latency is, solved as one
 * unknown common to all pairs. A reference device is taken as deterministic:
 * mean and minimum NS, variance and third cumulant 0.
 *
 * Each of the four systems (means, variances, third cumulants, minima) is
 * solved by least squares over all pairs (normal equations, pivoted
 * Cholesky), one equation per pair, so that more pairs than devices are
 * welcome and each pair's residual shows whether it fits the model.
 *
 * Identifiability: the equations of a connected group of devices fix every
 * device only if the group holds an odd cycle of pairs (a bipartite group
 * can add c to one side and take c from the other) or a device of known
 * latency. The solver refuses an undetermined system and names a pair whose
 * measurement would fix it; it never reports numbers for it.
 *
 * Streaming: per pair only count, mean, M2, M3 (Pébay's one-pass update of
 * central moments), minimum, and B bootstrap replicates of the mean's
 * weighted sums. The bootstrap is a Poisson bootstrap over blocks of
 * consecutive samples: a block enters replicate r with weight Poisson(1).
 * Blocks are single samples for the first 1024 samples of a pair and grow
 * with the pair's count (at least ~1024 blocks per pair, at most 256 samples
 * each), so memory is O(pairs x B) and the time per sample O(1 + B / block);
 * blocks of consecutive samples also carry short-range correlation into the
 * interval, which resampling single samples would hide. Each replicate
 * keeps the weighted sums of d, d^2 and d^3 (d = x minus the pair's first
 * sample), from which its mean, variance and third cumulant; each
 * replicate is solved like the samples, and the 2.5 % and 97.5 % quantiles
 * of a device's replicate solutions are its 95 % intervals of the mean, sd
 * and skewness. The minimum has none: the bootstrap of an extreme is
 * inconsistent (a resample never goes below the sample's minimum).
 *
 * Threading: none; one struct lr_latency belongs to one thread. Control
 * path code: it allocates.
 */
#ifndef LR_LATENCY_H
#define LR_LATENCY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "lr_opt.h"

#define LR_LATENCY_BOOT_DEFAULT 200	/**< bootstrap replicates */
#define LR_LATENCY_NAME_MAX 128		/**< bytes of a device name */

/** Streaming central moments of one sample stream (Pébay 2008). */
struct lr_moments {
	uint64_t n;	/**< samples */
	double mean;	/**< mean */
	double m2;	/**< sum of squared deviations from the mean */
	double m3;	/**< sum of cubed deviations from the mean */
	double min;	/**< smallest sample */
};

/** Add one sample x. */
void lr_moments_add(struct lr_moments *m, double x);

/** Unbiased variance M2 / (n - 1); 0 when n < 2. */
double lr_moments_var(const struct lr_moments *m);

/** Unbiased third cumulant (k-statistic k3) n M3 / ((n-1)(n-2)); 0 when n < 3. */
double lr_moments_k3(const struct lr_moments *m);

struct lr_latency;

struct lr_latency_conf {
	unsigned int boot;	/**< bootstrap replicates (0: default 200) */
	uint64_t seed;		/**< seed of the bootstrap's PRNG */
};

/** One device's solved latency distribution. */
struct lr_latency_dev {
	const char *name;
	bool reference;		/**< known latency, not solved */
	double mean_ns;		/**< mean one-way latency */
	double var_ns2;		/**< variance (negative if the data say so) */
	double sd_ns;		/**< sqrt(var_ns2); NAN when var_ns2 < 0 */
	double skew;		/**< k3 / var^1.5; NAN when var_ns2 <= 0 */
	double min_ns;		/**< minimum one-way latency */
	double ci_lo_ns;	/**< 95 % interval of mean_ns, low end */
	double ci_hi_ns;	/**< 95 % interval of mean_ns, high end */
	double ci_sd_lo_ns;	/**< 95 % interval of sd_ns (through the
				 *   variance's; 0 where that is < 0) */
	double ci_sd_hi_ns;
	double ci_skew_lo;	/**< 95 % interval of skew; NAN when a
				 *   replicate's variance is not > 0 */
	double ci_skew_hi;
	double ci_var_lo_ns2;	/**< 95 % interval of var_ns2 */
	double ci_var_hi_ns2;
	/** Where the true minimum can be, given its pairs' sample minima:
	 *  each overshoots its true value by up to its noise (the spread of
	 *  the pair's 10 smallest samples; infinite below 10 samples), and
	 *  enters min_ns with the sign of its coefficient. */
	double min_lo_ns;
	double min_hi_ns;
	bool checked;		/**< a pair of it has a residual not 0 by
				 *   construction (the model is tested on it) */
	bool implausible;	/**< an estimate outside what is physical,
				 *   beyond its interval or noise: why says */
	char why[320];		/**< the reasons, "" when plausible */
};

/** One pair's measurement and fit. */
struct lr_latency_pair {
	const char *a;
	const char *b;
	uint64_t samples;	/**< RTT samples */
	double mean_ns;		/**< mean RTT */
	double sd_ns;		/**< RTT's sample standard deviation */
	double min_ns;		/**< smallest RTT */
	double hw_ns;		/**< hardware latency used for the pair */
	double residual_ns;	/**< mean_ns minus the model's mean RTT */
	double leverage;	/**< the pair's weight in its own fit, 0..1 */
	bool checked;		/**< leverage < 1: the residual tests the
				 *   model; else it is 0 by construction */
};

/** What lr_latency_solve() found. Strings point into the solver. */
struct lr_latency_result {
	unsigned int nb_devs;
	unsigned int nb_pairs;	/**< pairs with samples */
	struct lr_latency_dev *devs;	/**< in order of first appearance */
	struct lr_latency_pair *pairs;
	unsigned int rank;	/**< rank of the means' system */
	unsigned int unknowns;	/**< unknowns of the means' system */
	bool hw_solved;		/**< h was an unknown (references, no --hw) */
	double hw_ns;		/**< h given or solved */
	bool determined;	/**< rank == unknowns: numbers are valid */
	/** When not determined: a pair whose measurement would fix (a part
	 *  of) the system, and why; "" otherwise. */
	char fix_a[LR_LATENCY_NAME_MAX];
	char fix_b[LR_LATENCY_NAME_MAX];
	char why[512];
	/** Verdicts when determined. */
	unsigned int redundancy;	/**< pairs - rank: equations left over */
	bool checked;		/**< every device has a checked pair */
	/** When not checked: a pair whose measurement would check (a part
	 *  of) the model, and why. */
	char check_a[LR_LATENCY_NAME_MAX];
	char check_b[LR_LATENCY_NAME_MAX];
	char unchecked_why[512];
	unsigned int nb_implausible;	/**< devices flagged implausible */
	double hw_ci_lo_ns;	/**< 95 % interval of a solved hw_ns (NAN:
				 *   given) */
	double hw_ci_hi_ns;
	bool hw_implausible;	/**< a solved hw_ns below 0 over its whole
				 *   interval, or not finite: hw_why says */
	char hw_why[192];
};

/**
 * A solver with no samples.
 *
 * @return the solver, or NULL with rte_errno ENOMEM.
 */
struct lr_latency *lr_latency_create(const struct lr_latency_conf *conf);

/** Free the solver (NULL: nothing). */
void lr_latency_free(struct lr_latency *lat);

/**
 * The index of pair (a, b), created if new; (a, b) and (b, a) are one pair.
 *
 * @return the index (>= 0), -EINVAL for an empty or too long name,
 *   -ENOMEM.
 */
int lr_latency_pair(struct lr_latency *lat, const char *a, const char *b);

/** Add one RTT sample to pair @p pair (from lr_latency_pair()). */
void lr_latency_add_pair(struct lr_latency *lat, int pair, double rtt_ns);

/**
 * Add one RTT sample of pair (a, b).
 *
 * @return 0, -EINVAL (bad name, or rtt_ns negative or not finite), -ENOMEM.
 */
int lr_latency_add(struct lr_latency *lat, const char *a, const char *b,
		   double rtt_ns);

/**
 * The hardware latency h (one way) of every pair (default 0), or of pair
 * (a, b) when both are given.
 *
 * @return 0, -EINVAL (negative, bad name), -ENOMEM.
 */
int lr_latency_set_hw(struct lr_latency *lat, const char *a, const char *b,
		      double hw_ns);

/**
 * Declare device @p dev a reference of known, constant latency @p ns.
 *
 * @return 0, -EINVAL (negative, bad name, or declared twice), -ENOMEM.
 */
int lr_latency_reference(struct lr_latency *lat, const char *dev, double ns);

/**
 * Solve the systems with the samples so far (more may be added after).
 *
 * @param res
 *   Filled; free with lr_latency_result_free() whatever the return.
 * @return 0 when every device is determined (then res->nb_implausible
 *   counts the devices whose estimates cannot be true, res->hw_implausible
 *   says a solved hardware latency cannot be, and res->checked
 *   says whether redundant pairs test the model, else check_a, check_b
 *   name a pair that would); -EDOM when not (res->fix_a, fix_b and why
 *   say which pair to measure, no device numbers are set); -ENODATA
 *   without samples; -ENOMEM.
 */
int lr_latency_solve(struct lr_latency *lat, struct lr_latency_result *res);

/** Free what lr_latency_solve() allocated in @p res. */
void lr_latency_result_free(struct lr_latency_result *res);

/**
 * The result as {"devices": {NAME: {"mean_ns", "sd_ns", "skew", "min_ns",
 * "ci95_mean_ns": [lo, hi], ...}}, "pairs": [{"a", "b", "samples",
 * "mean_ns", "residual_ns", ...}], "rank", "unknowns", ...}, plus
 * "ci95_sd_ns" and "ci95_skew" per device; sd_ns and skew are null where
 * undefined (a negative variance is in "var_ns2"). The verdicts: "verdict"
 * (ok, implausible, undetermined), per device "implausible" with
 * "implausible_why", "checked", "min_range_ns", "ci95_var_ns2"; per pair
 * "leverage", "checked" (residual_ns null where it is 0 by construction);
 * "model_checked", "check_pair", "unchecked_why", "redundancy"; a solved
 * h's "ci95_hw_ns" and "hw_implausible_why". Every real that is not
 * finite is null.
 *
 * @return a new reference, or NULL (ENOMEM).
 */
json_t *lr_latency_json(const struct lr_latency_result *res);

/** The result as a table, one line per device then one per pair. */
void lr_latency_print(FILE *f, const struct lr_latency_result *res);

/**
 * Read CSV samples "a,b,rtt_ns" (gzip or plain; "-": standard input), '#'
 * comments, blank lines and a header line "a,b,rtt_ns" allowed.
 *
 * @return samples read, or -EINVAL ("FILE:LINE: ..." in lr_errmsg()),
 *   -ENOENT, -ENOMEM.
 */
long lr_latency_read_csv(struct lr_latency *lat, const char *path);

/**
 * Read sockperf's per-message log (sockperf ping-pong --full-log FILE:
 * "packet, txTime(sec), rxTime(sec), latency(usec)"); the RTT is rxTime -
 * txTime (sockperf's latency column is half of it), pair (a, b).
 *
 * @return samples read, or -EINVAL, -ENOENT, -ENOMEM.
 */
long lr_latency_read_sockperf(struct lr_latency *lat, const char *path,
			      const char *a, const char *b);

/**
 * Read irtt's JSON (irtt client -o FILE, gzip or plain): each round trip
 * not lost, RTT = client receive - client send (monotonic clock, else wall
 * clock), which includes the server's time: irtt's own delay.rtt subtracts
 * the server's processing time, which is the server device's latency.
 *
 * @return samples read, or -EINVAL, -ENOENT, -ENOMEM.
 */
long lr_latency_read_irtt(struct lr_latency *lat, const char *path,
			  const char *a, const char *b);

/**
 * `linerate solve ...`: argv[0] is "solve". Needs no DPDK.
 *
 * @return the exit code: 0 solved, 1 undetermined, 2 bad options or input,
 *   3 solved but a device's estimate is implausible.
 */
int lr_latency_main(int argc, char **argv);

/** linerate solve's options (lr_opt.h): its --help and doc/usage.md's
 *  table (linerate --options-md solve). */
extern const struct lr_opt lr_latency_solve_opts[];

#endif
