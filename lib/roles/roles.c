/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The roles linerate is built with, registered in the order --help lists
 * them. The one place that names them: the app, the Lua module and the
 * statistics go through the role table (lr_engine.h).
 */
#include <rte_common.h>

#include "lr_delay.h"
#include "lr_distributor.h"
#include "lr_engine.h"
#include "lr_gen.h"
#include "lr_probe.h"
#include "lr_reflect.h"
#include "lr_roles.h"
#include "lr_rtt.h"
#include "lr_rx.h"

void
lr_roles_builtin(void)
{
	static const struct lr_role *const roles[] = {
		&lr_gen_role,
		&lr_rx_role,
		&lr_probe_role,
		&lr_dist_role,
		&lr_delay_role,
		&lr_reflect_role,
		&lr_rtt_role,
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(roles); i++)
		lr_role_register(roles[i]);
}
