/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The solver's input readers: our CSV ("a,b,rtt_ns"), sockperf's
 * --full-log and irtt's JSON. zlib's gz* functions read plain files too.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "lr_common.h"
#include "lr_latency.h"

#define LINE_MAX_BYTES 4096

/* @p path, or standard input for "-". */
static gzFile
open_gz(const char *path)
{
	gzFile f = strcmp(path, "-") == 0 ? gzdopen(dup(0), "rb") :
		gzopen(path, "rb");

	if (f != NULL)
		gzbuffer(f, 1 << 17);
	return f;
}

static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

long
lr_latency_read_csv(struct lr_latency *lat, const char *path)
{
	char line[LINE_MAX_BYTES], *a, *b, *v, *end, *p;
	long n = 0, lineno = 0;
	gzFile f = open_gz(path);
	double rtt;
	int ret;

	if (f == NULL)
		return lr_err(ENOENT, "%s", path);
	while (gzgets(f, line, sizeof(line)) != NULL) {
		lineno++;
		if (strchr(line, '\n') == NULL && !gzeof(f)) {
			ret = lr_err(EINVAL, "%s:%ld: line longer than %d bytes",
				     path, lineno, LINE_MAX_BYTES - 1);
			goto out;
		}
		p = strchr(line, '#');
		if (p != NULL)
			*p = '\0';
		a = trim(line);
		if (*a == '\0')
			continue;
		b = strchr(a, ',');
		v = b != NULL ? strchr(b + 1, ',') : NULL;
		if (v == NULL || strchr(v + 1, ',') != NULL) {
			ret = lr_err(EINVAL, "%s:%ld: want a,b,rtt_ns", path,
				     lineno);
			goto out;
		}
		*b++ = '\0';
		*v++ = '\0';
		a = trim(a);
		b = trim(b);
		v = trim(v);
		if (n == 0 && strcmp(v, "rtt_ns") == 0)
			continue;	/* header */
		errno = 0;
		rtt = strtod(v, &end);
		if (end == v || *end != '\0' || errno || !isfinite(rtt) ||
		    rtt < 0) {
			ret = lr_err(EINVAL, "%s:%ld: rtt_ns '%s': want a number "
				     ">= 0", path, lineno, v);
			goto out;
		}
		ret = lr_latency_add(lat, a, b, rtt);
		if (ret < 0) {
			ret = lr_err(-ret, "%s:%ld: %s", path, lineno,
				     lr_errmsg());
			goto out;
		}
		n++;
	}
	ret = 0;
out:
	gzclose(f);
	return ret < 0 ? ret : n;
}

/* "2.411483617" as ns, exactly (a double would round at 1e-7 s). */
static int
parse_sec_ns(const char *s, int64_t *ns)
{
	int64_t sec = 0, frac = 0;
	int digits = 0;

	s = s + strspn(s, " \t");
	if (!isdigit((unsigned char)*s))
		return -1;
	while (isdigit((unsigned char)*s)) {
		/* sec * 1e9 must fit in int64_t: 292 years of seconds. */
		if (sec > (INT64_MAX / 1000000000 - 9) / 10)
			return -1;
		sec = sec * 10 + (*s++ - '0');
	}
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s); s++)
			if (digits < 9) {
				frac = frac * 10 + (*s - '0');
				digits++;
			}
	while (digits++ < 9)
		frac *= 10;
	s = s + strspn(s, " \t\r\n");
	if (*s != '\0')
		return -1;
	*ns = sec * 1000000000 + frac;
	return 0;
}

long
lr_latency_read_sockperf(struct lr_latency *lat, const char *path,
			 const char *a, const char *b)
{
	char line[LINE_MAX_BYTES], *f1, *f2, *f3;
	long n = 0, lineno = 0;
	bool in_log = false;
	int64_t tx, rx;
	gzFile f;
	int pair, ret;

	pair = lr_latency_pair(lat, a, b);
	if (pair < 0)
		return pair;
	f = open_gz(path);
	if (f == NULL)
		return lr_err(ENOENT, "%s", path);
	while (gzgets(f, line, sizeof(line)) != NULL) {
		lineno++;
		if (!in_log) {
			if (strncmp(line, "packet, txTime", 14) == 0)
				in_log = true;
			continue;
		}
		if (line[0] == '-' || line[0] == '\n')
			break;	/* the log's end */
		f1 = strchr(line, ',');
		f2 = f1 != NULL ? strchr(f1 + 1, ',') : NULL;
		f3 = f2 != NULL ? strchr(f2 + 1, ',') : NULL;
		if (f3 == NULL) {
			ret = lr_err(EINVAL, "%s:%ld: want packet, txTime, "
				     "rxTime, latency", path, lineno);
			goto out;
		}
		*f2 = '\0';
		*f3 = '\0';
		if (parse_sec_ns(f1 + 1, &tx) < 0 || parse_sec_ns(f2 + 1, &rx) < 0) {
			ret = lr_err(EINVAL, "%s:%ld: txTime, rxTime: want "
				     "seconds", path, lineno);
			goto out;
		}
		if (rx == 0)
			continue;	/* no reply */
		if (rx < tx) {
			ret = lr_err(EINVAL, "%s:%ld: rxTime before txTime",
				     path, lineno);
			goto out;
		}
		lr_latency_add_pair(lat, pair, (double)(rx - tx));
		n++;
	}
	ret = in_log ? 0 : lr_err(EINVAL, "%s: no 'packet, txTime(sec), "
				  "rxTime(sec), latency(usec)' line: not sockperf "
				  "--full-log output", path);
out:
	gzclose(f);
	return ret < 0 ? ret : n;
}

/* The whole (decompressed) file in a buffer. */
static char *
slurp(const char *path, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap), *nb;
	gzFile f = open_gz(path);
	int got;

	if (f == NULL || buf == NULL) {
		free(buf);
		if (f != NULL)
			gzclose(f);
		return NULL;
	}
	while ((got = gzread(f, buf + n, (unsigned int)(cap - n))) > 0) {
		n += (size_t)got;
		if (n == cap) {
			nb = realloc(buf, cap *= 2);
			if (nb == NULL) {
				free(buf);
				gzclose(f);
				return NULL;
			}
			buf = nb;
		}
	}
	gzclose(f);
	if (got < 0) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

static int
stamp(json_t *rt, const char *side, const char *what, const char *clock,
      int64_t *ns)
{
	json_t *v;

	v = json_object_get(rt, "timestamps");
	v = json_object_get(v, side);
	v = json_object_get(v, what);
	v = json_object_get(v, clock);
	if (!json_is_integer(v))
		return -1;
	*ns = json_integer_value(v);
	return 0;
}

long
lr_latency_read_irtt(struct lr_latency *lat, const char *path,
		     const char *a, const char *b)
{
	json_t *doc, *rts, *rt, *lost;
	json_error_t jerr;
	int64_t tx, rx;
	size_t len, i;
	long n = 0;
	char *buf;
	int pair, ret = 0;

	pair = lr_latency_pair(lat, a, b);
	if (pair < 0)
		return pair;
	buf = slurp(path, &len);
	if (buf == NULL)
		return lr_err(ENOENT, "%s", path);
	doc = json_loadb(buf, len, 0, &jerr);
	free(buf);
	if (doc == NULL)
		return lr_err(EINVAL, "%s:%d: %s", path, jerr.line, jerr.text);
	rts = json_object_get(doc, "round_trips");
	if (!json_is_array(rts)) {
		ret = lr_err(EINVAL, "%s: no \"round_trips\" array: not irtt "
			     "client -o output", path);
		goto out;
	}
	json_array_foreach(rts, i, rt) {
		lost = json_object_get(rt, "lost");
		if (!json_is_string(lost) ||
		    strcmp(json_string_value(lost), "false") != 0)
			continue;
		if ((stamp(rt, "client", "send", "monotonic", &tx) < 0 ||
		     stamp(rt, "client", "receive", "monotonic", &rx) < 0) &&
		    (stamp(rt, "client", "send", "wall", &tx) < 0 ||
		     stamp(rt, "client", "receive", "wall", &rx) < 0)) {
			ret = lr_err(EINVAL, "%s: round trip %zu: no client "
				     "send and receive timestamps", path, i);
			goto out;
		}
		if (rx < tx) {
			ret = lr_err(EINVAL, "%s: round trip %zu: received "
				     "before sent", path, i);
			goto out;
		}
		lr_latency_add_pair(lat, pair, (double)(rx - tx));
		n++;
	}
out:
	json_decref(doc);
	return ret < 0 ? ret : n;
}
