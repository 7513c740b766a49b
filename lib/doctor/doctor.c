/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * linerate doctor [EAL options] [-- options]: the table of checks, the EAL
 * options they read, one line per finding, the JSON document and the exit
 * code.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lr_cleanup.h"
#include "lr_common.h"
#include "lr_doctor.h"
#include "lr_opt.h"
#include "lr_out.h"

#include "doctor.h"

#define EXIT_BLOCKED 1
#define EXIT_BAD 2

/*
 * The checks, in the order a machine is set up: memory, the IOMMU and the
 * driver NICs are bound to, the cores, the wire. blocks: what a FAIL of the
 * row stops (exit 1); a row without one only advises (warn, exit 0).
 */
static const struct dr_check checks[] = {
	{ "hugepages", dr_check_hugepages, "EAL's memory" },
	{ "iommu", dr_check_iommu, "binding NICs to vfio-pci" },
	{ "vfio", dr_check_vfio, "binding NICs to vfio-pci" },
	{ "nic", dr_check_nics, "opening the ports" },
	{ "lcores", dr_check_lcores, "EAL's start" },
	{ "numa", dr_check_numa, "line rate: every frame crosses sockets" },
	{ "isolation", dr_check_isolation, NULL },
	{ "governor", dr_check_governor, NULL },
	{ "link", dr_check_link, "frames on the wire" },
	{ "mtu", dr_check_mtu, "jumbo frames" },
	{ "port", dr_check_ports, "frames on the wire" },
};

static const char *const level_word[] = {
	[DR_OK] = "ok", [DR_WARN] = "warn", [DR_FAIL] = "FAIL",
};

void
dr_say(struct dr *d, enum dr_level level, const char *subject, const char *fix,
       const char *fmt, ...)
{
	struct dr_line *l;
	va_list ap;

	/* A row that only advises cannot block. */
	if (level == DR_FAIL && d->cur->blocks == NULL)
		level = DR_WARN;
	if (d->nb_lines == d->cap) {
		unsigned int cap = d->cap ? d->cap * 2 : 32;
		struct dr_line *n = realloc(d->lines, cap * sizeof(*n));

		if (n == NULL)
			return;
		d->lines = n;
		d->cap = cap;
	}
	l = &d->lines[d->nb_lines++];
	memset(l, 0, sizeof(*l));
	l->level = level;
	l->check = d->cur;
	snprintf(l->subject, sizeof(l->subject), "%s", subject ? subject : "-");
	snprintf(l->fix, sizeof(l->fix), "%s", fix ? fix : "");
	va_start(ap, fmt);
	vsnprintf(l->what, sizeof(l->what), fmt, ap);
	va_end(ap);
}

bool
dr_failed(const struct dr *d, const char *name)
{
	unsigned int i;

	for (i = 0; i < d->nb_lines; i++)
		if (d->lines[i].level == DR_FAIL &&
		    (name == NULL || strcmp(d->lines[i].check->name, name) == 0))
			return true;
	return false;
}

static int
set_mtu(void *conf, const char *key, const char *val)
{
	struct dr *d = conf;
	uint64_t v;

	if (lr_parse_u64(val, &v) != 0 || v < 68 || v > 16128)
		return lr_err(EINVAL, "--%s '%s': want bytes of L3 payload from "
			      "68 to 16128", key, val);
	d->mtu = (uint32_t)v;
	return 0;
}

static int
set_wait(void *conf, const char *key, const char *val)
{
	struct dr *d = conf;

	if (lr_parse_seconds(val, &d->link_wait_s) != 0 ||
	    d->link_wait_s > 60)
		return lr_err(EINVAL, "--%s '%s': want seconds from 0 to 60",
			      key, val);
	return 0;
}

#define DF(field) LR_OPT_FIELD(struct dr, field)

const struct lr_opt lr_doctor_opts[] = {
	{ "mtu", LR_OPT_FUNC, 0, 0, 0, 0, set_mtu, "N",
	  "the MTU the run will ask (bytes of L3 payload): every port and "
	  "kernel interface of the run is checked for it (none: not checked)",
	  "`--mtu 9000`", NULL },
	{ "jumbo", LR_OPT_FLAG, DF(jumbo), 0, 1, NULL, NULL,
	  "`--mtu 9000`: 9018 B frames", "`--jumbo`", NULL },
	{ "link-wait", LR_OPT_FUNC, 0, 0, 0, 0, set_wait, "S",
	  "wait at most S seconds for each port DPDK opens to come up (5)",
	  "`--link-wait 2`", NULL },
	{ "no-eal", LR_OPT_FLAG, DF(no_eal), 0, 1, NULL, NULL,
	  "read sysfs and procfs only: open no port (no EAL, no hugepages "
	  "taken)", "`--no-eal`", NULL },
	{ "json", LR_OPT_STRING(struct dr, json, 1, lr_opt_check_out), "FILE",
	  "write every finding as JSON (doc/schema/doctor.json; `-`: stdout, "
	  "which then holds the document alone)", "`--json doctor.json`",
	  NULL },
	{ "sysfs-root", LR_OPT_STRING(struct dr, sysfs_root, 1, NULL), "DIR",
	  "read /sys and /proc below DIR (for tests: a faked tree; also "
	  "LINERATE_SYSFS_ROOT); no port is opened then", "see below", NULL },
	{ "help", LR_OPT_FLAG, DF(help), 0, 1, NULL, NULL, "this help", NULL,
	  NULL },
	{ 0 },
};

static void
usage(FILE *f)
{
	fputs(
"usage: linerate doctor [EAL options] [-- options]\n"
"\n"
"Checks the machine before a line-rate run on real NICs, as dpdk-devbind.py,\n"
"dpdk-hugepages.py and TRex's dpdk_setup_ports.py do: hugepages per NUMA\n"
"node, the IOMMU and vfio-pci, each NIC's driver and IOMMU group, the worker\n"
"lcores' NUMA node against the ports', isolated cores, the frequency\n"
"governor, link and MTU. EAL options are the run's (-l, --lcores, -a,\n"
"--no-pci, --vdev, --no-huge...): the ports DPDK opens with them are\n"
"checked for link and MTU.\n"
"\n"
"One line per finding: ok, warn (advice) or FAIL (blocks a line-rate run),\n"
"each with its fix.\n"
"\n", f);
	lr_opt_help(f, lr_doctor_opts, NULL);
	fputs(
"\n"
"exit: 0 nothing blocks a line-rate run (warnings are advice), 1 something\n"
"does (each FAIL line says what and its fix), 2 bad options.\n", f);
}

/* "03:00.0" as sysfs names it, "0000:03:00.0"; devargs after ',' off. */
static void
add_allow(struct dr *d, const char *v)
{
	char bdf[24];

	if (d->nb_allow == DR_ALLOW)
		return;
	snprintf(bdf, sizeof(bdf), "%s", v);
	bdf[strcspn(bdf, ",")] = '\0';
	snprintf(d->allow[d->nb_allow++], sizeof(d->allow[0]), "%s%s",
		 strchr(bdf, ':') == strrchr(bdf, ':') ? "0000:" : "", bdf);
}

/* -c MASK as a CPU list. */
static int
mask_list(const char *mask, char *buf, size_t len)
{
	const char *p = mask;
	size_t n = 0;
	int bit = 0, i;

	if (strncmp(p, "0x", 2) == 0 || strncmp(p, "0X", 2) == 0)
		p += 2;
	buf[0] = '\0';
	for (i = (int)strlen(p) - 1; i >= 0; i--, bit += 4) {
		char c = p[i];
		int v = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		int b;

		if (v < 0)
			return -EINVAL;
		for (b = 0; b < 4; b++)
			if (v & (1 << b) && n < len)
				n += (size_t)snprintf(buf + n, len - n, "%s%d",
						      n ? "," : "", bit + b);
	}
	return n ? 0 : -EINVAL;
}

/* The value of EAL option @p a (argv[*i]) when it is one of @p names
 * ("-l", "--lcores"): "-l 2-4", "-l2-4", "--lcores=2-4". */
static const char *
eal_val(int argc, char **argv, int *i, const char *const *names)
{
	const char *a = argv[*i];
	size_t n;

	for (; *names != NULL; names++) {
		n = strlen(*names);
		if (strncmp(a, *names, n) != 0)
			continue;
		if (a[n] == '\0')
			return *i + 1 < argc ? argv[++*i] : NULL;
		if (a[n] == '=' || (n == 2 && a[1] != '-'))
			return a + n + (a[n] == '=');
	}
	return NULL;
}

/* What the checks need of EAL's options (EAL itself checks the rest). */
static int
read_eal(struct dr *d, int argc, char **argv)
{
	static const char *const l_opt[] = { "-l", NULL };
	static const char *const lcores_opt[] = { "--lcores", NULL };
	static const char *const c_opt[] = { "-c", NULL };
	static const char *const main_opt[] = { "--main-lcore", NULL };
	static const char *const allow_opt[] = { "-a", "--allow", "-w",
						 "--pci-whitelist", NULL };
	static const char *const vdev_opt[] = { "--vdev", NULL };
	const char *lcores = NULL, *v;
	char list[512];
	int i, main_lcore = -1;

	for (i = 0; i < argc; i++) {
		if ((v = eal_val(argc, argv, &i, l_opt)) != NULL ||
		    (v = eal_val(argc, argv, &i, lcores_opt)) != NULL) {
			lcores = v;
		} else if ((v = eal_val(argc, argv, &i, c_opt)) != NULL) {
			if (mask_list(v, list, sizeof(list)) != 0)
				return lr_err(EINVAL, "-c '%s': want a hex mask",
					      v);
			lcores = list;
		} else if ((v = eal_val(argc, argv, &i, main_opt)) != NULL) {
			main_lcore = atoi(v);
		} else if ((v = eal_val(argc, argv, &i, allow_opt)) != NULL) {
			add_allow(d, v);
		} else if (eal_val(argc, argv, &i, vdev_opt) != NULL) {
			d->nb_vdev++;
		} else if (strcmp(argv[i], "--no-pci") == 0) {
			d->no_pci = true;
		} else if (strcmp(argv[i], "--no-huge") == 0) {
			d->no_huge = true;
		}
	}
	if (lcores == NULL)
		return 0;
	d->lcores_given = true;
	if (lr_doctor_lcores(lcores, main_lcore, &d->workers, &d->main_cpu) != 0)
		return lr_err(EINVAL, "lcores '%s': want EAL's -l LIST or --lcores "
			      "MAP with CPUs below %d", lcores, LR_DOCTOR_CPUS);
	return 0;
}

static bool
is_flag(const char *key)
{
	const struct lr_opt *r;

	for (r = lr_doctor_opts; r->name != NULL; r++)
		if (strcmp(r->name, key) == 0)
			return r->type == LR_OPT_FLAG;
	return false;
}

/* Options after "--", by lr_doctor_opts. @return 0 or -EINVAL. */
static int
read_opts(struct dr *d, int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		char key[64];
		const char *a = argv[i], *val = NULL, *eq;
		const char *near = NULL;
		unsigned int dist = 3;
		size_t klen;

		if (strcmp(a, "-h") == 0)
			a = "--help";
		if (strncmp(a, "--", 2) != 0)
			return lr_err(EINVAL, "'%s': not an option", a);
		eq = strchr(a, '=');
		klen = eq != NULL ? (size_t)(eq - a - 2) : strlen(a + 2);
		snprintf(key, sizeof(key), "%.*s", (int)RTE_MIN(klen,
			 sizeof(key) - 1), a + 2);
		if (!lr_opt_has(lr_doctor_opts, key)) {
			lr_opt_nearest(lr_doctor_opts, key, &near, &dist);
			return lr_err(EINVAL, "unknown option '%s'%s%s%s", a,
				      near ? "; did you mean '--" : "",
				      near ? near : "", near ? "'?" : "");
		}
		if (is_flag(key)) {
			if (eq != NULL)
				return lr_err(EINVAL, "--%s takes no value", key);
			val = "";
		} else if (eq != NULL) {
			val = eq + 1;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			return lr_err(EINVAL, "--%s needs a value", key);
		}
		if (lr_opt_set(lr_doctor_opts, d, NULL, key, val) != 0)
			return -EINVAL;
	}
	if (d->jumbo && d->mtu != 0 && d->mtu != DR_JUMBO_MTU)
		return lr_err(EINVAL, "--jumbo is --mtu %u: give one of them",
			      DR_JUMBO_MTU);
	if (d->jumbo)
		d->mtu = DR_JUMBO_MTU;
	return 0;
}

/* The root below which /sys and /proc are read: --sysfs-root, then
 * LINERATE_SYSFS_ROOT; "/" is kept as "". */
static void
set_root(struct dr *d)
{
	const char *r = d->sysfs_root[0] ? d->sysfs_root :
			getenv("LINERATE_SYSFS_ROOT");
	size_t n;

	snprintf(d->root, sizeof(d->root), "%s", r ? r : "");
	n = strlen(d->root);
	while (n > 0 && d->root[n - 1] == '/')
		d->root[--n] = '\0';
}

static void
print_lines(const struct dr *d, FILE *f)
{
	unsigned int i;

	for (i = 0; i < d->nb_lines; i++) {
		const struct dr_line *l = &d->lines[i];

		fprintf(f, "%-4s  %-9s  %s: %s%s%s\n", level_word[l->level],
			l->check->name, l->subject, l->what,
			l->fix[0] ? "; fix: " : "", l->fix);
	}
}

static json_t *
to_json(const struct dr *d, int code)
{
	json_t *j = json_object(), *arr = json_array();
	unsigned int i, n[3] = { 0, 0, 0 };

	for (i = 0; i < d->nb_lines; i++) {
		const struct dr_line *l = &d->lines[i];
		const char *lv[] = { "ok", "warn", "fail" };

		n[l->level]++;
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}",
			"check", l->check->name, "level", lv[l->level],
			"subject", l->subject, "what", l->what,
			"fix", l->fix[0] ? json_string(l->fix) : json_null(),
			"blocks", l->check->blocks ? json_string(l->check->blocks) :
			json_null()));
	}
	json_object_set_new(j, "version", json_string(LR_VERSION));
	json_object_set_new(j, "root", json_string(d->root[0] ? d->root : "/"));
	json_object_set_new(j, "mtu", d->mtu ? json_integer(d->mtu) : json_null());
	json_object_set_new(j, "blocked", json_boolean(code == EXIT_BLOCKED));
	json_object_set_new(j, "exit", json_integer(code));
	json_object_set_new(j, "ok", json_integer(n[DR_OK]));
	json_object_set_new(j, "warn", json_integer(n[DR_WARN]));
	json_object_set_new(j, "fail", json_integer(n[DR_FAIL]));
	json_object_set_new(j, "checks", arr);
	return j;
}

static int
write_json(const struct dr *d, int code)
{
	json_t *j = to_json(d, code);
	struct lr_out o;
	FILE *f;
	int ret = -EIO;

	if (j == NULL)
		return lr_err(ENOMEM, "json: cannot write %s", d->json);
	if (lr_out_open(&o, "json", d->json) != 0) {
		json_decref(j);
		return -EIO;
	}
	f = lr_out_stream(&o);
	if (f != NULL && json_dumpf(j, f, JSON_INDENT(2)) == 0 &&
	    fputc('\n', f) != EOF) {
		ret = lr_out_close(&o);
	} else {
		lr_err(EIO, "json: cannot write %s", d->json);
		lr_out_discard(&o);
	}
	json_decref(j);
	return ret;
}

/* argv[0] and the EAL options before "--", for rte_eal_init(). */
static int
keep_eal(struct dr *d, int argc, char **argv)
{
	d->eal_argv = calloc((size_t)argc + 3, sizeof(char *));
	if (d->eal_argv == NULL)
		return -ENOMEM;
	d->eal_argv[0] = argv[0];
	memcpy(d->eal_argv + 1, argv + 1, sizeof(char *) * (size_t)(argc - 1));
	d->eal_argc = argc;
	return 0;
}

static int
run(struct dr *d)
{
	unsigned int i;

	dr_scan(d);
	for (i = 0; i < RTE_DIM(checks); i++) {
		d->cur = &checks[i];
		checks[i].run(d);
	}
	return dr_failed(d, NULL) ? EXIT_BLOCKED : 0;
}

int
lr_doctor_main(int argc, char **argv)
{
	static struct dr d;
	int k, code;
	bool to_stdout;

	memset(&d, 0, sizeof(d));
	d.link_wait_s = 5;
	d.main_cpu = -1;
	for (k = 1; k < argc && strcmp(argv[k], "--") != 0; k++)
		if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0)
			d.help = true;
	if (read_opts(&d, k < argc ? argc - k - 1 : 0, argv + k + 1) != 0 ||
	    read_eal(&d, k - 1, argv + 1) != 0) {
		fprintf(stderr, "linerate doctor: %s (see --help)\n", lr_errmsg());
		return EXIT_BAD;
	}
	if (d.help) {
		usage(stdout);
		return 0;
	}
	if (keep_eal(&d, k, argv) != 0)
		return EXIT_BAD;
	set_root(&d);
	/* A signal (Ctrl-C in a link wait) ends doctor as it would without
	 * a handler, but not before EAL's runtime directory and a document
	 * half written are removed. */
	signal(SIGINT, lr_cleanup_on_signal);
	signal(SIGTERM, lr_cleanup_on_signal);
	code = run(&d);
	to_stdout = strcmp(d.json, "-") == 0;
	print_lines(&d, to_stdout ? stderr : stdout);
	if (d.json[0] != '\0' && write_json(&d, code) != 0) {
		fprintf(stderr, "linerate doctor: %s\n", lr_errmsg());
		code = EXIT_BAD;
	}
	lr_cleanup_run();
	free(d.lines);
	free(d.eal_argv);
	return code;
}
