/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Small bindings a scenario uses around its tasks: sleep, the clock,
 * the worker lcores, this program's path, paths removed at exit, and the
 * frame size arithmetic.
 */
#include <errno.h>
#include <unistd.h>

#include <lauxlib.h>
#include <rte_cycles.h>
#include <rte_lcore.h>

#include "lr_cleanup.h"
#include "lr_common.h"
#include "lr_engine.h"
#include "lr_netem.h"
#include "lua_internal.h"

static int
l_sleep(lua_State *L)
{
	double s = lr_lua_check_seconds(L, 1, "sleep");
	int ret = lr_engine_sleep(s);

	if (ret == -EINTR)
		return lr_lua_raise_interrupt(L);
	if (ret != 0)
		return lr_lua_fail(L);
	return 0;
}

/*
 * linerate.cleanup_on_exit(path [, on]): remove path (a file, or a
 * directory and what it holds) when the process ends, in order or forced
 * by a second signal (lr_cleanup.h); on = false: leave it after all.
 */
static int
l_cleanup_on_exit(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	int id;

	if (!lua_isnoneornil(L, 2) && !lua_toboolean(L, 2)) {
		lr_cleanup_forget(lr_cleanup_find(path));
		lua_pushboolean(L, 1);
		return 1;
	}
	id = lr_cleanup_add(path);
	if (id < 0) {
		lr_err(-id, "cleanup_on_exit: %s", path);
		luaL_pushfail(L);
		lua_pushstring(L, lr_errmsg());
		return 2;
	}
	lua_pushboolean(L, 1);
	return 1;
}

/* The size arithmetic of the ESS paper's Table 1, for scenarios. */
static uint32_t
check_bytes(lua_State *L, int arg)
{
	lua_Integer v = luaL_checkinteger(L, arg);

	luaL_argcheck(L, v >= 0 && v <= 1 << 20, arg, "bytes out of range");
	return (uint32_t)v;
}

static int
l_frame_size(lua_State *L)
{
	lua_pushinteger(L, lr_frame_for_user(check_bytes(L, 1), lua_toboolean(L, 2)));
	return 1;
}

static int
l_data_size(lua_State *L)
{
	lua_pushinteger(L, lr_user_for_frame(check_bytes(L, 1), lua_toboolean(L, 2)));
	return 1;
}

static int
l_line_rate(lua_State *L)
{
	double bps = luaL_checknumber(L, 1);

	luaL_argcheck(L, bps > 0, 1, "link speed must be positive");
	lua_pushnumber(L, lr_line_rate_pps(bps, check_bytes(L, 2)));
	return 1;
}

/* linerate.parse_bps("10G") --> 1e10: a speed read as port --speed reads
 * it (lr_parse_bps()); nil and why for what it refuses. */
static int
l_parse_bps(lua_State *L)
{
	const char *s = luaL_checkstring(L, 1);
	double bps;

	if (lr_parse_bps(s, &bps) != 0) {
		lua_pushnil(L);
		lua_pushfstring(L, "'%s': want bit/s, e.g. 10G, 10Gbps, 2.5G, 1e10",
				s);
		return 2;
	}
	lua_pushnumber(L, bps);
	return 1;
}

/* linerate.netem_bounds(spec): the least and the greatest delay (ns) the
 * SPEC's draws can give, as the delay role sizes for them (a table's tail
 * included), or nil and what is wrong with it in --netem's words: a
 * scenario checks a schedule and its delay_max before it starts. */
static int
l_netem_bounds(lua_State *L)
{
	const char *s = luaL_checkstring(L, 1);
	struct lr_netem_conf c;
	int64_t lo, hi;
	char err[256];

	if (lr_netem_parse(s, &c, err, sizeof(err)) != 0) {
		lua_pushnil(L);
		lua_pushstring(L, err);
		return 2;
	}
	lr_netem_delay_bounds(&c, &lo, &hi);
	lr_netem_conf_free(&c);
	lua_pushinteger(L, lo);
	lua_pushinteger(L, hi);
	return 2;
}

static int
l_overhead(lua_State *L)
{
	lua_pushnumber(L, lr_overhead(check_bytes(L, 1), check_bytes(L, 2)));
	return 1;
}

/* linerate.exe(): this program's path, to start a peer process. */
static int
l_exe(lua_State *L)
{
	char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	if (n <= 0) {
		lr_err(errno, "exe: cannot read /proc/self/exe");
		return lr_lua_fail(L);
	}
	lua_pushlstring(L, path, (size_t)n);
	return 1;
}

static int
l_workers(lua_State *L)
{
	unsigned int w[RTE_MAX_LCORE], n, i;

	n = lr_engine_workers(w, RTE_DIM(w));
	lua_createtable(L, (int)n, 0);
	for (i = 0; i < n; i++) {
		lua_pushinteger(L, w[i]);
		lua_rawseti(L, -2, i + 1);
	}
	return 1;
}

static int
l_now(lua_State *L)
{
	lua_pushnumber(L, (double)rte_rdtsc() / rte_get_tsc_hz());
	return 1;
}

static int
l_tsc_hz(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)rte_get_tsc_hz());
	return 1;
}

static const luaL_Reg funcs[] = {
	{ "sleep", l_sleep },
	{ "cleanup_on_exit", l_cleanup_on_exit },
	{ "exe", l_exe },
	{ "frame_size", l_frame_size },
	{ "data_size", l_data_size },
	{ "line_rate", l_line_rate },
	{ "overhead", l_overhead },
	{ "parse_bps", l_parse_bps },
	{ "netem_bounds", l_netem_bounds },
	{ "workers", l_workers },
	{ "now", l_now },
	{ "tsc_hz", l_tsc_hz },
	{ NULL, NULL },
};

void
lr_lua_open_util(lua_State *L)
{
	luaL_setfuncs(L, funcs, 0);
}
