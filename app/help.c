/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What linerate says of itself: --help, --man (linerate(1)) and
 * --options-md, each from the option tables (linerate's own in main.c,
 * the port's, the roles'), so that none of them can fall behind.
 */
#include <stdio.h>
#include <string.h>

#include "lr_doctor.h"
#include "lr_engine.h"
#include "lr_latency.h"
#include "lr_lua.h"
#include "lr_opt.h"
#include "lr_port.h"
#include "lr_roles.h"

#include "app.h"

/* The options of a role's companion (lr_plan.companion) that it takes too. */
const struct lr_opt *
lr_app_companion_opts(const struct lr_role *r)
{
	if (r->plan != NULL && r->plan->companion_opts != NULL)
		return r->plan->companion_opts;
	return lr_role_companion(r) != NULL ? lr_role_companion(r)->opts : NULL;
}

/* Why --role @p r alone is refused (it runs as a companion), or NULL. */
const char *
lr_app_alone(const struct lr_role *r)
{
	return r->plan != NULL ? r->plan->alone : NULL;
}

/* The roles --role takes, from the role table: "gen, rx, probe; dist with
 * probe" (a role that runs only as another's companion last). */
static void
role_names(char *buf, size_t len)
{
	const struct lr_role *r, *o;
	unsigned int i, j;
	size_t n = 0;

	buf[0] = '\0';
	for (i = 0; (r = lr_role_at(i)) != NULL && n < len; i++)
		if (lr_app_alone(r) == NULL)
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? ", " : "", r->name);
	for (i = 0; (r = lr_role_at(i)) != NULL && n < len; i++)
		for (j = 0; lr_app_alone(r) != NULL && (o = lr_role_at(j)) != NULL &&
		     n < len; j++)
			if (lr_role_companion(o) == r)
				n += (size_t)snprintf(buf + n, len - n,
						      "; %s with %s", r->name,
						      o->name);
}

void
lr_app_usage(FILE *f)
{
	const struct lr_role *r;
	char roles[256];
	unsigned int i;

	role_names(roles, sizeof(roles));
	fprintf(f,
"linerate %s - DPDK packet generator, receiver and flow probe\n"
"\n"
"usage: linerate [EAL options] -- [options] SCRIPT.lua [script args]\n"
"       linerate [EAL options] -- [options] NAME [args]   (lua/NAME.lua: rfc2544, per-sweep...)\n"
"       linerate [EAL options] -- --role ROLE --port PORT [options]\n"
"       linerate solve FILE... [options]   (no EAL; see solve --help)\n"
"       linerate doctor [EAL options] [-- options]   (pre-flight check; doctor --help)\n"
"       linerate --help | --version\n"
"\n"
"Always give EAL --no-pci on a machine whose NIC is not bound to DPDK.\n"
"\n"
"roles: %s\n"
"options:\n",
		LR_VERSION, roles);
	lr_opt_help(f, lr_app_opts, NULL);
	fputs("port options:\n", f);
	lr_opt_help(f, lr_port_opts, NULL);
	for (i = 0; (r = lr_role_at(i)) != NULL; i++) {
		fprintf(f, "%s options:\n", r->name);
		lr_opt_help(f, r->opts, lr_app_companion_opts(r));
	}
}

/*
 * --man: linerate(1), from the same tables as --help and doc/usage.md's
 * option tables, so that the installed page cannot fall behind them
 * (app/meson.build writes it with the binary it builds).
 */
void
lr_app_man(FILE *f)
{
	const struct lr_role *r;
	char roles[256];
	unsigned int i;

	role_names(roles, sizeof(roles));
	fprintf(f,
".TH LINERATE 1 \"\" \"linerate %s\" \"User Commands\"\n"
/* No hyphenation: option names and values are typed as printed. */
".nh\n"
".SH NAME\n"
"linerate \\- DPDK packet generator, receiver and flow probe\n"
".SH SYNOPSIS\n"
".nf\n"
"\\fBlinerate\\fR [\\fIEAL options\\fR] \\fB\\-\\-\\fR [\\fIoptions\\fR] \\fISCRIPT.lua\\fR [\\fIscript args\\fR]\n"
"\\fBlinerate\\fR [\\fIEAL options\\fR] \\fB\\-\\-\\fR [\\fIoptions\\fR] \\fINAME\\fR [\\fIargs\\fR]\n"
"\\fBlinerate\\fR [\\fIEAL options\\fR] \\fB\\-\\- \\-\\-role\\fR \\fIROLE\\fR \\fB\\-\\-port\\fR \\fIPORT\\fR [\\fIoptions\\fR]\n"
"\\fBlinerate solve\\fR \\fIFILE\\fR... [\\fIoptions\\fR]\n"
"\\fBlinerate doctor\\fR [\\fIEAL options\\fR] [\\fB\\-\\-\\fR \\fIoptions\\fR]\n"
"\\fBlinerate \\-\\-help\\fR | \\fB\\-\\-version\\fR | \\fB\\-\\-man\\fR | \\fB\\-\\-options\\-md\\fR \\fINAME\\fR\n"
".fi\n"
".SH DESCRIPTION\n"
"linerate runs one lcore per queue: the main lcore runs Lua 5.4, statistics\n"
"and control; each worker lcore runs the tasks (a role on one port queue)\n"
"it was given. A run is either one role on every queue of a port\n"
"(\\fB\\-\\-role\\fR) or a Lua scenario; a scenario named without a\n"
"directory that is not in the current one is one of linerate's own\n"
"(\\fBrfc2544\\fR is \\fIrfc2544.lua\\fR in the directory under FILES).\n"
".PP\n"
"EAL options come before \\fB\\-\\-\\fR, linerate's after. On a machine whose\n"
"NIC is not bound to DPDK, always give EAL \\fB\\-\\-no\\-pci\\fR; without\n"
"hugepages, \\fB\\-\\-no\\-huge \\-m 512\\fR; each process running at the\n"
"same time needs its own \\fB\\-\\-file\\-prefix\\fR.\n"
".PP\n"
"Roles: ", LR_VERSION);
	lr_opt_roff(f, roles);
	fputs(".\n"
".SH OPTIONS\n"
"Options take \\fB\\-\\-key value\\fR or \\fB\\-\\-key=value\\fR. Numbers take\n"
"k, M, G (powers of ten) and exponents. Each option is given once.\n", f);
	lr_opt_man(f, lr_app_opts, NULL);
	fputs(".SS port options\n", f);
	lr_opt_man(f, lr_port_opts, NULL);
	for (i = 0; (r = lr_role_at(i)) != NULL; i++) {
		fputs(".SS ", f);
		lr_opt_roff(f, r->name);
		fputs(" options\n", f);
		if (lr_app_alone(r) != NULL) {
			lr_opt_roff(f, lr_app_alone(r));
			fputs("\n", f);
		}
		lr_opt_man(f, r->opts, lr_app_companion_opts(r));
	}
	fputs(".SS solve options\n"
"\\fBlinerate solve\\fR needs no EAL: each device's own latency from\n"
"round-trip times between pairs of devices.\n", f);
	lr_opt_man(f, lr_latency_solve_opts, NULL);
	fputs(".SS doctor options\n"
"\\fBlinerate doctor\\fR checks the machine before a run on real NICs\n"
"(hugepages, IOMMU, vfio\\-pci, drivers, NUMA, isolated cores, governor,\n"
"link, MTU): one line per finding, ok, warn or FAIL with its fix; exit 0\n"
"when nothing blocks a line\\-rate run, 1 when something does. Its EAL\n"
"options are the run's; its own follow \\fB\\-\\-\\fR.\n", f);
	lr_opt_man(f, lr_doctor_opts, NULL);
	fprintf(f,
".SH EXIT STATUS\n"
".TP\n0\nsuccess\n"
".TP\n1\na failure at run time (no such port, a port that refuses its setup,\n"
"a script's error, IPFIX records not delivered)\n"
".TP\n%d\na bad option (one line on stderr naming it) or bad EAL arguments\n"
".TP\n%d\na paced rate fell short (\\fB\\-\\-allow\\-short\\fR: 0), or a delay box\n"
"sent frames late\n"
".TP\n%d\na task ended early: its port stopped taking frames\n"
".TP\n%d\na task's measurement is not what it claims (verdict invalid)\n"
".TP\n%d\nstopped in order by SIGINT or SIGTERM, results written\n"
".TP\n%d\nstopped at once by a second one\n"
".SH ENVIRONMENT\n"
".TP\n\\fBLINERATE_LUA_DIR\\fR\n"
"the directory of linerate's scenarios, with their library in its\n"
"\\fIlib/\\fR, in place of the one under FILES\n"
".SH FILES\n"
".TP\n\\fI",
		EXIT_USAGE, EXIT_SHORT, EXIT_FAILED, EXIT_INVALID,
		EXIT_INTERRUPTED, EXIT_FORCED);
	lr_opt_roff(f, lr_lua_install_dir());
	fputs("\\fR\n"
"linerate's scenarios (\\fIrfc2544.lua\\fR, \\fIquickstart.lua\\fR ...), their\n"
"library in \\fIlib/\\fR (\\fBrequire(\"testbed\")\\fR finds it from any\n"
"script) and annotated examples in \\fIexamples/\\fR; found relative to the\n"
"installed binary, so that a tree installed under another root\n"
"(\\fBmeson install \\-\\-destdir\\fR) uses its own\n"
".SH SEE ALSO\n"
"\\fBtc\\-netem\\fR(8), \\fBlua5.4\\fR(1);\n"
"doc/usage.md in linerate's sources, with an example for every option\n", f);
}

/* --options-md NAME: the option table doc/usage.md holds, from the code. */
int
lr_app_options_md(const char *name)
{
	const struct lr_role *r = lr_role_find(name);

	if (strcmp(name, "linerate") == 0) {
		lr_opt_markdown(stdout, lr_app_opts, NULL);
		return 0;
	}
	if (strcmp(name, "port") == 0) {
		lr_opt_markdown(stdout, lr_port_opts, NULL);
		return 0;
	}
	if (strcmp(name, "solve") == 0) {
		lr_opt_markdown(stdout, lr_latency_solve_opts, NULL);
		return 0;
	}
	if (strcmp(name, "doctor") == 0) {
		lr_opt_markdown(stdout, lr_doctor_opts, NULL);
		return 0;
	}
	if (r == NULL || r->opts == NULL) {
		fprintf(stderr, "linerate: --options-md '%s': want linerate, port, "
			"solve, doctor or a role with an option table\n", name);
		return EXIT_USAGE;
	}
	lr_opt_markdown(stdout, r->opts, lr_app_companion_opts(r));
	return 0;
}
