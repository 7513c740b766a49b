/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The solver's input readers: our CSV ("a,b,rtt_ns"), sockperf's
 * --full-log and irtt's JSON. zlib's gz* functions read plain files too.
 */
#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <zlib.h>

#include "lr_common.h"
#include "lr_latency.h"

#define LINE_MAX_BYTES 4096
#define READ_CHUNK (1 << 17)

/* Wrap the message of the error @p ret that a callee set with "FILE:LINE: ".
 * The callee's message is copied first: lr_err() formats into the buffer
 * lr_errmsg() returns, so passing it as an argument would read what is
 * being written ("x.csv:1: x.csv:1: ..."). */
static int
wrap(int ret, const char *path, long lineno)
{
	char inner[256];

	snprintf(inner, sizeof(inner), "%s", lr_errmsg());
	lr_err(0, "%s:%ld: %s", path, lineno, inner);
	return ret;
}

/* @p path, or standard input for "-", as a gzFile (zlib reads plain files
 * too). The file is opened here, not by gzopen(), so that a directory is
 * refused by name (open() succeeds on one; the first read would fail) and
 * every failure says its own errno. */
static gzFile
open_gz(const char *path, int *ret)
{
	struct stat st;
	gzFile f;
	int fd, e;

	fd = strcmp(path, "-") == 0 ? dup(0) : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		*ret = lr_err(e, "%s", path);
		return NULL;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		*ret = lr_err(EISDIR, "%s", path);
		return NULL;
	}
	errno = 0;
	f = gzdopen(fd, "rb");
	if (f == NULL) {
		e = errno ? errno : ENOMEM;	/* zlib's only failure: malloc */
		close(fd);
		*ret = lr_err(e, "%s", path);
		return NULL;
	}
	gzbuffer(f, READ_CHUNK);
	return f;
}

/* After gzread() returned < 0, or at its end: -errno with the reason, or 0
 * for a clean end of the data. zlib reports a gzip stream that stops before
 * its end (a truncated .gz) as Z_BUF_ERROR "unexpected end of file", and a
 * damaged one as Z_DATA_ERROR; both are refused, as is a read error. */
static int
gz_status(gzFile f, const char *path, int got, int read_errno)
{
	const char *msg;
	int zerr;

	msg = gzerror(f, &zerr);
	if (zerr == Z_OK && got >= 0)
		return 0;
	if (zerr == Z_ERRNO)
		return lr_err(read_errno ? read_errno : EIO, "%s: read", path);
	if (zerr == Z_MEM_ERROR)
		return lr_err(ENOMEM, "%s: decompressing", path);
	if (msg == NULL)
		msg = "?";
	else if (strncmp(msg, "<fd:", 4) == 0 && strstr(msg, ": ") != NULL)
		msg = strstr(msg, ": ") + 2;	/* zlib's name of the fd */
	return lr_err(EINVAL, "%s: truncated or corrupt gzip data: %s", path,
		      msg);
}

/* A line reader over a gzFile: each line whole, without its '\n', with
 * its number; a line longer than LINE_MAX_BYTES - 1, a NUL byte and a read
 * or gzip error are refused by file and line. A last line with no '\n' is
 * taken only at a clean end of the data: cut off by a truncated .gz, it is
 * not a value. */
struct lines {
	gzFile f;
	const char *path;
	long lineno;
	size_t pos, end;
	bool eof;
	char buf[READ_CHUNK + LINE_MAX_BYTES + 1];
};

static int
lines_open(struct lines *r, const char *path)
{
	int ret = 0;

	r->path = path;
	r->lineno = 0;
	r->pos = 0;
	r->end = 0;
	r->eof = false;
	r->f = open_gz(path, &ret);
	return r->f == NULL ? ret : 0;
}

static void
lines_close(struct lines *r)
{
	if (r->f != NULL)
		gzclose(r->f);
	r->f = NULL;
}

/* The next line in *line (NUL-terminated): 1, 0 at the end, or -errno. */
static int
lines_next(struct lines *r, char **line)
{
	char *nl, *nul;
	size_t len;
	int got, ret;

	for (;;) {
		nl = memchr(r->buf + r->pos, '\n', r->end - r->pos);
		if (nl != NULL || r->eof)
			break;
		if (r->end - r->pos >= LINE_MAX_BYTES)
			return lr_err(EINVAL, "%s:%ld: line longer than %d bytes",
				      r->path, r->lineno + 1,
				      LINE_MAX_BYTES - 1);
		memmove(r->buf, r->buf + r->pos, r->end - r->pos);
		r->end -= r->pos;
		r->pos = 0;
		errno = 0;
		got = gzread(r->f, r->buf + r->end, READ_CHUNK);
		ret = gz_status(r->f, r->path, got, errno);
		if (ret < 0)
			return ret;
		if (got == 0)
			r->eof = true;
		r->end += (size_t)got;
	}
	if (nl == NULL && r->pos == r->end)
		return 0;
	len = (nl != NULL ? (size_t)(nl - r->buf) : r->end) - r->pos;
	r->lineno++;
	if (len >= LINE_MAX_BYTES)
		return lr_err(EINVAL, "%s:%ld: line longer than %d bytes",
			      r->path, r->lineno, LINE_MAX_BYTES - 1);
	*line = r->buf + r->pos;
	(*line)[len] = '\0';
	r->pos += len + (nl != NULL ? 1 : 0);
	/* A UTF-8 byte order mark (an editor's on Windows) is no part of
	 * the first device's name. */
	if (r->lineno == 1 && len >= 3 && memcmp(*line, "\xef\xbb\xbf", 3) == 0) {
		*line += 3;
		len -= 3;
	}
	nul = memchr(*line, '\0', len);
	if (nul != NULL)
		return lr_err(EINVAL, "%s:%ld: a NUL byte (column %zu): not a "
			      "text line", r->path, r->lineno,
			      (size_t)(nul - *line) + 1);
	return 1;
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
	struct lines *r = malloc(sizeof(*r));
	char *line, *a, *b, *v, *end, *p;
	long n = 0;
	double rtt;
	int ret;

	if (r == NULL)
		return lr_err(ENOMEM, "%s: line buffer", path);
	ret = lines_open(r, path);
	if (ret < 0) {
		free(r);
		return ret;
	}
	while ((ret = lines_next(r, &line)) > 0) {
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
				     r->lineno);
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
				     ">= 0", path, r->lineno, v);
			goto out;
		}
		ret = lr_latency_add(lat, a, b, rtt);
		if (ret < 0) {
			ret = wrap(ret, path, r->lineno);
			goto out;
		}
		n++;
	}
out:
	lines_close(r);
	free(r);
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
	char *line, *f1, *f2, *f3;
	struct lines *r;
	bool in_log = false;
	int64_t tx, rx;
	long n = 0;
	int pair, ret;

	pair = lr_latency_pair(lat, a, b);
	if (pair < 0)
		return pair;
	r = malloc(sizeof(*r));
	if (r == NULL)
		return lr_err(ENOMEM, "%s: line buffer", path);
	ret = lines_open(r, path);
	if (ret < 0) {
		free(r);
		return ret;
	}
	while ((ret = lines_next(r, &line)) > 0) {
		if (!in_log) {
			if (strncmp(line, "packet, txTime", 14) == 0)
				in_log = true;
			continue;
		}
		if (line[0] == '-' || trim(line)[0] == '\0')
			break;	/* the log's end */
		f1 = strchr(line, ',');
		f2 = f1 != NULL ? strchr(f1 + 1, ',') : NULL;
		f3 = f2 != NULL ? strchr(f2 + 1, ',') : NULL;
		if (f3 == NULL) {
			ret = lr_err(EINVAL, "%s:%ld: want packet, txTime, "
				     "rxTime, latency", path, r->lineno);
			goto out;
		}
		*f2 = '\0';
		*f3 = '\0';
		if (parse_sec_ns(f1 + 1, &tx) < 0 || parse_sec_ns(f2 + 1, &rx) < 0) {
			ret = lr_err(EINVAL, "%s:%ld: txTime, rxTime: want "
				     "seconds", path, r->lineno);
			goto out;
		}
		if (rx == 0)
			continue;	/* no reply */
		/* Both are in 0..INT64_MAX (parse_sec_ns): no overflow. */
		if (rx < tx) {
			ret = lr_err(EINVAL, "%s:%ld: rxTime before txTime",
				     path, r->lineno);
			goto out;
		}
		lr_latency_add_pair(lat, pair, (double)(rx - tx));
		n++;
	}
	if (ret == 0 && !in_log)
		ret = lr_err(EINVAL, "%s: no 'packet, txTime(sec), rxTime(sec), "
			     "latency(usec)' line: not sockperf --full-log "
			     "output", path);
out:
	lines_close(r);
	free(r);
	return ret < 0 ? ret : n;
}

/* The whole (decompressed) file in *buf: its length, or -errno with the
 * reason (the file's errno, no memory, a truncated or corrupt gzip). */
static long
slurp(const char *path, char **buf)
{
	size_t cap = 1 << 20, n = 0, want;
	char *b = malloc(cap), *nb;
	int got, ret = 0;
	gzFile f;

	*buf = NULL;
	if (b == NULL)
		return lr_err(ENOMEM, "%s: a buffer of %zu bytes", path, cap);
	f = open_gz(path, &ret);
	if (f == NULL) {
		free(b);
		return ret;
	}
	for (;;) {
		if (n == cap) {
			if (cap >= (size_t)LONG_MAX / 2) {
				ret = lr_err(EFBIG, "%s", path);
				break;
			}
			nb = realloc(b, cap * 2);
			if (nb == NULL) {
				ret = lr_err(ENOMEM, "%s: a buffer of %zu bytes",
					     path, cap * 2);
				break;
			}
			b = nb;
			cap *= 2;
		}
		want = cap - n < (1u << 30) ? cap - n : (1u << 30);
		errno = 0;
		got = gzread(f, b + n, (unsigned int)want);
		ret = gz_status(f, path, got, errno);
		if (ret < 0 || got == 0)
			break;
		n += (size_t)got;
	}
	gzclose(f);
	if (ret < 0) {
		free(b);
		return ret;
	}
	*buf = b;
	return (long)n;
}

/* The line where element @p idx of the top-level array "round_trips"
 * starts in the JSON text (jansson keeps no positions of values): for
 * messages that name file:line. 0 when not found. */
static long
round_trip_line(const char *s, size_t len, size_t idx)
{
	size_t i, elem = 0, key_at = 0;
	bool in_str = false, esc = false, is_key = false, in_arr = false;
	bool want = false;
	long line = 1;
	int depth = 0;

	for (i = 0; i < len; i++) {
		char c = s[i];

		if (c == '\n')
			line++;
		if (in_str) {
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"') {
				in_str = false;
				if (depth == 1)
					is_key = i - key_at == 11 &&
						memcmp(s + key_at, "round_trips",
						       11) == 0;
			}
			continue;
		}
		if (in_arr && depth == 2 && want && !isspace((unsigned char)c) &&
		    c != ']') {
			if (elem == idx)
				return line;
			want = false;
		}
		switch (c) {
		case '"':
			in_str = true;
			key_at = i + 1;
			break;
		case '{':
		case '[':
			if (c == '[' && depth == 1 && is_key) {
				in_arr = true;
				want = true;
				elem = 0;
			}
			depth++;
			break;
		case '}':
		case ']':
			depth--;
			if (depth == 1)
				in_arr = false;
			break;
		case ',':
			if (in_arr && depth == 2) {
				elem++;
				want = true;
			}
			if (depth == 1)
				is_key = false;
			break;
		default:
			break;
		}
	}
	return 0;
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
	int64_t tx, rx, rtt;
	size_t len, i;
	long n = 0, got;
	char *buf;
	int pair, ret = 0;

	pair = lr_latency_pair(lat, a, b);
	if (pair < 0)
		return pair;
	got = slurp(path, &buf);
	if (got < 0)
		return (int)got;
	len = (size_t)got;
	doc = json_loadb(buf, len, 0, &jerr);
	if (doc == NULL) {
		ret = lr_err(EINVAL, "%s:%d: %s", path, jerr.line, jerr.text);
		goto out;
	}
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
			ret = lr_err(EINVAL, "%s:%ld: round trip %zu: no client "
				     "send and receive timestamps", path,
				     round_trip_line(buf, len, i), i);
			goto out;
		}
		/* Any two int64 stamps: the difference may not fit (UB in
		 * C), and a receive before the send is no round trip. */
		if (__builtin_sub_overflow(rx, tx, &rtt) || rtt < 0) {
			ret = lr_err(EINVAL, "%s:%ld: round trip %zu: receive "
				     "%" PRId64 " - send %" PRId64 " ns is not "
				     "a time >= 0", path,
				     round_trip_line(buf, len, i), i, rx, tx);
			goto out;
		}
		lr_latency_add_pair(lat, pair, (double)rtt);
		n++;
	}
out:
	json_decref(doc);
	free(buf);
	return ret < 0 ? ret : n;
}
