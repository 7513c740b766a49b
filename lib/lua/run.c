/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The runner of scenario scripts: a Lua state with the linerate module,
 * print() to where human output goes, os.exit(), os.execute() and
 * os.tmpname() that let the run end in order, require() paths, and Ctrl-C
 * that stops the script at its next Lua step.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>
#include <rte_common.h>

#include "lr_cleanup.h"
#include "lr_common.h"
#include "lr_lua.h"
#include "lr_out.h"
#include "lua_internal.h"

static lua_State *running_L;
static volatile sig_atomic_t was_interrupted;

/*
 * The error object of an interrupt: a light userdata, not a string, so that
 * it reads as no message of the script's own, and lr_lua_run() knows it.
 */
static char interrupt_key;

static bool interrupt_raised;	/* the script is unwinding from it */

int
lr_lua_raise_interrupt(lua_State *L)
{
	interrupt_raised = true;
	lua_pushlightuserdata(L, &interrupt_key);
	return lua_error(L);
}

int
lr_lua_fail(lua_State *L)
{
	/* A C call cut short by Ctrl-C (the link wait) ends the script, not
	 * only that call: the caller would take nil for a port that is down. */
	if (was_interrupted)
		return lr_lua_raise_interrupt(L);
	luaL_pushfail(L);
	lua_pushstring(L, lr_errmsg());
	return 2;
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
	lr_lua_raise_interrupt(L);
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
 * os.execute([command]): Lua's, but for signals. glibc's system() ignores
 * SIGINT and SIGQUIT in the caller while the command runs: a Ctrl-C went
 * to the command alone and the script went on, and a kill -INT of
 * linerate was lost (issue 35 M4). Here the shell is spawned in a process
 * group of its own and waited for with linerate's handler in place: a
 * first signal during the wait is passed on to the command's whole group
 * (SIGINT, then SIGKILL after EXECUTE_GRACE_MS: a shell waiting for its
 * child would outlive a signal to itself), the shell is reaped, and the
 * script ends as it ends at a Ctrl-C (130); a second one ends the process
 * at once (137). A command run once the script is already stopping (a
 * <close> handler's cleanup) runs to its end.
 */
#define EXECUTE_GRACE_MS 1000

extern char **environ;

/* The process group of the command os.execute() waits for, 0: none. */
static volatile sig_atomic_t execute_pgid;

void
lr_lua_kill_command(void)
{
	pid_t pg = execute_pgid;

	if (pg > 0)
		kill(-pg, SIGKILL);
}

static int
l_os_execute(lua_State *L)
{
	const char *cmd = luaL_optstring(L, 1, NULL);
	char *args[] = { (char *)(uintptr_t)"sh", (char *)(uintptr_t)"-c",
			 (char *)(uintptr_t)cmd, NULL };
	bool stopping = was_interrupted;
	unsigned int waited = 0;
	posix_spawnattr_t attr;
	pid_t pid, got;
	int st = 0, ret;

	if (cmd == NULL) {	/* is a shell there? */
		lua_pushboolean(L, access("/bin/sh", X_OK) == 0);
		return 1;
	}
	fflush(NULL);
	ret = posix_spawnattr_init(&attr);
	if (ret == 0)
		ret = posix_spawnattr_setpgroup(&attr, 0);
	if (ret == 0)
		ret = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	if (ret == 0)
		ret = posix_spawn(&pid, "/bin/sh", NULL, &attr, args, environ);
	posix_spawnattr_destroy(&attr);
	if (ret != 0) {
		errno = ret;
		return luaL_execresult(L, -1);
	}
	execute_pgid = pid;
	for (;;) {
		got = waitpid(pid, &st, 0);
		if (got == pid)
			break;
		if (got < 0 && errno != EINTR) {
			execute_pgid = 0;
			return luaL_execresult(L, -1);
		}
		if (stopping || !was_interrupted)
			continue;
		/* Interrupted meanwhile: the command goes too, with what
		 * it started. */
		kill(-pid, SIGINT);
		while ((got = waitpid(pid, &st, WNOHANG)) == 0 &&
		       waited < EXECUTE_GRACE_MS) {
			usleep(10000);
			waited += 10;
		}
		kill(-pid, SIGKILL);
		if (got == 0)
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
		execute_pgid = 0;
		return lr_lua_raise_interrupt(L);
	}
	execute_pgid = 0;
	if (!stopping && was_interrupted)
		return lr_lua_raise_interrupt(L);
	errno = 0;	/* luaL_execresult() takes errno for a failure */
	return luaL_execresult(L, st);
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

/* The source tree's lua/ (the build tree's binary runs with it), and
 * where meson install puts the binary and lua/ (meson.build). */
#ifndef LR_LUA_DIR
#define LR_LUA_DIR "/usr/share/linerate/lua"
#endif
#ifndef LR_INSTALL_BINDIR
#define LR_INSTALL_BINDIR "/usr/bin"
#endif
#ifndef LR_INSTALL_LUA_DIR
#define LR_INSTALL_LUA_DIR "/usr/share/linerate/lua"
#endif

const char *
lr_lua_install_dir(void)
{
	return LR_INSTALL_LUA_DIR;
}

/*
 * LINERATE_LUA_DIR if set; else, for a binary in its installed place
 * (PREFIX/bin/linerate, or the same under another root: ROOT/PREFIX/bin,
 * as meson install --destdir or a package's staging tree puts it), the
 * lua/ installed beside it under the same root; else (the build tree's
 * binary) the source tree's.
 */
const char *
lr_lua_dir(void)
{
	static char dir[PATH_MAX];
	char exe[PATH_MAX];
	const char *env = getenv("LINERATE_LUA_DIR");
	size_t nb = strlen(LR_INSTALL_BINDIR), ne;
	ssize_t n;
	char *slash;

	if (env != NULL && env[0] != '\0')
		return env;
	if (dir[0] != '\0')
		return dir;
	snprintf(dir, sizeof(dir), "%s", LR_LUA_DIR);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return dir;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash == NULL)
		return dir;
	*slash = '\0';
	ne = strlen(exe);
	if (ne >= nb && strcmp(exe + ne - nb, LR_INSTALL_BINDIR) == 0) {
		exe[ne - nb] = '\0';	/* the root: "" or the staging tree */
		snprintf(dir, sizeof(dir), "%s%s", exe, LR_INSTALL_LUA_DIR);
	}
	return dir;
}

/* require() looks beside the script and in its lib/ first, then in
 * linerate's own lua/ and lua/lib/, so that a user's script in a directory
 * of its own finds the scenarios' modules (require("testbed")). */
static void
set_path(lua_State *L, const char *script)
{
	const char *slash = strrchr(script, '/');
	int dirlen = slash ? (int)(slash - script) : 1;
	const char *dir = slash ? script : ".";
	const char *own = lr_lua_dir();

	lua_getglobal(L, "package");
	lua_pushlstring(L, dir, (size_t)dirlen);
	lua_pushliteral(L, "/?.lua;");
	lua_pushlstring(L, dir, (size_t)dirlen);
	lua_pushfstring(L, "/lib/?.lua;%s/?.lua;%s/lib/?.lua;", own, own);
	lua_getfield(L, -5, "path");
	lua_concat(L, 5);
	lua_setfield(L, -2, "path");
	lua_pop(L, 1);
}

/* A script named without a directory that is not here is one of
 * linerate's own: "rfc2544" or "rfc2544.lua" is lr_lua_dir()/rfc2544.lua,
 * so that a scenario runs by its name (linerate ... -- rfc2544 dut=...). */
static const char *
find_script(const char *script, char *buf, size_t len)
{
	size_t n = strlen(script);

	if (strchr(script, '/') != NULL || access(script, F_OK) == 0)
		return script;
	snprintf(buf, len, "%s/%s%s", lr_lua_dir(), script,
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
	lua_pushcfunction(L, l_os_execute);
	lua_setfield(L, -2, "execute");
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
