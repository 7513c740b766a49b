/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tasks and the run from Lua: linerate.task{} and plan{} (a role's
 * options from a table), the task object, start, stop, wait, and the
 * results: series, live line, result document, JSON and CSV files.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <rte_lcore.h>

#include "lr_common.h"
#include "lr_engine.h"
#include "lr_lua.h"
#include "lr_metrics.h"
#include "lr_stats.h"
#include "lua_internal.h"

/* A role's confs as a task{} or plan{} table fills them. */
struct role_confs {
	const struct lr_role *role;
	void *conf;
	void *with;	/* its companion's (lr_role_companion()), NULL in a task{} */
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
	*port = lr_lua_check_port(L, lua_gettop(L));
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
	if (with && lr_role_companion(role) != NULL) {
		const struct lr_role *w = lr_role_companion(role);

		rc->with = lua_newuserdatauv(L, w->conf_bytes, 0);
		w->conf_init(rc->with);
	}
	lr_lua_apply_table(L, 1, role->name, rc, role_set, common);
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
	if (role->task == NULL)
		return luaL_error(L, "task: %s is a plan, not a task: "
				  "linerate.plan{role = \"%s\", ...} makes its "
				  "tasks", role->name, role->name);
	duration = table_duration(L, "task");
	/* One task of the role: its companion's options are its plan's. */
	table_conf(L, role, false, common, &rc);
	/* A task that reads no queue (a probe on a distributor's channel). */
	queue = role->task->queueless != NULL &&
		role->task->queueless(rc.conf) ? LR_QUEUE_NONE : 0;
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
	t = lr_task_create(role, (unsigned int)lcore, port, (uint16_t)queue,
			   duration, rc.conf);
	if (t == NULL)
		return lr_lua_fail(L);
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
		return lr_lua_fail(L);
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
		return lr_lua_raise_interrupt(L);
	return lr_lua_fail(L);
}

/* task:wait([timeout]) or task:wait{timeout=, idle=} */
static int
task_wait(lua_State *L)
{
	struct lr_task *t = check_task(L, 1);
	double timeout = 0, idle = 0;

	if (lua_type(L, 2) == LUA_TTABLE) {
		lua_getfield(L, 2, "timeout");
		timeout = lr_lua_opt_seconds(L, -1, "wait: timeout");
		lua_getfield(L, 2, "idle");
		idle = lr_lua_opt_seconds(L, -1, "wait: idle");
		lua_pop(L, 2);
	} else {
		timeout = lr_lua_opt_seconds(L, 2, "wait: timeout");
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
task_set_one(void *arg, const char *key, const char *val)
{
	return lr_task_set(arg, key, val);
}

/* task:set{rate=...}: change a created or running task (lr_task_set());
 * a refused change is a one-line error. -> true */
static int
task_set(lua_State *L)
{
	struct lr_task *t = check_task(L, 1);
	char what[64];

	luaL_checktype(L, 2, LUA_TTABLE);
	snprintf(what, sizeof(what), "task %u (%s): set", t->id, t->role->name);
	lr_lua_apply_table(L, 2, what, t, task_set_one, NULL);
	lua_pushboolean(L, 1);
	return 1;
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
	lr_lua_push_json(L, o);
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
		lr_lua_push_port(L, t->port);
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
		return lr_lua_fail(L);
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
		return lr_lua_fail(L);
	lua_pushboolean(L, 1);
	return 1;
}

static int
l_wait(lua_State *L)
{
	double timeout = lr_lua_opt_seconds(L, 1, "wait: timeout");

	return wait_result(L, lr_engine_wait(timeout));
}

static int
l_results(lua_State *L)
{
	json_t *doc = lr_stats_results();

	lr_lua_push_json(L, doc);
	json_decref(doc);
	return 1;
}

static int
l_write_json(lua_State *L)
{
	if (lr_stats_write_json(luaL_checkstring(L, 1)) != 0)
		return lr_lua_fail(L);
	lua_pushboolean(L, 1);
	return 1;
}

static int
l_write_csv(lua_State *L)
{
	if (lr_roles_write_csv(luaL_checkstring(L, 1)) != 0)
		return lr_lua_fail(L);
	lua_pushboolean(L, 1);
	return 1;
}

static int
l_live(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TBOOLEAN);
	lr_stats_live(lua_toboolean(L, 1), NULL);
	return 0;
}

/* linerate.metrics{listen = "[ADDR:]PORT", linger = S}: serve /metrics
 * (lr_metrics.h); returns its URL, or nil and why. linerate.metrics():
 * the URL and the scrapes answered so far, or nil and why. */
static int
l_metrics(lua_State *L)
{
	const char *listen, *k;
	double linger = 0;

	if (lua_isnoneornil(L, 1)) {
		if (lr_metrics_url() == NULL) {
			lua_pushnil(L);
			lua_pushstring(L, "metrics: not serving");
			return 2;
		}
		lua_pushstring(L, lr_metrics_url());
		lua_pushinteger(L, (lua_Integer)lr_metrics_scrapes());
		return 2;
	}
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_pushnil(L);
	while (lua_next(L, 1) != 0) {
		k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
		if (strcmp(k, "listen") != 0 && strcmp(k, "linger") != 0)
			return luaL_error(L, "metrics: unknown key '%s' (listen, "
					  "linger)", k);
		lua_pop(L, 1);
	}
	lua_getfield(L, 1, "listen");
	listen = luaL_checkstring(L, -1);
	lua_getfield(L, 1, "linger");
	if (!lua_isnil(L, -1)) {
		linger = luaL_checknumber(L, -1);
		if (!(linger >= 0 && linger <= LR_METRICS_LINGER_MAX_S))
			return luaL_error(L, "metrics: linger %f: want 0 .. %d s",
					  linger, LR_METRICS_LINGER_MAX_S);
	}
	if (lr_metrics_start(listen, linger) != 0)
		return lr_lua_fail(L);
	lua_pushstring(L, lr_metrics_url());
	return 1;
}

static const luaL_Reg funcs[] = {
	{ "metrics", l_metrics },
	{ "task", l_task },
	{ "plan", l_plan },
	{ "start", l_start },
	{ "stop", l_stop },
	{ "series", l_series },
	{ "wait", l_wait },
	{ "results", l_results },
	{ "write_json", l_write_json },
	{ "write_csv", l_write_csv },
	{ "live", l_live },
	{ NULL, NULL },
};

static const luaL_Reg task_methods[] = {
	{ "wait", task_wait },
	{ "stop", task_stop },
	{ "set", task_set },
	{ "stats", task_stats },
	{ "state", task_state },
	{ NULL, NULL },
};

void
lr_lua_open_task(lua_State *L)
{
	luaL_newmetatable(L, TASK_MT);
	luaL_newlib(L, task_methods);
	lua_setfield(L, -2, "__methods");
	lua_pushcfunction(L, task_index);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, task_tostring);
	lua_setfield(L, -2, "__tostring");
	lua_pop(L, 1);
	luaL_setfuncs(L, funcs, 0);
}
