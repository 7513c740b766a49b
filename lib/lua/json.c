/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * JSON from Lua and back: jansson values pushed as Lua values (a task's
 * stats, the result document, solve's answer), and linerate.json() with
 * its markers linerate.null and linerate.array().
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <lauxlib.h>

#include "lr_common.h"
#include "lr_out.h"
#include "lua_internal.h"

/* Push a jansson value as a Lua value: objects become tables with string
 * keys, arrays sequences from 1 (an empty one with linerate.array()'s
 * mark), null nil. */
void
lr_lua_push_json(lua_State *L, json_t *v)
{
	const char *k;
	json_t *e;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		lua_createtable(L, 0, (int)json_object_size(v));
		json_object_foreach(v, k, e) {
			lr_lua_push_json(L, e);
			lua_setfield(L, -2, k);
		}
		break;
	case JSON_ARRAY:
		lua_createtable(L, (int)json_array_size(v), 0);
		json_array_foreach(v, i, e) {
			lr_lua_push_json(L, e);
			lua_rawseti(L, -2, (lua_Integer)i + 1);
		}
		/* An empty one marked as linerate.array() marks it, so that
		 * it goes back out as [], not {} (issue 35 M6: an rx that
		 * received nothing has "buckets": [], and a script's
		 * document of it had {}). */
		if (json_array_size(v) == 0)
			luaL_setmetatable(L, ARRAY_MT);
		break;
	case JSON_STRING:
		lua_pushstring(L, json_string_value(v));
		break;
	case JSON_INTEGER:
		lua_pushinteger(L, json_integer_value(v));
		break;
	case JSON_REAL:
		lua_pushnumber(L, json_real_value(v));
		break;
	case JSON_TRUE:
		lua_pushboolean(L, 1);
		break;
	case JSON_FALSE:
		lua_pushboolean(L, 0);
		break;
	default:
		lua_pushnil(L);
	}
}

/* linerate.null: a value that is JSON's null where Lua's nil would leave
 * the key out (an answer that is none, said as such). */
static char null_key;

static int
l_array(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	luaL_setmetatable(L, ARRAY_MT);
	lua_settop(L, 1);
	return 1;
}

/* A Lua value as a jansson value, or NULL and why in @p why: a sequence
 * (keys 1..n, n >= 1) becomes an array, another table an object (number
 * keys as strings), a non-finite number null. Depth-limited: a table that
 * holds itself is an error, not a loop. */
static json_t *
lua_to_json(lua_State *L, int idx, int depth, const char **why)
{
	json_t *o, *e;
	lua_Integer n;
	double d;

	idx = lua_absindex(L, idx);
	switch (lua_type(L, idx)) {
	case LUA_TNIL:
		return json_null();
	case LUA_TBOOLEAN:
		return json_boolean(lua_toboolean(L, idx));
	case LUA_TSTRING: {
		/* With its length: a NUL inside is "\u0000", not the end. */
		size_t len;
		const char *str = lua_tolstring(L, idx, &len);

		e = json_stringn(str, len);
		if (e == NULL)
			*why = "json: a string that is not UTF-8";
		return e;
	}
	case LUA_TNUMBER:
		if (lua_isinteger(L, idx))
			return json_integer(lua_tointeger(L, idx));
		d = lua_tonumber(L, idx);
		return isfinite(d) ? json_real(d) : json_null();
	case LUA_TTABLE:
		break;
	case LUA_TLIGHTUSERDATA:
		if (lua_touserdata(L, idx) == &null_key)
			return json_null();
		/* fall through */
	default:
		*why = "json: only nil, linerate.null, booleans, numbers, strings and tables";
		return NULL;
	}
	if (depth > 64) {
		*why = "json: tables nested over 64 deep (a table that holds itself?)";
		return NULL;
	}
	/* A level takes a key, a value and an element on the stack. */
	if (!lua_checkstack(L, 4)) {
		*why = "json: out of Lua stack";
		return NULL;
	}
	n = (lua_Integer)lua_rawlen(L, idx);
	if (n == 0 && lua_getmetatable(L, idx)) {
		bool array;

		luaL_getmetatable(L, ARRAY_MT);
		array = lua_rawequal(L, -1, -2);
		lua_pop(L, 2);
		if (array)
			return json_array();
	}
	if (n > 0) {
		lua_Integer i, keys = 0;

		lua_pushnil(L);
		while (lua_next(L, idx) != 0) {
			keys++;
			lua_pop(L, 1);
		}
		if (keys == n) {
			o = json_array();
			for (i = 1; o != NULL && i <= n; i++) {
				lua_rawgeti(L, idx, i);
				e = lua_to_json(L, -1, depth + 1, why);
				lua_pop(L, 1);
				if (e == NULL || json_array_append_new(o, e) != 0) {
					json_decref(o);
					return NULL;
				}
			}
			return o;
		}
	}
	o = json_object();
	lua_pushnil(L);
	while (o != NULL && lua_next(L, idx) != 0) {
		char kb[32];
		const char *k;

		if (lua_type(L, -2) == LUA_TSTRING) {
			k = lua_tostring(L, -2);
		} else if (lua_type(L, -2) == LUA_TNUMBER) {
			if (lua_isinteger(L, -2))
				snprintf(kb, sizeof(kb), "%lld",
					 (long long)lua_tointeger(L, -2));
			else
				snprintf(kb, sizeof(kb), "%.17g", lua_tonumber(L, -2));
			k = kb;
		} else {
			*why = "json: a table key that is not a string or a number";
			lua_pop(L, 2);
			json_decref(o);
			return NULL;
		}
		e = lua_to_json(L, -1, depth + 1, why);
		lua_pop(L, 1);
		if (e == NULL || json_object_set_new(o, k, e) != 0) {
			lua_pop(L, 1);
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

/* linerate.json(value [, path]): the value as JSON text; with a path,
 * written there (true). nil and why on a value JSON cannot hold. */
static int
l_json(lua_State *L)
{
	const char *why = "json: out of memory", *path = luaL_optstring(L, 2, NULL);
	json_t *doc;
	char *text;

	luaL_checkany(L, 1);
	doc = lua_to_json(L, 1, 0, &why);
	if (doc == NULL) {
		lua_pushnil(L);
		lua_pushstring(L, why);
		return 2;
	}
	if (path != NULL) {
		/* Whole or not at all (lr_out.h). */
		struct lr_out out;
		FILE *f;
		int ret = lr_out_open(&out, "json", path);

		if (ret == 0) {
			f = lr_out_stream(&out);
			errno = 0;
			if (f == NULL)
				ret = -ENOMEM;
			else if (json_dumpf(doc, f, JSON_INDENT(1) |
					    JSON_SORT_KEYS) != 0)
				ret = lr_err(errno ? errno : EIO, "json: cannot "
					     "write %s", out.path);
			if (ret == 0)
				ret = lr_out_close(&out);
			else
				lr_out_discard(&out);
		}
		json_decref(doc);
		if (ret != 0) {
			lua_pushnil(L);
			lua_pushstring(L, lr_errmsg());
			return 2;
		}
		lua_pushboolean(L, 1);
		return 1;
	}
	text = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	json_decref(doc);
	if (text == NULL)
		return luaL_error(L, "json: out of memory");
	lua_pushstring(L, text);
	free(text);
	return 1;
}

static const luaL_Reg funcs[] = {
	{ "json", l_json },
	{ "array", l_array },
	{ NULL, NULL },
};

void
lr_lua_open_json(lua_State *L)
{
	luaL_newmetatable(L, ARRAY_MT);
	lua_pop(L, 1);
	luaL_setfuncs(L, funcs, 0);
	lua_pushlightuserdata(L, &null_key);
	lua_setfield(L, -2, "null");
}
