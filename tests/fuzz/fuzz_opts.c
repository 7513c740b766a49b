/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: every role's option table and parser (lib/common/opt.c and
 * the roles' own callbacks: sizes, address and port ranges, rates,
 * percentages, netem SPECs) on any text, through lr_role_conf_set() as the
 * CLI and Lua set options. The input is lines "key=value";
 * the first byte picks the role. Each value is set twice: a second set of
 * the same value must give the same result as the first (an option that
 * half-applies its value on a failure, or keeps state between calls, does
 * not), and the conf after a refused value must be what it was before.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lr_engine.h"
#include "lr_delay.h"
#include "lr_distributor.h"
#include "lr_gen.h"
#include "lr_probe.h"
#include "lr_reflect.h"
#include "lr_rtt.h"
#include "lr_rx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct lr_role *const roles[] = {
	&lr_gen_role, &lr_rx_role, &lr_reflect_role, &lr_rtt_role,
	&lr_delay_role, &lr_probe_role, &lr_dist_role,
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct lr_role *role;
	char line[512], *eq;
	uint8_t *conf, *before;
	size_t off, n;

	if (size < 1 || size > 4096)
		return 0;
	role = roles[data[0] % (sizeof(roles) / sizeof(roles[0]))];
	if (role->conf_bytes == 0)
		return 0;
	conf = calloc(1, role->conf_bytes);
	before = calloc(1, role->conf_bytes);
	if (conf == NULL || before == NULL)
		goto out;
	if (role->conf_init != NULL)
		role->conf_init(conf);
	for (off = 1; off < size; off += n + 1) {
		int r1, r2;

		for (n = 0; off + n < size && data[off + n] != '\n'; n++)
			;
		if (n >= sizeof(line))
			continue;
		memcpy(line, data + off, n);
		line[n] = '\0';
		if (memchr(line, 0, n) != NULL)
			continue;
		eq = strchr(line, '=');
		if (eq == NULL)
			continue;
		*eq = '\0';
		memcpy(before, conf, role->conf_bytes);
		r1 = lr_role_conf_set(role, conf, NULL, line, eq + 1);
		if (r1 != 0 && memcmp(before, conf, role->conf_bytes) != 0)
			abort();	/* a refused value changed the conf */
		if (r1 != 0 && r1 != -EINVAL && r1 != -ENOENT && r1 != -ENOSPC &&
		    r1 != -ERANGE)
			abort();
		if (r1 == 0) {
			memcpy(before, conf, role->conf_bytes);
			r2 = lr_role_conf_set(role, conf, NULL, line, eq + 1);
			if (r2 != 0 || memcmp(before, conf, role->conf_bytes) != 0)
				abort();	/* not idempotent */
		}
	}
out:
	free(conf);
	free(before);
	return 0;
}
