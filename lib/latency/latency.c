/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The streaming solver of lr_latency.h: device and pair tables, per-pair
 * moments and bootstrap sums, the pair graph's identifiability and the
 * least-squares solves.
 */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_common.h"
#include "lr_latency.h"

/* Pairs keep single-sample blocks until they have 1024 samples; then a
 * block holds count / 1024 samples (a power of two), at most 256. */
#define BLOCK_UNITS 1024
#define BLOCK_MAX 256
/* A pivot below this fraction of the largest diagonal is zero: the normal
 * matrices hold small integers, so rounding leaves ~n * 1e-16 of it. */
#define RANK_TOL 1e-9
/* The noise of a pair's sample minimum: the spread of its LOW_K smallest
 * samples (x_(K) - x_(1)). The sample minimum overshoots the true one by
 * about one spacing x_(2) - x_(1) where the density near the minimum is
 * flat (exponential: scale / n against K - 1 spacings here), so K = 10
 * leaves room for densities that rise slowly from their minimum (a sum of
 * four draws). Fewer samples: no bound (infinite). */
#define LOW_K 10
/* A pair whose leverage is this close to 1 fits whatever it measured: its
 * residual is 0 by construction (it checks nothing). */
#define LEVERAGE_ONE (1 - 1e-6)

struct dev {
	char *name;
	uint64_t hash;
	bool ref;
	double ref_ns;
};

struct pair {
	uint32_t a, b;		/* a <= b, device indexes */
	struct lr_moments mo;
	double shift;		/* first sample: the bootstrap sums are of x - shift */
	bool hw_set;
	double hw_ns;
	uint32_t blk_n;		/* samples in the open block */
	uint32_t blk_target;
	double blk_sum;		/* sums of d = x - shift in the open block: */
	double blk_sum2;	/* of d^2 */
	double blk_sum3;	/* of d^3 */
	double low[LOW_K];	/* the smallest samples, ascending */
	uint32_t nlow;
};

/* One bootstrap replicate of one pair: weighted sums of d = x - shift. */
struct rep {
	double w;	/* sum of weights (samples) */
	double s1, s2, s3;	/* of d, d^2, d^3 */
};

struct lr_latency {
	unsigned int boot;
	uint64_t rng;
	uint64_t bits;		/* unused random bits */
	unsigned int nbits;
	bool hw_given;
	double hw_ns;

	struct dev *devs;
	uint32_t nb_devs, cap_devs;
	uint32_t *dev_slot;	/* open addressing: dev index + 1, 0 empty */
	uint32_t dev_slots;

	struct pair *pairs;
	uint32_t nb_pairs, cap_pairs;
	uint32_t *pair_slot;
	uint32_t pair_slots;
	struct rep *reps;	/* [pair * boot + r] */
};

void
lr_moments_add(struct lr_moments *m, double x)
{
	double n1 = (double)m->n, n, delta, dn, t1;

	if (m->n == 0 || x < m->min)
		m->min = x;
	m->n++;
	n = (double)m->n;
	delta = x - m->mean;
	dn = delta / n;
	t1 = delta * dn * n1;
	m->mean += dn;
	m->m3 += t1 * dn * (n - 2) - 3 * dn * m->m2;
	m->m2 += t1;
}

double
lr_moments_var(const struct lr_moments *m)
{
	return m->n < 2 ? 0 : m->m2 / (double)(m->n - 1);
}

double
lr_moments_k3(const struct lr_moments *m)
{
	double n = (double)m->n;

	return m->n < 3 ? 0 : n * m->m3 / ((n - 1) * (n - 2));
}

static uint64_t
splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* 16-bit uniform -> Poisson(1), the same for every solver: built once. */
static uint8_t lr_poisson[65536];
static pthread_once_t lr_poisson_once = PTHREAD_ONCE_INIT;

/* Poisson(1) from 16 random bits: the table's steps are the CDF rounded to
 * 1/65536, so P(k) is off by at most 1.5e-5. */
static inline unsigned int
poisson1(struct lr_latency *lat)
{
	unsigned int v;

	if (lat->nbits == 0) {
		lat->bits = splitmix64(&lat->rng);
		lat->nbits = 4;
	}
	v = lr_poisson[lat->bits & 0xffff];
	lat->bits >>= 16;
	lat->nbits--;
	return v;
}

static void
poisson_table(void)
{
	uint8_t *t = lr_poisson;
	double p = exp(-1), cdf = p;
	unsigned int k = 0, i, edge = (unsigned int)lround(cdf * 65536);

	for (i = 0; i < 65536; i++) {
		while (i >= edge && k < 255) {
			k++;
			p /= k;
			cdf += p;
			edge = (unsigned int)lround(cdf * 65536);
		}
		t[i] = (uint8_t)k;
	}
}

struct lr_latency *
lr_latency_create(const struct lr_latency_conf *conf)
{
	struct lr_latency *lat = calloc(1, sizeof(*lat));

	if (lat == NULL)
		return lr_err_null(ENOMEM, "latency: solver");
	lat->boot = conf != NULL && conf->boot ? conf->boot :
		LR_LATENCY_BOOT_DEFAULT;
	lat->rng = conf != NULL ? conf->seed : 0;
	pthread_once(&lr_poisson_once, poisson_table);
	return lat;
}

void
lr_latency_free(struct lr_latency *lat)
{
	uint32_t i;

	if (lat == NULL)
		return;
	for (i = 0; i < lat->nb_devs; i++)
		free(lat->devs[i].name);
	free(lat->devs);
	free(lat->dev_slot);
	free(lat->pairs);
	free(lat->pair_slot);
	free(lat->reps);
	free(lat);
}

static uint64_t
hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	while (*s)
		h = (h ^ (uint8_t)*s++) * 0x100000001b3ULL;
	return h;
}

static uint64_t
hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* Open addressing at most half full; slots hold index + 1. Entry n - 1 is
 * new: insert it, or rebuild the table twice as large. */
static int
table_add(uint32_t **slot, uint32_t *nslots, uint32_t n, void *ctx,
	  uint64_t (*key)(void *ctx, uint32_t i))
{
	uint32_t sz = *nslots, i, j, *s = *slot;

	if (2 * n > sz) {
		sz = sz ? 2 * sz : 64;
		while (sz < 2 * n)
			sz *= 2;
		s = calloc(sz, sizeof(*s));
		if (s == NULL)
			return -ENOMEM;
		free(*slot);
		*slot = s;
		*nslots = sz;
		i = 0;
	} else {
		i = n - 1;
	}
	for (; i < n; i++) {
		for (j = (uint32_t)key(ctx, i) & (sz - 1); s[j];
		     j = (j + 1) & (sz - 1))
			;
		s[j] = i + 1;
	}
	return 0;
}

static uint64_t
dev_key(void *ctx, uint32_t i)
{
	return ((struct lr_latency *)ctx)->devs[i].hash;
}

static uint64_t
pair_key(void *ctx, uint32_t i)
{
	const struct pair *p = &((struct lr_latency *)ctx)->pairs[i];

	return hash_u64((uint64_t)p->a << 32 | p->b);
}

/* The length of the UTF-8 sequence at @p s (1 to 4), or 0 if it is not
 * one (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF). */
static size_t
utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[0] == 0xe0 && s[1] < 0xa0) ||
		    (s[0] == 0xed && s[1] > 0x9f))
			return 0;
		return 3;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80 ||
		    (s[0] == 0xf0 && s[1] < 0x90) ||
		    (s[0] == 0xf4 && s[1] > 0x8f))
			return 0;
		return 4;
	}
	return 0;
}

/* A device name: 1 to LR_LATENCY_NAME_MAX - 1 bytes of UTF-8 without
 * control characters. It becomes a JSON key (RFC 8259 text is UTF-8:
 * jansson refuses anything else, and the device would vanish from the
 * document) and a column of the table. */
static int
check_name(const char *name)
{
	size_t len = name != NULL ? strlen(name) : 0, i, k;
	const unsigned char *u = (const unsigned char *)name;

	if (len == 0 || len >= LR_LATENCY_NAME_MAX)
		return lr_err(EINVAL, "latency: device name '%.*s': want 1 to %d "
			      "bytes", 40, name != NULL ? name : "",
			      LR_LATENCY_NAME_MAX - 1);
	for (i = 0; i < len; i += k) {
		k = utf8_len(u + i);
		if (k == 0)
			return lr_err(EINVAL, "latency: device name: byte %zu "
				      "(0x%02x) is not UTF-8", i + 1, u[i]);
		if (u[i] < 0x20 || u[i] == 0x7f)
			return lr_err(EINVAL, "latency: device name: byte %zu "
				      "(0x%02x) is a control character", i + 1,
				      u[i]);
	}
	return 0;
}

/* The index of device @p name, created if new. */
static int
dev_get(struct lr_latency *lat, const char *name)
{
	uint64_t h = hash_str(name);
	uint32_t j;
	struct dev *d;
	int ret;

	ret = check_name(name);
	if (ret < 0)
		return ret;
	if (lat->dev_slots)
		for (j = (uint32_t)h & (lat->dev_slots - 1); lat->dev_slot[j];
		     j = (j + 1) & (lat->dev_slots - 1)) {
			d = &lat->devs[lat->dev_slot[j] - 1];
			if (d->hash == h && strcmp(d->name, name) == 0)
				return (int)lat->dev_slot[j] - 1;
		}
	if (lat->nb_devs == lat->cap_devs) {
		uint32_t cap = lat->cap_devs ? 2 * lat->cap_devs : 16;

		d = realloc(lat->devs, cap * sizeof(*d));
		if (d == NULL)
			return lr_err(ENOMEM, "latency: %u devices", cap);
		lat->devs = d;
		lat->cap_devs = cap;
	}
	d = &lat->devs[lat->nb_devs];
	memset(d, 0, sizeof(*d));
	d->name = strdup(name);
	if (d->name == NULL)
		return lr_err(ENOMEM, "latency: device name");
	d->hash = h;
	lat->nb_devs++;
	if (table_add(&lat->dev_slot, &lat->dev_slots, lat->nb_devs, lat,
		      dev_key) < 0) {
		free(d->name);
		lat->nb_devs--;
		return lr_err(ENOMEM, "latency: device table");
	}
	return (int)lat->nb_devs - 1;
}

int
lr_latency_pair(struct lr_latency *lat, const char *a, const char *b)
{
	int ia, ib;
	uint32_t j, t, bt = lat->boot;
	uint64_t h;
	struct pair *p;

	ia = dev_get(lat, a);
	if (ia < 0)
		return ia;
	ib = dev_get(lat, b);
	if (ib < 0)
		return ib;
	if (ia > ib) {
		t = (uint32_t)ia;
		ia = ib;
		ib = (int)t;
	}
	h = hash_u64((uint64_t)ia << 32 | (uint32_t)ib);
	if (lat->pair_slots)
		for (j = (uint32_t)h & (lat->pair_slots - 1); lat->pair_slot[j];
		     j = (j + 1) & (lat->pair_slots - 1)) {
			p = &lat->pairs[lat->pair_slot[j] - 1];
			if (p->a == (uint32_t)ia && p->b == (uint32_t)ib)
				return (int)lat->pair_slot[j] - 1;
		}
	if (lat->nb_pairs == lat->cap_pairs) {
		uint32_t cap = lat->cap_pairs ? 2 * lat->cap_pairs : 16;
		struct rep *rp;

		p = realloc(lat->pairs, cap * sizeof(*p));
		if (p == NULL)
			return lr_err(ENOMEM, "latency: %u pairs", cap);
		lat->pairs = p;
		rp = realloc(lat->reps, (size_t)cap * bt * sizeof(*rp));
		if (rp == NULL)
			return lr_err(ENOMEM, "latency: %u pairs", cap);
		lat->reps = rp;
		lat->cap_pairs = cap;
	}
	p = &lat->pairs[lat->nb_pairs];
	memset(p, 0, sizeof(*p));
	p->a = (uint32_t)ia;
	p->b = (uint32_t)ib;
	p->blk_target = 1;
	memset(&lat->reps[(size_t)lat->nb_pairs * bt], 0, bt * sizeof(struct rep));
	lat->nb_pairs++;
	if (table_add(&lat->pair_slot, &lat->pair_slots, lat->nb_pairs, lat,
		      pair_key) < 0) {
		lat->nb_pairs--;
		return lr_err(ENOMEM, "latency: pair table");
	}
	return (int)lat->nb_pairs - 1;
}

/* Close the open block of pair @p i: it enters each replicate with weight
 * Poisson(1). */
static void
block_flush(struct lr_latency *lat, uint32_t i)
{
	struct pair *p = &lat->pairs[i];
	struct rep *rp = &lat->reps[(size_t)i * lat->boot];
	double n = p->blk_n, s1 = p->blk_sum, s2 = p->blk_sum2;
	double s3 = p->blk_sum3;
	unsigned int r, k;
	uint64_t t;

	if (p->blk_n == 0)
		return;
	for (r = 0; r < lat->boot; r++) {
		k = poisson1(lat);	/* no branch on k == 0: unpredictable */
		rp[r].w += k * n;
		rp[r].s1 += k * s1;
		rp[r].s2 += k * s2;
		rp[r].s3 += k * s3;
	}
	p->blk_n = 0;
	p->blk_sum = 0;
	p->blk_sum2 = 0;
	p->blk_sum3 = 0;
	t = p->mo.n / BLOCK_UNITS;
	k = 1;
	while (k * 2 <= t && k < BLOCK_MAX)
		k *= 2;
	p->blk_target = k;
}

void
lr_latency_add_pair(struct lr_latency *lat, int pair, double rtt_ns)
{
	struct pair *p = &lat->pairs[pair];
	double d;

	if (p->mo.n == 0)
		p->shift = rtt_ns;
	lr_moments_add(&p->mo, rtt_ns);
	if (p->nlow < LOW_K || rtt_ns < p->low[LOW_K - 1]) {
		uint32_t k = p->nlow < LOW_K ? p->nlow++ : LOW_K - 1;

		for (; k > 0 && p->low[k - 1] > rtt_ns; k--)
			p->low[k] = p->low[k - 1];
		p->low[k] = rtt_ns;
	}
	d = rtt_ns - p->shift;
	p->blk_sum += d;
	p->blk_sum2 += d * d;
	p->blk_sum3 += d * d * d;
	if (++p->blk_n >= p->blk_target)
		block_flush(lat, (uint32_t)pair);
}

int
lr_latency_add(struct lr_latency *lat, const char *a, const char *b,
	       double rtt_ns)
{
	int i;

	if (!isfinite(rtt_ns) || rtt_ns < 0)
		return lr_err(EINVAL, "latency: RTT %g ns", rtt_ns);
	i = lr_latency_pair(lat, a, b);
	if (i < 0)
		return i;
	lr_latency_add_pair(lat, i, rtt_ns);
	return 0;
}

int
lr_latency_set_hw(struct lr_latency *lat, const char *a, const char *b,
		  double hw_ns)
{
	int i;

	if (!isfinite(hw_ns) || hw_ns < 0)
		return lr_err(EINVAL, "latency: hardware latency %g ns", hw_ns);
	if (a == NULL || b == NULL) {
		lat->hw_given = true;
		lat->hw_ns = hw_ns;
		return 0;
	}
	i = lr_latency_pair(lat, a, b);
	if (i < 0)
		return i;
	lat->pairs[i].hw_set = true;
	lat->pairs[i].hw_ns = hw_ns;
	return 0;
}

int
lr_latency_reference(struct lr_latency *lat, const char *dev, double ns)
{
	int i;

	if (!isfinite(ns) || ns < 0)
		return lr_err(EINVAL, "latency: reference %s: %g ns",
			      dev != NULL ? dev : "", ns);
	i = dev_get(lat, dev);
	if (i < 0)
		return i;
	if (lat->devs[i].ref)
		return lr_err(EINVAL, "latency: reference %s given twice", dev);
	lat->devs[i].ref = true;
	lat->devs[i].ref_ns = ns;
	return 0;
}

/*
 * Identifiability on the pair graph. Nodes are the devices, plus, when h is
 * an unknown, a node G standing for h / 2: with u_d = t_d + h / 2 every pair
 * reads u_a + u_b = RTT / 2 (an edge "+": the ends take opposite colours)
 * and a reference reads u_r - G = t_r (an edge "-": same colour). A
 * connected group is fixed when its colouring conflicts (an odd cycle,
 * counted in "+" edges) or, with h known, when it holds a reference.
 */
struct graph {
	uint32_t n;		/* nodes: devices (+ G) */
	uint32_t *off;		/* CSR */
	uint32_t *adj;
	uint8_t *neg;		/* edge is "-" */
	int *comp;		/* group of each node */
	int8_t *color;
	uint32_t nb_comp;
	bool *fixed;		/* per group */
};

static void
graph_free(struct graph *g)
{
	free(g->off);
	free(g->adj);
	free(g->neg);
	free(g->comp);
	free(g->color);
	free(g->fixed);
}

static int
graph_build(const struct lr_latency *lat, bool h_unknown, struct graph *g)
{
	uint32_t n = lat->nb_devs + (h_unknown ? 1 : 0), i, m = 0, *fill;
	uint32_t *queue, qh, qt, u, e, v, G = lat->nb_devs;
	int8_t want;

	memset(g, 0, sizeof(*g));
	g->n = n;
	g->off = calloc(n + 1, sizeof(*g->off));
	g->comp = malloc(n * sizeof(*g->comp));
	g->color = malloc(n * sizeof(*g->color));
	g->fixed = calloc(n, sizeof(*g->fixed));
	fill = calloc(n + 1, sizeof(*fill));
	queue = malloc(n * sizeof(*queue));
	if (!g->off || !g->comp || !g->color || !g->fixed || !fill || !queue)
		goto nomem;
	for (i = 0; i < lat->nb_pairs; i++) {
		if (lat->pairs[i].mo.n == 0)
			continue;
		g->off[lat->pairs[i].a + 1]++;
		g->off[lat->pairs[i].b + 1]++;	/* a self pair: twice */
		m += 2;
	}
	if (h_unknown)
		for (i = 0; i < lat->nb_devs; i++)
			if (lat->devs[i].ref) {
				g->off[i + 1]++;
				g->off[G + 1]++;
				m += 2;
			}
	for (i = 0; i < n; i++)
		g->off[i + 1] += g->off[i];
	g->adj = malloc((m + 1) * sizeof(*g->adj));
	g->neg = malloc(m + 1);
	if (!g->adj || !g->neg)
		goto nomem;
#define EDGE(x, y, s) do { \
		g->adj[g->off[x] + fill[x]] = (y); \
		g->neg[g->off[x] + fill[x]++] = (s); \
	} while (0)
	for (i = 0; i < lat->nb_pairs; i++) {
		const struct pair *p = &lat->pairs[i];

		if (p->mo.n == 0)
			continue;
		EDGE(p->a, p->b, 0);
		EDGE(p->b, p->a, 0);
	}
	if (h_unknown)
		for (i = 0; i < lat->nb_devs; i++)
			if (lat->devs[i].ref) {
				EDGE(i, G, 1);
				EDGE(G, i, 1);
			}
#undef EDGE
	for (i = 0; i < n; i++)
		g->comp[i] = -1;
	for (i = 0; i < n; i++) {
		if (g->comp[i] >= 0)
			continue;
		g->comp[i] = (int)g->nb_comp;
		g->color[i] = 0;
		qh = 0;
		qt = 0;
		queue[qt++] = i;
		while (qh < qt) {
			u = queue[qh++];
			if (!h_unknown && u < lat->nb_devs && lat->devs[u].ref)
				g->fixed[g->nb_comp] = true;
			for (e = g->off[u]; e < g->off[u + 1]; e++) {
				v = g->adj[e];
				want = (int8_t)(g->color[u] ^ (g->neg[e] ? 0 : 1));
				if (g->comp[v] < 0) {
					g->comp[v] = (int)g->nb_comp;
					g->color[v] = want;
					queue[qt++] = v;
				} else if (g->color[v] != want) {
					g->fixed[g->nb_comp] = true;
				}
			}
		}
		g->nb_comp++;
	}
	free(fill);
	free(queue);
	return 0;
nomem:
	free(fill);
	free(queue);
	graph_free(g);
	return lr_err(ENOMEM, "latency: pair graph of %u devices", n);
}

/* A pair that would fix group @p c: two devices of one colour (the pair
 * closes an odd cycle), else one device and a device of a fixed group,
 * else the device with itself (a loop through it). */
static void
suggest(const struct lr_latency *lat, const struct graph *g, int c,
	struct lr_latency_result *res)
{
	uint32_t i, first[2] = { UINT32_MAX, UINT32_MAX }, any = UINT32_MAX;
	uint32_t nd = lat->nb_devs;
	const char *x;

	for (i = 0; i < nd; i++) {
		if (g->comp[i] != c)
			continue;
		if (any == UINT32_MAX)
			any = i;
		if (first[g->color[i]] == UINT32_MAX) {
			first[g->color[i]] = i;
			continue;
		}
		snprintf(res->fix_a, sizeof(res->fix_a), "%s",
			 lat->devs[first[g->color[i]]].name);
		snprintf(res->fix_b, sizeof(res->fix_b), "%s", lat->devs[i].name);
		x = "it closes an odd cycle";
		goto out;
	}
	for (i = 0; i < nd; i++)
		if (g->fixed[g->comp[i]]) {
			snprintf(res->fix_a, sizeof(res->fix_a), "%s",
				 lat->devs[any].name);
			snprintf(res->fix_b, sizeof(res->fix_b), "%s",
				 lat->devs[i].name);
			x = "it links them to devices already determined";
			goto out;
		}
	snprintf(res->fix_a, sizeof(res->fix_a), "%s", lat->devs[any].name);
	snprintf(res->fix_b, sizeof(res->fix_b), "%s", lat->devs[any].name);
	x = "a loop through the device to itself (or a third device measured "
		"with both) closes an odd cycle";
out:
	{
		size_t n = (size_t)snprintf(res->why, sizeof(res->why),
			"measure the pair %s,%s (%s) to determine ",
			res->fix_a, res->fix_b, x);
		unsigned int k = 0;

		for (i = 0; i < nd && n < sizeof(res->why); i++)
			if (g->comp[i] == c) {
				if (k++ == 8) {
					n += (size_t)snprintf(res->why + n,
						sizeof(res->why) - n, ", ...");
					break;
				}
				n += (size_t)snprintf(res->why + n,
					sizeof(res->why) - n, "%s%s",
					k > 1 ? ", " : "", lat->devs[i].name);
			}
	}
}

/* Dense symmetric positive semi-definite N (n x n, full storage) as
 * P^T N P = L L^T with symmetric pivoting (largest remaining diagonal
 * first). Stops at the first pivot <= tol: that is the rank. */
struct chol {
	uint32_t n, rank;
	double *l;		/* n x n, row-major, lower */
	uint32_t *perm;
};

static int
chol_factor(double *a, uint32_t n, struct chol *c)
{
	double *d, maxd = 0, tol, s, t;
	uint32_t i, j, k, p, u;

	c->n = n;
	c->rank = 0;
	c->l = calloc((size_t)n * n + 1, sizeof(double));
	c->perm = malloc((n + 1) * sizeof(uint32_t));
	d = malloc((n + 1) * sizeof(double));
	if (c->l == NULL || c->perm == NULL || d == NULL) {
		free(d);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		c->perm[i] = i;
		d[i] = a[(size_t)i * n + i];
		if (d[i] > maxd)
			maxd = d[i];
	}
	tol = RANK_TOL * maxd;
	for (j = 0; j < n; j++) {
		p = j;
		for (i = j + 1; i < n; i++)
			if (d[i] > d[p])
				p = i;
		if (!(d[p] > tol))
			break;
		if (p != j) {
			u = c->perm[j];
			c->perm[j] = c->perm[p];
			c->perm[p] = u;
			t = d[j];
			d[j] = d[p];
			d[p] = t;
			for (k = 0; k < j; k++) {
				t = c->l[(size_t)j * n + k];
				c->l[(size_t)j * n + k] = c->l[(size_t)p * n + k];
				c->l[(size_t)p * n + k] = t;
			}
			for (k = 0; k < n; k++) {	/* rows of a */
				t = a[(size_t)j * n + k];
				a[(size_t)j * n + k] = a[(size_t)p * n + k];
				a[(size_t)p * n + k] = t;
			}
			for (k = 0; k < n; k++) {	/* columns */
				t = a[(size_t)k * n + j];
				a[(size_t)k * n + j] = a[(size_t)k * n + p];
				a[(size_t)k * n + p] = t;
			}
		}
		s = sqrt(d[j]);
		c->l[(size_t)j * n + j] = s;
		for (i = j + 1; i < n; i++) {
			const double *li = &c->l[(size_t)i * n];
			const double *lj = &c->l[(size_t)j * n];

			t = a[(size_t)i * n + j];
			for (k = 0; k < j; k++)
				t -= li[k] * lj[k];
			t /= s;
			c->l[(size_t)i * n + j] = t;
			d[i] -= t * t;
		}
		c->rank++;
	}
	free(d);
	return 0;
}

/* x = N^-1 r for a full-rank factor; w: n doubles of scratch. */
static void
chol_solve(const struct chol *c, const double *r, double *x, double *w)
{
	uint32_t n = c->n, i, k;
	double t;

	for (i = 0; i < n; i++) {
		t = r[c->perm[i]];
		for (k = 0; k < i; k++)
			t -= c->l[(size_t)i * n + k] * w[k];
		w[i] = t / c->l[(size_t)i * n + i];
	}
	for (i = n; i-- > 0;) {
		t = w[i];
		for (k = i + 1; k < n; k++)
			t -= c->l[(size_t)k * n + i] * w[k];
		w[i] = t / c->l[(size_t)i * n + i];
	}
	for (i = 0; i < n; i++)
		x[c->perm[i]] = w[i];
}

/* inv = N^-1 (n x n, full) for a full-rank factor, from W = L^-1:
 * N^-1 = P W^T W P^T. Row-major loops (axpy on rows): n^3 / 3 multiply-adds,
 * a third of n solves and without their strided column walks. */
static int
chol_inverse(const struct chol *c, double *inv)
{
	uint32_t n = c->n, i, j, k;
	double *wi = calloc((size_t)n * n + 1, sizeof(double));
	double *m = calloc((size_t)n * n + 1, sizeof(double));
	double t, d;

	if (wi == NULL || m == NULL) {
		free(wi);
		free(m);
		return -ENOMEM;
	}
	/* W, lower: W[i][k<i] = -(sum_{j=k}^{i-1} L[i][j] W[j][k]) / L[i][i] */
	for (i = 0; i < n; i++) {
		double *row = &wi[(size_t)i * n];
		const double *li = &c->l[(size_t)i * n];

		for (j = 0; j < i; j++) {
			const double *wj = &wi[(size_t)j * n];

			t = li[j];
			for (k = 0; k <= j; k++)
				row[k] -= t * wj[k];
		}
		d = li[i];
		for (k = 0; k < i; k++)
			row[k] /= d;
		row[i] = 1 / d;
	}
	/* M = W^T W, lower triangle: a rank-1 update per row of W */
	for (i = 0; i < n; i++) {
		const double *w = &wi[(size_t)i * n];

		for (j = 0; j <= i; j++) {
			double *mj = &m[(size_t)j * n];

			t = w[j];
			for (k = 0; k <= j; k++)
				mj[k] += t * w[k];
		}
	}
	for (j = 0; j < n; j++)
		for (k = 0; k <= j; k++) {
			t = m[(size_t)j * n + k];
			inv[(size_t)c->perm[j] * n + c->perm[k]] = t;
			inv[(size_t)c->perm[k] * n + c->perm[j]] = t;
		}
	free(wi);
	free(m);
	return 0;
}

static void
chol_free(struct chol *c)
{
	free(c->l);
	free(c->perm);
}

/* One least-squares system: column of each device (-1: known), h's column
 * (-1: known), the normal matrix and its factor. */
struct lsq {
	uint32_t n;
	int *col;	/* per device */
	int hcol;
	struct chol chol;
};

/* The normal matrix sum over pairs of row row^T, row = 2 at a's and b's
 * columns (4 for a self pair) and 2 at h's. */
static int
lsq_build(const struct lr_latency *lat, bool with_h, struct lsq *q)
{
	uint32_t i, n = 0;
	double *a;
	int ret;

	q->col = malloc((lat->nb_devs + 1) * sizeof(int));
	if (q->col == NULL)
		return -ENOMEM;
	for (i = 0; i < lat->nb_devs; i++)
		q->col[i] = lat->devs[i].ref ? -1 : (int)n++;
	q->hcol = with_h ? (int)n++ : -1;
	q->n = n;
	a = calloc((size_t)n * n + 1, sizeof(double));
	if (a == NULL)
		return -ENOMEM;
	for (i = 0; i < lat->nb_pairs; i++) {
		const struct pair *p = &lat->pairs[i];
		int c[3] = { q->col[p->a], q->col[p->b], q->hcol };
		uint32_t x, y;

		if (p->mo.n == 0)
			continue;
		for (x = 0; x < 3; x++)
			for (y = 0; y < 3; y++)
				if (c[x] >= 0 && c[y] >= 0)
					a[(size_t)c[x] * n + (uint32_t)c[y]] += 4;
	}
	ret = chol_factor(a, n, &q->chol);
	free(a);
	return ret;
}

static void
lsq_free(struct lsq *q)
{
	free(q->col);
	chol_free(&q->chol);
}

/* Solve for one right-hand side: y[pair] is the pair's value minus what is
 * known (hardware, references); out[device] for the unknown devices, *h. */
static void
lsq_solve(const struct lr_latency *lat, const struct lsq *q, const double *y,
	  double *r, double *x, double *w)
{
	uint32_t i;

	memset(r, 0, (q->n + 1) * sizeof(double));
	for (i = 0; i < lat->nb_pairs; i++) {
		const struct pair *p = &lat->pairs[i];

		if (p->mo.n == 0)
			continue;
		if (q->col[p->a] >= 0)
			r[q->col[p->a]] += 2 * y[i];
		if (q->col[p->b] >= 0)
			r[q->col[p->b]] += 2 * y[i];
		if (q->hcol >= 0)
			r[q->hcol] += 2 * y[i];
	}
	chol_solve(&q->chol, r, x, w);
}

static double
pair_hw(const struct lr_latency *lat, const struct pair *p)
{
	return p->hw_set ? p->hw_ns : lat->hw_ns;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
quantile(const double *sorted, unsigned int n, double q)
{
	double pos = q * (n - 1), f = floor(pos);
	unsigned int i = (unsigned int)f;

	if (i + 1 >= n)
		return sorted[n - 1];
	return sorted[i] + (pos - f) * (sorted[i + 1] - sorted[i]);
}

/* The value of device @p d in a solution x of system @p q; @p known for a
 * reference. */
static double
dev_value(const struct lr_latency *lat, const struct lsq *q, const double *x,
	  uint32_t d, double known)
{
	(void)lat;
	return q->col[d] >= 0 ? x[q->col[d]] : known;
}

/* Pair @p p's row of the means' (and minima's) design matrix as columns
 * and coefficients: 2 at a's and b's (4 at a's for a self pair) and at
 * h's, nothing for a reference. Returns how many. */
static unsigned int
pair_row(const struct lsq *q, const struct pair *p, int *col, double *v)
{
	int c[3] = { q->col[p->a], q->col[p->b], q->hcol };
	unsigned int n = 0, k, j;

	for (k = 0; k < 3; k++) {
		if (c[k] < 0)
			continue;
		for (j = 0; j < n && col[j] != c[k]; j++)
			;
		if (j == n) {
			col[n] = c[k];
			v[n++] = 0;
		}
		v[j] += 2;
	}
	return n;
}

/* The noise of pair @p p's sample minimum (see LOW_K). */
static double
min_noise(const struct pair *p)
{
	return p->nlow < LOW_K ? INFINITY : p->low[LOW_K - 1] - p->low[0];
}

static void
add_why(struct lr_latency_dev *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
add_why(struct lr_latency_dev *d, const char *fmt, ...)
{
	size_t n = strlen(d->why);
	va_list ap;

	if (n + 3 >= sizeof(d->why))
		return;
	if (n > 0) {
		memcpy(d->why + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(d->why + n, sizeof(d->why) - n, fmt, ap);
	va_end(ap);
	d->implausible = true;
}

/* Pair (a, b) measured? */
static bool
pair_measured(const struct lr_latency *lat, uint32_t a, uint32_t b)
{
	uint64_t h;
	uint32_t j, t;

	if (a > b) {
		t = a;
		a = b;
		b = t;
	}
	h = hash_u64((uint64_t)a << 32 | b);
	for (j = (uint32_t)h & (lat->pair_slots - 1); lat->pair_slot[j];
	     j = (j + 1) & (lat->pair_slots - 1)) {
		const struct pair *p = &lat->pairs[lat->pair_slot[j] - 1];

		if (p->a == a && p->b == b)
			return p->mo.n > 0;
	}
	return false;
}

/*
 * What a determined solution can vouch for. N^-1 of the means' system
 * gives each pair's leverage A_k N^-1 A_k^T and
 * each device's row of N^-1 A^T, the coefficients of the pairs in its
 * estimate:
 * - a pair of leverage 1 fits whatever it measured (every pair of an
 *   exactly determined system, or one that alone ties a device in): its
 *   residual is 0 by construction and tests nothing. A device none of
 *   whose pairs is tested is unchecked, and a pair to measure is named.
 * - the minimum: each pair's sample minimum overshoots its true minimum by
 *   0 to its noise u_k, so the true device minimum is within
 *   [min - sum_{c>0} c u, min + sum_{c<0} |c| u].
 * A device is implausible when an estimate is outside what is physical
 * beyond its interval: the mean's whole 95 % interval below 0, the
 * variance's whole interval below 0, the minimum's whole range below 0 or
 * above the mean's interval, or a value that is not finite.
 */
static int
verdicts(const struct lr_latency *lat, const struct lsq *q,
	 struct lr_latency_result *res)
{
	uint32_t n = q->n, nd = lat->nb_devs, i, j, k, r;
	double *inv, v[3], lev, c, up, dn, u;
	unsigned int m, a, b;
	int col[3];
	bool *dev_checked;

	inv = malloc(((size_t)n * n + 1) * sizeof(double));
	dev_checked = calloc(nd + 1, sizeof(bool));
	if (inv == NULL || dev_checked == NULL ||
	    chol_inverse(&q->chol, inv) < 0) {
		free(inv);
		free(dev_checked);
		return lr_err(ENOMEM, "latency: inverse of %u unknowns", n);
	}
	res->redundancy = res->nb_pairs > res->rank ?
		res->nb_pairs - res->rank : 0;
	for (i = 0, r = 0; i < lat->nb_pairs; i++) {
		const struct pair *p = &lat->pairs[i];
		struct lr_latency_pair *o;

		if (p->mo.n == 0)
			continue;
		o = &res->pairs[r++];
		m = pair_row(q, p, col, v);
		lev = 0;
		for (a = 0; a < m; a++)
			for (b = 0; b < m; b++)
				lev += v[a] * v[b] *
					inv[(size_t)col[a] * n + (uint32_t)col[b]];
		o->leverage = lev;
		o->checked = lev < LEVERAGE_ONE;
		if (o->checked) {
			dev_checked[p->a] = true;
			dev_checked[p->b] = true;
		}
	}
	res->checked = true;
	for (k = 0; k < nd; k++) {
		struct lr_latency_dev *d = &res->devs[k];
		int ck = q->col[k];

		d->checked = d->reference || dev_checked[k];
		if (!d->checked && res->checked) {
			/* the first unchecked device: a pair with it that is
			 * not measured yet adds an equation over the same
			 * unknowns, a redundant one; a loop through it if it
			 * is paired with every device already */
			res->checked = false;
			for (j = 0; j < nd; j++)
				if (j != k && !pair_measured(lat, k, j))
					break;
			if (j == nd)
				j = k;
			snprintf(res->check_a, sizeof(res->check_a), "%s",
				 lat->devs[k].name);
			snprintf(res->check_b, sizeof(res->check_b), "%s",
				 lat->devs[j].name);
		}
		if (d->reference) {
			d->min_lo_ns = d->min_ns;	/* given */
			d->min_hi_ns = d->min_ns;
			continue;
		}
		/* the minimum's range from its pairs' noise */
		up = 0;
		dn = 0;
		for (i = 0; i < lat->nb_pairs; i++) {
			const struct pair *p = &lat->pairs[i];

			if (p->mo.n == 0)
				continue;
			m = pair_row(q, p, col, v);
			c = 0;
			for (a = 0; a < m; a++)
				c += v[a] * inv[(size_t)ck * n + (uint32_t)col[a]];
			if (fabs(c) < 1e-9)
				continue;	/* rounding of a 0 */
			u = min_noise(p);
			if (c > 0)
				dn += c * u;	/* true min lower */
			else
				up -= c * u;	/* true min higher */
		}
		d->min_lo_ns = d->min_ns - dn;
		d->min_hi_ns = d->min_ns + up;

		if (!isfinite(d->mean_ns) || !isfinite(d->ci_lo_ns) ||
		    !isfinite(d->ci_hi_ns))
			add_why(d, "mean_ns is not finite (the samples overflow "
				"a double)");
		else if (d->ci_hi_ns < 0)
			add_why(d, "mean_ns %.1f < 0: its whole 95 %% interval "
				"[%.1f, %.1f] is below 0", d->mean_ns,
				d->ci_lo_ns, d->ci_hi_ns);
		if (!isfinite(d->var_ns2) || isnan(d->ci_var_lo_ns2) ||
		    isnan(d->ci_var_hi_ns2))
			add_why(d, "var_ns2 is not finite (the samples overflow "
				"a double)");
		else if (d->ci_var_hi_ns2 < 0)
			add_why(d, "var_ns2 %.4g < 0: its whole 95 %% interval "
				"[%.4g, %.4g] is below 0", d->var_ns2,
				d->ci_var_lo_ns2, d->ci_var_hi_ns2);
		if (!isfinite(d->min_ns))
			add_why(d, "min_ns is not finite (the samples overflow "
				"a double)");
		else if (d->min_hi_ns < 0)
			add_why(d, "min_ns %.1f < 0 beyond the noise of its "
				"pairs' minima (at most %.1f)", d->min_ns,
				d->min_hi_ns);
		else if (d->min_lo_ns > d->ci_hi_ns)
			add_why(d, "min_ns %.1f > mean_ns %.1f beyond the noise "
				"of its pairs' minima (at least %.1f) and the "
				"mean's 95 %% interval (at most %.1f)",
				d->min_ns, d->mean_ns, d->min_lo_ns,
				d->ci_hi_ns);
		if (d->implausible)
			res->nb_implausible++;
	}
	/* A solved hardware latency is one way, >= 0 like a device's. */
	if (res->hw_solved && (!isfinite(res->hw_ns) ||
			       !isfinite(res->hw_ci_lo_ns) ||
			       !isfinite(res->hw_ci_hi_ns))) {
		res->hw_implausible = true;
		snprintf(res->hw_why, sizeof(res->hw_why), "hw_ns is not finite "
			 "(the samples overflow a double)");
	} else if (res->hw_solved && res->hw_ci_hi_ns < 0) {
		res->hw_implausible = true;
		snprintf(res->hw_why, sizeof(res->hw_why), "hw_ns %.1f < 0: its "
			 "whole 95 %% interval [%.1f, %.1f] is below 0 (the "
			 "references' latencies are too high for the RTTs)",
			 res->hw_ns, res->hw_ci_lo_ns, res->hw_ci_hi_ns);
	}
	if (!res->checked) {
		unsigned int cnt = 0;
		size_t len;

		len = (size_t)snprintf(res->unchecked_why,
			sizeof(res->unchecked_why), "%s: no pair tests the "
			"model on ", res->redundancy == 0 ? "exactly determined "
			"(every residual is 0 by construction)" :
			"a part is exactly determined");
		for (k = 0; k < nd && len < sizeof(res->unchecked_why); k++) {
			if (res->devs[k].checked)
				continue;
			if (cnt++ == 8) {
				len += (size_t)snprintf(res->unchecked_why + len,
					sizeof(res->unchecked_why) - len, ", ...");
				break;
			}
			len += (size_t)snprintf(res->unchecked_why + len,
				sizeof(res->unchecked_why) - len, "%s%s",
				cnt > 1 ? ", " : "", res->devs[k].name);
		}
		if (len < sizeof(res->unchecked_why))
			snprintf(res->unchecked_why + len,
				 sizeof(res->unchecked_why) - len, "; measure "
				 "the pair %s,%s to check it", res->check_a,
				 res->check_b);
	}
	free(inv);
	free(dev_checked);
	return 0;
}

int
lr_latency_solve(struct lr_latency *lat, struct lr_latency_result *res)
{
	uint32_t nd = lat->nb_devs, np = lat->nb_pairs, i, r, nb = lat->boot;
	bool h_unknown = false, any_hw = lat->hw_given, any_ref = false;
	struct lsq qm = { 0 }, qv = { 0 };
	double *y = NULL, *rhs = NULL, *x = NULL, *w = NULL, *reps = NULL;
	double *yv = NULL, *yk = NULL, *reps_v = NULL, *reps_s = NULL;
	double *reps_h = NULL;
	struct graph g;
	uint32_t undet = 0;
	int ret, c = -1;

	memset(res, 0, sizeof(*res));
	for (i = 0; i < np; i++) {
		block_flush(lat, i);
		if (lat->pairs[i].hw_set)
			any_hw = true;
		if (lat->pairs[i].mo.n)
			res->nb_pairs++;
	}
	if (res->nb_pairs == 0)
		return lr_err(ENODATA, "latency: no samples");
	for (i = 0; i < nd; i++)
		any_ref |= lat->devs[i].ref;
	h_unknown = any_ref && !any_hw;
	res->hw_solved = h_unknown;
	res->hw_ns = lat->hw_ns;
	res->nb_devs = nd;
	res->devs = calloc(nd + 1, sizeof(*res->devs));
	res->pairs = calloc(res->nb_pairs + 1, sizeof(*res->pairs));
	if (res->devs == NULL || res->pairs == NULL)
		return lr_err(ENOMEM, "latency: result");
	for (i = 0; i < nd; i++) {
		res->devs[i].name = lat->devs[i].name;
		res->devs[i].reference = lat->devs[i].ref;
	}

	ret = graph_build(lat, h_unknown, &g);
	if (ret < 0)
		return ret;
	for (i = 0; i < g.n; i++)
		if (!g.fixed[g.comp[i]] && (i < nd || !h_unknown)) {
			if (c < 0)
				c = g.comp[i];
			if (i < nd)
				undet++;
		}
	ret = lsq_build(lat, h_unknown, &qm);
	if (ret < 0)
		goto nomem;
	res->rank = qm.chol.rank;
	res->unknowns = qm.n;
	if (c >= 0) {
		suggest(lat, &g, c, res);
		ret = lr_err(EDOM, "latency: %u of %u devices undetermined "
			     "(rank %u of %u unknowns); %s", undet, nd,
			     res->rank, res->unknowns, res->why);
		goto out;
	}
	if (res->rank < res->unknowns) {
		snprintf(res->why, sizeof(res->why), "the equations are "
			 "numerically singular");
		ret = lr_err(EDOM, "latency: rank %u of %u unknowns: %s",
			     res->rank, res->unknowns, res->why);
		goto out;
	}
	res->determined = true;

	y = malloc((np + 1) * sizeof(double));
	rhs = malloc((qm.n + 2) * sizeof(double));
	x = malloc((qm.n + 2) * sizeof(double));
	w = malloc((qm.n + 2) * sizeof(double));
	yv = malloc((np + 1) * sizeof(double));
	yk = malloc((np + 1) * sizeof(double));
	reps = malloc(((size_t)nd * nb + 1) * sizeof(double));
	reps_v = malloc(((size_t)nd * nb + 1) * sizeof(double));
	reps_s = malloc(((size_t)nd * nb + 1) * sizeof(double));
	reps_h = malloc((nb + 1) * sizeof(double));
	if (!y || !rhs || !x || !w || !reps || !yv || !yk || !reps_v ||
	    !reps_s || !reps_h)
		goto nomem;

	/* Means: y = mean - 2 h - 2 t_ref(s). */
#define KNOWN(v) do { \
		for (i = 0; i < np; i++) { \
			const struct pair *p = &lat->pairs[i]; \
			y[i] = (v) - (h_unknown ? 0 : 2 * pair_hw(lat, p)); \
			if (lat->devs[p->a].ref) \
				y[i] -= 2 * lat->devs[p->a].ref_ns; \
			if (lat->devs[p->b].ref) \
				y[i] -= 2 * lat->devs[p->b].ref_ns; \
		} \
	} while (0)
	KNOWN(lat->pairs[i].mo.mean);
	lsq_solve(lat, &qm, y, rhs, x, w);
	if (h_unknown)
		res->hw_ns = x[qm.hcol];
	for (i = 0; i < nd; i++)
		res->devs[i].mean_ns = dev_value(lat, &qm, x, i,
						 lat->devs[i].ref_ns);
	for (i = 0, r = 0; i < np; i++) {
		const struct pair *p = &lat->pairs[i];
		struct lr_latency_pair *o;

		if (p->mo.n == 0)
			continue;
		o = &res->pairs[r++];
		o->a = lat->devs[p->a].name;
		o->b = lat->devs[p->b].name;
		o->samples = p->mo.n;
		o->mean_ns = p->mo.mean;
		o->sd_ns = sqrt(lr_moments_var(&p->mo));
		o->min_ns = p->mo.min;
		o->hw_ns = h_unknown ? res->hw_ns : pair_hw(lat, p);
		o->residual_ns = p->mo.mean - 2 * res->devs[p->a].mean_ns -
			2 * res->devs[p->b].mean_ns - 2 * o->hw_ns;
	}
	/* Minima: the same system. */
	KNOWN(lat->pairs[i].mo.min);
	lsq_solve(lat, &qm, y, rhs, x, w);
	for (i = 0; i < nd; i++)
		res->devs[i].min_ns = dev_value(lat, &qm, x, i,
						lat->devs[i].ref_ns);
	/* Variances and third cumulants: no h, references are constant. */
	ret = lsq_build(lat, false, &qv);
	if (ret < 0)
		goto nomem;
	if (qv.chol.rank < qv.n) {
		res->determined = false;
		snprintf(res->why, sizeof(res->why), "the variances' equations "
			 "are numerically singular");
		ret = lr_err(EDOM, "latency: %s", res->why);
		goto out;
	}
	for (i = 0; i < np; i++)
		y[i] = lr_moments_var(&lat->pairs[i].mo);
	lsq_solve(lat, &qv, y, rhs, x, w);
	for (i = 0; i < nd; i++)
		res->devs[i].var_ns2 = dev_value(lat, &qv, x, i, 0);
	for (i = 0; i < np; i++)
		y[i] = lr_moments_k3(&lat->pairs[i].mo);
	lsq_solve(lat, &qv, y, rhs, x, w);
	for (i = 0; i < nd; i++) {
		struct lr_latency_dev *d = &res->devs[i];
		double k3 = dev_value(lat, &qv, x, i, 0);

		d->sd_ns = d->var_ns2 >= 0 ? sqrt(d->var_ns2) : NAN;
		d->skew = d->var_ns2 > 0 ? k3 / pow(d->var_ns2, 1.5) : NAN;
	}

	/* Bootstrap: each replicate's pair means, variances and third
	 * cumulants from its weighted sums, solved like the samples'. */
	for (r = 0; r < nb; r++) {
		for (i = 0; i < np; i++) {
			const struct pair *p = &lat->pairs[i];
			const struct rep *rp = &lat->reps[(size_t)i * nb + r];
			double n = rp->w, m, c2, c3;

			if (n < 3) {	/* too few blocks drawn: the samples' */
				y[i] = p->mo.mean;
				yv[i] = lr_moments_var(&p->mo);
				yk[i] = lr_moments_k3(&p->mo);
			} else {
				m = rp->s1 / n;
				c2 = rp->s2 / n - m * m;
				c3 = rp->s3 / n - 3 * m * rp->s2 / n + 2 * m * m * m;
				y[i] = p->shift + m;
				yv[i] = c2 * n / (n - 1);
				yk[i] = c3 * n * n / ((n - 1) * (n - 2));
			}
			y[i] -= h_unknown ? 0 : 2 * pair_hw(lat, p);
			if (lat->devs[p->a].ref)
				y[i] -= 2 * lat->devs[p->a].ref_ns;
			if (lat->devs[p->b].ref)
				y[i] -= 2 * lat->devs[p->b].ref_ns;
		}
		lsq_solve(lat, &qm, y, rhs, x, w);
		for (i = 0; i < nd; i++)
			reps[(size_t)i * nb + r] = dev_value(lat, &qm, x, i,
							lat->devs[i].ref_ns);
		reps_h[r] = h_unknown ? x[qm.hcol] : res->hw_ns;
		lsq_solve(lat, &qv, yv, rhs, x, w);
		for (i = 0; i < nd; i++)
			reps_v[(size_t)i * nb + r] = dev_value(lat, &qv, x, i, 0);
		lsq_solve(lat, &qv, yk, rhs, x, w);
		for (i = 0; i < nd; i++) {
			double v = reps_v[(size_t)i * nb + r];

			reps_s[(size_t)i * nb + r] = v > 0 ?
				dev_value(lat, &qv, x, i, 0) / pow(v, 1.5) : NAN;
		}
	}
	for (i = 0; i < nd; i++) {
		struct lr_latency_dev *d = &res->devs[i];
		double *m = &reps[(size_t)i * nb], *v = &reps_v[(size_t)i * nb];
		double *sk = &reps_s[(size_t)i * nb];
		bool skew_ok = !d->reference;

		qsort(m, nb, sizeof(double), cmp_double);
		d->ci_lo_ns = quantile(m, nb, 0.025);
		d->ci_hi_ns = quantile(m, nb, 0.975);
		/* sd's interval: the variance's through sqrt (monotone) */
		qsort(v, nb, sizeof(double), cmp_double);
		d->ci_var_lo_ns2 = quantile(v, nb, 0.025);
		d->ci_var_hi_ns2 = quantile(v, nb, 0.975);
		/* (NaN stays NaN: fmax would make it 0) */
		d->ci_sd_lo_ns = isnan(d->ci_var_lo_ns2) ? NAN :
			sqrt(fmax(d->ci_var_lo_ns2, 0));
		d->ci_sd_hi_ns = isnan(d->ci_var_hi_ns2) ? NAN :
			sqrt(fmax(d->ci_var_hi_ns2, 0));
		for (r = 0; r < nb; r++)
			skew_ok &= !isnan(sk[r]);
		if (skew_ok) {
			qsort(sk, nb, sizeof(double), cmp_double);
			d->ci_skew_lo = quantile(sk, nb, 0.025);
			d->ci_skew_hi = quantile(sk, nb, 0.975);
		} else {
			d->ci_skew_lo = NAN;
			d->ci_skew_hi = NAN;
		}
	}
	qsort(reps_h, nb, sizeof(double), cmp_double);
	res->hw_ci_lo_ns = h_unknown ? quantile(reps_h, nb, 0.025) : NAN;
	res->hw_ci_hi_ns = h_unknown ? quantile(reps_h, nb, 0.975) : NAN;
	ret = verdicts(lat, &qm, res);
	goto out;
nomem:
	ret = lr_err(ENOMEM, "latency: solving %u devices", nd);
out:
#undef KNOWN
	free(y);
	free(rhs);
	free(x);
	free(w);
	free(reps);
	free(yv);
	free(yk);
	free(reps_v);
	free(reps_s);
	free(reps_h);
	lsq_free(&qm);
	lsq_free(&qv);
	graph_free(&g);
	return ret;
}

void
lr_latency_result_free(struct lr_latency_result *res)
{
	free(res->devs);
	free(res->pairs);
	res->devs = NULL;
	res->pairs = NULL;
}

static json_t *
num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The verdict of a determined result: "ok", or "implausible" when a
 * device's estimates cannot be true. */
static const char *
verdict(const struct lr_latency_result *res)
{
	if (!res->determined)
		return "undetermined";
	return res->nb_implausible || res->hw_implausible ? "implausible" :
		"ok";
}

json_t *
lr_latency_json(const struct lr_latency_result *res)
{
	json_t *o = json_object(), *devs = json_object(), *pairs = json_array();
	json_t *v;
	unsigned int i;

	if (o == NULL || devs == NULL || pairs == NULL)
		goto fail;
	json_object_set_new(o, "verdict", json_string(verdict(res)));
	json_object_set_new(o, "rank", json_integer(res->rank));
	json_object_set_new(o, "unknowns", json_integer(res->unknowns));
	json_object_set_new(o, "determined", json_boolean(res->determined));
	if (!res->determined) {
		json_object_set_new(o, "measure", json_pack("[ss]", res->fix_a,
							      res->fix_b));
		json_object_set_new(o, "why", json_string(res->why));
		json_decref(devs);
		json_decref(pairs);
		return o;
	}
	json_object_set_new(o, "implausible", json_integer(res->nb_implausible));
	json_object_set_new(o, "redundancy", json_integer(res->redundancy));
	json_object_set_new(o, "model_checked", json_boolean(res->checked));
	if (!res->checked) {
		json_object_set_new(o, "check_pair", json_pack("[ss]",
			res->check_a, res->check_b));
		json_object_set_new(o, "unchecked_why",
				    json_string(res->unchecked_why));
	}
	json_object_set_new(o, "hw_ns", num_or_null(res->hw_ns));
	json_object_set_new(o, "hw_solved", json_boolean(res->hw_solved));
	if (res->hw_solved)
		json_object_set_new(o, "ci95_hw_ns", json_pack("[oo]",
			num_or_null(res->hw_ci_lo_ns),
			num_or_null(res->hw_ci_hi_ns)));
	json_object_set_new(o, "hw_implausible_why", res->hw_implausible ?
			    json_string(res->hw_why) : json_null());
	for (i = 0; i < res->nb_devs; i++) {
		const struct lr_latency_dev *d = &res->devs[i];

		v = json_pack("{s:o,s:o,s:o,s:o,s:o,s:[oo],s:[oo],s:[oo],s:[oo],"
			"s:[oo],s:b,s:b,s:b,s:o}",
			"mean_ns", num_or_null(d->mean_ns),
			"sd_ns", num_or_null(d->sd_ns),
			"var_ns2", num_or_null(d->var_ns2),
			"skew", num_or_null(d->skew),
			"min_ns", num_or_null(d->min_ns),
			"ci95_mean_ns", num_or_null(d->ci_lo_ns),
			num_or_null(d->ci_hi_ns),
			"ci95_sd_ns", num_or_null(d->ci_sd_lo_ns),
			num_or_null(d->ci_sd_hi_ns),
			"ci95_var_ns2", num_or_null(d->ci_var_lo_ns2),
			num_or_null(d->ci_var_hi_ns2),
			"ci95_skew", num_or_null(d->ci_skew_lo),
			num_or_null(d->ci_skew_hi),
			"min_range_ns", num_or_null(d->min_lo_ns),
			num_or_null(d->min_hi_ns),
			"reference", d->reference,
			"checked", d->checked,
			"implausible", d->implausible,
			"implausible_why", d->implausible ?
				json_string(d->why) : json_null());
		if (v == NULL || json_object_set_new(devs, d->name, v) < 0)
			goto fail;
	}
	for (i = 0; i < res->nb_pairs; i++) {
		const struct lr_latency_pair *p = &res->pairs[i];

		v = json_pack("{s:s,s:s,s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:b}",
			"a", p->a, "b", p->b, "samples", (json_int_t)p->samples,
			"mean_ns", num_or_null(p->mean_ns),
			"sd_ns", num_or_null(p->sd_ns),
			"min_ns", num_or_null(p->min_ns),
			"hw_ns", num_or_null(p->hw_ns),
			/* 0 by construction tells nothing: none */
			"residual_ns", p->checked ?
				num_or_null(p->residual_ns) : json_null(),
			"leverage", num_or_null(p->leverage),
			"checked", p->checked);
		if (v == NULL || json_array_append_new(pairs, v) < 0)
			goto fail;
	}
	json_object_set_new(o, "devices", devs);
	json_object_set_new(o, "pairs", pairs);
	return o;
fail:
	json_decref(o);
	json_decref(devs);
	json_decref(pairs);
	return NULL;
}

void
lr_latency_print(FILE *f, const struct lr_latency_result *res)
{
	unsigned int i;

	fprintf(f, "rank %u of %u unknowns; hardware latency %.1f ns%s%s%s\n",
		res->rank, res->unknowns, res->hw_ns,
		res->hw_solved ? " (solved)" : "",
		res->hw_implausible ? " IMPLAUSIBLE: " : "",
		res->hw_implausible ? res->hw_why : "");
	fprintf(f, "%-16s %14s %12s %8s %14s %29s\n", "device", "mean_ns",
		"sd_ns", "skew", "min_ns", "ci95_mean_ns");
	for (i = 0; i < res->nb_devs; i++) {
		const struct lr_latency_dev *d = &res->devs[i];
		char sd[48];

		if (d->var_ns2 < 0)
			snprintf(sd, sizeof(sd), "var<0 (%.3g)", d->var_ns2);
		else
			snprintf(sd, sizeof(sd), "%.1f", d->sd_ns);
		fprintf(f, "%-16s %14.1f %12s %8.3f %14.1f [%13.1f,%13.1f]%s%s%s\n",
			d->name, d->mean_ns, sd, d->skew, d->min_ns, d->ci_lo_ns,
			d->ci_hi_ns, d->reference ? " reference" : "",
			d->implausible ? " IMPLAUSIBLE: " : "",
			d->implausible ? d->why : "");
	}
	fprintf(f, "%-16s %-16s %10s %14s %12s\n", "a", "b", "samples",
		"mean_ns", "residual_ns");
	for (i = 0; i < res->nb_pairs; i++) {
		const struct lr_latency_pair *p = &res->pairs[i];

		if (p->checked)
			fprintf(f, "%-16s %-16s %10" PRIu64 " %14.1f %12.1f\n",
				p->a, p->b, p->samples, p->mean_ns,
				p->residual_ns);
		else
			fprintf(f, "%-16s %-16s %10" PRIu64 " %14.1f %12s\n",
				p->a, p->b, p->samples, p->mean_ns,
				"unchecked");
	}
	fprintf(f, "verdict: %s", verdict(res));
	if (!res->checked)
		fprintf(f, "; model unchecked: measure %s,%s to check it",
			res->check_a, res->check_b);
	fputc('\n', f);
}
