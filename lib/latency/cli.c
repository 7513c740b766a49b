/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * linerate solve FILE... [options]: the solver from the command line, with
 * no EAL, no hugepages.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "lr_cleanup.h"
#include "lr_common.h"
#include "lr_latency.h"
#include "lr_out.h"

#define EXIT_UNDETERMINED 1
#define EXIT_BAD 2
#define EXIT_IMPLAUSIBLE 3

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
"  FILE                  samples 'a,b,rtt_ns', one a line ('#' comments;\n"
"                        gzip or plain; '-': standard input)\n"
"  --sockperf A,B=FILE   sockperf ping-pong --full-log FILE of pair A,B\n"
"  --irtt A,B=FILE       irtt client -o FILE (.json or .json.gz) of pair A,B\n"
"  --hw NS               one-way hardware latency of every pair (default 0)\n"
"  --hw A,B=NS           ... of pair A,B only\n"
"  --reference DEV=NS    DEV's latency is known and constant: NS; without\n"
"                        --hw the hardware latency is then solved too\n"
"  --json OUT            the result as JSON to OUT ('-': stdout, and the\n"
"                        table goes to stderr)\n"
"  --boot N              bootstrap replicates (200)\n"
"  --seed S              the bootstrap's seed (1)\n"
"  --quiet               no table on stdout\n"
"  --help\n"
"\n"
"exit: 0 solved, 1 undetermined (the pair to measure is named), 2 bad\n"
"options or input (the file and line are named), 3 solved but a device's\n"
"estimate is implausible (outside what is physical beyond its interval:\n"
"the reason is printed). A model no redundant pair checks is said so,\n"
"with the pair that would check it (exit 0).\n", f);
}

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

static int
bad(const char *opt, const char *val, const char *want)
{
	fprintf(stderr, "linerate solve: %s '%s': want %s (see --help)\n", opt,
		val, want);
	return EXIT_BAD;
}

/* solve has no orderly stop to ask for: a signal ends it as it would have
 * without a handler, but not before the temporary file of a document half
 * written is removed (lr_cleanup.h). Async-signal-safe. */
static void
on_signal(int sig)
{
	lr_cleanup_run();
	signal(sig, SIG_DFL);
	raise(sig);
}

int
lr_latency_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "sockperf", required_argument, NULL, 's' },
		{ "irtt", required_argument, NULL, 'i' },
		{ "hw", required_argument, NULL, 'w' },
		{ "reference", required_argument, NULL, 'r' },
		{ "json", required_argument, NULL, 'j' },
		{ "boot", required_argument, NULL, 'B' },
		{ "seed", required_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lr_latency_conf conf = { .boot = 0, .seed = 1 };
	struct lr_latency_result res;
	struct lr_latency *lat;
	const char *json_out = NULL;
	char *a, *b, *rest, *end;
	bool quiet = false, any = false, to_stdout;
	unsigned long v;
	int c, ret = EXIT_BAD, i;
	long got;
	double ns;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* Options first (the solver's size depends on --boot), then inputs in
	 * the order given. */
	opterr = 0;
	optind = 0;
	for (;;) {
		c = getopt_long(argc, argv, "+:h", longopts, NULL);
		if (c == -1) {
			if (optind >= argc)
				break;
			optind++;	/* a FILE: read in the second pass */
			continue;
		}
		switch (c) {
		case 'B':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (*end || errno || v < 10 || v > 100000)
				return bad("--boot", optarg, "10 to 100000");
			conf.boot = (unsigned int)v;
			break;
		case 'S':
			errno = 0;
			conf.seed = strtoull(optarg, &end, 0);
			if (*end || errno || end == optarg)
				return bad("--seed", optarg, "a number");
			break;
		case 'q':
			quiet = true;
			break;
		case 'j':
			/* Written after the solve: a typo in a directory is
			 * found before it (as the roles' --json). */
			i = lr_out_check(optarg);
			if (i != 0) {
				fprintf(stderr, "linerate solve: --json '%s': cannot "
					"write: %s\n", optarg, strerror(-i));
				return EXIT_BAD;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case '?':
			fprintf(stderr, "linerate solve: unknown option '%s' (see "
				"--help)\n", argv[optind - 1]);
			return EXIT_BAD;
		case ':':
			fprintf(stderr, "linerate solve: %s needs a value (see "
				"--help)\n", argv[optind - 1]);
			return EXIT_BAD;
		default:
			break;
		}
	}

	lat = lr_latency_create(&conf);
	if (lat == NULL) {
		fprintf(stderr, "linerate solve: %s\n", lr_errmsg());
		return EXIT_BAD;
	}
	optind = 0;
	for (;;) {
		c = getopt_long(argc, argv, "+:h", longopts, NULL);
		if (c == -1) {
			if (optind >= argc)
				break;
			/* a FILE */
			got = lr_latency_read_csv(lat, argv[optind]);
			if (got < 0)
				goto input;
			any = true;
			optind++;
			continue;
		}
		switch (c) {
		case 's':
		case 'i':
			if (split_pair(optarg, &a, &b, &rest) < 0) {
				ret = bad(c == 's' ? "--sockperf" : "--irtt",
					  optarg, "A,B=FILE");
				goto out;
			}
			got = c == 's' ?
				lr_latency_read_sockperf(lat, rest, a, b) :
				lr_latency_read_irtt(lat, rest, a, b);
			if (got < 0)
				goto input;
			if (got == 0) {
				fprintf(stderr, "linerate solve: %s: no samples\n",
					rest);
				goto out;
			}
			any = true;
			break;
		case 'w':
			if (strchr(optarg, '=') == NULL) {
				if (parse_ns(optarg, &ns) < 0) {
					ret = bad("--hw", optarg, "NS >= 0 or "
						  "A,B=NS");
					goto out;
				}
				lr_latency_set_hw(lat, NULL, NULL, ns);
				break;
			}
			if (split_pair(optarg, &a, &b, &rest) < 0 ||
			    parse_ns(rest, &ns) < 0) {
				ret = bad("--hw", optarg, "NS >= 0 or A,B=NS");
				goto out;
			}
			if (lr_latency_set_hw(lat, a, b, ns) < 0)
				goto input;
			break;
		case 'r':
			rest = strchr(optarg, '=');
			if (rest == NULL || rest == optarg ||
			    (*rest = '\0', parse_ns(rest + 1, &ns) < 0)) {
				ret = bad("--reference", optarg, "DEV=NS");
				goto out;
			}
			if (lr_latency_reference(lat, optarg, ns) < 0)
				goto input;
			break;
		case 'j':
			json_out = optarg;
			break;
		default:
			break;
		}
	}
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
		 * written removes the temporary file (on_signal()). */
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
input:
	fprintf(stderr, "linerate solve: %s\n", lr_errmsg());
	ret = EXIT_BAD;
out:
	lr_latency_free(lat);
	return ret;
}
