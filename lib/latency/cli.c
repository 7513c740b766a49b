/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * linerate solve FILE... [options]: the solver from the command line, with
 * no EAL, no hugepages.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "lr_cleanup.h"
#include "lr_common.h"
#include "lr_latency.h"
#include "lr_opt.h"
#include "lr_out.h"

#define EXIT_UNDETERMINED 1
#define EXIT_BAD 2
#define EXIT_IMPLAUSIBLE 3

/*
 * solve's options, in --help's and doc/usage.md's order. The inputs
 * (--sockperf, --irtt, --hw, --reference and FILEs) are read in the order
 * given, in a second pass: the first checks them all and sets the rest
 * (the solver's size depends on --boot).
 */
struct solve_opts {
	uint32_t boot;		/* bootstrap replicates, 0: the solver's */
	uint64_t seed;
	bool quiet;
	bool help;
	char json[PATH_MAX];
	struct lr_latency *lat;	/* NULL: the first pass, inputs checked only */
	bool any;		/* an input was read */
};

/* "A,B=REST": split in place. */
static int
split_pair(char *s, char **a, char **b, char **rest)
{
	char *eq = strchr(s, '='), *comma;

	if (eq == NULL)
		return -1;
	*eq = '\0';
	comma = strchr(s, ',');
	if (comma == NULL || comma == s || comma[1] == '\0' || eq[1] == '\0')
		return -1;
	*comma = '\0';
	*a = s;
	*b = comma + 1;
	*rest = eq + 1;
	return 0;
}

static int
parse_ns(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return end == s || *end != '\0' || errno || !isfinite(*v) || *v < 0 ?
		-1 : 0;
}

/* --sockperf A,B=FILE, --irtt A,B=FILE */
static int
opt_log(void *conf, const char *key, const char *val)
{
	struct solve_opts *o = conf;
	char buf[PATH_MAX + 256], *a, *b, *rest;
	long got;

	if ((size_t)snprintf(buf, sizeof(buf), "%s", val) >= sizeof(buf) ||
	    split_pair(buf, &a, &b, &rest) < 0)
		return lr_err(EINVAL, "--%s '%s': want A,B=FILE", key, val);
	if (o->lat == NULL)
		return 0;
	got = strcmp(key, "sockperf") == 0 ?
	      lr_latency_read_sockperf(o->lat, rest, a, b) :
	      lr_latency_read_irtt(o->lat, rest, a, b);
	if (got < 0)
		return -EINVAL;		/* the reader said why */
	if (got == 0)
		return lr_err(EINVAL, "%s: no samples", rest);
	o->any = true;
	return 0;
}

/* --hw NS, --hw A,B=NS */
static int
opt_hw(void *conf, const char *key, const char *val)
{
	struct solve_opts *o = conf;
	char buf[512], *a = NULL, *b = NULL, *rest = buf;
	double ns;

	if ((size_t)snprintf(buf, sizeof(buf), "%s", val) >= sizeof(buf) ||
	    (strchr(buf, '=') != NULL && split_pair(buf, &a, &b, &rest) < 0) ||
	    parse_ns(rest, &ns) < 0)
		return lr_err(EINVAL, "--%s '%s': want NS >= 0 or A,B=NS", key,
			      val);
	if (o->lat != NULL && lr_latency_set_hw(o->lat, a, b, ns) < 0)
		return -EINVAL;
	return 0;
}

/* --reference DEV=NS */
static int
opt_reference(void *conf, const char *key, const char *val)
{
	struct solve_opts *o = conf;
	char buf[512], *eq;
	double ns;

	if ((size_t)snprintf(buf, sizeof(buf), "%s", val) >= sizeof(buf) ||
	    (eq = strchr(buf, '=')) == NULL || eq == buf ||
	    (*eq = '\0', parse_ns(eq + 1, &ns) < 0))
		return lr_err(EINVAL, "--%s '%s': want DEV=NS", key, val);
	if (o->lat != NULL && lr_latency_reference(o->lat, buf, ns) < 0)
		return -EINVAL;
	return 0;
}

#define SC(field) LR_OPT_FIELD(struct solve_opts, field)

const struct lr_opt lr_latency_solve_opts[] = {
	{ "sockperf", LR_OPT_FUNC, 0, 0, 0, 0, opt_log, "A,B=FILE",
	  "the per-message log of `sockperf ping-pong --full-log FILE`, the RTTs "
	  "of pair A,B (rxTime - txTime: sockperf's own latency column is half "
	  "of it)", "see below", NULL },
	{ "irtt", LR_OPT_FUNC, 0, 0, 0, 0, opt_log, "A,B=FILE",
	  "`irtt client -o FILE` (.json or .json.gz): each round trip not lost, "
	  "client receive - client send (irtt's `delay.rtt` leaves out the "
	  "server's processing time, which is the server device's latency)",
	  "see below", NULL },
	{ "hw", LR_OPT_FUNC, 0, 0, 0, 0, opt_hw, "NS|A,B=NS",
	  "the one-way hardware latency h of every pair (wires, switches), or "
	  "of pair A,B only (0)", "`--hw 250`, `--hw gen1,refl1=300`", NULL },
	{ "reference", LR_OPT_FUNC, 0, 0, 0, 0, opt_reference, "DEV=NS",
	  "DEV has a known, constant latency (mean and min NS, variance 0); "
	  "without any `--hw`, h becomes an unknown common to all pairs and is "
	  "solved", "`--reference loop=1500`", NULL },
	{ "json", LR_OPT_STRING(struct solve_opts, json, 1, lr_opt_check_out),
	  "OUT", "the result as JSON (`-`: stdout, which then carries the JSON "
	  "alone: the table goes to stderr)", "`--json out.json`", NULL },
	{ "boot", LR_OPT_UINT, SC(boot), 10, 100000, NULL, "N",
	  "bootstrap replicates (200)", "`--boot 1000`", NULL },
	{ "seed", LR_OPT_UINT, SC(seed), 0, UINT64_MAX, NULL, "S",
	  "the bootstrap's seed (1)", "`--seed 7`", NULL },
	{ "quiet", LR_OPT_FLAG, SC(quiet), 0, 1, NULL, NULL,
	  "no table on stdout", NULL, NULL },
	{ "help", LR_OPT_FLAG, SC(help), 0, 1, NULL, NULL, "this help", NULL,
	  NULL },
	{ 0 },
};

static void
usage(FILE *f)
{
	fputs(
"usage: linerate solve [FILE...] [options]\n"
"\n"
"Each device's own latency from round-trip times between pairs of devices\n"
"(RTT_ab = 2 t_a + 2 t_b + 2 h): mean, sd, skewness and minimum of each\n"
"device's one-way latency, a 95 % bootstrap interval of the mean, and each\n"
"pair's residual. No DPDK needed.\n"
"\n"
"  FILE              samples 'a,b,rtt_ns', one a line ('#' comments; gzip\n"
"                    or plain; '-': standard input)\n", f);
	lr_opt_help(f, lr_latency_solve_opts, NULL);
	fputs(
"\n"
"exit: 0 solved, 1 undetermined (the pair to measure is named), 2 bad\n"
"options or input (the file and line are named), 3 solved but a device's\n"
"estimate is implausible (outside what is physical beyond its interval:\n"
"the reason is printed). A model no redundant pair checks is said so,\n"
"with the pair that would check it (exit 0).\n", f);
}

/*
 * One pass over the arguments by lr_latency_solve_opts: FILEs (with
 * o->lat, read) and options in the order given, --key value or --key=value.
 * @return 0, or -1 with the reason said on stderr.
 */
static int
pass(int argc, char **argv, struct solve_opts *o)
{
	const struct lr_opt *r = NULL;
	unsigned int d;
	size_t klen;
	int i;

	for (i = 1; i < argc; i++) {
		char key[64];
		const char *a = argv[i], *val, *eq, *near = NULL;

		if (a[0] != '-' || strcmp(a, "-") == 0) {	/* a FILE */
			if (o->lat == NULL)
				continue;
			if (lr_latency_read_csv(o->lat, a) < 0)
				goto bad;
			o->any = true;
			continue;
		}
		eq = strchr(a, '=');
		klen = (eq != NULL ? (size_t)(eq - a) : strlen(a)) - 2;
		snprintf(key, sizeof(key), "%.*s",
			 (int)(klen < sizeof(key) ? klen : sizeof(key) - 1), a + 2);
		for (r = lr_latency_solve_opts; r->name != NULL; r++)
			if (strncmp(a, "--", 2) == 0 && strcmp(r->name, key) == 0)
				break;
		if (r->name == NULL) {
			d = 3;	/* a typo or two, not a guess */
			if (strncmp(a, "--", 2) == 0)
				lr_opt_nearest(lr_latency_solve_opts, key, &near, &d);
			fprintf(stderr, "linerate solve: unknown option '%s'%s%s%s "
				"(see --help)\n", a, near ? "; did you mean '--" : "",
				near ? near : "", near ? "'?" : "");
			return -1;
		}
		if (r->type == LR_OPT_FLAG) {
			if (eq != NULL) {
				fprintf(stderr, "linerate solve: --%s takes no value "
					"(see --help)\n", r->name);
				return -1;
			}
			val = "";
		} else if (eq != NULL) {
			val = eq + 1;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			fprintf(stderr, "linerate solve: --%s needs a value (see "
				"--help)\n", r->name);
			return -1;
		}
		/* The second pass reads the inputs; the rest is set. */
		if (o->lat != NULL && r->type != LR_OPT_FUNC)
			continue;
		/* Errors name the option ("--boot"); "linerate solve: "
		 * is said below. */
		if (lr_opt_set(lr_latency_solve_opts, o, NULL, r->name,
			       val) != 0)
			goto bad;
		if (o->help)
			return 0;
	}
	return 0;
bad:
	fprintf(stderr, "linerate solve: %s\n", lr_errmsg());
	return -1;
}

int
lr_latency_main(int argc, char **argv)
{
	static struct solve_opts o;
	struct lr_latency_conf conf = { .boot = 0, .seed = 1 };
	struct lr_latency_result res;
	struct lr_latency *lat;
	const char *json_out = NULL;
	bool quiet, any, to_stdout;
	int c, ret = EXIT_BAD, i;

	/* solve has no orderly stop to ask for: a signal ends it, but not
	 * before the temporary file of a document half written is removed. */
	signal(SIGINT, lr_cleanup_on_signal);
	signal(SIGTERM, lr_cleanup_on_signal);
	memset(&o, 0, sizeof(o));
	o.seed = 1;
	if (pass(argc, argv, &o) != 0)
		return EXIT_BAD;
	if (o.help) {
		usage(stdout);
		return 0;
	}
	conf.boot = o.boot;
	conf.seed = o.seed;
	quiet = o.quiet;
	if (o.json[0] != '\0')
		json_out = o.json;

	lat = lr_latency_create(&conf);
	if (lat == NULL) {
		fprintf(stderr, "linerate solve: %s\n", lr_errmsg());
		return EXIT_BAD;
	}
	o.lat = lat;
	i = pass(argc, argv, &o);
	any = o.any;
	if (i != 0)
		goto out;
	if (!any) {
		fprintf(stderr, "linerate solve: no input: give FILE, --sockperf "
			"or --irtt (see --help)\n");
		goto out;
	}

	/* With --json - stdout carries the document alone (as the roles'
	 * --json -): the table goes to stderr. */
	to_stdout = json_out != NULL && strcmp(json_out, "-") == 0;
	i = lr_latency_solve(lat, &res);
	if (i == -EDOM) {
		fprintf(stderr, "linerate solve: undetermined: rank %u of %u "
			"unknowns; %s\n", res.rank, res.unknowns, res.why);
		ret = EXIT_UNDETERMINED;
	} else if (i < 0) {
		fprintf(stderr, "linerate solve: %s\n", lr_errmsg());
		lr_latency_result_free(&res);
		goto out;
	} else {
		ret = 0;
		if (!quiet)
			lr_latency_print(to_stdout ? stderr : stdout, &res);
		/* The table on stdout is the result (> /dev/full, a closed
		 * pipe): a write that failed fails the run. */
		errno = 0;
		if (!quiet && !to_stdout &&
		    (fflush(stdout) != 0 || ferror(stdout))) {
			fprintf(stderr, "linerate solve: cannot write stdout "
				"(%s)\n", strerror(errno ? errno : EIO));
			lr_latency_result_free(&res);
			ret = EXIT_BAD;
			goto out;
		}
		/* What the numbers cannot vouch for goes to stderr too, also
		 * with --quiet: the reasons, unless the table on stderr has
		 * them already. */
		if (!res.checked)
			fprintf(stderr, "linerate solve: model unchecked: %s\n",
				res.unchecked_why);
		for (c = 0; c < (int)res.nb_devs; c++)
			if (res.devs[c].implausible && (quiet || !to_stdout))
				fprintf(stderr, "linerate solve: implausible: "
					"%s: %s\n", res.devs[c].name,
					res.devs[c].why);
		if (res.hw_implausible && (quiet || !to_stdout))
			fprintf(stderr, "linerate solve: implausible: %s\n",
				res.hw_why);
		if (res.nb_implausible || res.hw_implausible)
			ret = EXIT_IMPLAUSIBLE;
	}
	if (json_out != NULL) {
		json_t *j = lr_latency_json(&res);
		struct lr_out o;
		FILE *f = NULL;
		int w = -1;

		/* Whole or not at all (lr_out.h); a signal while it is
		 * written removes the temporary file (lr_cleanup_on_signal()). */
		errno = 0;
		if (j != NULL && lr_out_open(&o, "json", json_out) == 0) {
			f = lr_out_stream(&o);
			if (f != NULL && json_dumpf(j, f, JSON_INDENT(2)) == 0 &&
			    (!to_stdout || fputc('\n', f) != EOF)) {
				w = lr_out_close(&o) == 0 ? 0 : -1;
			} else {
				if (errno == 0)
					errno = EIO;
				lr_err(errno, "json: cannot write %s", json_out);
				lr_out_discard(&o);
			}
		} else if (j == NULL) {
			lr_err(ENOMEM, "json: cannot write %s", json_out);
		}
		if (w < 0) {
			fprintf(stderr, "linerate solve: %s\n", lr_errmsg());
			ret = EXIT_BAD;
		}
		json_decref(j);
	}
	lr_latency_result_free(&res);
	goto out;
out:
	lr_latency_free(lat);
	return ret;
}
