/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>
#include <rte_cycles.h>
#include <rte_lcore.h>

#include "lr_cleanup.h"
#include "lr_common.h"
#include "lr_engine.h"
#include "lr_latency.h"
#include "lr_lua.h"
#include "lr_out.h"
#include "lr_port.h"
#include "lr_stats.h"

#define PORT_MT "linerate.port"
#define TASK_MT "linerate.task"

struct lport {
	uint16_t id;
};

struct ltask {
	struct lr_task *t;
};

static lua_State *running_L;
static volatile sig_atomic_t was_interrupted;

/*
 * The error object of an interrupt: a light userdata, not a string, so that
 * it reads as no message of the script's own, and lr_lua_run() knows it.
 */
static char interrupt_key;

static bool interrupt_raised;	/* the script is unwinding from it */

static int
raise_interrupt(lua_State *L)
{
	interrupt_raised = true;
	lua_pushlightuserdata(L, &interrupt_key);
	return lua_error(L);
}

/*
 * Times from Lua: a number of seconds that is finite and >= 0. NaN passes
 * every "< 0" test and becomes an unbounded wait once turned into TSC
 * cycles, so it is refused here, with infinities, by name.
 */
static double
check_seconds(lua_State *L, int idx, const char *what)
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

static double
opt_seconds(lua_State *L, int idx, const char *what)
{
	return lua_isnoneornil(L, idx) ? 0 : check_seconds(L, idx, what);
}

static int raise_interrupt(lua_State *L);

static int
fail(lua_State *L)
{
	/* A C call cut short by Ctrl-C (the link wait) ends the script, not
	 * only that call: the caller would take nil for a port that is down. */
	if (was_interrupted)
		return raise_interrupt(L);
	luaL_pushfail(L);
	lua_pushstring(L, lr_errmsg());
	return 2;
}

/* The text form of a conf value: numbers, strings and booleans. Integral
 * floats such as 1e6 print without exponent so "count = 1e6" works. */
static const char *
value_text(lua_State *L, int idx, char *buf, size_t len)
{
	switch (lua_type(L, idx)) {
	case LUA_TBOOLEAN:
		return lua_toboolean(L, idx) ? "1" : "0";
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

typedef int (*set_fn)(void *conf, const char *key, const char *val);

/* Apply every key of the table at @p idx through @p set, skipping @p skip.
 * Unknown keys and bad values raise a Lua error naming them. */
static void
apply_table(lua_State *L, int idx, const char *what, void *conf, set_fn set,
	    const char *const *skip)
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
		apply_table(L, idx, "port", c, port_set, NULL);
	}
}

static void
push_port(lua_State *L, uint16_t id)
{
	struct lport *p = lua_newuserdatauv(L, sizeof(*p), 0);

	p->id = id;
	luaL_setmetatable(L, PORT_MT);
}

/* A port argument: a port object, an id or a name/devargs string. */
static uint16_t
check_port(lua_State *L, int idx)
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
		return fail(L);
	if (lua_isnoneornil(L, 2) && lr_port_info(id) != NULL) {
		push_port(L, id);	/* already set up: as it is */
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
				return fail(L);
			}
	}
	if (lr_port_setup(id, &c) != 0)
		return fail(L);
	push_port(L, id);
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
		return fail(L);
	if (lr_port_setup(ports[0], &c) != 0 || lr_port_setup(ports[1], &c) != 0)
		return fail(L);
	push_port(L, ports[0]);
	push_port(L, ports[1]);
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

/* Push a jansson value as a Lua value: objects become tables with string
 * keys, arrays sequences from 1, null nil. */
static void
push_json(lua_State *L, json_t *v)
{
	const char *k;
	json_t *e;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		lua_createtable(L, 0, (int)json_object_size(v));
		json_object_foreach(v, k, e) {
			push_json(L, e);
			lua_setfield(L, -2, k);
		}
		break;
	case JSON_ARRAY:
		lua_createtable(L, (int)json_array_size(v), 0);
		json_array_foreach(v, i, e) {
			push_json(L, e);
			lua_rawseti(L, -2, (lua_Integer)i + 1);
		}
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

/* A role's confs as a task{} or plan{} table fills them. */
struct role_confs {
	const struct lr_role *role;
	void *conf;
	void *with;	/* its companion's (role->with), NULL in a task{} */
};

static int
role_set(void *arg, const char *key, const char *val)
{
	struct role_confs *rc = arg;

	return lr_role_conf_set(rc->role, rc->conf, rc->with, key, val);
}

/* The role of a task{} or plan{} table at index 1 (@p what names the
 * call in errors); leaves role= on the stack. */
static const struct lr_role *
table_role(lua_State *L, const char *what)
{
	const struct lr_role *role;

	luaL_checktype(L, 1, LUA_TTABLE);
	lua_getfield(L, 1, "role");
	if (lua_type(L, -1) != LUA_TSTRING)
		luaL_error(L, "%s: 'role' must be a role name", what);
	role = lr_role_find(lua_tostring(L, -1));
	if (role == NULL)
		luaL_error(L, "%s: no role '%s'", what, lua_tostring(L, -1));
	return role;
}

/* The role and port of a task{} or plan{} table at index 1 (@p what
 * names the call in errors); pushes nothing. */
static const struct lr_role *
table_role_port(lua_State *L, const char *what, uint16_t *port)
{
	const struct lr_role *role = table_role(L, what);

	lua_getfield(L, 1, "port");
	if (lua_isnil(L, -1))
		luaL_error(L, "%s: 'port' is missing", what);
	*port = check_port(L, lua_gettop(L));
	lua_pop(L, 2);
	return role;
}

/* duration= of the table at index 1: seconds >= 0, 0 when absent. */
static double
table_duration(lua_State *L, const char *what)
{
	double d;
	int isnum;

	lua_getfield(L, 1, "duration");
	d = lua_isnil(L, -1) ? 0 : lua_tonumberx(L, -1, &isnum);
	if (!lua_isnil(L, -1) && (!isnum || !isfinite(d) || d < 0))
		luaL_error(L, "%s: 'duration' must be seconds >= 0", what);
	lua_pop(L, 1);
	return d;
}

/* The role's conf from the table at index 1 (keys but @p common), and
 * with @p with its companion's: userdata on the stack. */
static void
table_conf(lua_State *L, const struct lr_role *role, bool with,
	   const char *const *common, struct role_confs *rc)
{
	rc->role = role;
	rc->conf = lua_newuserdatauv(L, role->conf_bytes, 0);
	role->conf_init(rc->conf);
	rc->with = NULL;
	if (with && role->with != NULL) {
		rc->with = lua_newuserdatauv(L, role->with->conf_bytes, 0);
		role->with->conf_init(rc->with);
	}
	apply_table(L, 1, role->name, rc, role_set, common);
}

int
lr_lua_conf(lua_State *L)
{
	static const char *const common[] = {
		"role", "port", "queue", "lcore", "lcores", "duration", NULL
	};
	const struct lr_role *role = table_role(L, "conf");
	bool with = lua_toboolean(L, 2);
	struct role_confs rc;

	lua_pop(L, 1);
	table_duration(L, "conf");
	table_conf(L, role, with, common, &rc);
	lua_pushboolean(L, 1);
	return 1;
}

/* linerate.task{role=, port=, queue=0, lcore=first worker, duration=, ...}
 *   -> task | nil, msg */
static int
l_task(lua_State *L)
{
	static const char *const common[] = {
		"role", "port", "queue", "lcore", "duration", NULL
	};
	const struct lr_role *role;
	unsigned int workers[RTE_MAX_LCORE];
	lua_Integer queue, lcore;
	struct role_confs rc;
	uint16_t port;
	double duration;
	struct ltask *lt;
	struct lr_task *t;
	int isnum;

	role = table_role_port(L, "task", &port);
	/* A task that reads no queue (a probe on a distributor's channel). */
	queue = 0;
	if (role->queueless_key != NULL) {
		lua_getfield(L, 1, role->queueless_key);
		queue = lua_isnil(L, -1) ? 0 : LR_QUEUE_NONE;
		lua_pop(L, 1);
	}
	lua_getfield(L, 1, "queue");
	queue = lua_isnil(L, -1) ? queue : lua_tointegerx(L, -1, &isnum);
	if (!lua_isnil(L, -1) && (!isnum || queue < 0 || queue > 65535))
		return luaL_error(L, "task: 'queue' must be an integer 0..65535");
	lua_getfield(L, 1, "lcore");
	if (lua_isnil(L, -1)) {
		if (lr_engine_workers(workers, RTE_DIM(workers)) == 0)
			return luaL_error(L, "task: no worker lcore (give EAL -l 0-1 "
					  "or more)");
		lcore = workers[0];
	} else {
		lcore = lua_tointegerx(L, -1, &isnum);
		if (!isnum || lcore < 0 || lcore >= RTE_MAX_LCORE)
			return luaL_error(L, "task: 'lcore' must be an lcore id");
	}
	lua_pop(L, 2);
	duration = table_duration(L, "task");
	/* One task of the role: its companion's options are its plan's. */
	table_conf(L, role, false, common, &rc);

	t = lr_task_create(role, (unsigned int)lcore, port, (uint16_t)queue,
			   duration, rc.conf);
	if (t == NULL)
		return fail(L);
	lt = lua_newuserdatauv(L, sizeof(*lt), 0);
	lt->t = t;
	luaL_setmetatable(L, TASK_MT);
	return 1;
}

/*
 * linerate.plan{role=, port=, lcores={...}, duration=, <role options>}
 *   -> {task, ...} | nil, msg
 * The role laid over the port as the CLI's --role does it: a task per
 * queue with its slice, or the role's own plan, which takes its
 * companion's options too (the probe's distributor and channels).
 */
static int
l_plan(lua_State *L)
{
	static const char *const common[] = {
		"role", "port", "lcores", "duration", NULL
	};
	unsigned int lcores[RTE_MAX_LCORE], n = 0, before, i;
	const struct lr_role *role;
	struct role_confs rc;
	uint16_t port;
	double duration;
	struct ltask *lt;
	int isnum;

	role = table_role_port(L, "plan", &port);
	lua_getfield(L, 1, "lcores");
	if (lua_isnil(L, -1)) {
		n = lr_engine_workers(lcores, RTE_DIM(lcores));
	} else {
		luaL_checktype(L, -1, LUA_TTABLE);
		for (n = 0; n < RTE_DIM(lcores); n++) {
			lua_Integer l;

			lua_geti(L, -1, (lua_Integer)n + 1);
			if (lua_isnil(L, -1)) {
				lua_pop(L, 1);
				break;
			}
			l = lua_tointegerx(L, -1, &isnum);
			lua_pop(L, 1);
			if (!isnum || l < 0 || l >= RTE_MAX_LCORE)
				return luaL_error(L, "plan: 'lcores' must be a list "
						  "of lcore ids");
			lcores[n] = (unsigned int)l;
		}
	}
	if (n == 0)
		return luaL_error(L, "plan: no worker lcore (give EAL -l 0-1 or "
				  "more)");
	lua_pop(L, 1);
	duration = table_duration(L, "plan");
	table_conf(L, role, true, common, &rc);

	before = lr_engine_task_count();
	if (lr_role_plan(role, port, rc.conf, rc.with, lcores, n, duration) < 0)
		return fail(L);
	lua_newtable(L);
	for (i = before; i < lr_engine_task_count(); i++) {
		lt = lua_newuserdatauv(L, sizeof(*lt), 0);
		lt->t = lr_engine_task(i);
		luaL_setmetatable(L, TASK_MT);
		lua_rawseti(L, -2, (lua_Integer)(i - before) + 1);
	}
	return 1;
}

static struct lr_task *
check_task(lua_State *L, int idx)
{
	return ((struct ltask *)luaL_checkudata(L, idx, TASK_MT))->t;
}

/* A wait result as Lua values: true | "idle" | raise on interrupt | nil, msg */
static int
wait_result(lua_State *L, int ret)
{
	if (ret == 0) {
		lua_pushboolean(L, 1);
		return 1;
	}
	if (ret == 1) {
		lua_pushliteral(L, "idle");
		return 1;
	}
	if (ret == -EINTR)
		return raise_interrupt(L);
	return fail(L);
}

/* task:wait([timeout]) or task:wait{timeout=, idle=} */
static int
task_wait(lua_State *L)
{
	struct lr_task *t = check_task(L, 1);
	double timeout = 0, idle = 0;

	if (lua_type(L, 2) == LUA_TTABLE) {
		lua_getfield(L, 2, "timeout");
		timeout = opt_seconds(L, -1, "wait: timeout");
		lua_getfield(L, 2, "idle");
		idle = opt_seconds(L, -1, "wait: idle");
		lua_pop(L, 2);
	} else {
		timeout = opt_seconds(L, 2, "wait: timeout");
	}
	return wait_result(L, lr_task_wait(t, timeout, idle));
}

static int
task_stop(lua_State *L)
{
	lr_task_stop(check_task(L, 1));
	return 0;
}

static int
task_stats(lua_State *L)
{
	/* Check before taking the lock: a Lua error longjmps past the
	 * unlock, and the next taker (the live line, telemetry, this) would
	 * spin for ever. Nothing between lock and unlock may raise. */
	struct lr_task *t = check_task(L, 1);
	json_t *o;

	lr_engine_lock();
	o = lr_task_report(t);
	lr_engine_unlock();
	push_json(L, o);
	json_decref(o);
	return 1;
}

static int
task_state(lua_State *L)
{
	static const char *const names[] = { "created", "running", "done" };

	lua_pushstring(L, names[lr_task_state(check_task(L, 1))]);
	return 1;
}

static int
task_index(lua_State *L)
{
	struct lr_task *t = check_task(L, 1);
	const char *k = luaL_checkstring(L, 2);

	if (strcmp(k, "id") == 0)
		lua_pushinteger(L, t->id);
	else if (strcmp(k, "role") == 0)
		lua_pushstring(L, t->role->name);
	else if (strcmp(k, "lcore") == 0)
		lua_pushinteger(L, t->lcore);
	else if (strcmp(k, "queue") == 0)
		lua_pushinteger(L, t->queue);
	else if (strcmp(k, "port") == 0)
		push_port(L, t->port);
	else if (luaL_getmetafield(L, 1, "__methods") == LUA_TTABLE)
		lua_getfield(L, -1, k);
	else
		lua_pushnil(L);
	return 1;
}

static int
task_tostring(lua_State *L)
{
	struct lr_task *t = check_task(L, 1);

	lua_pushfstring(L, "task %d (%s on lcore %d)", (int)t->id, t->role->name,
			(int)t->lcore);
	return 1;
}

static int
l_start(lua_State *L)
{
	int n = lr_engine_start();

	if (n < 0)
		return fail(L);
	lua_pushinteger(L, n);
	return 1;
}

static int
l_stop(lua_State *L)
{
	RTE_SET_USED(L);
	lr_engine_stop();
	lr_stats_series_flush();
	return 0;
}

/* linerate.series(period_s): a time series in the result document, a
 * sample each period (0: off); a new one each call. */
static int
l_series(lua_State *L)
{
	if (lr_stats_series(luaL_checknumber(L, 1)) != 0)
		return fail(L);
	lua_pushboolean(L, 1);
	return 1;
}

static int
l_wait(lua_State *L)
{
	double timeout = opt_seconds(L, 1, "wait: timeout");

	return wait_result(L, lr_engine_wait(timeout));
}

static int
l_sleep(lua_State *L)
{
	double s = check_seconds(L, 1, "sleep");
	int ret = lr_engine_sleep(s);

	if (ret == -EINTR)
		return raise_interrupt(L);
	if (ret != 0)
		return fail(L);
	return 0;
}

static int
l_results(lua_State *L)
{
	json_t *doc = lr_stats_results();

	push_json(L, doc);
	json_decref(doc);
	return 1;
}

static int
l_write_json(lua_State *L)
{
	if (lr_stats_write_json(luaL_checkstring(L, 1)) != 0)
		return fail(L);
	lua_pushboolean(L, 1);
	return 1;
}

/* linerate.null: a value that is JSON's null where Lua's nil would leave
 * the key out (an answer that is none, said as such). */
static char null_key;

/* linerate.array(t): t, marked to be a JSON array even when empty (an
 * empty table is otherwise an object). */
#define ARRAY_MT "linerate.array"

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
	case LUA_TSTRING:
		return json_string(lua_tostring(L, idx));
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

/*
 * os.tmpname(), whose file (or what the script makes under its name, as
 * a directory or a socket) is removed when the process ends, a forced end
 * too: Lua's own leaves /tmp/lua_XXXXXX behind whenever the script does
 * not get to remove it (a signal, an error).
 */
static int
l_os_tmpname(lua_State *L)
{
	int id;

	lua_pushvalue(L, lua_upvalueindex(1));
	lua_call(L, 0, 1);
	id = lr_cleanup_add(luaL_checkstring(L, -1));
	if (id < 0) {
		remove(lua_tostring(L, -1));
		return luaL_error(L, "os.tmpname: %s cannot be registered for "
				  "removal at exit (%s)", lua_tostring(L, -1),
				  strerror(-id));
	}
	return 1;
}

static int
l_write_csv(lua_State *L)
{
	if (lr_roles_write_csv(luaL_checkstring(L, 1)) != 0)
		return fail(L);
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
		return fail(L);
	}
	lua_pushlstring(L, path, (size_t)n);
	return 1;
}

static int
l_live(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TBOOLEAN);
	lr_stats_live(lua_toboolean(L, 1), NULL);
	return 0;
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
		return fail(L);
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
		push_json(L, doc);
	json_decref(doc);
	lr_latency_free(lat);
	return doc != NULL ? 1 : luaL_error(L, "solve: out of memory");
}

static const luaL_Reg funcs[] = {
	{ "port", l_port },
	{ "wire", l_wire },
	{ "task", l_task },
	{ "plan", l_plan },
	{ "start", l_start },
	{ "stop", l_stop },
	{ "series", l_series },
	{ "wait", l_wait },
	{ "sleep", l_sleep },
	{ "results", l_results },
	{ "write_json", l_write_json },
	{ "write_csv", l_write_csv },
	{ "json", l_json },
	{ "cleanup_on_exit", l_cleanup_on_exit },
	{ "array", l_array },
	{ "exe", l_exe },
	{ "frame_size", l_frame_size },
	{ "data_size", l_data_size },
	{ "line_rate", l_line_rate },
	{ "overhead", l_overhead },
	{ "live", l_live },
	{ "workers", l_workers },
	{ "now", l_now },
	{ "tsc_hz", l_tsc_hz },
	{ "solve", l_solve },
	{ NULL, NULL },
};

static const luaL_Reg task_methods[] = {
	{ "wait", task_wait },
	{ "stop", task_stop },
	{ "stats", task_stats },
	{ "state", task_state },
	{ NULL, NULL },
};

int
luaopen_linerate(lua_State *L)
{
	luaL_newmetatable(L, PORT_MT);
	lua_pushcfunction(L, port_index);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, port_tostring);
	lua_setfield(L, -2, "__tostring");
	lua_pop(L, 1);

	luaL_newmetatable(L, TASK_MT);
	luaL_newlib(L, task_methods);
	lua_setfield(L, -2, "__methods");
	lua_pushcfunction(L, task_index);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, task_tostring);
	lua_setfield(L, -2, "__tostring");
	lua_pop(L, 1);

	luaL_newmetatable(L, ARRAY_MT);
	lua_pop(L, 1);

	luaL_newlib(L, funcs);
	lua_pushliteral(L, LR_VERSION);
	lua_setfield(L, -2, "version");
	lua_pushlightuserdata(L, &null_key);
	lua_setfield(L, -2, "null");
	return 1;
}

/*
 * Once interrupted, the interrupt is raised, then given a grace of
 * STOP_GRACE instructions, in which the unwinding runs the script's
 * <close> handlers (a testbed's peer, a DUT's namespace removed); after
 * that every Lua instruction raises it again: the hook stays in place, so
 * a pcall() that catches it hands control back to Lua code that raises it
 * at once, and no loop in a script (pcall inside a while) outlives a
 * Ctrl-C. Only the count event: a call event would also fire for
 * msg_handler(), and an error in it would hide the interrupt.
 */
#define STOP_GRACE 1000000
static bool stop_grace_given;

static void
stop_hook(lua_State *L, lua_Debug *ar)
{
	RTE_SET_USED(ar);
	if (!stop_grace_given) {
		stop_grace_given = true;
		lua_sethook(L, stop_hook, LUA_MASKCOUNT, STOP_GRACE);
		/* A C call cut short raised it already: the script is
		 * unwinding, its <close> handlers running. */
		if (interrupt_raised)
			return;
	} else {
		lua_sethook(L, stop_hook, LUA_MASKCOUNT, 1);
	}
	raise_interrupt(L);
}

void
lr_lua_interrupt(void)
{
	was_interrupted = 1;
	/* As lua.c's laction(): lua_sethook is safe from a signal handler. */
	if (running_L != NULL)
		lua_sethook(running_L, stop_hook, LUA_MASKCOUNT, 1);
}

/* Where print() writes: stdout, or stderr when stdout carries results
 * (--json -, --csv -; an IPFIX export to file:- too, lr_human_out()). */
static FILE *print_out;

void
lr_lua_print_to(FILE *f)
{
	print_out = f;
}

static int
l_print(lua_State *L)
{
	FILE *f = lr_human_out(print_out != NULL ? print_out : stdout);
	int n = lua_gettop(L), i;

	for (i = 1; i <= n; i++) {
		size_t len;
		const char *str = luaL_tolstring(L, i, &len);

		if (i > 1)
			fputc('\t', f);
		fwrite(str, 1, len, f);
		lua_pop(L, 1);
	}
	fputc('\n', f);
	fflush(f);
	return 0;
}

/*
 * os.exit([code]) ends the script as an error would, so that what a run
 * does at its end still happens: the tasks stopped, --json written, the
 * ports closed, the <close> handlers run; the process then exits with
 * code (true: 0, false: 1; 0 by default). The C exit() skipped all that.
 */
static int exit_key;
static int exit_code;

static int
l_os_exit(lua_State *L)
{
	if (lua_isboolean(L, 1))
		exit_code = lua_toboolean(L, 1) ? 0 : 1;
	else
		exit_code = (int)(luaL_optinteger(L, 1, 0) & 0xff);
	lua_pushlightuserdata(L, &exit_key);
	return lua_error(L);
}

static int
msg_handler(lua_State *L)
{
	const char *msg = lua_tostring(L, 1);

	if (lua_touserdata(L, 1) == &interrupt_key ||
	    lua_touserdata(L, 1) == &exit_key)
		return 1;	/* no traceback: where it stopped is no error */

	if (msg == NULL)
		msg = lua_pushfstring(L, "(error object is a %s value)",
				      luaL_typename(L, 1));
	luaL_traceback(L, L, msg, 1);
	return 1;
}

#ifndef LR_LUA_DIR
#define LR_LUA_DIR "/usr/share/linerate/lua"
#endif

/* require() looks beside the script and in its lib/ first, then in
 * linerate's own lua/ and lua/lib/, so that a user's script in a directory
 * of its own finds the scenarios' modules (require("testbed")). */
static void
set_path(lua_State *L, const char *script)
{
	const char *slash = strrchr(script, '/');
	int dirlen = slash ? (int)(slash - script) : 1;
	const char *dir = slash ? script : ".";

	lua_getglobal(L, "package");
	lua_pushlstring(L, dir, (size_t)dirlen);
	lua_pushliteral(L, "/?.lua;");
	lua_pushlstring(L, dir, (size_t)dirlen);
	lua_pushliteral(L, "/lib/?.lua;" LR_LUA_DIR "/?.lua;" LR_LUA_DIR "/lib/?.lua;");
	lua_getfield(L, -5, "path");
	lua_concat(L, 5);
	lua_setfield(L, -2, "path");
	lua_pop(L, 1);
}

/* A script named without a directory that is not here is one of
 * linerate's own: "rfc2544" or "rfc2544.lua" is LR_LUA_DIR/rfc2544.lua,
 * so that a scenario runs by its name (linerate ... -- rfc2544 dut=...). */
static const char *
find_script(const char *script, char *buf, size_t len)
{
	size_t n = strlen(script);

	if (strchr(script, '/') != NULL || access(script, F_OK) == 0)
		return script;
	snprintf(buf, len, "%s/%s%s", LR_LUA_DIR, script,
		 n > 4 && strcmp(script + n - 4, ".lua") == 0 ? "" : ".lua");
	return access(buf, R_OK) == 0 ? buf : script;
}

int
lr_lua_run(const char *script, int argc, char **argv)
{
	lua_State *L = luaL_newstate();
	char own[PATH_MAX];
	int i, ret;

	if (L == NULL) {
		fprintf(stderr, "linerate: no memory for Lua\n");
		return 1;
	}
	luaL_openlibs(L);
	lua_register(L, "print", l_print);
	lua_getglobal(L, "os");
	lua_pushcfunction(L, l_os_exit);
	lua_setfield(L, -2, "exit");
	lua_getfield(L, -1, "tmpname");
	lua_pushcclosure(L, l_os_tmpname, 1);
	lua_setfield(L, -2, "tmpname");
	lua_pop(L, 1);
	luaL_requiref(L, "linerate", luaopen_linerate, 1);
	lua_pop(L, 1);
	script = find_script(script, own, sizeof(own));

	/* arg[0] is the script, arg[1..] its arguments, as lua(1) does. */
	lua_createtable(L, argc, 1);
	lua_pushstring(L, script);
	lua_rawseti(L, -2, 0);
	for (i = 0; i < argc; i++) {
		lua_pushstring(L, argv[i]);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setglobal(L, "arg");
	set_path(L, script);

	lua_pushcfunction(L, msg_handler);
	ret = luaL_loadfile(L, script);
	if (ret != LUA_OK) {
		fprintf(stderr, "linerate: %s\n", lua_tostring(L, -1));
		lua_close(L);
		return 1;
	}
	for (i = 0; i < argc; i++)
		lua_pushstring(L, argv[i]);
	running_L = L;
	/* A signal before running_L was set found no state to hook. */
	if (was_interrupted)
		lua_sethook(L, stop_hook, LUA_MASKCOUNT, 1);
	ret = lua_pcall(L, argc, 0, 1);
	running_L = NULL;
	/* lua_close() runs __gc metamethods, which the hook would stop. */
	lua_sethook(L, NULL, 0, 0);
	if (was_interrupted) {
		fprintf(stderr, "linerate: interrupted\n");
		ret = 130;
	} else if (ret != LUA_OK && lua_touserdata(L, -1) == &exit_key) {
		ret = exit_code;
	} else if (ret != LUA_OK) {
		fprintf(stderr, "linerate: %s\n", lua_tostring(L, -1));
		ret = 1;
	}
	lua_close(L);
	return ret;
}
