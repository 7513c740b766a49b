/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen's options: the key=value parser the CLI and Lua share, the checks of
 * a whole conf, and the flow and size tables a conf describes. The role
 * itself (template, flows, pacing, the tx loop) is in gen.c.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>

#include <arpa/inet.h>

#include "lr_common.h"
#include "lr_gen_conf.h"
#include "lr_opt.h"
#include "gen_conf.h"

RTE_LOG_REGISTER(lr_gen_logtype, user.lr.gen, INFO);

static void
range_v4(struct lr_ip_range *r, uint32_t host)
{
	rte_be32_t be = rte_cpu_to_be_32(host);

	memset(r, 0, sizeof(*r));
	memcpy(r->addr, &be, 4);
	r->n = 1;
}

static void
range_v6(struct lr_ip_range *r, uint8_t last)
{
	memset(r, 0, sizeof(*r));
	r->addr[0] = 0xfd;	/* fd00::/8, unique local */
	r->addr[15] = last;
	r->n = 1;
	r->ipv6 = true;
}

void
lr_gen_conf_init(struct lr_gen_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->size_mode = LR_SIZE_FIXED;
	c->nb_sizes = 1;
	c->sizes[0] = 64;
	c->weights[0] = 1;
	c->flows = 1;
	range_v4(&c->src_ip, RTE_IPV4(10, 0, 0, 1));
	range_v4(&c->dst_ip, RTE_IPV4(10, 0, 0, 2));
	c->src_port = 1024;
	c->src_ports = 65536 - 1024;
	c->dst_port = 5001;
	c->dst_ports = 1;
	c->seed = 1;
	c->slices = 1;
	c->burst = LR_BURST;
	c->pattern = LR_PATTERN_INC;
	c->udp_cksum = -1;
	c->rate_tolerance = GEN_RATE_TOLERANCE;
	c->catch_up_s = GEN_CATCH_UP_S;
	c->stall_timeout_s = GEN_STALL_TIMEOUT_S;
	c->speed = 1;
	c->loops = 1;
	c->vlan.vids = 1;
	c->vlan.tpid = RTE_ETHER_TYPE_VLAN;
	c->outer.vids = 1;
	c->outer.tpid = RTE_ETHER_TYPE_QINQ;	/* 802.1ad's S-tag */
	c->ttl = 64;
	c->df = true;
	/* Locally administered addresses. */
	c->src_mac = (struct rte_ether_addr){{ 0x02, 0, 0, 0, 0, 0x01 }};
	c->dst_mac = (struct rte_ether_addr){{ 0x02, 0, 0, 0, 0, 0x02 }};
}

/* The address ranges in use: an IPv6 address on one side makes the other
 * side's default IPv6 as well. */
int
lr_gen_ranges(const struct lr_gen_conf *c, struct lr_ip_range *src,
       struct lr_ip_range *dst)
{
	*src = c->src_ip;
	*dst = c->dst_ip;
	if (src->ipv6 == dst->ipv6)
		return 0;
	if (!src->set)
		range_v6(src, 1);
	else if (!dst->set)
		range_v6(dst, 2);
	else
		return lr_err(EINVAL, "gen: src-ip and dst-ip are of different "
			      "families");
	return 0;
}

bool
lr_gen_ipv6(const struct lr_gen_conf *c)
{
	return c->src_ip.ipv6 || c->dst_ip.ipv6;
}

uint64_t
lr_gen_tuples(const struct lr_gen_conf *c)
{
	struct lr_ip_range s, d;
	double n;

	if (lr_gen_ranges(c, &s, &d) != 0)
		return 0;
	n = (double)c->src_ports * c->dst_ports * s.n * d.n * c->vlan.vids *
	    c->outer.vids;
	return n >= 1.8e19 ? UINT64_MAX : (uint64_t)n;
}

static void
addr_at(const struct lr_ip_range *r, uint32_t k, uint8_t out[16])
{
	unsigned int lo = r->ipv6 ? 12 : 0;
	rte_be32_t be;

	memcpy(out, r->addr, 16);
	memcpy(&be, out + lo, 4);
	be = rte_cpu_to_be_32(rte_be_to_cpu_32(be) + k);
	memcpy(out + lo, &be, 4);
}

int
lr_gen_flow_at(const struct lr_gen_conf *c, uint32_t i, struct lr_gen_tuple *t)
{
	struct lr_ip_range s, d;
	uint64_t k = i;

	if (lr_gen_ranges(c, &s, &d) != 0 || i >= lr_gen_tuples(c))
		return -EINVAL;
	t->vid = (uint16_t)(c->vlan.vid + k % c->vlan.vids);
	k /= c->vlan.vids;
	t->outer_vid = (uint16_t)(c->outer.vid + k % c->outer.vids);
	k /= c->outer.vids;
	t->src_port = rte_cpu_to_be_16((uint16_t)(c->src_port + k % c->src_ports));
	k /= c->src_ports;
	t->dst_port = rte_cpu_to_be_16((uint16_t)(c->dst_port + k % c->dst_ports));
	k /= c->dst_ports;
	addr_at(&s, (uint32_t)(k % s.n), t->src_ip);
	k /= s.n;
	addr_at(&d, (uint32_t)(k % d.n), t->dst_ip);
	return 0;
}

int
lr_gen_size_table(const struct lr_gen_conf *c, uint32_t *out, uint32_t max)
{
	uint64_t seed = c->seed;
	int64_t cur[LR_GEN_SIZES_MAX] = { 0 };
	uint32_t total = 0, i, j, n;

	if (c->data_bytes != 0) {
		if (max < 1)
			return -EINVAL;
		/* The tags are on the wire too (4 B each). */
		out[0] = lr_frame_for_user(c->data_bytes, lr_gen_ipv6(c)) +
			 4 * lr_gen_tags(c);
		return 1;
	}
	switch (c->size_mode) {
	case LR_SIZE_FIXED:
		if (max < 1)
			return -EINVAL;
		out[0] = c->sizes[0];
		return 1;
	case LR_SIZE_RANGE:
		n = RTE_MIN(max, (uint32_t)LR_GEN_SIZE_TABLE);
		for (i = 0; i < n; i++)
			out[i] = c->sizes[0] + (uint32_t)(next_rand(&seed) %
				 (c->sizes[1] - c->sizes[0] + 1));
		return (int)n;
	case LR_SIZE_LIST:
		for (j = 0; j < c->nb_sizes; j++)
			total += c->weights[j];
		if (total == 0 || total > max)
			return -EINVAL;
		/* Smooth weighted round robin: 7:4:1 interleaves the sizes
		 * instead of sending seven 64 B frames in a row. */
		for (i = 0; i < total; i++) {
			uint32_t best = 0;

			for (j = 0; j < c->nb_sizes; j++) {
				cur[j] += c->weights[j];
				if (cur[j] > cur[best])
					best = j;
			}
			cur[best] -= total;
			out[i] = c->sizes[best];
		}
		return (int)total;
	}
	return -EINVAL;
}

static int
set_u64(const char *key, const char *val, uint64_t min, uint64_t max,
	uint64_t *out)
{
	uint64_t v;

	if (lr_parse_u64(val, &v) != 0 || v < min || v > max)
		return lr_err(EINVAL, "gen: %s '%s': want a number in %" PRIu64
			      "..%" PRIu64, key, val, min, max);
	*out = v;
	return 0;
}

static int
parse_size(const char *val, uint32_t *out)
{
	uint64_t v;

	if (lr_parse_u64(val, &v) != 0 || v < LR_FRAME_MIN_BYTES ||
	    v > LR_FRAME_MAX_BYTES)
		return lr_err(EINVAL, "gen: size '%s': want frame bytes in %u..%u",
			      val, LR_FRAME_MIN_BYTES, LR_FRAME_MAX_BYTES);
	*out = (uint32_t)v;
	return 0;
}

/* "64", "64-1518", "imix", "64:7,594:4,1518:1", "64,128,256", into @p c
 * (its sizes, weights, count and mode), which a failure may leave half
 * written: set_sizes() below works on a copy. */
static int
parse_sizes(struct lr_gen_conf *c, const char *val)
{
	char buf[256], *tok, *save, *sep;
	uint32_t n = 0, total = 0;
	uint64_t w;

	if (strcmp(val, "imix") == 0)
		val = "64:7,594:4,1518:1";
	if (strlen(val) >= sizeof(buf))
		return lr_err(EINVAL, "gen: size list too long");
	snprintf(buf, sizeof(buf), "%s", val);
	c->data_bytes = 0;
	sep = strchr(buf, '-');
	if (sep != NULL) {
		*sep = '\0';
		if (parse_size(buf, &c->sizes[0]) != 0 ||
		    parse_size(sep + 1, &c->sizes[1]) != 0)
			return -EINVAL;
		if (c->sizes[1] < c->sizes[0])
			return lr_err(EINVAL, "gen: size range '%s' runs backwards",
				      val);
		c->size_mode = LR_SIZE_RANGE;
		c->nb_sizes = 2;
		return 0;
	}
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == LR_GEN_SIZES_MAX)
			return lr_err(EINVAL, "gen: more than %u sizes",
				      LR_GEN_SIZES_MAX);
		w = 1;
		sep = strchr(tok, ':');
		if (sep != NULL) {
			*sep = '\0';
			if (lr_parse_u64(sep + 1, &w) != 0 || w == 0 ||
			    w > LR_GEN_SIZE_TABLE)
				return lr_err(EINVAL, "gen: weight '%s' of size %s: "
					      "want 1..%u", sep + 1, tok,
					      LR_GEN_SIZE_TABLE);
		}
		if (parse_size(tok, &c->sizes[n]) != 0)
			return -EINVAL;
		c->weights[n++] = (uint32_t)w;
		total += (uint32_t)w;
	}
	if (n == 0)
		return lr_err(EINVAL, "gen: size '%s': no size", val);
	if (total > LR_GEN_SIZE_TABLE)
		return lr_err(EINVAL, "gen: size weights add up to %u > %u", total,
			      LR_GEN_SIZE_TABLE);
	c->nb_sizes = n;
	c->size_mode = n == 1 ? LR_SIZE_FIXED : LR_SIZE_LIST;
	return 0;
}

/* All or nothing: a size that does not parse leaves the conf as it was
 * (a half-written list beside the old count would send sizes never asked
 * for). */
static int
set_sizes(struct lr_gen_conf *c, const char *val)
{
	struct lr_gen_conf t = *c;
	int ret = parse_sizes(&t, val);

	if (ret == 0)
		*c = t;
	return ret;
}

static int
parse_ip(const char *key, const char *s, uint8_t out[16], bool *v6)
{
	struct in_addr a4;

	memset(out, 0, 16);
	if (inet_pton(AF_INET, s, &a4) == 1) {
		memcpy(out, &a4, 4);
		*v6 = false;
		return 0;
	}
	if (inet_pton(AF_INET6, s, out) == 1) {
		*v6 = true;
		return 0;
	}
	return lr_err(EINVAL, "gen: %s '%s' is not an IPv4 or IPv6 address",
		      key, s);
}

/* "10.0.0.1" or "10.0.0.1-10.0.0.255", "fd00::1-fd00::ff". */
static int
set_ip_range(const char *key, const char *val, struct lr_ip_range *r)
{
	char buf[INET6_ADDRSTRLEN * 2 + 2], *dash;
	uint8_t last[16];
	uint32_t a, b;
	bool v6b;
	unsigned int lo;

	if (strlen(val) >= sizeof(buf))
		return lr_err(EINVAL, "gen: %s '%s' is too long", key, val);
	snprintf(buf, sizeof(buf), "%s", val);
	dash = strchr(buf, '-');
	if (dash != NULL)
		*dash = '\0';
	if (parse_ip(key, buf, r->addr, &r->ipv6) != 0)
		return -EINVAL;
	r->n = 1;
	r->set = true;
	if (dash == NULL)
		return 0;
	if (parse_ip(key, dash + 1, last, &v6b) != 0)
		return -EINVAL;
	lo = r->ipv6 ? 12 : 0;
	if (v6b != r->ipv6 || (r->ipv6 && memcmp(r->addr, last, 12) != 0))
		return lr_err(EINVAL, "gen: %s '%s': both ends must be of one "
			      "family and, for IPv6, differ in the last 32 bits "
			      "only", key, val);
	memcpy(&a, r->addr + lo, 4);
	memcpy(&b, last + lo, 4);
	a = rte_be_to_cpu_32(a);
	b = rte_be_to_cpu_32(b);
	if (b < a || b - a == UINT32_MAX)
		return lr_err(EINVAL, "gen: %s '%s': want FIRST-LAST with LAST >= "
			      "FIRST, fewer than 2^32", key, val);
	r->n = b - a + 1;
	return 0;
}

/* "5001" or "1024-2047". */
static int
set_port_range(const char *key, const char *val, uint16_t *first, uint32_t *n)
{
	char buf[32], *dash;
	uint64_t a, b;

	snprintf(buf, sizeof(buf), "%s", val);
	dash = strchr(buf, '-');
	if (dash != NULL)
		*dash = '\0';
	if (lr_parse_u64(buf, &a) != 0 || a > 65535)
		goto bad;
	b = a;
	if (dash != NULL && (lr_parse_u64(dash + 1, &b) != 0 || b > 65535 || b < a))
		goto bad;
	*first = (uint16_t)a;
	*n = (uint32_t)(b - a + 1);
	return 0;
bad:
	return lr_err(EINVAL, "gen: %s '%s': want a port or FIRST-LAST in 0..65535",
		      key, val);
}

static int
set_mac(const char *key, const char *val, struct rte_ether_addr *out)
{
	if (rte_ether_unformat_addr(val, out) != 0)
		return lr_err(EINVAL, "gen: %s '%s' is not a MAC address", key, val);
	return 0;
}

/* inc, zero, random, or hex bytes "0xdeadbeef". */
static int
set_pattern(struct lr_gen_conf *c, const char *val)
{
	size_t i, n;

	if (strcmp(val, "inc") == 0) {
		c->pattern = LR_PATTERN_INC;
	} else if (strcmp(val, "zero") == 0) {
		c->pattern = LR_PATTERN_ZERO;
	} else if (strcmp(val, "random") == 0) {
		c->pattern = LR_PATTERN_RANDOM;
	} else {
		if (strncmp(val, "0x", 2) == 0)
			val += 2;
		n = strlen(val);
		if (n == 0 || n % 2 != 0 || n / 2 > LR_GEN_PATTERN_MAX)
			goto bad;
		for (i = 0; i < n / 2; i++) {
			unsigned int b;

			if (sscanf(val + 2 * i, "%2x", &b) != 1 ||
			    !isxdigit((unsigned char)val[2 * i]) ||
			    !isxdigit((unsigned char)val[2 * i + 1]))
				goto bad;
			c->pattern_bytes[i] = (uint8_t)b;
		}
		c->pattern_len = (uint8_t)(n / 2);
		c->pattern = LR_PATTERN_BYTES;
	}
	return 0;
bad:
	return lr_err(EINVAL, "gen: pattern '%s': want inc, zero, random or 1..%u "
		      "hex bytes", val, LR_GEN_PATTERN_MAX);
}

/* "99.9" or "99.9%": a percentage in 0..100, kept as a fraction. */
static int
set_percent(const char *key, const char *val, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(val, &end);
	if (errno == 0 && end != val && *end == '%')
		end++;
	if (errno != 0 || end == val || *end != '\0' || !(v >= 0 && v <= 100))
		return lr_err(EINVAL, "gen: %s '%s': want a percentage 0..100",
			      key, val);
	*out = v / 100;
	return 0;
}

/* A number of @p unit seconds (1e-6: microseconds) in min..max seconds. */
static int
set_seconds(const char *key, const char *val, double min, double max,
	    double unit, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(val, &end);
	if (errno == 0 && end != val && *end == '\0')
		v *= unit;
	if (errno != 0 || end == val || *end != '\0' || !(v >= min && v <= max))
		return lr_err(EINVAL, "gen: %s '%s': want %s in %g..%g", key, val,
			      unit < 1 ? "microseconds" : "seconds",
			      min / unit, max / unit);
	*out = v;
	return 0;
}

/* "I/N": this task is slice I (from 0) of N. */
static int
set_slice(struct lr_gen_conf *c, const char *val)
{
	unsigned int i, n;
	char end;

	if (sscanf(val, "%u/%u%c", &i, &n, &end) != 2 || n == 0 || n > 65535 ||
	    i >= n)
		return lr_err(EINVAL, "gen: slice '%s': want I/N with 0 <= I < N",
			      val);
	c->slice = (uint16_t)i;
	c->slices = (uint16_t)n;
	return 0;
}

/* The options whose text needs a parser of their own, as table entries. */
static int
opt_size(void *conf, const char *key, const char *val)
{
	struct lr_gen_conf *c = conf;
	int ret;

	RTE_SET_USED(key);
	ret = set_sizes(c, val);
	if (ret == 0)
		c->sizes_given = true;
	return ret;
}

static int
opt_data_size(void *conf, const char *key, const char *val)
{
	struct lr_gen_conf *c = conf;
	uint64_t v = 0;
	int ret = set_u64(key, val, LR_HDR_BYTES,
			  LR_FRAME_MAX_BYTES - LR_UDP4_OVERHEAD, &v);

	c->data_bytes = (uint32_t)v;
	return ret;
}

static int
opt_rate(void *conf, const char *key, const char *val)
{
	struct lr_gen_conf *c = conf;

	RTE_SET_USED(key);
	if (lr_rate_parse(val, &c->rate) != 0)
		return lr_err(EINVAL, "gen: rate '%s': want max, PPS, 1.5Mpps, "
			      "10Gbps (L2), 10Gbpsl1 or 50%%", val);
	c->rate_given = true;
	return 0;
}

static int
opt_order(void *conf, const char *key, const char *val)
{
	struct lr_gen_conf *c = conf;

	RTE_SET_USED(key);
	if (strcmp(val, "seq") != 0 && strcmp(val, "shuffle") != 0)
		return lr_err(EINVAL, "gen: order '%s': want seq or shuffle", val);
	c->shuffle = strcmp(val, "shuffle") == 0;
	return 0;
}

static int
opt_slice(void *conf, const char *key, const char *val)
{
	RTE_SET_USED(key);
	return set_slice(conf, val);
}

static int
opt_pattern(void *conf, const char *key, const char *val)
{
	RTE_SET_USED(key);
	return set_pattern(conf, val);
}

static int
opt_port_range(void *conf, const char *key, const char *val)
{
	struct lr_gen_conf *c = conf;

	return key[0] == 's' ? set_port_range(key, val, &c->src_port, &c->src_ports) :
			       set_port_range(key, val, &c->dst_port, &c->dst_ports);
}

static int
opt_ip_range(void *conf, const char *key, const char *val)
{
	struct lr_gen_conf *c = conf;

	return set_ip_range(key, val, key[0] == 's' ? &c->src_ip : &c->dst_ip);
}

static int
opt_mac(void *conf, const char *key, const char *val)
{
	struct lr_gen_conf *c = conf;

	int ret = set_mac(key, val, key[0] == 's' ? &c->src_mac : &c->dst_mac);

	if (ret == 0)
		*(key[0] == 's' ? &c->src_mac_given : &c->dst_mac_given) = true;
	return ret;
}

static int
opt_speed(void *conf, const char *key, const char *val)
{
	struct lr_gen_conf *c = conf;
	char *end;
	double v;

	errno = 0;
	v = strtod(val, &end);
	if (errno != 0 || end == val || *end != '\0' || !(v >= 1e-3 && v <= 1e6))
		return lr_err(EINVAL, "gen: %s '%s': want a factor of the capture's "
			      "timing in 0.001..1e6", key, val);
	c->speed = v;
	return 0;
}

static int
opt_tolerance(void *conf, const char *key, const char *val)
{
	return set_percent(key, val, &((struct lr_gen_conf *)conf)->rate_tolerance);
}

static int
opt_catch_up(void *conf, const char *key, const char *val)
{
	return set_seconds(key, val, 1e-6, 10, 1e-6,
			   &((struct lr_gen_conf *)conf)->catch_up_s);
}

static int
opt_stall(void *conf, const char *key, const char *val)
{
	return set_seconds(key, val, 0, 3600, 1,
			   &((struct lr_gen_conf *)conf)->stall_timeout_s);
}

/* "VID" or "FIRST-LAST", 0..4095: the tag's VLAN ids, one per flow. */
static int
opt_vlan(void *conf, const char *key, const char *val)
{
	struct lr_gen_conf *c = conf;
	struct lr_gen_tag *tag = key[0] == 'o' ? &c->outer : &c->vlan;
	char buf[32], *dash;
	uint64_t a, b;

	snprintf(buf, sizeof(buf), "%s", val);
	dash = strchr(buf, '-');
	if (dash != NULL)
		*dash = '\0';
	if (strlen(val) >= sizeof(buf) || lr_parse_u64(buf, &a) != 0 || a > 4095)
		goto bad;
	b = a;
	if (dash != NULL && (lr_parse_u64(dash + 1, &b) != 0 || b > 4095 || b < a))
		goto bad;
	tag->vid = (uint16_t)a;
	tag->vids = (uint16_t)(b - a + 1);
	tag->set = true;
	return 0;
bad:
	return lr_err(EINVAL, "gen: %s '%s': want a VLAN id or FIRST-LAST in "
		      "0..4095", key, val);
}

/* The outer tag's TPID: 802.1ad's, or 802.1Q's (what some switches put
 * on both tags), or the pre-standard 0x9100. */
static int
opt_tpid(void *conf, const char *key, const char *val)
{
	struct lr_gen_conf *c = conf;
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(val, &end, 16);
	if (errno != 0 || end == val || *end != '\0' ||
	    (v != 0x88a8 && v != 0x8100 && v != 0x9100))
		return lr_err(EINVAL, "gen: %s '%s': want 0x88a8, 0x8100 or 0x9100",
			      key, val);
	c->outer.tpid = (uint16_t)v;
	return 0;
}

#define GC(field) LR_OPT_FIELD(struct lr_gen_conf, field)
#define FUNC(fn) LR_OPT_FUNC, 0, 0, 0, 0, fn

/* The options of built frames: gen's, and rtt's (it sends as gen does). */
#define GEN_FRAME_OPTS \
	{ "size", FUNC(opt_size), "S", \
	  "frame bytes on the wire with Ethernet header and FCS (Table 1's " \
	  "count), 64..9018: one size, a list cycled per packet (`64,128,256`), " \
	  "weights (`64:7,594:4,1518:1`, interleaved: never seven 64 B in a " \
	  "row), `imix` (that list), or a range with a uniformly random size " \
	  "per packet (`64-1518`) (64)", "`--size imix`", NULL }, \
	{ "data-size", FUNC(opt_data_size), "B", \
	  "UDP data bytes instead of a frame size: 18..8972 over IPv4 (1518 B " \
	  "frame for 1472); not with `--size`", "`--data-size 1472`", NULL }, \
	{ "count", LR_OPT_UINT, GC(count), 0, UINT64_MAX, NULL, "N", \
	  "packets in all, shared by the queues; 0: no limit (0)", "`--count 1M`", NULL }, \
	{ "bytes", LR_OPT_UINT, GC(bytes), 0, UINT64_MAX, NULL, "N", \
	  "frame bytes in all; the last frame may pass it (0: no limit)", \
	  "`--bytes 400G`", NULL }, \
	{ "rate", FUNC(opt_rate), "R", \
	  "`max` or `0` (as fast as the port takes), `N` or `NMpps` " \
	  "(packets/s), `NGbps` (L2: frames with FCS), `NGbpsl1` (L1: +20 B " \
	  "preamble and gap per frame), `N%` (of the link speed, L1); a rate " \
	  "above the port's line rate, or one so low that a frame's slot " \
	  "passes 1e8 s (three years), is an error (max)", \
	  "`--rate 14.88Mpps`, `--size 1518 --rate 9.5Gbps`, `--rate 50%`", NULL }, \
	{ "burst", LR_OPT_UINT, GC(burst), 1, LR_BURST, NULL, "N", \
	  "most packets per tx burst, 1..32; paced traffic sends only what is " \
	  "due, so 1 spaces every packet evenly (32)", "`--burst 1`", NULL }, \
	{ "flows", LR_OPT_UINT, GC(flows), 1, UINT32_MAX, NULL, "N", \
	  "flows in all, numbered from flow-base; each has its own sequence " \
	  "numbers (1)", "`--flows 65536 --src-ip 10.0.0.1-10.0.0.2`", NULL }, \
	{ "flow-base", LR_OPT_UINT, GC(flow_base), 0, UINT32_MAX - 1, NULL, "ID", \
	  "flow id of the first flow (0)", "`--flow-base 1000`", NULL }, \
	{ "src-ip", FUNC(opt_ip_range), "A[-B]", \
	  "IPv4 or IPv6 source address range; IPv6 ranges count in the last 32 " \
	  "bits; one IPv6 side makes the other's default IPv6 (10.0.0.1; IPv6 " \
	  "fd00::1)", "`--src-ip 10.0.0.1-10.0.0.255`", NULL }, \
	{ "dst-ip", FUNC(opt_ip_range), "A[-B]", \
	  "destination address range, as src-ip (10.0.0.2; IPv6 fd00::2)", \
	  "`--dst-ip 2001:db8::1 --size 128`", NULL }, \
	{ "src-port", FUNC(opt_port_range), "P[-Q]", \
	  "UDP source port range (1024-65535)", "`--src-port 1000-1999`", NULL }, \
	{ "dst-port", FUNC(opt_port_range), "P[-Q]", \
	  "UDP destination port range (5001)", "`--dst-port 53`", NULL }, \
	{ "order", FUNC(opt_order), "seq|shuffle", \
	  "flow i takes the i-th tuple: the VLAN ids fastest (vlan, then " \
	  "outer-vlan, when ranges), then source port, destination port, " \
	  "source address, destination address; `shuffle` sends the flows " \
	  "in a random order that is the same for every run with the same seed " \
	  "(seq)", "`--order shuffle`", NULL }, \
	{ "seed", LR_OPT_UINT, GC(seed), 0, UINT64_MAX, NULL, "N", \
	  "seed of the shuffle, random sizes and random pattern (1)", "`--seed 7`", NULL }, \
	{ "slice", FUNC(opt_slice), "I/N", \
	  "this task takes the I-th of N shares of flows, count, bytes and rate; " \
	  "the CLI gives each tx queue its share", "`slice = \"1/4\"` (Lua)", NULL }, \
	{ "pattern", FUNC(opt_pattern), "P", \
	  "payload after the header: `inc` (byte i of the frame is i mod 256), " \
	  "`zero`, `random`, or hex bytes repeated (inc)", "`--pattern 0xdeadbeef`", NULL }, \
	{ "udp-cksum", LR_OPT_UINT, GC(udp_cksum), 0, 1, NULL, "0|1", \
	  "UDP checksum by incremental update; IPv6 always has one (IPv4: 0)", \
	  "`--udp-cksum 1`", NULL }, \
	{ "fixed", LR_OPT_BOOL, GC(fixed), 0, 1, NULL, "0|1", \
	  "send pre-built frames with nothing written per packet (flow id " \
	  "0xffffffff, rx counts them as untracked): Pktgen's mode, for the " \
	  "highest rate (0)", "`--fixed 1`", NULL }, \
	{ "src-mac", FUNC(opt_mac), "MAC", \
	  "source Ethernet address (02:00:00:00:00:01)", \
	  "`--src-mac 02:00:00:00:00:0a`", NULL }, \
	{ "dst-mac", FUNC(opt_mac), "MAC", \
	  "destination Ethernet address (02:00:00:00:00:02)", \
	  "`--dst-mac 3c:fd:fe:00:00:01`", NULL }, \
	{ "rate-tolerance", FUNC(opt_tolerance), "P", \
	  "a paced task whose offered ratio (achieved / asked) is below P % is " \
	  "short (99.9)", "`--rate-tolerance 99`", NULL }, \
	{ "catch-up", FUNC(opt_catch_up), "US", \
	  "after a stall, a paced task sends what it owes for at most US µs, a " \
	  "burst per poll; what it owed before that is not sent but counted in " \
	  "`late_packets` (100)", "`--catch-up 5000`", NULL }, \
	{ "stall-timeout", FUNC(opt_stall), "S", \
	  "end the task when its port has taken no frame for S s while frames " \
	  "wait (link down, peer gone or not reading); 0: never (1)", \
	  "`--stall-timeout 5`", NULL }, \
	{ "vlan", FUNC(opt_vlan), "VID[-LAST]", \
	  "an 802.1Q tag (TPID 0x8100) with VLAN id VID, 0..4095; a range " \
	  "gives flow i the VID FIRST + i mod the range's size (the VID varies " \
	  "fastest of the flow's fields). --size is the frame on the wire, the " \
	  "tag's 4 B included: a tag and linerate's 18 B header need 68 B " \
	  "(no tag)", "`--vlan 100 --size 68`, " \
	  "`--vlan 100-199 --flows 100 --size 128`", NULL }, \
	{ "vlan-pcp", LR_OPT_UINT, GC(vlan.pcp), 0, 7, NULL, "P", \
	  "the vlan tag's priority code point, 0..7 (0)", \
	  "`--vlan 100 --vlan-pcp 5 --size 68`", NULL }, \
	{ "vlan-dei", LR_OPT_UINT, GC(vlan.dei), 0, 1, NULL, "0|1", \
	  "the vlan tag's drop eligible indicator (0)", \
	  "`--vlan 100 --vlan-dei 1 --size 68`", NULL }, \
	{ "outer-vlan", FUNC(opt_vlan), "VID[-LAST]", \
	  "QinQ: an outer tag (802.1ad S-tag, TPID 0x88a8) before the vlan " \
	  "tag, VLAN id or range as vlan's, varying per flow after the vlan " \
	  "tag's VID; 72 B frames hold both tags and the header (no tag)", \
	  "`--outer-vlan 10 --vlan 100-103 --flows 4 --size 72`", NULL }, \
	{ "outer-pcp", LR_OPT_UINT, GC(outer.pcp), 0, 7, NULL, "P", \
	  "the outer tag's priority code point, 0..7 (0)", \
	  "`--outer-vlan 10 --outer-pcp 3 --vlan 100 --size 72`", NULL }, \
	{ "outer-dei", LR_OPT_UINT, GC(outer.dei), 0, 1, NULL, "0|1", \
	  "the outer tag's drop eligible indicator (0)", \
	  "`--outer-vlan 10 --outer-dei 1 --vlan 100 --size 72`", NULL }, \
	{ "outer-tpid", FUNC(opt_tpid), "T", \
	  "the outer tag's TPID: 0x88a8 (802.1ad), 0x8100 or 0x9100 (0x88a8)", \
	  "`--outer-vlan 10 --outer-tpid 0x8100 --vlan 100 --size 72`", NULL }, \
	{ "dscp", LR_OPT_UINT, GC(dscp), 0, 63, NULL, "D", \
	  "DiffServ code point in the IPv4 ToS or IPv6 traffic class, 0..63 " \
	  "(0)", "`--dscp 46`", NULL }, \
	{ "ecn", LR_OPT_UINT, GC(ecn), 0, 3, NULL, "E", \
	  "ECN field beside the DSCP, 0..3: 1 ECT(1), 2 ECT(0), 3 CE (0)", \
	  "`--dscp 10 --ecn 2`", NULL }, \
	{ "ttl", LR_OPT_UINT, GC(ttl), 1, 255, NULL, "N", \
	  "IPv4 TTL or IPv6 hop limit, 1..255 (64)", "`--ttl 1`", NULL }, \
	{ "df", LR_OPT_BOOL, GC(df), 0, 1, NULL, "0|1", \
	  "IPv4 don't fragment flag (1)", "`--df 0`", NULL },

/* gen's options, in --help's and doc/usage.md's order. */
const struct lr_opt lr_gen_opts[] = {
	GEN_FRAME_OPTS
	{ "pcap", LR_OPT_STRING(struct lr_gen_conf, pcap, 1, NULL), "FILE",
	  "replay the Ethernet frames of a pcap file (ns or us stamps) instead "
	  "of building them: loaded into memory once (1 GiB at most), sent at "
	  "the capture's own timing times `--multiplier`, or at `--rate` when that is "
	  "given (`max`: as fast as the port takes); `--count`, `--loops` or the "
	  "duration end it (no)", "`--pcap trace.pcap --loops 10`", NULL },
	{ "multiplier", FUNC(opt_speed), "X",
	  "pcap: the capture's inter-frame gaps divided by X, 0.001..1e6; its "
	  "mean rate then above the port's line rate is an error (1)",
	  "`--pcap trace.pcap --multiplier 2.5`", NULL },
	{ "loops", LR_OPT_UINT, GC(loops), 0, UINT64_MAX, NULL, "N",
	  "pcap: times through the capture, 0: until count or duration (1); a "
	  "loop starts a mean gap after the last one's last frame",
	  "`--pcap trace.pcap --loops 0 --duration 1`", NULL },
	{ "loop-ip-step", LR_OPT_UINT, GC(loop_ip_step), 0, UINT32_MAX, NULL, "N",
	  "pcap: loop k adds k x N to every IPv4 source address (an IPv6 "
	  "one's last 32 bits), checksums fixed, so that each loop makes new "
	  "flows, as TRex does (0)", "`--pcap trace.pcap --loops 100 --loop-ip-step 256 --rate max`", NULL },
	{ "stamp", LR_OPT_BOOL, GC(stamp), 0, 1, NULL, "0|1",
	  "pcap: write linerate's header (flow id per 5-tuple from flow-base, "
	  "new ids each loop with loop-ip-step, sequence, TX TSC) at the start "
	  "of the data of UDP frames with 18 B of it or more, UDP checksum "
	  "fixed, so that rx accounts the replay (0)",
	  "`--pcap trace.pcap --stamp 1`", NULL },
	{ 0 },
};

/* rtt's companion options: no replay (its frames must come back). */
const struct lr_opt lr_gen_frame_opts[] = {
	GEN_FRAME_OPTS
	{ 0 },
};

int
lr_gen_conf_set_key(void *conf, const char *key, const char *val)
{
	struct lr_gen_conf *c = conf;

	/* Both would leave one silently unused (data-size won). */
	if ((strcmp(key, "size") == 0 && c->data_bytes != 0) ||
	    (strcmp(key, "data-size") == 0 && c->sizes_given))
		return lr_err(EINVAL, "gen: size and data-size exclude each "
			      "other: give one");
	return lr_opt_set(lr_gen_opts, conf, "gen", key, val);
}

void
lr_gen_conf_slice(void *conf, unsigned int q, unsigned int nq)
{
	struct lr_gen_conf *c = conf;

	/* Callers keep q < nq; a port has at most 65535 queues. */
	c->slice = (uint16_t)q;
	c->slices = (uint16_t)RTE_MIN(nq, 65535u);
}

void
lr_gen_conf_init_any(void *conf)
{
	lr_gen_conf_init(conf);
}

int
lr_gen_frame_check(const struct lr_gen_conf *c, bool ipv6, uint32_t f)
{
	unsigned int tags = lr_gen_tags(c);
	uint32_t min = (ipv6 ? LR_UDP6_HDRS_BYTES : LR_UDP4_HDRS_BYTES) +
		       RTE_VLAN_HLEN * tags + LR_HDR_BYTES + LR_FCS_BYTES;
	char why[64] = "";

	/* --size is the frame on the wire, tags included (as MoonGen and
	 * TRex count it): the tags take from the payload, and below the
	 * least frame linerate's header would not fit. */
	if (f >= LR_FRAME_MIN_BYTES && f <= LR_FRAME_MAX_BYTES && f >= min)
		return 0;
	if (tags != 0 || ipv6)
		snprintf(why, sizeof(why), " (%s%s%sthe 18 B header need %u B)",
			 ipv6 ? "IPv6" : "", ipv6 && tags ? ", " : ipv6 ? " and " : "",
			 tags == 0 ? "" : tags == 1 ? "a VLAN tag and " :
			 "2 VLAN tags and ", min);
	return lr_err(EINVAL, "gen: frame size %u B outside %u..%u%s", f,
		      RTE_MAX(min, (uint32_t)LR_FRAME_MIN_BYTES),
		      LR_FRAME_MAX_BYTES, why);
}

/* Every size the conf cycles through fits its headers and tags: before
 * any port, a bad option (--vlan at the 64 B default). */
static int
check_sizes(const struct lr_gen_conf *c, bool ipv6)
{
	uint32_t *tab = malloc(sizeof(*tab) * LR_GEN_SIZE_TABLE);
	int n, i, ret = 0;

	if (tab == NULL)
		return lr_err(ENOMEM, "gen: no memory");
	n = lr_gen_size_table(c, tab, LR_GEN_SIZE_TABLE);
	if (n <= 0)
		ret = lr_err(EINVAL, "gen: no frame sizes");
	for (i = 0; i < n && ret == 0; i++)
		ret = lr_gen_frame_check(c, ipv6, tab[i]);
	free(tab);
	return ret;
}

/*
 * Does the rate's slot fit a schedule (LR_GEN_SLOT_MAX_S)? Before any port:
 * at the least frame the conf can make (the largest size it lists, a
 * replay's capture unknown: 64 B) and, for a share of the link, on a link
 * of 1 Tb/s, so that what is refused here is refused by pace_of() too,
 * which checks the real frames and link at the start and at each set.
 */
static int
check_slot(const struct lr_gen_conf *c)
{
	double per_pkt, per_byte, frame = LR_FRAME_MIN_BYTES, slot;
	uint32_t i;
	char rs[64];

	if (c->rate.unit == LR_RATE_MAX)
		return 0;
	if (c->pcap[0] == '\0' && c->data_bytes == 0)
		for (i = 0; i < c->nb_sizes; i++)
			frame = RTE_MAX(frame, (double)c->sizes[i]);
	if (lr_rate_cost(&c->rate, 1e12, &per_pkt, &per_byte) != 0)
		return 0;
	slot = (per_pkt + per_byte * frame) * RTE_MAX(c->slices, 1);
	if (!(slot <= LR_GEN_SLOT_MAX_S))
		return lr_err(EINVAL, "gen: rate %s is too low to schedule: a "
			      "frame's slot of %.3g s passes the %.0e s a "
			      "schedule holds", lr_rate_str(&c->rate, rs, sizeof(rs)),
			      slot, LR_GEN_SLOT_MAX_S);
	return 0;
}

static int
check_conf(const struct lr_gen_conf *c, const struct lr_ip_range *src)
{
	uint64_t tuples = lr_gen_tuples(c);

	if (c->flows == 0)
		return lr_err(EINVAL, "gen: zero flows");
	if (tuples < c->flows)
		return lr_err(EINVAL, "gen: %u flows need as many distinct (src-ip, "
			      "dst-ip, src-port, dst-port); the ranges hold %" PRIu64
			      ": widen src-port, src-ip or dst-ip", c->flows, tuples);
	if ((uint64_t)c->flow_base + c->flows > LR_FLOW_NONE)
		return lr_err(EINVAL, "gen: flow ids %u + %u flows pass 2^32 - 1",
			      c->flow_base, c->flows);
	/* Before the flows' share: a replay has one flow by the conf (its
	 * flows are the capture's), and "slice 0/2 of 1 flows leaves it
	 * none" named nothing the user gave. */
	if (c->pcap[0] != '\0' && c->slices != 1)
		return lr_err(EINVAL, "gen: pcap replays a capture in its order "
			      "on one tx queue; the port has %u (--queues or "
			      "--txq): give it one", c->slices);
	if (c->slices == 0 || c->slice >= c->slices || c->flows < c->slices)
		return lr_err(EINVAL, "gen: slice %u/%u of %u flows leaves it none",
			      c->slice, c->slices, c->flows);
	if (lr_gen_share(c->flows, c->slice, c->slices) > LR_GEN_FLOWS_MAX)
		return lr_err(EINVAL, "gen: more than %u flows on one task",
			      LR_GEN_FLOWS_MAX);
	if (c->burst == 0 || c->burst > LR_BURST)
		return lr_err(EINVAL, "gen: burst %u outside 1..%u", c->burst,
			      LR_BURST);
	if (c->pattern == LR_PATTERN_BYTES && c->pattern_len == 0)
		return lr_err(EINVAL, "gen: empty pattern");
	if (c->fixed && (c->flows != 1 || c->size_mode != LR_SIZE_FIXED))
		return lr_err(EINVAL, "gen: fixed sends one pre-built frame: give "
			      "one size and one flow");
	if (!c->vlan.set && (c->outer.set || c->vlan.pcp || c->vlan.dei))
		return lr_err(EINVAL, "gen: %s without vlan: give the (inner) "
			      "tag's --vlan", c->outer.set ? "outer-vlan" :
			      "vlan-pcp or vlan-dei");
	if (!c->outer.set && (c->outer.pcp || c->outer.dei ||
			      c->outer.tpid != RTE_ETHER_TYPE_QINQ))
		return lr_err(EINVAL, "gen: outer-pcp, outer-dei or outer-tpid "
			      "without outer-vlan");
	if (c->udp_cksum == 0 && src->ipv6)
		return lr_err(EINVAL, "gen: UDP over IPv6 needs its checksum "
			      "(RFC 8200)");
	if (c->pcap[0] == '\0')
		return (c->speed != 1 || c->loops != 1 || c->loop_ip_step != 0 ||
			c->stamp) ? lr_err(EINVAL, "gen: multiplier, loops, loop-ip-step "
					   "and stamp go with pcap") : 0;
	/* The options that shape built frames have no part in a replay:
	 * given, they would be silently unused. */
	if (c->sizes_given || c->data_bytes != 0 || c->bytes != 0 || c->fixed ||
	    c->flows != 1 || src->set || c->dst_ip.set || c->shuffle ||
	    c->src_ports != 65536 - 1024 || c->dst_ports != 1 ||
	    c->src_port != 1024 || c->dst_port != 5001 ||
	    c->pattern != LR_PATTERN_INC || c->udp_cksum != -1 ||
	    lr_gen_tags(c) != 0 || c->dscp != 0 || c->ecn != 0 || c->ttl != 64 ||
	    !c->df)
		return lr_err(EINVAL, "gen: pcap sends the capture's frames: not "
			      "with size, data-size, bytes, fixed, flows, src-ip, "
			      "dst-ip, src-port, dst-port, order, pattern, "
			      "udp-cksum, vlan, outer-vlan, dscp, ecn, ttl or df");
	if (c->rate_given && c->speed != 1)
		return lr_err(EINVAL, "gen: multiplier scales the capture's timing; "
			      "rate replaces it: give one");
	return 0;
}

/* The conf's own contradictions (families, flows), before any port. */
int
lr_gen_conf_check(const void *arg)
{
	const struct lr_gen_conf *c = arg;
	struct lr_ip_range src, dst;
	int ret;

	ret = lr_gen_ranges(c, &src, &dst);
	if (ret == 0)
		ret = check_conf(c, &src);
	/* After the options' contradictions, which say more. */
	if (ret == 0)
		ret = check_slot(c);
	if (ret == 0 && c->pcap[0] == '\0')
		ret = check_sizes(c, src.ipv6);
	return ret;
}
