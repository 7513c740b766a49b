/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: the Lua configuration tables (lib/lua/task.c, lua.c): what
 * linerate.task{} and linerate.plan{} make of a table, through the module's
 * own conversion (lr_lua_conf: role=, duration=, every other key an option
 * of the role, or of its companion in a plan; values numbers, strings,
 * booleans; '_' for '-'). No port is looked up and no task made: a task's
 * init opens files and sockets (exports, samples, captures) that a fuzzer
 * must not name.
 *
 * Two forms of input. A first byte 0: a table built from the bytes, keys
 * the option names of the role the next byte picks (or common keys, or
 * any bytes, or numbers), values strings, integers, floats of any bits
 * (NaN, infinities, 2^63), booleans, nested tables; converted as task{}
 * and as plan{}. Any other input: a Lua chunk (text only), run in a state
 * with the base, string, table, math, utf8 and coroutine libraries (no
 * io, os, load or require) and the module's pure functions, task and plan
 * being the conversion, under an instruction budget (lua_sethook count)
 * and a 64 MB allocator.
 *
 * Invariants beside ASan/UBSan: a conversion (and any call into the
 * module) ends in a result or a Lua error whose message is a non-empty
 * string; never a C-level abort; a built table converted twice gives the
 * same outcome and message.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <rte_common.h>

#include "lr_engine.h"
#include "lr_lua.h"
#include "lr_opt.h"
#include "lr_fuzz_eal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MEM_MAX (64u << 20)
#define STEPS_MAX 200000	/* Lua instructions, in hook counts of 1000 */

static size_t mem_used;
static long steps;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	lr_fuzz_eal_init("fuzz_luaconf");
	return 0;
}

static void *
alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	(void)ud;
	if (ptr == NULL)
		osize = 0;
	if (nsize == 0) {
		free(ptr);
		mem_used -= osize;
		return NULL;
	}
	if (nsize > osize && mem_used + (nsize - osize) > MEM_MAX)
		return NULL;
	ptr = realloc(ptr, nsize);
	if (ptr != NULL)
		mem_used += nsize - osize;
	return ptr;
}

/* Over budget, every step raises again, as run.c's interrupt: no pcall
 * in a loop outlives it. */
static void
budget_hook(lua_State *L, lua_Debug *ar)
{
	(void)ar;
	steps += 1000;
	if (steps > STEPS_MAX) {
		lua_sethook(L, budget_hook, LUA_MASKCOUNT, 1);
		luaL_error(L, "instruction budget");
	}
}

/* Upvalue 2 of a function that takes its first argument only. */
static char first_only;

/* A call into the module: its result, or its error checked and raised
 * again. Upvalue 1 the function, upvalue 2 a fixed second argument
 * (conversion: with the companion or not), nil: none, &first_only: the
 * first argument alone (json's second is a file to write). */
static int
checked(lua_State *L)
{
	int n = lua_gettop(L), fixed = !lua_isnil(L, lua_upvalueindex(2));

	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	if (lua_touserdata(L, lua_upvalueindex(2)) == &first_only) {
		lua_settop(L, 2);
		n = 1;
	} else if (fixed) {
		lua_settop(L, 2);
		lua_pushvalue(L, lua_upvalueindex(2));
		n = 2;
	}
	if (lua_pcall(L, n, LUA_MULTRET, 0) != LUA_OK) {
		size_t len;
		const char *msg = lua_tolstring(L, -1, &len);

		if (msg == NULL || len == 0)
			abort();	/* an error without a message */
		return lua_error(L);
	}
	return lua_gettop(L);
}

/* linerate.NAME, checked, into the table at -1 (fixed 0 or 1: a second
 * argument; -1: as given; -2: the first alone). */
static void
wrap(lua_State *L, int mod, const char *name, lua_CFunction f, int fixed)
{
	if (f != NULL)
		lua_pushcfunction(L, f);
	else
		lua_getfield(L, mod, name);
	if (fixed == -2)
		lua_pushlightuserdata(L, &first_only);
	else if (fixed < 0)
		lua_pushnil(L);
	else
		lua_pushboolean(L, fixed);
	lua_pushcclosure(L, checked, 2);
	lua_setfield(L, -2, name);
}

static lua_State *
new_state(void)
{
	static const luaL_Reg libs[] = {
		{ LUA_GNAME, luaopen_base },
		{ LUA_TABLIBNAME, luaopen_table },
		{ LUA_STRLIBNAME, luaopen_string },
		{ LUA_MATHLIBNAME, luaopen_math },
		{ LUA_UTF8LIBNAME, luaopen_utf8 },
		{ LUA_COLIBNAME, luaopen_coroutine },
		{ NULL, NULL },
	};
	/* What writes nothing, opens nothing, starts nothing. */
	static const char *const pure[] = {
		"frame_size", "data_size", "line_rate", "overhead", "workers",
		"now", "tsc_hz", NULL,
	};
	static const char *const unsafe[] = {
		"dofile", "loadfile", "load", "require", "print", NULL,
	};
	lua_State *L;
	const luaL_Reg *l;
	int mod, i;

	mem_used = 0;
	steps = 0;
	L = lua_newstate(alloc, NULL);
	if (L == NULL)
		abort();
	for (l = libs; l->func != NULL; l++) {
		luaL_requiref(L, l->name, l->func, 1);
		lua_pop(L, 1);
	}
	for (i = 0; unsafe[i] != NULL; i++) {
		lua_pushnil(L);
		lua_setglobal(L, unsafe[i]);
	}
	/* string.dump: bytecode that load() would not check. */
	lua_getglobal(L, "string");
	lua_pushnil(L);
	lua_setfield(L, -2, "dump");
	lua_pop(L, 1);
	luaopen_linerate(L);
	mod = lua_gettop(L);
	lua_newtable(L);
	for (i = 0; pure[i] != NULL; i++)
		wrap(L, mod, pure[i], NULL, -1);
	lua_getfield(L, mod, "version");
	lua_setfield(L, -2, "version");
	wrap(L, mod, "json", NULL, -2);		/* never json(v, path) */
	wrap(L, mod, "task", lr_lua_conf, 0);
	wrap(L, mod, "plan", lr_lua_conf, 1);
	wrap(L, mod, "conf", lr_lua_conf, -1);
	lua_setglobal(L, "linerate");
	lua_settop(L, 0);
	lua_sethook(L, budget_hook, LUA_MASKCOUNT, 1000);
	return L;
}

/* The structured form: a reader of the input. */
struct rd {
	const uint8_t *d;
	size_t n, at;
};

static unsigned int
byte(struct rd *r)
{
	return r->at < r->n ? r->d[r->at++] : 0;
}

static void
bytes(struct rd *r, void *out, size_t n)
{
	size_t k = r->n - r->at < n ? r->n - r->at : n;

	memset(out, 0, n);
	memcpy(out, r->d + r->at, k);
	r->at += k;
}

static const char *names[512];
static unsigned int nb_names;

static void
add_names(const struct lr_opt *o)
{
	for (; o != NULL && o->name != NULL; o++) {
		if (o->type == LR_OPT_INCLUDE)
			add_names(o->sub);
		else if (nb_names < RTE_DIM(names))
			names[nb_names++] = o->name;
	}
}

static void push_value(lua_State *L, struct rd *r, int depth);

static void
push_key(lua_State *L, struct rd *r, int depth)
{
	static const char *const common[] = {
		"role", "port", "queue", "lcore", "lcores", "duration",
	};
	unsigned int k = byte(r);
	char buf[64];
	size_t i, n;

	switch (k % 8) {
	case 0:
	case 1:
	case 2:
	case 3:		/* an option of the role, Lua's spelling or C's */
		if (nb_names == 0) {
			lua_pushliteral(L, "x");
			break;
		}
		snprintf(buf, sizeof(buf), "%s", names[byte(r) % nb_names]);
		n = strlen(buf);
		for (i = 0; k % 8 != 3 && i < n; i++)
			if (buf[i] == '-')
				buf[i] = '_';
		lua_pushstring(L, buf);
		break;
	case 4:
		lua_pushstring(L, common[byte(r) % RTE_DIM(common)]);
		break;
	case 5:
		n = byte(r) % 80;
		bytes(r, buf, RTE_MIN(n, sizeof(buf)));
		lua_pushlstring(L, buf, RTE_MIN(n, sizeof(buf)));
		break;
	case 6:
		lua_pushinteger(L, (lua_Integer)byte(r) - 2);
		break;
	default:
		push_value(L, r, depth - 1);	/* any value, but nil */
		if (lua_isnil(L, -1)) {
			lua_pop(L, 1);
			lua_pushliteral(L, "");
		}
	}
}

static void
push_value(lua_State *L, struct rd *r, int depth)
{
	static const char *const odd[] = {
		"", "nan", "-nan", "inf", "-inf", "1e999", "-1", "0x10", "0",
		"18446744073709551615", "18446744073709551616", "1.5", " 1",
		"1 ", "4294967296", "65536", "1e6", "full", "uh", "trim=64", "l3",
		"model", "symmetric", "ms", "10.0.0.1", "::1", "10.0.0.1-10.0.0.9",
		"1-65535", "64,128", "imix", "1G", "100%", "10ms", "delay 10ms",
	};
	unsigned int k = byte(r);
	lua_Integer i;
	double d;
	char buf[256];
	size_t n;

	/* A C function's stack is LUA_MINSTACK deep: a table in a table
	 * (as a key too) needs more. */
	luaL_checkstack(L, 4, "fuzz_luaconf");
	switch (k % 9) {
	case 0:
		lua_pushstring(L, odd[byte(r) % RTE_DIM(odd)]);
		break;
	case 1:
		n = byte(r);
		bytes(r, buf, RTE_MIN(n, sizeof(buf)));
		lua_pushlstring(L, buf, RTE_MIN(n, sizeof(buf)));
		break;
	case 2:
		bytes(r, &i, sizeof(i));
		lua_pushinteger(L, i);
		break;
	case 3:
		lua_pushinteger(L, (lua_Integer)(int8_t)byte(r));
		break;
	case 4:
		bytes(r, &d, sizeof(d));
		lua_pushnumber(L, d);
		break;
	case 5: {
		static const double dd[] = {
			NAN, -NAN, INFINITY, -INFINITY, 0.5, -0.0, 1e6, 1.8e19,
			9.2233720368547758e18, 4294967296.0, 1e-300, 65535.5,
		};

		lua_pushnumber(L, dd[byte(r) % RTE_DIM(dd)]);
		break;
	}
	case 6:
		lua_pushboolean(L, k & 16);
		break;
	case 7:
		if (depth <= 0) {
			lua_pushnil(L);
			break;
		}
		lua_newtable(L);
		for (n = byte(r) % 4; n > 0; n--) {
			push_key(L, r, depth - 1);
			push_value(L, r, depth - 1);
			if (lua_isnil(L, -2) || lua_isnil(L, -1) ||
			    (lua_type(L, -2) == LUA_TNUMBER &&
			     isnan(lua_tonumber(L, -2))))
				lua_pop(L, 2);
			else
				lua_rawset(L, -3);
		}
		break;
	default:
		lua_pushnil(L);
	}
}

/* The structured form's table, at the top of the stack. */
static void
build_table(lua_State *L, struct rd *r)
{
	const struct lr_role *role = lr_role_at(byte(r) % 8);
	unsigned int n;

	nb_names = 0;
	lua_newtable(L);
	if (role != NULL) {
		add_names(role->opts);
		if (lr_role_companion(role) != NULL)
			add_names(lr_role_companion(role)->opts);
		if (byte(r) % 8 != 0) {
			lua_pushstring(L, role->name);
			lua_setfield(L, -2, "role");
		}
	}
	for (n = 0; n < 24 && r->at < r->n; n++) {
		push_key(L, r, 2);
		push_value(L, r, 2);
		if (lua_isnil(L, -2) || lua_isnil(L, -1) ||
		    (lua_type(L, -2) == LUA_TNUMBER && isnan(lua_tonumber(L, -2))))
			lua_pop(L, 2);
		else
			lua_rawset(L, -3);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lua_State *L;

	if (size > 16384)
		return 0;
	L = new_state();
	if (size > 0 && data[0] == 0) {
		struct rd r = { data, size, 1 };
		int with;

		for (with = 0; with < 2; with++) {
			int ret[2], k;

			lua_getglobal(L, "linerate");
			lua_getfield(L, -1, with ? "plan" : "task");
			r.at = 1;
			build_table(L, &r);
			/* Twice on the same table: the same outcome, the same
			 * message (no state kept between conversions). */
			for (k = 0; k < 2; k++) {
				lua_pushvalue(L, 2);
				lua_pushvalue(L, 3);
				ret[k] = lua_pcall(L, 1, 1, 0);
				if (ret[k] != LUA_OK && lua_type(L, -1) != LUA_TSTRING)
					abort();
			}
			if (ret[0] != ret[1] ||
			    (ret[0] != LUA_OK && ret[0] != LUA_ERRMEM &&
			     strcmp(lua_tostring(L, -1), lua_tostring(L, -2)) != 0 &&
			     steps <= STEPS_MAX))
				abort();
			lua_settop(L, 0);
		}
	} else if (luaL_loadbufferx(L, (const char *)data, size, "=fuzz", "t") ==
		   LUA_OK) {
		/* LR_FUZZ_VERBOSE=1: what a script of the corpus ran into. */
		if (lua_pcall(L, 0, 0, 0) != LUA_OK && getenv("LR_FUZZ_VERBOSE"))
			fprintf(stderr, "fuzz_luaconf: %s\n", lua_tostring(L, -1));
	} else if (lua_type(L, -1) != LUA_TSTRING) {
		abort();
	}
	lua_sethook(L, NULL, 0, 0);
	lua_close(L);
	if (mem_used != 0)
		abort();	/* the allocator's count is off */
	return 0;
}
