/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * linerate.solve{}: lib/latency's solver on the RTTs a scenario measured
 * or read from files, its answer as `linerate solve --json` gives it.
 */
#include <errno.h>
#include <stdbool.h>

#include <lauxlib.h>

#include "lr_common.h"
#include "lr_latency.h"
#include "lua_internal.h"

/* linerate.solve{files = {...}, hw = NS, reference = {DEV = NS},
 * samples = {{a, b, rtt_ns}, ...}, boot = B, seed = S}: lib/latency on
 * what a scenario measured. A file is a CSV path, or {sockperf = PATH,
 * a = A, b = B}, or {irtt = PATH, a = A, b = B}. Returns the document of
 * linerate solve --json, or nil and why (undetermined, bad input). */
static int
l_solve(lua_State *L)
{
	struct lr_latency_conf conf = { .boot = 0, .seed = 1 };
	struct lr_latency_result res;
	struct lr_latency *lat;
	const char *why = NULL, *path, *a, *b;
	lua_Integer i, n;
	json_t *doc;
	long got;
	int ret;

	luaL_checktype(L, 1, LUA_TTABLE);
	if (lua_getfield(L, 1, "boot") != LUA_TNIL) {
		lua_Integer b = luaL_checkinteger(L, -1);

		/* As linerate solve --boot: an interval needs replicates. */
		if (b < 10 || b > 100000)
			return luaL_error(L, "solve: boot=%I: want 10..100000 "
					  "bootstrap replicates", b);
		conf.boot = (unsigned int)b;
	}
	if (lua_getfield(L, 1, "seed") != LUA_TNIL)
		conf.seed = (uint64_t)luaL_checkinteger(L, -1);
	lua_pop(L, 2);
	lat = lr_latency_create(&conf);
	if (lat == NULL)
		return lr_lua_fail(L);
	/* From here on errors go to "bad" so that the solver is freed. */
	if (lua_getfield(L, 1, "hw") != LUA_TNIL &&
	    (!lua_isnumber(L, -1) ||
	     lr_latency_set_hw(lat, NULL, NULL, lua_tonumber(L, -1)) < 0))
		why = "solve: hw: want a number of ns >= 0";
	lua_pop(L, 1);
	if (why == NULL && lua_getfield(L, 1, "reference") != LUA_TNIL) {
		if (!lua_istable(L, -1))
			why = "solve: reference: want {DEV = NS}";
		for (lua_pushnil(L); why == NULL && lua_next(L, -2); lua_pop(L, 1))
			if (lua_type(L, -2) != LUA_TSTRING || !lua_isnumber(L, -1) ||
			    lr_latency_reference(lat, lua_tostring(L, -2),
						 lua_tonumber(L, -1)) < 0)
				why = "solve: reference: want {DEV = NS}, NS >= 0";
	}
	lua_settop(L, 1);
	if (why == NULL && lua_getfield(L, 1, "files") != LUA_TNIL) {
		n = lua_istable(L, 2) ? luaL_len(L, 2) : -1;
		if (n < 0)
			why = "solve: files: want a list";
		for (i = 1; why == NULL && i <= n; i++, lua_settop(L, 2)) {
			lua_geti(L, 2, i);
			if (lua_type(L, 3) == LUA_TSTRING) {
				got = lr_latency_read_csv(lat, lua_tostring(L, 3));
			} else if (lua_istable(L, 3)) {
				bool sp = lua_getfield(L, 3, "sockperf") == LUA_TSTRING;

				if (!sp)
					lua_getfield(L, 3, "irtt");
				lua_getfield(L, 3, "a");
				lua_getfield(L, 3, "b");
				path = lua_tostring(L, -3);
				a = lua_tostring(L, -2);
				b = lua_tostring(L, -1);
				if (path == NULL || a == NULL || b == NULL) {
					why = "solve: files: want PATH or {sockperf|irtt = PATH, a = A, b = B}";
					break;
				}
				got = sp ? lr_latency_read_sockperf(lat, path, a, b) :
					lr_latency_read_irtt(lat, path, a, b);
			} else {
				why = "solve: files: want PATH or {sockperf|irtt = PATH, a = A, b = B}";
				break;
			}
			if (got < 0)
				why = lr_errmsg();
		}
	}
	lua_settop(L, 1);
	if (why == NULL && lua_getfield(L, 1, "samples") != LUA_TNIL) {
		n = lua_istable(L, 2) ? luaL_len(L, 2) : -1;
		if (n < 0)
			why = "solve: samples: want {{a, b, rtt_ns}, ...}";
		for (i = 1; why == NULL && i <= n; i++, lua_settop(L, 2)) {
			lua_geti(L, 2, i);
			if (!lua_istable(L, 3)) {
				why = "solve: samples: want {{a, b, rtt_ns}, ...}";
				break;
			}
			lua_geti(L, 3, 1);
			lua_geti(L, 3, 2);
			lua_geti(L, 3, 3);
			if (lua_type(L, 4) != LUA_TSTRING ||
			    lua_type(L, 5) != LUA_TSTRING || !lua_isnumber(L, 6) ||
			    lr_latency_add(lat, lua_tostring(L, 4),
					   lua_tostring(L, 5),
					   lua_tonumber(L, 6)) < 0)
				why = "solve: samples: want {{a, b, rtt_ns}, ...}, rtt_ns >= 0";
		}
	}
	lua_settop(L, 1);
	if (why != NULL) {
		lua_pushstring(L, why);	/* before the solver's memory goes */
		lr_latency_free(lat);
		return lua_error(L);
	}
	ret = lr_latency_solve(lat, &res);
	if (ret < 0) {
		luaL_pushfail(L);
		if (ret == -EDOM)
			lua_pushfstring(L, "solve: undetermined: rank %d of %d "
					"unknowns; %s", (int)res.rank,
					(int)res.unknowns, res.why);
		else
			lua_pushstring(L, lr_errmsg());
		lr_latency_result_free(&res);
		lr_latency_free(lat);
		return 2;
	}
	doc = lr_latency_json(&res);
	lr_latency_result_free(&res);
	if (doc != NULL)
		lr_lua_push_json(L, doc);
	json_decref(doc);
	lr_latency_free(lat);
	return doc != NULL ? 1 : luaL_error(L, "solve: out of memory");
}

static const luaL_Reg funcs[] = {
	{ "solve", l_solve },
	{ NULL, NULL },
};

void
lr_lua_open_solve(lua_State *L)
{
	luaL_setfuncs(L, funcs, 0);
}
