/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <lauxlib.h>
#include <lualib.h>

#include "lr_engine.h"
#include "lr_gen.h"
#include "lr_lua.h"
#include "lr_port.h"
#include "lr_rx.h"
#include "../lr_test.h"

static lua_State *L;

/* Run @p code; @return NULL on success or the error message. */
static const char *
run(const char *code)
{
	lua_settop(L, 0);
	if (luaL_dostring(L, code) == LUA_OK)
		return NULL;
	return lua_tostring(L, -1);
}

static void
wrong_types_raise(void **state)
{
	const char *e;

	(void)state;
	e = run("linerate.port(nil)");
	assert_non_null(e);
	assert_non_null(strstr(e, "bad argument #1 to 'port'"));
	e = run("linerate.task('gen')");
	assert_non_null(e);
	assert_non_null(strstr(e, "table expected"));
	e = run("linerate.task{role='nosuch', port='net_null0'}");
	assert_non_null(strstr(e, "no role 'nosuch'"));
	e = run("linerate.task{role='gen'}");
	assert_non_null(strstr(e, "'port' is missing"));
	e = run("local a = linerate.wire() linerate.task{role='gen', port=a, size='big'}");
	assert_non_null(strstr(e, "size 'big'"));
	e = run("local a = linerate.wire() linerate.task{role='gen', port=a, sise=64}");
	assert_non_null(strstr(e, "unknown option 'sise'"));
	e = run("linerate.port('net_null0', {mtu={}})");
	assert_non_null(strstr(e, "'mtu' wants a number"));
	e = run("linerate.sleep(-1)");
	assert_non_null(strstr(e, "negative"));
}

static void
failures_return_nil_and_cause(void **state)
{
	(void)state;
	assert_null(run("local p, err = linerate.port('nosuch')\n"
			"assert(p == nil)\n"
			"assert(err:find('port nosuch: no such port', 1, true), err)"));
	assert_null(run("local a = assert(linerate.wire('lq', {queues=2}))\n"
			"local t, err = linerate.task{role='gen', port=a, queue=5}\n"
			"assert(t == nil and err:find('no tx queue 5'), err)"));
}

static void
scenario_moves_packets(void **state)
{
	const char *e;

	(void)state;
	e = run("local a, b = assert(linerate.wire())\n"
		"assert(a.name:find('wire'), a.name)\n"
		"local rx = assert(linerate.task{role='rx', port=b})\n"
		"local g = assert(linerate.task{role='gen', port=a, count=1e4,"
		"                 size=100, src_ip='10.1.1.1', flows=3})\n"
		"assert(g.role == 'gen' and g.id == rx.id + 1)\n"
		"assert(g:state() == 'created')\n"
		"assert(linerate.start() == 2)\n"
		"assert(g:wait(10) == true)\n"
		"assert(rx:wait{idle=0.1, timeout=10} == 'idle')\n"
		"linerate.stop()\n"
		"local s, r = g:stats(), rx:stats()\n"
		"assert(s.tx_packets == 10000 and r.own_packets == 10000)\n"
		"assert(s.frame_bytes_mean == 100 and s.flows == 3)\n"
		"local res = linerate.results()\n"
		"assert(#res.tasks == 2 and res.totals.rx_packets == 10000)\n"
		"assert(res.version == linerate.version)\n"
		"assert(#linerate.workers() >= 1)\n"
		"assert(r.received == 10000 and r.lost == 0 and r.per == 0)\n"
		"assert(res.rx.flows_seen == 3 and #res.rx.flows == 3)\n"
		"assert(res.rx.flows[2].packets == 3334 - 1)\n");
	assert_null(e);
}

static void
size_arithmetic(void **state)
{
	(void)state;
	assert_null(run("assert(linerate.frame_size(1472) == 1518)\n"
			"assert(linerate.frame_size(1) == 64)\n"
			"assert(linerate.frame_size(1452, true) == 1518)\n"
			"assert(linerate.data_size(64) == 18)\n"
			"assert(math.abs(linerate.line_rate(10e9, 64) - 14880952.38) < 0.01)\n"
			"assert(math.abs(linerate.overhead(18, 64) - 0.7857) < 1e-4)\n"
			"assert(linerate.exe():find('test_lua'))\n"));
	assert_non_null(run("linerate.line_rate(0, 64)"));
	assert_non_null(run("linerate.frame_size(-1)"));
}

/* linerate.solve{}: the document of linerate solve --json, nil and the
 * pair to measure when undetermined, errors for bad arguments. */
static void
solve_returns_the_document(void **state)
{
	char path[] = "/tmp/lr_solve_lua_XXXXXX", code[1536];
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	(void)state;
	/* a = 1000, b = 2000, c = 3000 ns, h = 100 ns: bc from a file */
	fputs("b,c,10200\nb,c,10200\n", f);
	fclose(f);
	snprintf(code, sizeof(code),
		 "local r = assert(linerate.solve{files = {'%s'}, hw = 100,\n"
		 "  samples = {{'a', 'b', 6200}, {'a', 'b', 6200},\n"
		 "             {'a', 'c', 8200}, {'c', 'a', 8200}}})\n"
		 "assert(r.rank == 3 and r.unknowns == 3, r.rank)\n"
		 "assert(math.abs(r.devices.c.mean_ns - 3000) < 1e-6)\n"
		 "assert(math.abs(r.devices.a.ci95_mean_ns[2] - 1000) < 1e-6)\n"
		 "assert(#r.pairs == 3 and r.pairs[3].samples == 2, #r.pairs)\n"
		 "assert(r.pairs[1].a == 'b' and r.verdict == 'ok')\n"
		 /* three pairs, three unknowns: residuals 0 by
		  * construction are none, and the model is unchecked */
		 "assert(r.pairs[1].residual_ns == nil and not r.pairs[1].checked)\n"
		 "assert(not r.model_checked and\n"
		 "       r.check_pair[1] == r.check_pair[2], r.unchecked_why)\n"
		 "local x, err = linerate.solve{samples = {{'a', 'b', 10}}}\n"
		 "assert(x == nil and err:find('measure the pair a,a'), err)\n"
		 "r = assert(linerate.solve{reference = {a = 1000}, samples = {\n"
		 "  {'a', 'b', 6200}, {'b', 'c', 10200}, {'a', 'c', 8200}}})\n"
		 "assert(r.hw_solved and math.abs(r.hw_ns - 100) < 1e-6)\n",
		 path);
	assert_null(run(code));
	assert_non_null(strstr(run("linerate.solve{samples = {{'a', 'b'}}}"),
			       "want {{a, b, rtt_ns}"));
	assert_non_null(strstr(run("linerate.solve{files = {'/nonexistent'}}"),
			       "/nonexistent"));
	assert_non_null(strstr(run("linerate.solve{hw = -1, samples = {}}"),
			       "hw"));
	unlink(path);
}

/*
 * A bad self in task:stats() (gen.stats() for gen:stats()) raised with the
 * engine lock held: the next stats call spun for ever. The alarm ends a
 * test that hangs so (SIGALRM's default action fails the executable).
 */
static void
stats_error_releases_lock(void **state)
{
	(void)state;
	alarm(20);
	lr_engine_stop();	/* the lcore, free of earlier tests' tasks */
	assert_null(run("local a = assert(linerate.wire())\n"
			"T = assert(linerate.task{role='gen', port=a, count=10})\n"
			"local ok, e = pcall(T.stats, nil)\n"
			"assert(not ok and e:find('linerate.task expected'), e)\n"
			"assert(not pcall(T.stats))\n"
			"linerate.start()\n"
			"assert(T:wait(10))\n"
			"assert(T:stats().tx_packets == 10)\n"
			"assert(linerate.results().totals.tx_packets >= 10)\n"));
	alarm(0);
}

/* NaN passed every "< 0" check: sleep(0/0) slept for ever, duration = 0/0
 * was taken. Every time from Lua is finite and >= 0. */
static void
times_must_be_finite(void **state)
{
	static const char *const bad[] = {
		"linerate.sleep(0/0)", "linerate.sleep(1/0)", "linerate.sleep(-1)",
		"linerate.wait(0/0)", "linerate.wait(-1/0)",
		"linerate.task{role='gen', port=W, duration=0/0}",
		"linerate.task{role='gen', port=W, duration=1/0}",
		"linerate.task{role='gen', port=W, duration=-1}",
		"T:wait{idle=0/0}", "T:wait(1/0)", "T:wait{timeout=-1}",
	};
	unsigned int i;
	const char *e;

	(void)state;
	alarm(20);
	lr_engine_stop();	/* the lcore, free of earlier tests' tasks */
	/* T: stats_error_releases_lock's task; a new gen's pool would not
	 * fit in the test's 256 MB. */
	assert_null(run("W = assert(linerate.wire()) assert(T)"));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		e = run(bad[i]);
		if (e == NULL)
			fail_msg("accepted: %s", bad[i]);
		if (strstr(e, "NaN") == NULL && strstr(e, "infinite") == NULL &&
		    strstr(e, "negative") == NULL && strstr(e, "seconds >= 0") == NULL)
			fail_msg("%s: %s", bad[i], e);
	}
	lr_engine_stop();
	alarm(0);
}

/* Both took data_size and dropped size without a word. */
static void
size_and_data_size_exclude(void **state)
{
	const char *e;

	(void)state;
	e = run("W = W or assert(linerate.wire())\n"
		"linerate.task{role='gen', port=W, size=64, data_size=1000}");
	assert_non_null(e);
	assert_non_null(strstr(e, "size and data-size exclude each other"));
}

/* linerate.json: Lua values as JSON text, read back by jansson. */
static void
json_encodes_tables(void **state)
{
	char path[] = "/tmp/lr_json_lua_XXXXXX", code[512];
	json_error_t err;
	const char *e;
	json_t *doc;
	int fd = mkstemp(path);

	(void)state;
	close(fd);
	e = run(
		"local s = linerate.json({1, 2.5, 'x', true})\n"
		"assert(s == '[1,2.5,\"x\",true]', s)\n"
		"s = linerate.json({b = {c = {}}, a = 0/0, [3] = 'n'})\n"
		"assert(s == '{\"3\":\"n\",\"a\":null,\"b\":{\"c\":{}}}', s)\n"
		"local t = {}; t.self = t\n"
		"local x, e = linerate.json(t)\n"
		"assert(x == nil and e:find('64 deep'), e)\n"
		"x, e = linerate.json({f = print})\n"
		"assert(x == nil and e:find('only nil'), e)\n"
		"assert(linerate.json({}) == '{}')\n"
		/* Escaped as JSON, not as Lua's %q ("\9"); a NUL inside a
		 * string kept (it ended the string); bytes that are not
		 * UTF-8 said as such (not "out of memory"). */
		"s = linerate.json({'a\"\\t\\n\\1\\0b \\194\\181'})\n"
		"assert(s == '[\"a\\\\\"\\\\t\\\\n\\\\u0001\\\\u0000b \\194\\181\"]', s)\n"
		"x, e = linerate.json({'\\255'})\n"
		"assert(x == nil and e:find('not UTF%-8'), e)\n");
	if (e != NULL)
		fail_msg("%s", e);
	snprintf(code, sizeof(code),
		 "assert(linerate.json({n = 3, v = {1, 2}}, '%s'))\n"
		 "local x, e = linerate.json({}, '/nonexistent/dir/f.json')\n"
		 "assert(x == nil and e:find('cannot write'), e)\n", path);
	assert_null(run(code));
	doc = json_load_file(path, 0, &err);
	unlink(path);
	assert_non_null(doc);
	assert_int_equal(json_integer_value(json_object_get(doc, "n")), 3);
	assert_int_equal(json_array_size(json_object_get(doc, "v")), 2);
	json_decref(doc);
}

/* testbed.bps(), the scenarios' speeds, is port --speed's parser. */
static void
bps_is_the_speed_parser(void **state)
{
	(void)state;
	assert_null(run("package.path = '" LR_SOURCE_ROOT "/lua/lib/?.lua;' .. package.path\n"
		"local testbed = require('testbed')\n"
		"for s, want in pairs{ ['10G'] = 1e10, ['10g'] = 1e10, ['10Gbps'] = 1e10,\n"
		"    ['2.5G'] = 2.5e9, ['100mbit'] = 1e8, ['1T'] = 1e12, ['10 G'] = false,\n"
		"    ['10 G b'] = false, ['-1G'] = false, ['0x10G'] = false,\n"
		"    ['1e999'] = false, [''] = false, ['10Q'] = false } do\n"
		"  local c = linerate.parse_bps(s)\n"
		"  assert((c or false) == want, s .. ': C ' .. tostring(c))\n"
		"  assert(testbed.bps(s) == c, s .. ': testbed ' .. tostring(testbed.bps(s)))\n"
		"end\n"
		"assert(testbed.bps(4e10) == 4e10)\n"));
}

static int
setup(void **state)
{
	(void)state;
	if (lr_test_eal_init("lua") != 0)
		return -1;
	lr_role_register(&lr_gen_role);
	lr_role_register(&lr_rx_role);
	L = luaL_newstate();
	luaL_openlibs(L);
	luaL_requiref(L, "linerate", luaopen_linerate, 1);
	return 0;
}

static int
teardown(void **state)
{
	lua_close(L);
	return lr_test_teardown(state);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wrong_types_raise),
		cmocka_unit_test(failures_return_nil_and_cause),
		cmocka_unit_test(scenario_moves_packets),
		cmocka_unit_test(size_arithmetic),
		cmocka_unit_test(solve_returns_the_document),
		cmocka_unit_test(stats_error_releases_lock),
		cmocka_unit_test(times_must_be_finite),
		cmocka_unit_test(size_and_data_size_exclude),
		cmocka_unit_test(json_encodes_tables),
		cmocka_unit_test(bps_is_the_speed_parser),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
