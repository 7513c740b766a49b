/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `linerate` Lua module: its table, filled by each file of lib/lua
 * (lua_internal.h), and how the bindings read their arguments: seconds,
 * and option tables turned into the C options' text.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "lr_common.h"
#include "lr_engine.h"
#include "lr_lua.h"
#include "lua_internal.h"

/*
 * Times from Lua: a number of seconds that is finite and >= 0. NaN passes
 * every "< 0" test and becomes an unbounded wait once turned into TSC
 * cycles, so it is refused here, with infinities, by name.
 */
double
lr_lua_check_seconds(lua_State *L, int idx, const char *what)
{
	double s = luaL_checknumber(L, idx);

	if (isnan(s))
		luaL_error(L, "%s: NaN is not a time (want seconds >= 0)", what);
	if (isinf(s))
		luaL_error(L, "%s: infinite time (want seconds >= 0)", what);
	if (s < 0)
		luaL_error(L, "%s: negative time %f s", what, s);
	return s;
}

double
lr_lua_opt_seconds(lua_State *L, int idx, const char *what)
{
	return lua_isnoneornil(L, idx) ? 0 : lr_lua_check_seconds(L, idx, what);
}

/* The text form of a conf value: numbers, strings and booleans. Integral
 * floats such as 1e6 print without exponent so "count = 1e6" works. A
 * boolean is "true" or "false", which only a switch takes (lr_opt.h's
 * LR_OPT_BOOL and LR_OPT_FLAG, a 0..1 number): rate = true is no rate. */
static const char *
value_text(lua_State *L, int idx, char *buf, size_t len)
{
	switch (lua_type(L, idx)) {
	case LUA_TBOOLEAN:
		return lua_toboolean(L, idx) ? "true" : "false";
	case LUA_TNUMBER:
		if (lua_isinteger(L, idx)) {
			snprintf(buf, len, "%lld", (long long)lua_tointeger(L, idx));
		} else {
			double d = lua_tonumber(L, idx);

			/* "-nan" (0/0 has its sign bit set) reads as a typo. */
			if (isnan(d))
				return "nan";
			if (d >= 0 && d < 1.8e19 && d == (double)(uint64_t)d)
				snprintf(buf, len, "%llu", (unsigned long long)d);
			else
				snprintf(buf, len, "%.17g", d);
		}
		return buf;
	case LUA_TSTRING:
		return lua_tostring(L, idx);
	case LUA_TUSERDATA: {
		/* A task as an option's value (a probe's dist), or a port (the
		 * delay role's peer): its id. */
		const struct ltask *lt = luaL_testudata(L, idx, TASK_MT);
		const struct lport *lp = luaL_testudata(L, idx, PORT_MT);

		if (lt != NULL)
			snprintf(buf, len, "%u", lt->t->id);
		else if (lp != NULL)
			snprintf(buf, len, "%u", lp->id);
		else
			return NULL;
		return buf;
	}
	default:
		return NULL;
	}
}

/* Lua keys use '_' (src_ip), the C options '-' (src-ip). */
static const char *
option_name(const char *key, char *buf, size_t len)
{
	size_t i;

	for (i = 0; key[i] != '\0' && i + 1 < len; i++)
		buf[i] = key[i] == '_' ? '-' : key[i];
	buf[i] = '\0';
	return buf;
}

/* Apply every key of the table at @p idx through @p set, skipping @p skip.
 * Unknown keys and bad values raise a Lua error naming them. */
void
lr_lua_apply_table(lua_State *L, int idx, const char *what, void *conf,
		   lr_lua_set_fn set, const char *const *skip)
{
	char kbuf[64], vbuf[64];

	lua_pushnil(L);
	while (lua_next(L, idx) != 0) {
		const char *key, *val, *name;
		const char *const *s;
		int ret;

		if (lua_type(L, -2) != LUA_TSTRING)
			luaL_error(L, "%s: option keys must be names", what);
		key = lua_tostring(L, -2);
		for (s = skip; s != NULL && *s != NULL; s++)
			if (strcmp(*s, key) == 0)
				break;
		if (s != NULL && *s != NULL) {
			lua_pop(L, 1);
			continue;
		}
		/* The C options read text to its first NUL: "10kpps\0junk"
		 * would be taken as 10kpps, silently. */
		if (lua_type(L, -1) == LUA_TSTRING) {
			size_t n;

			val = lua_tolstring(L, -1, &n);
			if (strlen(val) != n)
				luaL_error(L, "%s: option '%s': text with a NUL "
					   "byte", what, key);
		}
		val = value_text(L, -1, vbuf, sizeof(vbuf));
		if (val == NULL)
			luaL_error(L, "%s: option '%s' wants a number, string or "
				   "boolean, got %s", what, key, luaL_typename(L, -1));
		name = option_name(key, kbuf, sizeof(kbuf));
		ret = set(conf, name, val);
		if (ret == -ENOENT)
			luaL_error(L, "%s: unknown option '%s'", what, key);
		if (ret != 0)
			luaL_error(L, "%s", lr_errmsg());
		lua_pop(L, 1);
	}
}

int
luaopen_linerate(lua_State *L)
{
	lua_newtable(L);
	lr_lua_open_port(L);
	lr_lua_open_task(L);
	lr_lua_open_json(L);
	lr_lua_open_solve(L);
	lr_lua_open_util(L);
	lua_pushliteral(L, LR_VERSION);
	lua_setfield(L, -2, "version");
	return 1;
}
