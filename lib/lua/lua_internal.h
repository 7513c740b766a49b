/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of the `linerate` Lua module share, inside lib/lua only:
 * the userdata of ports and tasks, how a binding reads seconds and option
 * tables, fails, and pushes JSON, and how each file puts its functions
 * into the module table. Not a public header (lr_lua.h is).
 *
 *   lua.c    the module: its table, argument readers shared by bindings
 *   run.c    the script runner: print, os.exit, os.tmpname, interrupts
 *   port.c   ports: linerate.port, linerate.wire, the port object
 *   task.c   tasks and the run: task, plan, start, stop, wait, results
 *   json.c   Lua values to JSON and back, linerate.json/array/null
 *   solve.c  linerate.solve: lib/latency on what a scenario measured
 *   util.c   sleep, clocks, sizes, workers, exe, cleanup_on_exit
 */
#ifndef LR_LUA_INTERNAL_H
#define LR_LUA_INTERNAL_H

#include <stdint.h>

#include <jansson.h>
#include <lauxlib.h>
#include <lua.h>

#define PORT_MT "linerate.port"
#define TASK_MT "linerate.task"
/* linerate.array(t): t, marked to be a JSON array even when empty (an
 * empty table is otherwise an object). */
#define ARRAY_MT "linerate.array"

struct lport {
	uint16_t id;
};

struct ltask {
	struct lr_task *t;
};

/* run.c: a C failure as `nil, message` (a Ctrl-C during the call raises
 * the interrupt instead); the interrupt raised as the script's error. */
int lr_lua_fail(lua_State *L);
int lr_lua_raise_interrupt(lua_State *L);

/* lua.c: seconds that are finite and >= 0 (opt: 0 when absent); every
 * key of an option table at @p idx through @p set but those in @p skip. */
double lr_lua_check_seconds(lua_State *L, int idx, const char *what);
double lr_lua_opt_seconds(lua_State *L, int idx, const char *what);

typedef int (*lr_lua_set_fn)(void *conf, const char *key, const char *val);

void lr_lua_apply_table(lua_State *L, int idx, const char *what, void *conf,
			lr_lua_set_fn set, const char *const *skip);

/* port.c: a port object; a port argument (object, id or name). */
void lr_lua_push_port(lua_State *L, uint16_t id);
uint16_t lr_lua_check_port(lua_State *L, int idx);

/* json.c: a jansson value as a Lua value. */
void lr_lua_push_json(lua_State *L, json_t *v);

/* Each file's functions (and metatables) into the module table on top. */
void lr_lua_open_port(lua_State *L);
void lr_lua_open_task(lua_State *L);
void lr_lua_open_json(lua_State *L);
void lr_lua_open_solve(lua_State *L);
void lr_lua_open_util(lua_State *L);

#endif
