/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What app/'s two files share: main.c (arguments, EAL, a run, its end) and
 * help.c (--help, --man, --options-md from the option tables).
 */
#ifndef LR_APP_H
#define LR_APP_H

#include <stdio.h>

#include "lr_engine.h"
#include "lr_opt.h"

#define EXIT_USAGE 2
#define EXIT_SHORT 3	/* a paced task fell short of its rate */
#define EXIT_FAILED 4	/* a task ended early: its port stopped taking frames */
#define EXIT_INVALID 5	/* a task's measurement is not what it claims (rtt:
			 * frames no reflector sent came back) */
#define EXIT_INTERRUPTED 130	/* stopped in order by SIGINT or SIGTERM */
#define EXIT_FORCED 137	/* stopped at once by a second one: killed, as
			 * a shell says of SIGKILL (128 + 9) */

/* linerate's own options (main.c), in --help's and doc/usage.md's order. */
extern const struct lr_opt lr_app_opts[];

/* The options of a role's companion (lr_plan.companion) that it takes too. */
const struct lr_opt *lr_app_companion_opts(const struct lr_role *r);
/* Why --role @p r alone is refused (it runs as a companion), or NULL. */
const char *lr_app_alone(const struct lr_role *r);

void lr_app_usage(FILE *f);
void lr_app_man(FILE *f);
/* --options-md NAME. @return 0 or EXIT_USAGE. */
int lr_app_options_md(const char *name);

#endif
