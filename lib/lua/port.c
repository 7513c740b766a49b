/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports from Lua: linerate.port(), linerate.wire() and the port object
 * (its id, name, driver, queues, speed, link, the PMD's counters).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <rte_ethdev.h>

#include "lr_common.h"
#include "lr_engine.h"
#include "lr_port.h"
#include "lua_internal.h"

static int
port_set(void *conf, const char *key, const char *val)
{
	return lr_port_conf_set(conf, key, val);
}

static void
port_conf_from(lua_State *L, int idx, struct lr_port_conf *c)
{
	lr_port_conf_init(c);
	if (!lua_isnoneornil(L, idx)) {
		luaL_checktype(L, idx, LUA_TTABLE);
		lr_lua_apply_table(L, idx, "port", c, port_set, NULL);
	}
}

void
lr_lua_push_port(lua_State *L, uint16_t id)
{
	struct lport *p = lua_newuserdatauv(L, sizeof(*p), 0);

	p->id = id;
	luaL_setmetatable(L, PORT_MT);
}

/* A port argument: a port object, an id or a name/devargs string. */
uint16_t
lr_lua_check_port(lua_State *L, int idx)
{
	struct lport *p = luaL_testudata(L, idx, PORT_MT);
	uint16_t id;

	if (p != NULL)
		return p->id;
	if (lua_type(L, idx) == LUA_TNUMBER || lua_type(L, idx) == LUA_TSTRING) {
		if (lr_port_find(lua_tostring(L, idx), &id) != 0)
			luaL_error(L, "%s", lr_errmsg());
		return id;
	}
	luaL_typeerror(L, idx, "port");
	return 0;
}

/* linerate.port(spec [, conf]) -> port | nil, msg */
static int
l_port(lua_State *L)
{
	struct lr_port_conf c;
	const char *spec;
	uint16_t id;

	if (lua_type(L, 1) == LUA_TNUMBER)
		spec = lua_tostring(L, 1);
	else
		spec = luaL_checkstring(L, 1);
	port_conf_from(L, 2, &c);
	if (lr_port_find_for(spec, &c, &id) != 0)
		return lr_lua_fail(L);
	if (lua_isnoneornil(L, 2) && lr_port_info(id) != NULL) {
		lr_lua_push_port(L, id);	/* already set up: as it is */
		return 1;
	}
	/* Set up again, its queues are freed and made anew: not under a
	 * task that polls them or was made on them. */
	if (lr_port_info(id) != NULL) {
		const struct lr_task *t;
		unsigned int i;

		for (i = 0; (t = lr_engine_task(i)) != NULL; i++)
			if (t->port == id && lr_task_state(t) != LR_TASK_DONE) {
				lr_err(EBUSY, "port %s: task %u (%s) uses it: set "
				       "it up before making its tasks", spec,
				       t->id, t->role->name);
				return lr_lua_fail(L);
			}
	}
	if (lr_port_setup(id, &c) != 0)
		return lr_lua_fail(L);
	lr_lua_push_port(L, id);
	return 1;
}

/* linerate.wire([name] [, conf]) -> port a, port b | nil, msg */
static int
l_wire(lua_State *L)
{
	static unsigned int seq;
	struct lr_port_conf c;
	char name[24];
	uint16_t ports[2];
	int conf_idx = 2;

	if (lua_type(L, 1) == LUA_TTABLE) {
		conf_idx = 1;
		snprintf(name, sizeof(name), "wire%u", seq++);
	} else if (lua_isnoneornil(L, 1)) {
		snprintf(name, sizeof(name), "wire%u", seq++);
	} else {
		snprintf(name, sizeof(name), "%s", luaL_checkstring(L, 1));
	}
	port_conf_from(L, conf_idx, &c);
	if (lr_port_wire(name, RTE_MAX(RTE_MAX(c.nb_rxq, c.nb_txq), 1),
			 SOCKET_ID_ANY, ports) != 0)
		return lr_lua_fail(L);
	if (lr_port_setup(ports[0], &c) != 0 || lr_port_setup(ports[1], &c) != 0)
		return lr_lua_fail(L);
	lr_lua_push_port(L, ports[0]);
	lr_lua_push_port(L, ports[1]);
	return 2;
}

/* The PMD's counters now (rte_eth_stats): what a scenario reads before
 * and after a trial to tell a loss at its own receiving port (imissed,
 * rx_nombuf, ierrors) from the device's. */
static void
push_port_stats(lua_State *L, uint16_t id)
{
	struct rte_eth_stats es;

	if (rte_eth_stats_get(id, &es) != 0) {
		lua_pushnil(L);
		return;
	}
	lua_createtable(L, 0, 8);
#define SET(f) (lua_pushinteger(L, (lua_Integer)es.f), lua_setfield(L, -2, #f))
	SET(ipackets);
	SET(opackets);
	SET(ibytes);
	SET(obytes);
	SET(imissed);
	SET(ierrors);
	SET(oerrors);
	SET(rx_nombuf);
#undef SET
}

static int
port_index(lua_State *L)
{
	struct lport *p = luaL_checkudata(L, 1, PORT_MT);
	const char *k = luaL_checkstring(L, 2);
	const struct lr_port_info *pi = lr_port_info(p->id);

	if (strcmp(k, "id") == 0) {
		lua_pushinteger(L, p->id);
		return 1;
	}
	if (pi == NULL) {
		lua_pushnil(L);
		return 1;
	}
	if (strcmp(k, "name") == 0)
		lua_pushstring(L, pi->name);
	else if (strcmp(k, "driver") == 0)
		lua_pushstring(L, pi->driver);
	else if (strcmp(k, "socket") == 0)
		lua_pushinteger(L, pi->socket);
	else if (strcmp(k, "mtu") == 0)
		lua_pushinteger(L, pi->mtu);
	else if (strcmp(k, "rxq") == 0)
		lua_pushinteger(L, pi->nb_rxq);
	else if (strcmp(k, "txq") == 0)
		lua_pushinteger(L, pi->nb_txq);
	else if (strcmp(k, "speed_mbps") == 0)
		lua_pushinteger(L, pi->link_speed_mbps);
	else if (strcmp(k, "link_up") == 0)
		lua_pushboolean(L, pi->link_up);	/* when setup's wait ended */
	else if (strcmp(k, "stats") == 0)
		push_port_stats(L, p->id);
	else
		lua_pushnil(L);
	return 1;
}

static int
port_tostring(lua_State *L)
{
	struct lport *p = luaL_checkudata(L, 1, PORT_MT);
	const struct lr_port_info *pi = lr_port_info(p->id);

	lua_pushfstring(L, "port %d (%s)", p->id, pi ? pi->name : "closed");
	return 1;
}

static const luaL_Reg funcs[] = {
	{ "port", l_port },
	{ "wire", l_wire },
	{ NULL, NULL },
};

void
lr_lua_open_port(lua_State *L)
{
	luaL_newmetatable(L, PORT_MT);
	lua_pushcfunction(L, port_index);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, port_tostring);
	lua_setfield(L, -2, "__tostring");
	lua_pop(L, 1);
	luaL_setfuncs(L, funcs, 0);
}
