/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The `linerate` Lua 5.4 module and the runner of scenario scripts.
 * Each function checks its arguments (a wrong type raises a Lua error),
 * calls one C function, and turns a C failure into `nil, message`.
 *
 * Threading: Lua runs on the main lcore only. lr_lua_interrupt() and
 * lr_lua_kill_command() are the functions that may be called from a
 * signal handler.
 */
#ifndef LR_LUA_H
#define LR_LUA_H

#include <stdio.h>

#include <lua.h>

/** Open the module: require("linerate"), also preloaded as global linerate. */
int luaopen_linerate(lua_State *L);

/**
 * Run @p script with @p argc arguments (the global `arg` table and `...`).
 * A Lua error prints file:line, the message and a traceback on stderr.
 *
 * @return 0 on success, 1 after an error, 130 after an interrupt.
 */
/** Where a script's print() writes (stdout by default; stderr when
 *  stdout carries results). */
void lr_lua_print_to(FILE *f);

int lr_lua_run(const char *script, int argc, char **argv);

/**
 * The confs linerate.task{} (@p with false) or linerate.plan{} (true: the
 * companion's too) make of the table at index 1, made and dropped: no
 * port looked up, no task (tests/fuzz/fuzz_luaconf). Lua: conf(t, with)
 * -> true, or a Lua error naming the key or value refused.
 */
int lr_lua_conf(lua_State *L);

/** linerate's own lua/ (its scenarios, their library in lib/): the
 *  environment's LINERATE_LUA_DIR, else the installed one for a binary in
 *  its installed place (under any root), else the source tree's. */
const char *lr_lua_dir(void);

/** Where meson install puts lua/ (PREFIX/share/linerate/lua). */
const char *lr_lua_install_dir(void);

/** From a signal handler: stop the running script at its next Lua step. */
void lr_lua_interrupt(void);

/** From a signal handler, before a forced exit: SIGKILL the process group
 *  of the command os.execute() is waiting for, if any, so that it does
 *  not outlive linerate. */
void lr_lua_kill_command(void);

#endif
