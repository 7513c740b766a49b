/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * linerate [EAL options] -- [options] SCRIPT.lua [script args]
 * linerate [EAL options] -- --role ROLE [options]
 *
 * main(): arguments, EAL, the Lua runner or one role from the command line,
 * and an orderly end. Everything else lives in lib/.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>

#include "lr_cleanup.h"
#include "lr_common.h"
#include "lr_doctor.h"
#include "lr_engine.h"
#include "lr_latency.h"
#include "lr_lua.h"
#include "lr_metrics.h"
#include "lr_out.h"
#include "lr_port.h"
#include "lr_roles.h"
#include "lr_stats.h"

#include "app.h"

#define MAX_KV 64

struct kv {
	const char *key;
	const char *val;
};

/* What the options --help, --version, --man, --options-md, --metrics-md and
 * --counters-json ask: each is done alone, before EAL, and nothing runs. */
struct actions {
	bool help;
	bool version;
	bool man;
	char options_md[32];
	bool metrics_md;
	bool counters_json;
};

struct opts {
	const char *script;
	int script_argc;
	char **script_argv;
	char role[32];
	char port[1024];	/* an id, a name or vdev devargs */
	char json[PATH_MAX];
	char csv[PATH_MAX];
	char lcores[256];
	double duration_s;
	bool duration_given;
	double series_s;
	bool series_given;
	char metrics[128];	/* [ADDR:]PORT of /metrics, "" none */
	double metrics_linger_s;
	bool no_live;
	bool live;		/* the live line off a terminal too */
	int log_level;		/* RTE_LOG_*; 0: not given */
	bool allow_short;	/* a rate that fell short still exits 0 */
	struct actions act;
	struct kv kv[MAX_KV];	/* port and role options, checked later */
	unsigned int nb_kv;
};

static int
check_role(void *conf, const char *key, const char *val)
{
	RTE_SET_USED(conf);
	RTE_SET_USED(key);
	if (lr_role_find(val) == NULL)
		return lr_err(EINVAL, "unknown role '%s'", val);
	return 0;
}

static int
set_duration(void *conf, const char *key, const char *val)
{
	struct opts *o = conf;

	if (lr_parse_seconds(val, &o->duration_s) != 0)
		return lr_err(EINVAL, "--%s '%s': want seconds >= 0", key, val);
	o->duration_given = true;
	return 0;
}

static int
set_series(void *conf, const char *key, const char *val)
{
	struct opts *o = conf;

	if (lr_parse_seconds(val, &o->series_s) != 0 ||
	    o->series_s < LR_STATS_SERIES_MIN_S || o->series_s > 3600)
		return lr_err(EINVAL, "--%s '%s': want seconds from 0.001 to "
			      "3600", key, val);
	o->series_given = true;
	return 0;
}

static int
check_metrics(void *conf, const char *key, const char *val)
{
	RTE_SET_USED(conf);
	RTE_SET_USED(key);
	return lr_metrics_check(val);
}

static int
set_metrics_linger(void *conf, const char *key, const char *val)
{
	struct opts *o = conf;

	if (lr_parse_seconds(val, &o->metrics_linger_s) != 0 ||
	    o->metrics_linger_s > LR_METRICS_LINGER_MAX_S)
		return lr_err(EINVAL, "--%s '%s': want seconds from 0 to %d",
			      key, val, LR_METRICS_LINGER_MAX_S);
	return 0;
}

/* --metrics PORT 0: the kernel picks it. */
static bool
asks_any_port(const char *listen)
{
	size_t n = strlen(listen);

	return strcmp(listen, "0") == 0 ||
	       (n >= 2 && strcmp(listen + n - 2, ":0") == 0);
}

/* rte_log's levels by name, as EAL's --log-level takes them. */
static const char *const log_levels[] = {
	[RTE_LOG_EMERG] = "emerg", [RTE_LOG_ALERT] = "alert",
	[RTE_LOG_CRIT] = "crit", [RTE_LOG_ERR] = "err",
	[RTE_LOG_WARNING] = "warning", [RTE_LOG_NOTICE] = "notice",
	[RTE_LOG_INFO] = "info", [RTE_LOG_DEBUG] = "debug",
};

static int
set_log_level(void *conf, const char *key, const char *val)
{
	struct opts *o = conf;
	unsigned int i;
	char *end;
	long n;

	for (i = RTE_LOG_EMERG; i <= RTE_LOG_DEBUG; i++)
		if (strcmp(val, log_levels[i]) == 0) {
			o->log_level = (int)i;
			return 0;
		}
	n = strtol(val, &end, 10);
	if (end != val && *end == '\0' && n >= RTE_LOG_EMERG &&
	    n <= RTE_LOG_DEBUG) {
		o->log_level = (int)n;
		return 0;
	}
	return lr_err(EINVAL, "--%s '%s': want emerg, alert, crit, err, "
		      "warning, notice, info, debug or 1..8", key, val);
}

/* --lcores LIST: lcore ids, each below RTE_MAX_LCORE, into @p out (at
 * most @p max). @return how many, or -EINVAL. */
static int
parse_lcores(const char *list, unsigned int *out, unsigned int max)
{
	char buf[256], *tok, *save;
	unsigned int n = 0;
	uint64_t l;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		if (lr_parse_u64(tok, &l) != 0 || l >= RTE_MAX_LCORE || n == max)
			return -EINVAL;
		out[n++] = (unsigned int)l;
	}
	return n == 0 ? -EINVAL : (int)n;
}

static int
check_lcores(void *conf, const char *key, const char *val)
{
	unsigned int ids[RTE_MAX_LCORE];

	RTE_SET_USED(conf);
	if (parse_lcores(val, ids, RTE_DIM(ids)) < 0)
		return lr_err(EINVAL, "--%s '%s': want a comma list of lcore "
			      "ids, each below %d", key, val, RTE_MAX_LCORE);
	return 0;
}

#define OC(field) LR_OPT_FIELD(struct opts, field)

/* linerate's own options, in --help's and doc/usage.md's order; the port's
 * and the roles' follow them. */
const struct lr_opt lr_app_opts[] = {
	{ "role", LR_OPT_STRING(struct opts, role, 1, check_role), "ROLE",
	  "run ROLE, one of `roles:` in --help, each with its options below, "
	  "on every queue of PORT", "`--role gen`", NULL },
	{ "port", LR_OPT_STRING(struct opts, port, 1, NULL), "PORT",
	  "port id, ethdev name, or vdev devargs (created if absent)",
	  "`--port net_pcap0,tx_pcap=out.pcap`", NULL },
	{ "lcores", LR_OPT_STRING(struct opts, lcores, 1, check_lcores), "LIST",
	  "worker lcores for the queues, comma list, round robin, each one of "
	  "EAL's (-l) but the main lcore (all workers)",
	  "`--lcores 1,2`", NULL },
	{ "duration", LR_OPT_FUNC, 0, 0, 0, 0, set_duration, "S",
	  "stop after S seconds (0: when done, or Ctrl-C; a capture ends at its "
	  "end); a finite number >= 0", "`--duration 10`", NULL },
	{ "json", LR_OPT_STRING(struct opts, json, 1, lr_opt_check_out), "FILE",
	  "write the result document (`-`: stdout, which then holds the "
	  "document alone: the live line and the summary go to stderr)",
	  "`--json result.json`", NULL },
	{ "series", LR_OPT_FUNC, 0, 0, 0, 0, set_series, "S",
	  "keep a time series in the result document: a sample every S seconds "
	  "(0.001 to 3600) of the rates, local drops and rx's received, lost, "
	  "PER and latency quantiles over the interval (its `series`)",
	  "`--series 1`", NULL },
	{ "metrics", LR_OPT_STRING(struct opts, metrics, 1, check_metrics),
	  "[ADDR:]PORT", "serve Prometheus metrics at http://ADDR:PORT/metrics "
	  "while the run goes on (ADDR: numeric IPv4, or IPv6 in brackets; "
	  "without it 127.0.0.1, `0.0.0.0:PORT` every IPv4 address; PORT 0: a "
	  "free one, said on stderr); a port in use is an error; 32 "
	  "connections at most, 4 from one address, 5 s for a request",
	  "`--metrics 127.0.0.1:9464`", NULL },
	{ "metrics-linger", LR_OPT_FUNC, 0, 0, 0, 0, set_metrics_linger, "S",
	  "after the run, keep serving /metrics until a scrape (a GET, its "
	  "answer sent whole; not a HEAD) has read the final counts or S "
	  "seconds have passed (0: stop at once); a signal meanwhile exits 130",
	  "`--metrics-linger 5`", NULL },
	{ "csv", LR_OPT_STRING(struct opts, csv, 1, lr_opt_check_out), "FILE",
	  "write rx's per-flow table as CSV (`-`: stdout, alone there as with "
	  "`--json -`)", "`--csv flows.csv`", NULL },
	{ "no-live", LR_OPT_FLAG, OC(no_live), 0, 1, NULL, NULL,
	  "no live line once a second (a terminal has one, a pipe, file or "
	  "journald none)", "`--no-live`", NULL },
	{ "live", LR_OPT_FLAG, OC(live), 0, 1, NULL, NULL,
	  "the live line once a second when stdout is not a terminal too "
	  "(a pipe, a file, journald)", "`--live`", NULL },
	{ "log-level", LR_OPT_FUNC, 0, 0, 0, 0, set_log_level, "LEVEL",
	  "say what is at LEVEL or above: emerg, alert, crit, err, warning, "
	  "notice, info, debug, or 1..8; DPDK's messages (rte_log's global "
	  "level, from EAL's start), linerate's own log types (user.lr.*: an "
	  "IPFIX collector lost is warning, found notice), the end-of-run "
	  "summary (notice) and the live line on a terminal (info); linerate's "
	  "errors at every level (no option: DPDK's default levels)",
	  "`--log-level warning`", NULL },
	{ "allow-short", LR_OPT_FLAG, OC(allow_short), 0, 1, NULL, NULL,
	  "exit 0 even when a paced rate fell short (still flagged in the live "
	  "line, on stderr and in the result document)", "`--allow-short`",
	  NULL },
	{ "help", LR_OPT_FLAG, OC(act.help), 0, 1, NULL, NULL,
	  "(alone, or `-h`) this help", "`linerate --help`", NULL },
	{ "version", LR_OPT_FLAG, OC(act.version), 0, 1, NULL, NULL,
	  "(alone) the version", "`linerate --version`", NULL },
	{ "man", LR_OPT_FLAG, OC(act.man), 0, 1, NULL, NULL,
	  "(alone) this reference as a manual page, linerate(1), in roff "
	  "(the build makes the installed page with it)",
	  "`linerate --man | man -l -`", NULL },
	{ "options-md", LR_OPT_STRING(struct opts, act.options_md, 1, NULL),
	  "NAME", "(alone) print the option table of `linerate`, `port`, "
	  "`solve`, `doctor` or a role as this page has it, from the code",
	  "`linerate --options-md gen`",
	  NULL },
	{ "metrics-md", LR_OPT_FLAG, OC(act.metrics_md), 0, 1, NULL, NULL,
	  "(alone) print the table of /metrics' families as this page has it "
	  "(Prometheus metrics), from the roles' counter tables",
	  "`linerate --metrics-md`", NULL },
	{ "counters-json", LR_OPT_FLAG, OC(act.counters_json), 0, 1, NULL, NULL,
	  "(alone) print every role's counter tables as JSON: each value's "
	  "key, type, metric, kind, unit and help (test_schema checks "
	  "doc/schema against them)", "`linerate --counters-json`", NULL },
	{ 0 },
};

/* The row of linerate's own option @p key, or NULL. */
static const struct lr_opt *
app_row(const char *key)
{
	const struct lr_opt *r;

	for (r = lr_app_opts; r->name != NULL; r++)
		if (strcmp(r->name, key) == 0)
			return r;
	return NULL;
}

/* Is row @p r one of the options done alone (struct actions)? */
static bool
is_action(const struct lr_opt *r)
{
	return r->offset >= offsetof(struct opts, act) &&
	       r->offset < offsetof(struct opts, act) + sizeof(struct actions);
}

/* Do what an option done alone asked (struct actions). */
static int
act(const struct actions *a)
{
	if (a->help) {
		lr_app_usage(stdout);
		return 0;
	}
	if (a->version) {
		printf("linerate %s\n", LR_VERSION);
		return 0;
	}
	if (a->man) {
		lr_app_man(stdout);
		return 0;
	}
	if (a->metrics_md)
		return lr_metrics_md(stdout) == 0 ? 0 : EXIT_FAILURE;
	if (a->counters_json)
		return lr_counters_dump(stdout) == 0 ? 0 : EXIT_FAILURE;
	return lr_app_options_md(a->options_md);
}

static int
bad(const char *fmt, const char *what)
{
	fprintf(stderr, "linerate: ");
	fprintf(stderr, fmt, what);
	fprintf(stderr, " (see --help)\n");
	return -EXIT_USAGE;
}

/* Is --key an option of the port or of any role? */
static bool
known_key(const char *key)
{
	struct lr_port_conf pc;
	const struct lr_role *r;
	union { max_align_t align; char bytes[2048]; } conf;
	unsigned int i;

	if (lr_port_conf_set(&pc, key, "") != -ENOENT)
		return true;
	for (i = 0; (r = lr_role_at(i)) != NULL; i++)
		if (r->conf_bytes <= sizeof(conf) &&
		    lr_role_set(r, &conf, key, "") != -ENOENT)
			return true;
	return false;
}

/* Has port or role option --@p key been given already? */
static bool
kv_given(const struct opts *o, const char *key)
{
	unsigned int i;

	for (i = 0; i < o->nb_kv; i++)
		if (strcmp(o->kv[i].key, key) == 0)
			return true;
	return false;
}

/*
 * Options after "--": linerate's own by lr_app_opts, the port's and the
 * roles' kept for apply_kv(). @return 0, 1 (an option done alone: o->act)
 * or -EXIT_USAGE.
 */
static int
parse_opts(int argc, char **argv, struct opts *o)
{
	uint64_t seen = 0;	/* lr_app_opts rows given */
	int i;

	RTE_BUILD_BUG_ON(RTE_DIM(lr_app_opts) > 64);
	for (i = 0; i < argc; i++) {
		char *a = argv[i], *eq;
		const char *key, *val = NULL;
		const struct lr_opt *r;

		if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
			if (a[0] == '-' && a[1] != '\0')
				return bad("unknown option '%s'", a);
			o->script = a;
			o->script_argc = argc - i - 1;
			o->script_argv = argv + i + 1;
			return 0;
		}
		key = a + 2;
		eq = strchr(a, '=');
		if (eq != NULL) {
			*eq = '\0';
			val = eq + 1;
		}
		r = app_row(key);
		if (r != NULL && r->type == LR_OPT_FLAG) {
			if (val != NULL)
				return bad("option '%s' takes no value", a);
			val = "";
		} else if (val == NULL && i + 1 < argc) {
			val = argv[++i];
		} else if (val == NULL) {
			if (r != NULL || known_key(key))
				return bad("option '%s' needs a value", a);
			return bad("unknown option '%s'", a);
		}
		/* Every option takes one value: a second one would silently
		 * win over the first (--role gen --role rx ran rx). */
		if (r != NULL && r->type != LR_OPT_FLAG) {
			uint64_t bit = 1ull << (r - lr_app_opts);

			if (seen & bit)
				return bad("option '%s' is given twice", a);
			seen |= bit;
		} else if (r == NULL && kv_given(o, key)) {
			return bad("option '%s' is given twice", a);
		}
		if (r != NULL) {
			if (lr_opt_set(lr_app_opts, o, NULL, key, val) != 0) {
				fprintf(stderr, "linerate: %s (see --help)\n",
					lr_errmsg());
				return -EXIT_USAGE;
			}
			if (is_action(r))
				return 1;
			continue;
		}
		if (o->nb_kv == MAX_KV)
			return bad("too many options at '%s'", a);
		o->kv[o->nb_kv].key = key;
		o->kv[o->nb_kv].val = val;
		o->nb_kv++;
	}
	return 0;
}

/* Sort port and role options into their confs (@p wc: the conf of the
 * role's companion, role->with). @return 0 or -EXIT_USAGE. */
static int
apply_kv(const struct opts *o, const struct lr_role *role,
	 struct lr_port_conf *pc, void *rc, void *wc)
{
	unsigned int i;

	for (i = 0; i < o->nb_kv; i++) {
		int ret = lr_port_conf_set(pc, o->kv[i].key, o->kv[i].val);

		if (ret == -ENOENT && role != NULL)
			ret = lr_role_conf_set(role, rc, wc, o->kv[i].key,
					       o->kv[i].val);
		if (ret == -ENOENT) {
			const char *near = NULL;
			unsigned int d = 3;	/* a typo or two, not a guess */

			lr_opt_nearest(lr_app_opts, o->kv[i].key, &near, &d);
			lr_opt_nearest(lr_port_opts, o->kv[i].key, &near, &d);
			if (role != NULL && role->opts != NULL)
				lr_opt_nearest(role->opts, o->kv[i].key, &near, &d);
			if (role != NULL && lr_app_companion_opts(role) != NULL)
				lr_opt_nearest(lr_app_companion_opts(role), o->kv[i].key,
					       &near, &d);
			fprintf(stderr, "linerate: unknown option '--%s'%s%s%s%s%s "
				"(see --help)\n", o->kv[i].key,
				role ? " for role " : "", role ? role->name : "",
				near ? "; did you mean '--" : "", near ? near : "",
				near ? "'?" : "");
			return -EXIT_USAGE;
		}
		if (ret != 0) {
			fprintf(stderr, "linerate: --%s: %s\n", o->kv[i].key,
				lr_errmsg());
			return -EXIT_USAGE;
		}
	}
	return 0;
}

/*
 * The role's checks of option against option (gen: mixed address families,
 * more flows than a task holds), on each queue's slice as run_role() will
 * make them, before EAL: they are bad options (exit 2), not run failures.
 */
static int
check_conf(const struct lr_role *role, const struct lr_port_conf *pc,
	   const void *rc)
{
	unsigned int q, nq = role->task == NULL ? 1 :
			     role->task->uses_tx ? pc->nb_txq : pc->nb_rxq;
	void *qc;
	int ret = 0;

	if (role->conf_check == NULL)
		return 0;
	qc = malloc(role->conf_bytes);
	if (qc == NULL)
		return -ENOMEM;
	for (q = 0; q < RTE_MAX(nq, 1u) && ret == 0; q++) {
		memcpy(qc, rc, role->conf_bytes);
		lr_role_slice(role, qc, q, nq);
		ret = role->conf_check(qc);
	}
	free(qc);
	if (ret != 0)
		fprintf(stderr, "linerate: %s (see --help)\n", lr_errmsg());
	return ret;
}

/* The role's checks and its companion's (whole: a plan gives its
 * companion's tasks no slices). */
static int
check_confs(const struct lr_role *role, const struct lr_port_conf *pc,
	    const void *rc, const void *wc)
{
	const struct lr_role *with = lr_role_companion(role);
	int ret = check_conf(role, pc, rc);

	if (ret == 0 && with != NULL && with->conf_check != NULL &&
	    (ret = with->conf_check(wc)) != 0)
		fprintf(stderr, "linerate: %s (see --help)\n", lr_errmsg());
	return ret;
}

/* Does an option send IPFIX to stdout (--export file:-)? Then stdout
 * carries nothing else. */
static bool
exports_to_stdout(const struct opts *o)
{
	unsigned int i;

	for (i = 0; i < o->nb_kv; i++)
		if (strcmp(o->kv[i].key, "export") == 0 &&
		    strcmp(o->kv[i].val, "file:-") == 0)
			return true;
	return false;
}

/*
 * EAL's argv with --huge-unlink added: without it every run leaves its
 * hugepage files (-m of them, 256 MiB for -m 256) in /dev/hugepages after it
 * ends, until the next run of the same prefix. Not where the user chose
 * otherwise, where there are no hugepage files (--no-huge, --in-memory), or
 * where EAL refuses it (--single-file-segments, a secondary process:
 * --proc-type other than primary, as auto may turn out).
 */
static char **
eal_args(int argc, char **argv, char *log_opt, int *out_argc)
{
	static char unlink_opt[] = "--huge-unlink";
	bool unlink = true;
	char **v;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		/* --proc-type=T or --proc-type T: auto may turn secondary. */
		const char *type = strncmp(a, "--proc-type=", 12) == 0 ? a + 12 :
				   strcmp(a, "--proc-type") == 0 && i + 1 < argc ?
				   argv[i + 1] : NULL;

		if (strncmp(a, "--huge-unlink", 13) == 0 ||
		    strcmp(a, "--no-huge") == 0 || strcmp(a, "--in-memory") == 0 ||
		    strcmp(a, "--single-file-segments") == 0 ||
		    (type != NULL && strcmp(type, "primary") != 0))
			unlink = false;
	}
	*out_argc = argc;
	if (!unlink && log_opt == NULL)
		return argv;
	v = calloc((size_t)argc + 3, sizeof(*v));
	if (v == NULL)
		return argv;
	memcpy(v, argv, sizeof(*v) * (size_t)argc);
	if (unlink)
		v[(*out_argc)++] = unlink_opt;
	/* Last, over a global level the user gave EAL: rte_eal_init() sets
	 * rte_log's global level from its options (its default otherwise),
	 * whatever was set before it. */
	if (log_opt != NULL)
		v[(*out_argc)++] = log_opt;
	return v;
}

/* After EAL: every lcore of --lcores is a worker (enabled by EAL's -l or
 * --lcores, not the main lcore); said as a bad option, before anything
 * runs. @return 0 or -EINVAL. */
static int
check_workers(const char *list)
{
	unsigned int ids[RTE_MAX_LCORE], i;
	int n = parse_lcores(list, ids, RTE_DIM(ids));

	for (i = 0; n > 0 && i < (unsigned int)n; i++) {
		if (ids[i] == rte_get_main_lcore()) {
			fprintf(stderr, "linerate: --lcores '%s': lcore %u is the "
				"main lcore, not a worker (see --help)\n", list,
				ids[i]);
			return -EINVAL;
		}
		if (!rte_lcore_is_enabled(ids[i])) {
			fprintf(stderr, "linerate: --lcores '%s': lcore %u is not "
				"one of EAL's (give EAL -l with it) (see --help)\n",
				list, ids[i]);
			return -EINVAL;
		}
	}
	return 0;
}

static void
print_summary(FILE *out)
{
	struct lr_stats_totals t;

	const struct lr_role *r;
	char words[512];
	unsigned int i;

	lr_stats_totals(&t);
	fprintf(out, "linerate: tx %" PRIu64 " packets %" PRIu64 " bytes, rx %"
		PRIu64 " packets %" PRIu64 " bytes, local drops %" PRIu64 "\n",
		t.tx_pkts, t.tx_bytes, t.rx_pkts, t.rx_bytes, t.drops);
	for (i = 0; (r = lr_role_at(i)) != NULL; i++) {
		if (r->report == NULL || r->report->live == NULL)
			continue;
		r->report->live(words, sizeof(words));
		if (words[0] != '\0')
			fprintf(out, "linerate: %s: %s\n", r->name, words);
	}
}

/* Say which tasks fell short, were late, invalid or failed; @return the
 * exit code they make of a run that otherwise succeeded. */
static int
verdict_exit(const struct opts *o)
{
	enum lr_verdict v, worst = LR_VERDICT_OK;
	unsigned int i, n = lr_engine_task_count();
	const struct lr_role *r;
	char why[384];

	for (i = 0; i < n; i++) {
		v = lr_task_verdict(lr_engine_task(i), why, sizeof(why));
		if (v == LR_VERDICT_OK)
			continue;
		fprintf(stderr, "linerate: task %u: %s\n", i, why);
		if (v > worst)
			worst = v;
	}
	for (i = 0; (r = lr_role_at(i)) != NULL; i++) {
		if (r->report == NULL || r->report->verdict == NULL)
			continue;
		why[0] = '\0';
		v = r->report->verdict(why, sizeof(why));
		if (v == LR_VERDICT_OK)
			continue;
		fprintf(stderr, "linerate: %s: %s\n", r->name, why);
		if (v > worst)
			worst = v;
	}
	if (worst == LR_VERDICT_FAILED)
		return EXIT_FAILED;
	if (worst == LR_VERDICT_INVALID)
		return EXIT_INVALID;
	/* Frames later than the delay box was asked for fell short of it as
	 * a paced rate does (--allow-short excuses a rate only). */
	if (worst == LR_VERDICT_LATE)
		return EXIT_SHORT;
	if (worst == LR_VERDICT_SHORT && !o->allow_short)
		return EXIT_SHORT;
	return 0;
}

/* One role on every queue of one port, until done, --duration or Ctrl-C. */
static int
run_role(const struct opts *o, const struct lr_role *role,
	 const struct lr_port_conf *pc, const void *rc, const void *wc)
{
	unsigned int workers[RTE_MAX_LCORE], nw;
	uint16_t port;
	int ret;

	if (o->lcores[0] != '\0') {
		/* Checked at parsing and after EAL (check_workers()). */
		ret = parse_lcores(o->lcores, workers, RTE_DIM(workers));
		if (ret < 0)
			return EXIT_USAGE;
		nw = (unsigned int)ret;
	} else {
		nw = lr_engine_workers(workers, RTE_DIM(workers));
		if (nw == 0) {
			fprintf(stderr, "linerate: no worker lcore: give EAL -l "
				"with two lcores or more\n");
			return EXIT_USAGE;
		}
	}
	if (lr_port_find_for(o->port, pc, &port) != 0 ||
	    lr_port_setup(port, pc) != 0) {
		fprintf(stderr, "linerate: %s\n", lr_errmsg());
		return lr_interrupted() ? EXIT_INTERRUPTED : 1;
	}
	/* The role lays itself over the port: a task per queue with its
	 * slice, or its own plan (with its companion's tasks). */
	/* A signal that cut the plan short (gen --pcap waiting in open()
	 * for a FIFO's writer) is an interruption, not a failure. */
	if (lr_role_plan(role, port, rc, wc, workers, nw, o->duration_s) < 0) {
		fprintf(stderr, "linerate: %s\n", lr_errmsg());
		return lr_interrupted() ? EXIT_INTERRUPTED : 1;
	}
	if (lr_engine_start() < 0) {
		fprintf(stderr, "linerate: %s\n", lr_errmsg());
		return 1;
	}
	ret = lr_engine_wait(0);
	lr_engine_stop();
	return ret == -EINTR ? EXIT_INTERRUPTED : 0;
}

/*
 * The first SIGINT or SIGTERM asks for an orderly stop (130): the workers
 * stopped, the results written, everything made removed. A second one
 * means that whoever sends it will not wait for that (a peer that never
 * comes, a script that ignores the first, a user's second Ctrl-C): the
 * process ends at once (EXIT_FORCED), and what it made goes with it: the
 * EAL runtime directory, a result file half written (results are written
 * under a temporary name and renamed whole, lr_out.h), the scripts'
 * temporary files (lr_cleanup.h). Everything here is async-signal-safe.
 *
 * A repeat is not a second signal: GNU timeout sends its signal to the
 * process and then to its process group, two SIGTERMs from one sender a
 * few microseconds apart, and both arrive in about one run of six. The
 * same signal by kill() (SI_USER) from the same process within
 * SIGNAL_REPEAT_NS of the first is the same request. A terminal's Ctrl-C
 * comes from the kernel (SI_KERNEL), one per key press: never a repeat.
 */
#define SIGNAL_REPEAT_NS 250000000ull

static int first_signo;			/* 0: none yet */
static int first_ready;			/* the fields below are set */
static pid_t first_pid;
static int first_code;
static uint64_t first_ns;

static uint64_t
monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool
repeats_first(int sig, const siginfo_t *si, uint64_t now)
{
	/* The first is being noted on another thread this instant: both
	 * came together. */
	if (!__atomic_load_n(&first_ready, __ATOMIC_ACQUIRE))
		return true;
	return sig == first_signo && si->si_code == SI_USER &&
	       first_code == SI_USER && si->si_pid == first_pid &&
	       now - first_ns < SIGNAL_REPEAT_NS;
}

static void
on_signal(int sig, siginfo_t *si, void *uctx)
{
	static const char msg[] = "linerate: a second signal: stopped at once; "
		"results not written yet are not written (exit 137)\n";
	uint64_t now = monotonic_ns();
	int none = 0;

	RTE_SET_USED(uctx);
	if (__atomic_compare_exchange_n(&first_signo, &none, sig, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		first_pid = si->si_pid;
		first_code = si->si_code;
		first_ns = now;
		__atomic_store_n(&first_ready, 1, __ATOMIC_RELEASE);
		lr_interrupt();
		lr_lua_interrupt();
		return;
	}
	if (repeats_first(sig, si, now))
		return;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
		/* nothing more to say it with */
	}
	lr_lua_kill_command();
	lr_cleanup_run();
	_exit(EXIT_FORCED);
}

/* Is what linerate says at @p level said (--log-level)? Without one, as
 * DPDK's default for a log type: info and above. */
static bool
said(const struct opts *o, int level)
{
	return level <= (o->log_level != 0 ? o->log_level : (int)RTE_LOG_INFO);
}

/*
 * --log-level: linerate's log types (user.lr.*, registered at info) set
 * to it, so that debug reaches theirs too; rte_log's global level is
 * EAL's --log-level=N, given last (eal_args()), so that EAL's own start
 * follows it. DPDK's messages go to
 * stderr alone: EAL's default stream also copies each to syslog, which
 * under systemd is the journal a second time (not with EAL --syslog,
 * which asks for syslog).
 */
static void
setup_log(const struct opts *o, int eal_argc, char **argv)
{
	int i;

	if (o->log_level != 0)
		rte_log_set_level_pattern("user.lr.*", (uint32_t)o->log_level);
	for (i = 1; i < eal_argc; i++)
		if (strncmp(argv[i], "--syslog", 8) == 0)
			return;
	rte_openlog_stream(stderr);
}

/* At exit() from anywhere (DPDK's rte_exit() too), what is registered. */
static void
cleanup_at_exit(void)
{
	lr_cleanup_run();
}

/*
 * What a run holds from its arguments to its end: main() goes through the
 * stages below in turn, each returning an exit code, and leaves by one
 * path that frees what was made (EAL's runtime directory and the files a
 * script made go at exit too: cleanup_at_exit()).
 */
struct run {
	struct opts o;
	struct lr_port_conf pc;
	const struct lr_role *role;	/* --role's, NULL: a script */
	void *rc, *wc;			/* its conf and its companion's */
	FILE *human;			/* the live line and the summary */
};

/* "--" splits EAL's arguments from linerate's; an option done alone
 * needs none. @return -1 to go on, else the exit code (an action's). */
static int
stage_args(struct run *r, int argc, char **argv, int *eal_argc)
{
	struct opts *o = &r->o;
	int ret;

	for (*eal_argc = 1; *eal_argc < argc; (*eal_argc)++)
		if (strcmp(argv[*eal_argc], "--") == 0)
			break;
	/* Without "--", the first argument is linerate's only if it is an
	 * option done alone; anything else is EAL's (EAL has a --lcores of
	 * its own). */
	if (*eal_argc == argc && argc >= 2) {
		static char help_opt[] = "--help";
		const struct lr_opt *row = NULL;
		char key[32];

		if (strcmp(argv[1], "-h") == 0)
			argv[1] = help_opt;
		if (strncmp(argv[1], "--", 2) == 0) {
			snprintf(key, sizeof(key), "%s", argv[1] + 2);
			key[strcspn(key, "=")] = '\0';
			row = app_row(key);
		}
		if (row != NULL && is_action(row)) {
			ret = parse_opts(argc - 1, argv + 1, o);
			return ret < 0 ? EXIT_USAGE : act(&o->act);
		}
	}
	if (*eal_argc < argc) {
		ret = parse_opts(argc - *eal_argc - 1, argv + *eal_argc + 1, o);
		if (ret < 0)
			return EXIT_USAGE;
		if (ret > 0)
			return act(&o->act);
	}
	if (o->script == NULL && o->role[0] == '\0') {
		fprintf(stderr, "linerate: give SCRIPT.lua or --role ROLE after "
			"'--' (see --help)\n");
		return EXIT_USAGE;
	}
	if (o->script != NULL && o->role[0] != '\0') {
		fprintf(stderr, "linerate: give SCRIPT.lua or --role, not both\n");
		return EXIT_USAGE;
	}
	if (o->live && o->no_live) {
		fprintf(stderr, "linerate: give --live or --no-live, not both\n");
		return EXIT_USAGE;
	}
	return -1;
}

/* The role's conf and its companion's from the options, checked before
 * EAL: bad options exit 2. @return -1 to go on, or the exit code. */
static int
stage_confs(struct run *r)
{
	const struct opts *o = &r->o;
	const struct lr_role *with;

	lr_port_conf_init(&r->pc);
	if (o->role[0] != '\0') {
		r->role = lr_role_find(o->role);
		if (lr_app_alone(r->role) != NULL) {
			fprintf(stderr, "linerate: %s\n", lr_app_alone(r->role));
			return EXIT_USAGE;
		}
		if (o->port[0] == '\0') {
			fprintf(stderr, "linerate: --role %s needs --port\n", o->role);
			return EXIT_USAGE;
		}
		with = lr_role_companion(r->role);
		r->rc = calloc(1, r->role->conf_bytes);
		if (with != NULL)
			r->wc = calloc(1, with->conf_bytes);
		if (r->rc == NULL || (with != NULL && r->wc == NULL))
			return 1;
		r->role->conf_init(r->rc);
		if (with != NULL)
			with->conf_init(r->wc);
	} else if (o->port[0] != '\0' || o->nb_kv != 0 || o->lcores[0] != '\0' ||
		   o->duration_given) {
		fprintf(stderr, "linerate: port and role options go with --role; "
			"a script sets its own\n");
		return EXIT_USAGE;
	}
	if (apply_kv(o, r->role, &r->pc, r->rc, r->wc) != 0 ||
	    (r->role != NULL && check_confs(r->role, &r->pc, r->rc, r->wc) != 0))
		return EXIT_USAGE;
	if (exports_to_stdout(o) &&
	    (strcmp(o->json, "-") == 0 || strcmp(o->csv, "-") == 0)) {
		fprintf(stderr, "linerate: --export file:- writes IPFIX to "
			"stdout: give --json and --csv a file (see --help)\n");
		return EXIT_USAGE;
	}
	return -1;
}

/* EAL, the signals, the statistics, /metrics. @return -1 to go on, or
 * the exit code. */
static int
stage_eal(struct run *r, char **argv, int eal_argc)
{
	const struct opts *o = &r->o;
	struct sigaction sa = { 0 };
	char **eal_argv;
	char log_opt[32];

	/*
	 * A hang-up (a terminal closed, systemctl kill -s HUP) has nothing to
	 * make linerate re-open: results are written whole at the end, the
	 * IPFIX exporter reconnects by itself, messages go to stderr. Its
	 * default action would end the process with nothing written, so it
	 * is ignored, from before EAL (hugepages can take seconds to map).
	 * Ignored, not caught: no system call of a sleeping main lcore is cut
	 * short (EINTR). Processes a script starts inherit it.
	 */
	signal(SIGHUP, SIG_IGN);
	setup_log(o, eal_argc, argv);
	snprintf(log_opt, sizeof(log_opt), "--log-level=%d", o->log_level);
	eal_argv = eal_args(eal_argc, argv, o->log_level != 0 ? log_opt : NULL,
			    &eal_argc);
	if (rte_eal_init(eal_argc, eal_argv) < 0) {
		fprintf(stderr, "linerate: EAL initialisation failed: %s\n",
			rte_strerror(rte_errno));
		if (eal_argv != argv)
			free(eal_argv);
		return EXIT_USAGE;
	}
	/*
	 * EAL leaves the runtime directory (/var/run/dpdk/PREFIX: config,
	 * fbarray and socket files) behind at exit, rte_eal_cleanup() or
	 * not; a primary process owns it, and nothing else uses it once the
	 * process ends. Its files may go while EAL's threads still hold them
	 * open.
	 */
	if (rte_eal_process_type() == RTE_PROC_PRIMARY)
		lr_cleanup_add(rte_eal_get_runtime_dir());
	atexit(cleanup_at_exit);
	/* EAL's lcores are known now: --lcores naming another is a bad
	 * option (exit 2), not a failure of the run. */
	if (o->lcores[0] != '\0' && check_workers(o->lcores) != 0)
		return EXIT_USAGE;
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A peer process that is gone (a DUT, a collector behind a pipe) is
	 * an error of the write to it (EPIPE), said where it happens, not a
	 * death of this process with nothing written. */
	signal(SIGPIPE, SIG_IGN);
	lr_stats_init();
	/* Results written to stdout ('-') have it to themselves: the live
	 * line and the summary go to stderr then. So does IPFIX to stdout
	 * (file:-), from when the exporter opens it, by CLI or Lua
	 * (lr_human_out()). */
	r->human = strcmp(o->json, "-") == 0 || strcmp(o->csv, "-") == 0 ?
		   stderr : stdout;
	/* A live line is for a terminal: off a pipe, a file or journald, one
	 * line a second of rates is noise among the events (--live: still). */
	lr_stats_live(!o->no_live && (o->live || (isatty(fileno(r->human)) &&
						  said(o, RTE_LOG_INFO))),
		      r->human);
	if (o->series_given)
		lr_stats_series(o->series_s);
	lr_engine_set_tick(lr_stats_tick);
	if (o->metrics[0] != '\0' &&
	    lr_metrics_start(o->metrics, o->metrics_linger_s) != 0) {
		fprintf(stderr, "linerate: %s\n", lr_errmsg());
		return 1;
	}
	/* A port the kernel picked is said, or nobody could scrape it. */
	if (o->metrics[0] != '\0' && asks_any_port(o->metrics))
		fprintf(stderr, "linerate: metrics at %s\n", lr_metrics_url());
	return -1;
}

/* An error of the end of a run: said, and a run that went well fails. */
static void
end_error(int *rc_exit)
{
	fprintf(stderr, "linerate: %s\n", lr_errmsg());
	if (*rc_exit == 0)
		*rc_exit = 1;
}

/* The run and its orderly end: the workers stopped so that the results
 * are final, written, served a last time, checked; the ports closed.
 * @return the exit code. */
static int
stage_run(struct run *r)
{
	const struct opts *o = &r->o;
	int rc_exit, checked;

	if (o->script != NULL) {
		lr_lua_print_to(r->human);
		rc_exit = lr_lua_run(o->script, o->script_argc, o->script_argv);
	} else {
		rc_exit = run_role(o, r->role, &r->pc, r->rc, r->wc);
	}
	lr_engine_stop();
	lr_stats_series_flush();
	if (o->role[0] != '\0' && lr_engine_task_count() > 0) {
		if (said(o, RTE_LOG_NOTICE))
			print_summary(lr_human_out(r->human));
		/* A rate that fell short or a port that stopped is not a
		 * success (a script judges its own tasks). */
		if (rc_exit == 0)
			rc_exit = verdict_exit(o);
	}
	if (o->json[0] != '\0' && lr_stats_write_json(o->json) != 0)
		end_error(&rc_exit);
	if (o->csv[0] != '\0' && lr_roles_write_csv(o->csv) != 0)
		end_error(&rc_exit);
	/* The results are final and written: a Prometheus that scrapes every
	 * few seconds gets them too (also a server a script started). */
	lr_metrics_linger();
	/* A signal during the linger still stopped the process early: an
	 * interruption (130), as the exit codes' table says. */
	if (rc_exit == 0 && lr_interrupted())
		rc_exit = EXIT_INTERRUPTED;
	/* A run whose IPFIX records did not all reach the collector failed,
	 * whatever else went well. */
	checked = lr_roles_check();
	if (checked != 0)
		end_error(&rc_exit);
	lr_metrics_stop();
	lr_engine_cleanup();
	/* The tasks held the IPFIX export open until now, and a file's close
	 * can fail too (an error the file system kept for it): asked again,
	 * unless it was said already. */
	if (checked == 0 && lr_roles_check() != 0)
		end_error(&rc_exit);
	/* A capture file a port wrote (net_pcap tx_pcap=) is checked as
	 * the port closes. */
	if (lr_port_close_all() != 0)
		end_error(&rc_exit);
	/*
	 * No rte_eal_cleanup(): in DPDK 22.11 it unmaps DPDK's memory while
	 * the EAL interrupt thread still walks interrupt sources kept there
	 * (memif's), and the process crashes at exit (5 of 8 runs when both
	 * ends of a memif link stop at once). The ports are closed above,
	 * which removes memif's socket; the process's memory goes with it.
	 */
	return rc_exit;
}

int
main(int argc, char **argv)
{
	struct run r;
	int eal_argc, ret;

	memset(&r, 0, sizeof(r));
	/* Commands that need no EAL come before anything DPDK. */
	if (argc >= 2 && strcmp(argv[1], "solve") == 0)
		return lr_latency_main(argc - 1, argv + 1);
	/* doctor starts EAL itself, and only when its checks let it. */
	if (argc >= 2 && strcmp(argv[1], "doctor") == 0)
		return lr_doctor_main(argc - 1, argv + 1);
	lr_roles_builtin();
	ret = stage_args(&r, argc, argv, &eal_argc);
	if (ret < 0)
		ret = stage_confs(&r);
	if (ret < 0)
		ret = stage_eal(&r, argv, eal_argc);
	if (ret < 0)
		ret = stage_run(&r);
	/* The one way out: what EAL and scripts made (also at exit()). */
	lr_cleanup_run();
	free(r.rc);
	free(r.wc);
	return ret;
}
