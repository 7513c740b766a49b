/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The roles linerate is built with. Above every role's library and below
 * the Lua module and the app: the engine knows roles only through the role
 * table (lr_role_register()), never by name.
 *
 * Threading: control path, main lcore, before the first task is made.
 */
#ifndef LR_ROLES_H
#define LR_ROLES_H

/** Register the built-in roles (gen, rx, probe, dist, delay, reflect,
 *  rtt), in the order --help lists them. */
void lr_roles_builtin(void);

#endif
