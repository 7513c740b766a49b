/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lr_cleanup.h"
#include "lr_common.h"
#include "lr_out.h"
#include "lr_opt.h"

static void
parse_u64_suffixes(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(lr_parse_u64("64", &v), 0);
	assert_int_equal(v, 64);
	assert_int_equal(lr_parse_u64("10k", &v), 0);
	assert_int_equal(v, 10000);
	assert_int_equal(lr_parse_u64("14.88M", &v), 0);
	assert_int_equal(v, 14880000);
	assert_int_equal(lr_parse_u64("1e6", &v), 0);
	assert_int_equal(v, 1000000);
	assert_int_equal(lr_parse_u64("1G", &v), 0);
	assert_int_equal(v, 1000000000);
}

static void
parse_u64_rejects(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_int_equal(lr_parse_u64("", &v), -EINVAL);
	assert_int_equal(lr_parse_u64("-1", &v), -EINVAL);
	assert_int_equal(lr_parse_u64("12x", &v), -EINVAL);
	assert_int_equal(lr_parse_u64("1.5", &v), -ERANGE);
	assert_int_equal(lr_parse_u64("1e30", &v), -ERANGE);
	assert_int_equal(lr_parse_u64("nan", &v), -EINVAL);
	assert_int_equal(v, 7);
}

/* Integers are exact: 2^53 + 1 went through a double and rounded to 2^53,
 * the uint64 maximum became 2^64 and was refused as out of its range. */
static void
parse_u64_exact(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_int_equal(lr_parse_u64("9007199254740993", &v), 0);
	assert_true(v == 9007199254740993ull);
	assert_int_equal(lr_parse_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(lr_parse_u64("1.8446744073709551615e19", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(lr_parse_u64("18446744073709551.615k", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(lr_parse_u64("18446744073709551616", &v), -ERANGE);
	assert_int_equal(lr_parse_u64("18446744073709551615k", &v), -ERANGE);
	assert_int_equal(lr_parse_u64("2e19", &v), -ERANGE);
	assert_int_equal(lr_parse_u64("1e99999999999999999999", &v), -ERANGE);
	assert_int_equal(lr_parse_u64("0e99999999999999999999", &v), 0);
	assert_true(v == 0);
	assert_int_equal(lr_parse_u64("0000000000000000000000000000000000000000"
				      "0000000000000000000000000000000042", &v), 0);
	assert_true(v == 42);
	assert_int_equal(lr_parse_u64("1.5k", &v), 0);
	assert_true(v == 1500);
	assert_int_equal(lr_parse_u64("1e-3k", &v), 0);
	assert_true(v == 1);
	assert_int_equal(lr_parse_u64("0.000001M", &v), 0);
	assert_true(v == 1);
	assert_int_equal(lr_parse_u64("12.000", &v), 0);
	assert_true(v == 12);
	assert_int_equal(lr_parse_u64("0x10", &v), 0);
	assert_true(v == 16);
	assert_int_equal(lr_parse_u64("0xffffffffffffffff", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(lr_parse_u64("0x10000000000000000", &v), -ERANGE);
	v = 7;
	assert_int_equal(lr_parse_u64("0.5", &v), -ERANGE);
	assert_int_equal(lr_parse_u64("1e-1", &v), -ERANGE);
	assert_int_equal(lr_parse_u64(".", &v), -EINVAL);
	assert_int_equal(lr_parse_u64("e5", &v), -EINVAL);
	assert_int_equal(lr_parse_u64("1e", &v), -EINVAL);
	assert_int_equal(lr_parse_u64("1k5", &v), -EINVAL);
	assert_int_equal(lr_parse_u64(" 1", &v), -EINVAL);
	assert_int_equal(lr_parse_u64("0x", &v), -EINVAL);
	assert_int_equal(lr_parse_u64("inf", &v), -EINVAL);
	assert_true(v == 7);
}

/* An option table's integer takes its whole range, both ends exact. */
struct opt_conf {
	uint64_t big;
	uint32_t small;
};

static const struct lr_opt opt_tab[] = {
	{ "big", LR_OPT_UINT, LR_OPT_FIELD(struct opt_conf, big), 1, UINT64_MAX,
	  NULL, "N", "", NULL, NULL },
	{ "small", LR_OPT_UINT, LR_OPT_FIELD(struct opt_conf, small), 0,
	  UINT32_MAX, NULL, "N", "", NULL, NULL },
	{ 0 },
};

static void
opt_integers_exact(void **state)
{
	struct opt_conf c = { 0, 0 };

	(void)state;
	assert_int_equal(lr_opt_set(opt_tab, &c, "t", "big",
				    "18446744073709551615"), 0);
	assert_true(c.big == UINT64_MAX);
	assert_int_equal(lr_opt_set(opt_tab, &c, "t", "big",
				    "9007199254740993"), 0);
	assert_true(c.big == 9007199254740993ull);
	assert_int_equal(lr_opt_set(opt_tab, &c, "t", "small", "4294967295"), 0);
	assert_true(c.small == UINT32_MAX);
	assert_int_equal(lr_opt_set(opt_tab, &c, "t", "small", "4294967296"),
			 -EINVAL);
	assert_int_equal(lr_opt_set(opt_tab, &c, "t", "big", "0"), -EINVAL);
	assert_true(c.small == UINT32_MAX);
}

/* LR_OPT_STR: text of min..size-1 bytes into its array, after its check;
 * what is refused leaves the field as it was. */
struct str_conf {
	char name[8];
	char spec[8];
};

static int
no_x(void *conf, const char *key, const char *val)
{
	(void)conf;
	return strchr(val, 'x') != NULL ?
	       lr_err(EINVAL, "t: %s '%s': no x", key, val) : 0;
}

static const struct lr_opt str_tab[] = {
	{ "name", LR_OPT_STRING(struct str_conf, name, 1, NULL), "S", "", NULL,
	  NULL },
	{ "spec", LR_OPT_STRING(struct str_conf, spec, 0, no_x), "S", "", NULL,
	  NULL },
	{ "out", LR_OPT_STRING(struct str_conf, spec, 1, lr_opt_check_out), "F",
	  "", NULL, NULL },
	{ 0 },
};

static void
opt_strings(void **state)
{
	struct str_conf c = { "old", "old" };

	(void)state;
	assert_int_equal(lr_opt_set(str_tab, &c, "t", "name", "1234567"), 0);
	assert_string_equal(c.name, "1234567");
	assert_int_equal(lr_opt_set(str_tab, &c, "t", "name", "12345678"),
			 -EINVAL);
	assert_non_null(strstr(lr_errmsg(), "t: name '12345678': want 1..7 bytes"));
	assert_int_equal(lr_opt_set(str_tab, &c, "t", "name", ""), -EINVAL);
	assert_string_equal(c.name, "1234567");
	assert_int_equal(lr_opt_set(str_tab, &c, "t", "spec", ""), 0);
	assert_string_equal(c.spec, "");
	assert_int_equal(lr_opt_set(str_tab, &c, "t", "spec", "axb"), -EINVAL);
	assert_non_null(strstr(lr_errmsg(), "no x"));
	assert_string_equal(c.spec, "");
	assert_int_equal(lr_opt_set(str_tab, &c, "t", "out", "/n/f"),
			 -EINVAL);
	assert_non_null(strstr(lr_errmsg(), "--out '/n/f': cannot write"));
	assert_string_equal(c.spec, "");
}

static void
parse_seconds(void **state)
{
	double s;

	(void)state;
	assert_int_equal(lr_parse_seconds("1.5", &s), 0);
	assert_true(s == 1.5);
	assert_int_equal(lr_parse_seconds("-1", &s), -EINVAL);
	assert_int_equal(lr_parse_seconds("1s", &s), -EINVAL);
	assert_int_equal(lr_parse_seconds("inf", &s), -EINVAL);
}

static void
err_message_names_cause(void **state)
{
	(void)state;
	lr_err_clear();
	assert_string_equal(lr_errmsg(), "");
	assert_int_equal(lr_err(EINVAL, "port %s: %u rx queues > max %u", "p0", 8, 4),
			 -EINVAL);
	assert_string_equal(lr_errmsg(),
			    "port p0: 8 rx queues > max 4 (Invalid argument)");
	assert_null(lr_err_null(ENOMEM, "flow: table"));
	assert_string_equal(lr_errmsg(), "flow: table (Cannot allocate memory)");
}

static void
frame_bytes_counts_fcs(void **state)
{
	(void)state;
	/* Table 1 of the ESS paper counts header and FCS: 60 B in the mbuf
	 * is a 64 B frame. */
	assert_int_equal(lr_frame_bytes(60), 64);
	assert_int_equal(lr_frame_bytes(9014), LR_FRAME_MAX_BYTES);
}

/* The ESS paper's Table 1, exact: user data, frame, overhead %, Mpps. */
static void
table1_arithmetic(void **state)
{
	static const struct { uint32_t user, frame; double ovh, mpps; } t1[] = {
		{ 1, 64, 98.8, 14.88 }, { 18, 64, 78.6, 14.88 },
		{ 82, 128, 44.6, 8.45 }, { 210, 256, 23.9, 4.53 },
		/* The paper prints 5.5 % for 978 B; its own formula,
		 * 1 - 978 / (1024 + 20), gives 6.3 %: a misprint. */
		{ 466, 512, 12.4, 2.35 }, { 978, 1024, 6.3, 1.20 },
		{ 1472, 1518, 4.3, 0.81 }, { 8972, 9018, 0.7, 0.14 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(t1); i++) {
		uint32_t f = lr_frame_for_user(t1[i].user, 0);
		double o = lr_overhead(t1[i].user, f) * 100;
		double pps = lr_line_rate_pps(10e9, f) / 1e6;

		assert_int_equal(f, t1[i].frame);
		if (fabs(o - t1[i].ovh) > 0.05 || fabs(pps - t1[i].mpps) > 0.005)
			fail_msg("%u B: %.2f %% %.3f Mpps", t1[i].user, o, pps);
	}
	/* Exact line rates: 10, 40 and 100 GbE at 64 and 1518 B. */
	assert_true(lr_line_rate_pps(10e9, 64) == 10e9 / 672);
	assert_true(fabs(lr_line_rate_pps(40e9, 64) - 59523809.52) < 0.01);
	assert_true(fabs(lr_line_rate_pps(100e9, 64) - 148809523.8) < 0.1);
	assert_true(fabs(lr_line_rate_pps(100e9, 1518) - 8127438.23) < 0.01);
	assert_int_equal(lr_user_for_frame(1518, 0), 1472);
	assert_int_equal(lr_user_for_frame(1518, 1), 1452);
	assert_int_equal(lr_frame_for_user(1452, 1), 1518);
}

/* One reading of a speed for the command line and the scenarios
 * (testbed.bps() calls it through linerate.parse_bps()). */
static void
speeds(void **state)
{
	static const struct { const char *s; double bps; } good[] = {
		{ "10G", 1e10 }, { "10g", 1e10 }, { "10Gbps", 1e10 },
		{ "10000M", 1e10 }, { "1e10", 1e10 }, { "10gbit", 1e10 },
		{ "100mbit", 1e8 }, { "2.5G", 2.5e9 }, { "1T", 1e12 },
		{ "10Gb/s", 1e10 }, { "10GBIT/S", 1e10 }, { "400", 400 },
		{ "1.5e3k", 1.5e6 },
	};
	static const char *const bad[] = {
		"fast", "10Q", "", "-1G", "10 G", "10 G b", "1e999", "0x10G",
		"inf", "nan", "0", "+1G", " 1G", "1G ", "10Gpps", "10Gbpsl1",
		"10%", "1e", ".", "10GG",
	};
	unsigned int i;
	double v;

	(void)state;
	for (i = 0; i < RTE_DIM(good); i++) {
		v = 0;
		assert_int_equal(lr_parse_bps(good[i].s, &v), 0);
		assert_true(v == good[i].bps);
	}
	for (i = 0; i < RTE_DIM(bad); i++)
		assert_int_equal(lr_parse_bps(bad[i], &v), -EINVAL);
}

static void
rates(void **state)
{
	struct lr_rate r;
	double pp, pb;

	(void)state;
	assert_int_equal(lr_rate_parse("1.5Mpps", &r), 0);
	assert_int_equal(r.unit, LR_RATE_PPS);
	assert_true(r.value == 1.5e6);
	assert_int_equal(lr_rate_parse("2000", &r), 0);
	assert_int_equal(r.unit, LR_RATE_PPS);
	assert_int_equal(lr_rate_parse("10Gbps", &r), 0);
	assert_int_equal(r.unit, LR_RATE_L2);
	assert_int_equal(lr_rate_parse("10Gbpsl1", &r), 0);
	assert_int_equal(r.unit, LR_RATE_L1);
	assert_int_equal(lr_rate_parse("50%", &r), 0);
	assert_int_equal(r.unit, LR_RATE_PCT);
	assert_int_equal(lr_rate_parse("max", &r), 0);
	assert_int_equal(r.unit, LR_RATE_MAX);
	assert_int_equal(lr_rate_parse("0", &r), 0);
	assert_int_equal(r.unit, LR_RATE_MAX);
	assert_int_equal(lr_rate_parse("-1", &r), -EINVAL);
	assert_int_equal(lr_rate_parse("5Mbit", &r), -EINVAL);
	assert_int_equal(lr_rate_parse("5k%", &r), -EINVAL);
	assert_int_equal(lr_rate_parse("", &r), -EINVAL);
	/* The number and its prefix are a speed's (lr_parse_bps()): any
	 * case, no sign, space or hex. */
	assert_int_equal(lr_rate_parse("10g", &r), 0);
	assert_true(r.unit == LR_RATE_PPS && r.value == 1e10);
	assert_int_equal(lr_rate_parse("2.5gbit", &r), -EINVAL);
	assert_int_equal(lr_rate_parse("2.5gBPS", &r), 0);
	assert_true(r.unit == LR_RATE_L2 && r.value == 2.5e9);
	assert_int_equal(lr_rate_parse(" 5", &r), -EINVAL);
	assert_int_equal(lr_rate_parse("0x10", &r), -EINVAL);
	assert_int_equal(lr_rate_parse("inf", &r), -EINVAL);

	/* 100 % of 10G at 64 B is 14.88 Mpps; 10 Gbit/s L2 at 1518 B is
	 * 823452 pps; every unit gives the same time per frame as Table 1. */
	lr_rate_parse("100%", &r);
	assert_int_equal(lr_rate_cost(&r, 10e9, &pp, &pb), 0);
	assert_true(fabs(1 / (pp + pb * 64) - 10e9 / 672) < 1e-3);
	assert_int_equal(lr_rate_cost(&r, 0, &pp, &pb), -EINVAL);
	lr_rate_parse("10Gbps", &r);
	lr_rate_cost(&r, 0, &pp, &pb);
	assert_true(fabs(1 / (pp + pb * 1518) - 10e9 / (8 * 1518)) < 1e-3);
	lr_rate_parse("10Gbpsl1", &r);
	lr_rate_cost(&r, 0, &pp, &pb);
	assert_true(fabs(1 / (pp + pb * 1518) - 10e9 / (8 * 1538)) < 1e-3);
	lr_rate_parse("1.5Mpps", &r);
	lr_rate_cost(&r, 0, &pp, &pb);
	assert_true(pb == 0 && fabs(pp - 1 / 1.5e6) < 1e-15);
}

/* A fresh directory of the test's own under /tmp. */
static void
make_dir(char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/lr_ut_out_XXXXXX");
	assert_non_null(mkdtemp(buf));
}

static size_t
count_entries(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static void
read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* Whole or not at all: the old content until the close, the new one
 * after; a discard leaves the old; the mode of the file replaced stays;
 * a symbolic link stays a link, its target replaced. */
static void
out_whole_or_not(void **state)
{
	char dir[64], path[128], link[128], buf[64];
	struct lr_out o;
	struct stat sb;
	FILE *f;

	(void)state;
	make_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/r.txt", dir);
	f = fopen(path, "w");
	fputs("old\n", f);
	fclose(f);
	assert_int_equal(chmod(path, 0640), 0);

	assert_int_equal(lr_out_open(&o, "t", path), 0);
	f = lr_out_stream(&o);
	assert_non_null(f);
	fputs("new\n", f);
	fflush(f);
	read_text(path, buf, sizeof(buf));
	assert_string_equal(buf, "old\n");	/* a reader meanwhile */
	assert_int_equal(count_entries(dir), 2);
	lr_out_discard(&o);
	read_text(path, buf, sizeof(buf));
	assert_string_equal(buf, "old\n");
	assert_int_equal(count_entries(dir), 1);

	assert_int_equal(lr_out_open(&o, "t", path), 0);
	fputs("new\n", lr_out_stream(&o));
	assert_int_equal(lr_out_close(&o), 0);
	read_text(path, buf, sizeof(buf));
	assert_string_equal(buf, "new\n");
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0640);
	assert_int_equal(count_entries(dir), 1);

	snprintf(link, sizeof(link), "%s/l.txt", dir);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(lr_out_open(&o, "t", link), 0);
	fputs("via link\n", lr_out_stream(&o));
	assert_int_equal(lr_out_close(&o), 0);
	assert_int_equal(lstat(link, &sb), 0);
	assert_true(S_ISLNK(sb.st_mode));
	read_text(path, buf, sizeof(buf));
	assert_string_equal(buf, "via link\n");
	unlink(link);
	unlink(path);
	rmdir(dir);
}

/* A full disk found by the close: an error naming the file, nothing
 * left; the checks before a run. */
static void
out_errors(void **state)
{
	char dir[64], path[128];
	struct lr_out o;

	(void)state;
	assert_int_equal(lr_out_open(&o, "t", "/dev/full"), 0);
	fputs("x\n", lr_out_stream(&o));
	assert_int_equal(lr_out_close(&o), -ENOSPC);
	assert_non_null(strstr(lr_errmsg(), "t: cannot write /dev/full"));

	make_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/no/r.txt", dir);
	assert_int_equal(lr_out_check(path), -ENOENT);
	assert_int_equal(lr_out_open(&o, "t", path), -ENOENT);
	assert_int_equal(lr_out_check(dir), -EISDIR);
	snprintf(path, sizeof(path), "%s/r.txt", dir);
	assert_int_equal(lr_out_check(path), 0);
	assert_int_equal(lr_out_check("-"), 0);
	assert_int_equal(lr_out_check("/dev/null"), 0);
	assert_int_equal(count_entries(dir), 0);	/* the checks leave none */
	rmdir(dir);
}

/* The registry removes a tree, not what a link in it points to; refuses
 * "/" and a way up; leaves what was forgotten. */
static void
cleanup_trees(void **state)
{
	char dir[64], sub[128], path[160], keep[64], kept[128];
	FILE *f;
	int id;

	(void)state;
	make_dir(keep, sizeof(keep));
	snprintf(kept, sizeof(kept), "%s/precious", keep);
	f = fopen(kept, "w");
	fclose(f);
	make_dir(dir, sizeof(dir));
	snprintf(sub, sizeof(sub), "%s/a/b", dir);
	snprintf(path, sizeof(path), "%s/a", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(path, sizeof(path), "%s/a/b/f", dir);
	f = fopen(path, "w");
	fclose(f);
	snprintf(path, sizeof(path), "%s/a/link", dir);
	assert_int_equal(symlink(keep, path), 0);

	assert_int_equal(lr_cleanup_add("/"), -EINVAL);
	assert_int_equal(lr_cleanup_add("/tmp/.."), -EINVAL);
	assert_int_equal(lr_cleanup_add("/tmp/../etc"), -EINVAL);
	id = lr_cleanup_add(keep);
	assert_true(id >= 0);
	assert_int_equal(lr_cleanup_add(keep), id);	/* once */
	assert_int_equal(lr_cleanup_find(keep), id);
	lr_cleanup_forget(id);
	assert_int_equal(lr_cleanup_find(keep), -ENOENT);
	assert_true(lr_cleanup_add(dir) >= 0);
	lr_cleanup_run();
	assert_int_equal(access(dir, F_OK), -1);
	assert_int_equal(access(kept, F_OK), 0);
	unlink(kept);
	rmdir(keep);
}

/* Text for a manual page: what roff would take as a request, an escape or
 * a dash is escaped; `code` is bold; UTF-8 becomes groff's named glyphs
 * (groff reads Latin-1 unless told). */
static void
roff_escapes(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	lr_opt_roff(f, ".5 s, 'x' a\\b --rate `1M` 8 \u00d7 2^k, 3 \u00b5s\n.y `z");
	fclose(f);
	assert_string_equal(buf, "\\&.5 s, 'x' a\\eb \\-\\-rate \\fB1M\\fR 8 "
			    "\\[u00D7] 2^k, 3 \\[u00B5]s\n\\&.y \\fBz\\fR");
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_u64_suffixes),
		cmocka_unit_test(parse_u64_rejects),
		cmocka_unit_test(parse_u64_exact),
		cmocka_unit_test(opt_integers_exact),
		cmocka_unit_test(opt_strings),
		cmocka_unit_test(roff_escapes),
		cmocka_unit_test(speeds),
		cmocka_unit_test(parse_seconds),
		cmocka_unit_test(err_message_names_cause),
		cmocka_unit_test(frame_bytes_counts_fcs),
		cmocka_unit_test(table1_arithmetic),
		cmocka_unit_test(rates),
		cmocka_unit_test(out_whole_or_not),
		cmocka_unit_test(out_errors),
		cmocka_unit_test(cleanup_trees),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
