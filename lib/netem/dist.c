/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Distribution tables: iproute2's .dist files read as tc reads them
 * (get_distribution(): '#' and empty lines skipped, then strtol(, 0) over
 * each line, kept as s16), and maketable's algorithm (NIST Net's, public
 * domain) to make one from samples.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_common.h"
#include "lr_netem.h"
#include "lr_out.h"

/* Where tc looks: $TC_LIB_DIR, else LIBDIR/tc (Debian's multiarch
 * directory); the others are where other builds of iproute2 put them. */
static const char *const dist_dirs[] = {
	"/usr/lib/x86_64-linux-gnu/tc",
	"/usr/lib/tc",
	"/usr/lib64/tc",
	"/usr/local/lib/tc",
	"/usr/share/tc",
};

/*
 * A table file is read within bounds: tc reads at most MAX_DIST (16384)
 * values, and its files (maketable's, 4096 values, 8 a line) are about
 * 30 KB. tc's getline() would grow without end on /dev/zero or a FIFO
 * that never ends a line; here a line past DIST_LINE_MAX bytes or a file
 * past DIST_FILE_MAX is refused, in one line that says which.
 */
#define DIST_LINE_MAX 4096
#define DIST_FILE_MAX (1u << 20)

static struct lr_netem_dist *
read_dist(FILE *f, const char *path, const char *name)
{
	struct lr_netem_dist *d;
	char *text, *line, *nl, *s, *end, buf[DIST_LINE_MAX + 1];
	size_t total, len;
	unsigned int lineno = 0;
	long x;

	/* The whole file, one byte more than allowed to tell it was more. */
	text = malloc(DIST_FILE_MAX + 1);
	if (text == NULL)
		return lr_err_null(ENOMEM, "netem: table %s", path);
	total = fread(text, 1, DIST_FILE_MAX + 1, f);
	if (total > DIST_FILE_MAX) {
		free(text);
		return lr_err_null(EINVAL, "netem: %s: more than %u bytes: not "
				   "a distribution table (at most %d values)",
				   path, DIST_FILE_MAX, LR_NETEM_DIST_MAX);
	}
	if (ferror(f)) {
		free(text);
		return lr_err_null(EIO, "netem: %s: cannot read it", path);
	}
	d = calloc(1, sizeof(*d));
	if (d != NULL)
		d->table = calloc(LR_NETEM_DIST_MAX, sizeof(d->table[0]));
	if (d == NULL || d->table == NULL) {
		free(d);
		free(text);
		return lr_err_null(ENOMEM, "netem: table %s", path);
	}
	snprintf(d->name, sizeof(d->name), "%s", name);
	for (line = text; line < text + total; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(text + total - line));
		if (nl == NULL)
			nl = text + total;
		len = (size_t)(nl - line);
		lineno++;
		if (len > DIST_LINE_MAX) {
			lr_netem_dist_free(d);
			free(text);
			return lr_err_null(EINVAL, "netem: %s: line %u longer "
					   "than %d bytes: not a distribution "
					   "table", path, lineno, DIST_LINE_MAX);
		}
		/* As tc's getline() and strtol() read it: a NUL ends it. */
		memcpy(buf, line, len);
		buf[len] = '\0';
		if (len == 0 || buf[0] == '#')
			continue;
		for (s = buf;; s = end) {
			x = strtol(s, &end, 0);
			if (end == s)
				break;
			if (d->size >= LR_NETEM_DIST_MAX) {
				lr_netem_dist_free(d);
				free(text);
				return lr_err_null(EINVAL, "netem: %s: more "
						   "than %d values", path,
						   LR_NETEM_DIST_MAX);
			}
			d->table[d->size++] = (int16_t)x;
		}
	}
	free(text);
	if (d->size == 0) {
		lr_netem_dist_free(d);
		return lr_err_null(EINVAL, "netem: %s: no values", path);
	}
	d->size_m = UINT64_MAX / d->size + 1;
	return d;
}

/* @p path as a message shows it: whole, or its two ends when long, so
 * that what follows it (the reason) fits in lr_errmsg()'s 256 bytes. */
static const char *
short_path(const char *path, char *buf, size_t len)
{
	size_t n = strlen(path);

	if (n <= 80)
		return path;
	snprintf(buf, len, "%.36s...%s", path, path + n - 36);
	return buf;
}

struct lr_netem_dist *
lr_netem_dist_load(const char *name_or_path)
{
	char shown[96];
	struct lr_netem_dist *d;
	char path[512];
	const char *env;
	FILE *f = NULL;
	size_t k;

	if (name_or_path == NULL || name_or_path[0] == '\0')
		return lr_err_null(EINVAL, "netem: no distribution name");
	if (strlen(name_or_path) >= sizeof(path) - 16)
		return lr_err_null(ENAMETOOLONG, "netem: distribution %s: "
				   "longer than %zu bytes",
				   short_path(name_or_path, shown, sizeof(shown)),
				   sizeof(path) - 17);
	if (strchr(name_or_path, '/') != NULL) {
		snprintf(path, sizeof(path), "%s", name_or_path);
		f = fopen(path, "r");
		if (f == NULL)
			return lr_err_null(errno, "netem: no distribution "
					   "table %s",
					   short_path(path, shown, sizeof(shown)));
	} else {
		env = getenv("TC_LIB_DIR");
		if (env != NULL && env[0] != '\0') {
			snprintf(path, sizeof(path), "%s/%s.dist", env,
				 name_or_path);
			f = fopen(path, "r");
		}
		for (k = 0; f == NULL && k < RTE_DIM(dist_dirs); k++) {
			snprintf(path, sizeof(path), "%s/%s.dist",
				 dist_dirs[k], name_or_path);
			f = fopen(path, "r");
		}
		if (f == NULL)
			return lr_err_null(ENOENT, "netem: no distribution "
					   "data for %s ($TC_LIB_DIR, %s, ...)",
					   short_path(name_or_path, shown,
						      sizeof(shown)),
					   dist_dirs[0]);
	}
	d = read_dist(f, short_path(path, shown, sizeof(shown)), name_or_path);
	fclose(f);
	return d;
}

void
lr_netem_dist_free(struct lr_netem_dist *d)
{
	if (d == NULL)
		return;
	free(d->table);
	free(d);
}

/* maketable's constants: the inverse CDF runs over [-4, 4) standard
 * deviations in steps of 1/50000, and has 4096 entries scaled by 8192. */
#define MT_TABLESIZE 4096
#define MT_FACTOR 8192
#define MT_MINSHORT (-32768)
#define MT_MAXSHORT 32767
#define MT_DOMAIN ((MT_MAXSHORT / MT_FACTOR) + 1)
#define MT_GRAIN 50000
#define MT_SIZE (MT_DOMAIN * MT_GRAIN * 2)

int
lr_netem_maketable(const double *x, size_t n, const char *path, double *mu,
		   double *sigma)
{
	double sum = 0, sumsq = 0, m, s, findex, fvalue;
	int *hist, total = 0, idx, inv, last, lasti, j;
	int16_t *table;
	struct lr_out o;
	size_t i;
	FILE *f;
	int rc = 0;

	if (n < 2 || n > INT32_MAX)
		return lr_err(EINVAL, "maketable: %zu samples (2 at least)", n);
	/* arraystats() */
	for (i = 0; i < n; i++) {
		sumsq += x[i] * x[i];
		sum += x[i];
	}
	m = sum / (double)n;
	s = sqrt((sumsq - (double)n * m * m) / (double)(n - 1));
	if (!(s > 0) || !isfinite(s))
		return lr_err(EINVAL, "maketable: the samples do not vary "
			      "(sigma %g)", s);
	hist = calloc(MT_SIZE, sizeof(*hist));
	table = malloc(MT_TABLESIZE * sizeof(*table));
	if (hist == NULL || table == NULL) {
		free(hist);
		free(table);
		return lr_err(ENOMEM, "maketable: %d bins", MT_SIZE);
	}
	/* makedist(): histogram of the normalised samples */
	for (i = 0; i < n; i++) {
		idx = (int)rint(((x[i] - m) / s + MT_DOMAIN) * MT_GRAIN);
		if (idx < 0)
			idx = 0;
		if (idx >= MT_SIZE)
			idx = MT_SIZE - 1;
		hist[idx]++;
	}
	/* cumulativedist() */
	for (j = 0; j < MT_SIZE; j++) {
		total += hist[j];
		hist[j] = total;
	}
	/* inverttable(): each bin writes its value at its CDF's index; the
	 * last bin to reach an index wins */
	for (j = 0; j < MT_TABLESIZE; j++)
		table[j] = MT_MINSHORT;
	for (j = 0; j < MT_SIZE; j++) {
		findex = (double)j / MT_GRAIN - MT_DOMAIN;
		fvalue = (double)hist[j] / (double)total;
		idx = (int)rint(fvalue * MT_TABLESIZE);
		inv = (int)rint(findex * MT_FACTOR);
		if (inv <= MT_MINSHORT)
			inv = MT_MINSHORT + 1;
		if (inv > MT_MAXSHORT)
			inv = MT_MAXSHORT;
		if (idx >= MT_TABLESIZE)
			idx = MT_TABLESIZE - 1;
		table[idx] = (int16_t)inv;
	}
	/* interpolatetable(): linear between known entries, in int */
	last = MT_MINSHORT;
	lasti = -1;
	for (j = 0; j < MT_TABLESIZE; j++) {
		if (table[j] == MT_MINSHORT) {
			int k;

			for (k = j; k < MT_TABLESIZE; k++)
				if (table[k] != MT_MINSHORT)
					break;
			if (k < MT_TABLESIZE)
				table[j] = (int16_t)(last + (j - lasti) *
					(table[k] - last) / (k - lasti));
			else
				table[j] = (int16_t)(last + (j - lasti) *
					(MT_MAXSHORT - last) /
					(MT_TABLESIZE - lasti));
		} else {
			last = table[j];
			lasti = j;
		}
	}
	free(hist);
	/* Whole or not at all (lr_out.h): delay reads it as it finds it. */
	rc = lr_out_open(&o, "maketable", path);
	if (rc != 0)
		goto out;
	f = lr_out_stream(&o);
	if (f == NULL) {
		lr_out_discard(&o);
		rc = -ENOMEM;
		goto out;
	}
	fprintf(f, "# This is the distribution table for the experimental "
		"distribution.\n");
	fprintf(f, "# maketable (linerate): %zu samples, mu %.9g sigma %.9g\n",
		n, m, s);
	for (j = 0; j < MT_TABLESIZE; j++)
		fprintf(f, "%d%c", table[j], (j % 8) == 7 ? '\n' : ' ');
	rc = lr_out_close(&o);
	if (rc != 0)
		goto out;
	if (mu != NULL)
		*mu = m;
	if (sigma != NULL)
		*sigma = s;
out:
	free(table);
	return rc;
}
