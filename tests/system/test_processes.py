#!/usr/bin/env python3
"""Two linerate processes over net_memif, telemetry read from a running
instance, and a clean stop on SIGINT/SIGTERM."""
import json
import os
import shutil
import signal
import socket
import subprocess
import time

from lrtest import (eal, expect, load_json, main, memif, run, start, tmpdir,
                    wait_for)


def finish(p, timeout=30):
    try:
        out, err = p.communicate(timeout=timeout)
    except Exception:
        p.kill()
        out, err = p.communicate()
        raise AssertionError("process did not end: " + err[-500:])
    return p.returncode, out, err


def test_memif_gen_to_rx():
    d = tmpdir()
    sock = os.path.join(d, "memif.sock")
    rx_json, gen_json = os.path.join(d, "rx.json"), os.path.join(d, "gen.json")
    n = 500000
    rx = start(eal("memrx") + ["--", "--role", "rx", "--port",
               memif(sock, "server"),
               "--count", str(n), "--link-timeout", "30", "--json", rx_json,
               "--no-live"])
    try:
        wait_for(sock)
        gen = start(eal("memgen") + ["--", "--role", "gen", "--port",
                    memif(sock, "client"),
                    "--count", str(n), "--flows", "64", "--link-timeout", "30",
                    "--json", gen_json, "--no-live"])
        rc, _, err = finish(gen)
        expect(rc == 0, "gen: " + err[-500:])
        rc, _, err = finish(rx)
        expect(rc == 0, "rx: " + err[-500:])
    finally:
        rx.kill()
    g, r = load_json(gen_json)["tasks"][0], load_json(rx_json)["tasks"][0]
    expect(g["tx_packets"] == n, g)
    expect(r["rx_packets"] == n and r["own_packets"] == n, r)


def test_memif_jumbo_mixed_exact():
    """Jumbo and shorter frames alternating over memif, MTU 9000 on both
    sides: every frame arrives once, in order. DPDK 22.11's memif chained
    unrelated frames when a jumbo frame spanned several of its 2 KiB
    buffers (received > sent, duplicates, losses); linerate now gives memif
    buffers that hold a whole frame and refuses ones that do not."""
    d = tmpdir()
    sock = os.path.join(d, "memif.sock")
    rx_json, gen_json = os.path.join(d, "rx.json"), os.path.join(d, "gen.json")
    n = 300000
    rx = start(eal("memjrx") + ["--", "--role", "rx", "--port",
               memif(sock, "server"),
               "--mtu", "9000", "--count", str(n), "--link-timeout", "30",
               "--json", rx_json, "--no-live"])
    try:
        wait_for(sock)
        gen = start(eal("memjgen") + ["--", "--role", "gen", "--port",
                    memif(sock, "client"),
                    "--mtu", "9000", "--size", "9018:1,1518:2,64:1",
                    "--count", str(n), "--flows", "16", "--link-timeout", "30",
                    "--json", gen_json, "--no-live"])
        rc, _, err = finish(gen, timeout=120)
        expect(rc == 0, "gen: " + err[-500:])
        rc, _, err = finish(rx, timeout=60)
        expect(rc == 0, "rx: " + err[-500:])
    finally:
        rx.kill()
        if 'gen' in locals():
            gen.kill()
    g, r = load_json(gen_json)["tasks"][0], load_json(rx_json)["tasks"][0]
    expect(g["tx_packets"] == n, g)
    expect(r["rx_packets"] == n and r["own_packets"] == n and
           r["received"] == n, r)
    expect(r["lost"] == 0 and r["dup"] == 0 and r["out_of_order"] == 0 and
           r["malformed_packets"] == 0 and r["late"] == 0, r)
    expect(r["rx_bytes"] == g["tx_bytes"], (r["rx_bytes"], g["tx_bytes"]))


def test_memif_small_buffers_refused():
    """A memif port whose buffers cannot hold its MTU's frames is refused
    with the bsize to use, before anything is sent."""
    d = tmpdir()
    r = run(eal("memsmall") + ["--", "--role", "gen", "--port",
            "net_memif0,role=server,socket=%s,socket-abstract=no,bsize=2048"
            % os.path.join(d, "s.sock"), "--mtu", "9000", "--count", "10",
            "--no-live"], timeout=60)
    expect(r.returncode == 1 and "bsize=9088" in r.stderr, r.stderr)


def telemetry(path, cmd):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(path)
    json.loads(s.recv(16384))		# greeting
    s.send(cmd.encode())
    reply = json.loads(s.recv(65536))
    s.close()
    return reply[cmd.split(",")[0]]


def test_telemetry_and_sigterm():
    d = tmpdir()
    out = os.path.join(d, "r.json")
    args = eal("tel")
    prefix = args[args.index("--file-prefix") + 1]
    path = "/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix
    # --live: stdout is a pipe here, which has no live line by default.
    p = start(args + ["--", "--role", "gen", "--port", "net_null0", "--rate", "1M",
                      "--json", out, "--live"])
    try:
        for _ in range(100):
            if os.path.exists(path):
                break
            time.sleep(0.1)
        time.sleep(0.5)
        a = telemetry(path, "/linerate/stats")
        time.sleep(0.3)
        b = telemetry(path, "/linerate/stats")
        expect(0 < a["tx_packets"] < b["tx_packets"], (a, b))
        t = telemetry(path, "/linerate/task,0")
        expect(t["role"] == "gen" and t["port_name"] == "net_null0", t)
        expect(telemetry(path, "/linerate/tasks") == [0], "tasks")
        time.sleep(1.2)
        p.send_signal(signal.SIGTERM)
        rc, stdout, err = finish(p)
    finally:
        p.kill()
    expect(rc == 130, "rc %d %s" % (rc, err[-300:]))
    expect("Mpps" in stdout and "Gb/s L1" in stdout, stdout)	# live line
    doc = load_json(out)
    expect(doc["tasks"][0]["state"] == "done", doc["tasks"][0])
    expect(doc["totals"]["tx_packets"] >= b["tx_packets"], doc["totals"])


def test_sigint_stops_a_script():
    d = tmpdir()
    script = os.path.join(d, "forever.lua")
    with open(script, "w") as f:
        f.write("local a, b = linerate.wire()\n"
                "linerate.task{role='gen', port=a}\nlinerate.task{role='rx', port=b}\n"
                "linerate.start()\nwhile true do end\n")
    out = os.path.join(d, "r.json")
    p = start(eal("int") + ["--", "--json", out, "--no-live", script])
    try:
        time.sleep(1.5)
        p.send_signal(signal.SIGINT)
        rc, _, err = finish(p, 20)
    finally:
        p.kill()
    expect(rc == 130 and "interrupted" in err, "rc %d %s" % (rc, err[-300:]))
    doc = load_json(out)
    expect(doc["totals"]["tx_packets"] > 0, doc["totals"])
    expect(all(t["state"] == "done" for t in doc["tasks"]), doc["tasks"])


def interrupt(args, ready, signals=1, wait=20):
    """Start linerate, SIGINT it once @p ready (a path) exists, i.e. once it
    is where the test wants it, however slow the machine; return (rc, stdout,
    stderr). The process is killed if it outlives @p wait seconds after."""
    p = start(args)
    try:
        for _ in range(600):
            if os.path.exists(ready) or p.poll() is not None:
                break
            time.sleep(0.05)
        if p.poll() is not None:
            raise AssertionError("ended before it was ready: " + p.stderr.read()[-300:])
        time.sleep(0.2)		# into the wait or the loop
        for i in range(signals):
            if i:
                time.sleep(0.5)
            p.send_signal(signal.SIGINT)
        return finish(p, wait)
    finally:
        p.kill()
        p.wait()


def test_sigint_during_link_wait():
    # A memif server with no peer waits --link-timeout for its link; the
    # wait ignored SIGINT and wrote no results.
    d = tmpdir()
    out = os.path.join(d, "r.json")
    sock = os.path.join(d, "a.sock")
    port = memif(sock, "server")
    rc, _, err = interrupt(eal("lwcli") + ["--", "--role", "rx", "--port", port,
                                           "--link-timeout", "30", "--json", out,
                                           "--no-live"], sock)
    expect(rc == 130 and "interrupted while waiting for link" in err,
           "rc %d %s" % (rc, err[-300:]))
    expect(load_json(out)["tasks"] == [], "results")
    # The same wait from a script, even inside pcall.
    script = os.path.join(d, "link.lua")
    with open(script, "w") as f:
        f.write("while true do\n"
                "  print(pcall(linerate.port, %r, {link_timeout = 30}))\n"
                "end\n" % port.replace("a.sock", "b.sock"))
    rc, _, err = interrupt(eal("lwlua") + ["--", "--no-live", script],
                           os.path.join(d, "b.sock"))
    expect(rc == 130 and "interrupted" in err, "rc %d %s" % (rc, err[-300:]))


def test_sigint_runs_close_handlers():
    # A script's <close> handlers (a testbed's peer, a DUT's namespace
    # removed) run when Ctrl-C ends it: the interrupt gives the unwinding
    # a grace before it raises again at every instruction.
    d = tmpdir()
    script = os.path.join(d, "guard.lua")
    ready, done = os.path.join(d, "ready"), os.path.join(d, "done")
    with open(script, "w") as f:
        f.write("""
local guard <close> = setmetatable({}, { __close = function()
	local f = assert(io.open(%r, "w")); f:write("x"); f:close()
end })
io.open(%r, "w"):close()
linerate.sleep(30)
""" % (done, ready))
    rc, _, err = interrupt(eal("intclose") + ["--", "--no-live", script], ready)
    expect(rc == 130, "rc %d %s" % (rc, err[-300:]))
    expect(os.path.exists(done), "the <close> handler did not run: " + err[-300:])


def test_sigint_is_not_caught_by_pcall():
    # pcall took the interrupt for a Lua error: a loop around it never ended.
    d = tmpdir()
    script = os.path.join(d, "loop.lua")
    ready = os.path.join(d, "ready")
    with open(script, "w") as f:
        f.write(("local a = linerate.wire()\n"
                 "linerate.task{role='gen', port=a}\nlinerate.start()\n"
                 "io.open(%r, 'w'):close()\n"
                 "while true do\n"
                 "  pcall(function() while true do end end)\n"
                 "  pcall(linerate.sleep, 0.01)\n"
                 "  xpcall(function() while true do end end, function(e) return e end)\n"
                 "end\n") % ready)
    out = os.path.join(d, "r.json")
    rc, _, err = interrupt(eal("pcall") + ["--", "--json", out, "--no-live", script],
                           ready)
    expect(rc == 130 and "interrupted" in err, "rc %d %s" % (rc, err[-300:]))
    doc = load_json(out)
    expect(doc["totals"]["tx_packets"] > 0, doc["totals"])
    expect(all(t["state"] == "done" for t in doc["tasks"]), doc["tasks"])


def test_second_sigint_exits_at_once():
    # A loop in a coroutine runs without the main thread's hook; whatever
    # ignores the first SIGINT, the second ends the process: 137, a forced
    # stop, not the orderly one's 130.
    d = tmpdir()
    script = os.path.join(d, "co.lua")
    ready = os.path.join(d, "ready")
    with open(script, "w") as f:
        f.write("io.open(%r, 'w'):close()\n"
                "coroutine.wrap(function() while true do end end)()\n" % ready)
    rc, _, err = interrupt(eal("twice") + ["--", "--no-live", script], ready,
                           signals=2)
    expect(rc == 137 and "second signal" in err, "rc %d %s" % (rc, err[-300:]))


def test_sigint_during_os_execute():
    """A SIGINT to linerate while a script waits in os.execute() ends the
    script (130) and the command with it; a second one ends the process
    (137), even when the command ignores SIGINT; a command a <close>
    handler runs once the script stops runs to its end (issue 35 M4:
    system() ignored SIGINT in the caller, both were lost, exit 0)."""
    d = tmpdir()
    ready, after, cleaned = (os.path.join(d, n) for n in ("ready", "after", "cleaned"))
    script = os.path.join(d, "exec.lua")
    with open(script, "w") as f:
        f.write("local ready, after, cleaned, cmd = ...\n"
                "local guard <close> = setmetatable({}, { __close = function()\n"
                "\tos.execute('sleep 0.3; touch ' .. cleaned)\nend })\n"
                "io.open(ready, 'w'):close()\n"
                "print(os.execute(cmd))\n"
                "io.open(after, 'w'):close()\n")
    t0 = time.time()
    rc, out, err = interrupt(eal("exec") + ["--", "--no-live", script, ready, after,
                                            cleaned, "sleep 30"], ready)
    expect(rc == 130 and not os.path.exists(after) and os.path.exists(cleaned) and
           time.time() - t0 < 15, (rc, out[-300:], err[-300:]))
    for n in (ready, cleaned):
        os.remove(n)
    rc, out, err = interrupt(eal("exec") + ["--", "--no-live", script, ready, after,
                                            cleaned, "trap '' INT; sleep 30"], ready,
                             signals=2)
    expect(rc == 137 and "second signal" in err and not os.path.exists(after),
           (rc, out[-300:], err[-300:]))


# A script whose <close> handler writes a large JSON document again and
# again (each write a C call of a good part of a second, which the
# interrupt does not cut), after it made Lua temporary files: a file, and
# a directory with a file in it, as lua/lib/dut.lua makes them. Their
# names go to NAMES, so that the test can look for them (and remove them
# whatever happens).
SLOW_CLOSE = """
local out, names, ready, writes = ...
local t = os.tmpname()
local dir = os.tmpname()
os.remove(dir)
os.execute("mkdir " .. dir .. " && touch " .. dir .. "/f")
local f = assert(io.open(names, "w")); f:write(t, "\\n", dir, "\\n"); f:close()
local big = {}
for i = 1, 600000 do big[i] = i end
local guard <close> = setmetatable({}, { __close = function()
	for i = 1, tonumber(writes) do assert(linerate.json(big, out)) end
	io.open(out .. ".done", "w"):close()
end })
io.open(ready, "w"):close()
linerate.sleep(60)
"""


def slow_close(d, name, writes):
    script = os.path.join(d, "slow.lua")
    with open(script, "w") as f:
        f.write(SLOW_CLOSE)
    out, names, ready = (os.path.join(d, n) for n in ("out.json", "names", "ready"))
    args = eal(name)
    runtime = "/var/run/dpdk/" + args[args.index("--file-prefix") + 1]
    p = start(args + ["--", "--no-live", script, out, names, ready, str(writes)])
    for _ in range(600):
        if os.path.exists(ready) or p.poll() is not None:
            break
        time.sleep(0.05)
    return p, out, names, runtime


def lua_temporaries(names):
    try:
        with open(names) as f:
            return [n for n in f.read().split("\n") if n]
    except OSError:
        return []


def remove_temporaries(names):
    for n in lua_temporaries(names):
        subprocess.run(["rm", "-rf", "--", n])


def whole_or_none(path, n):
    if not os.path.exists(path):
        return True
    with open(path) as f:
        try:
            return json.load(f) == list(range(1, n + 1))
        except ValueError:
            return False


def test_second_sigterm_from_another_sender_forces_a_clean_stop():
    # SIGTERM, then another from someone else (kill(1)) while the first
    # stop is still writing results: exit 137, the JSON whole or absent
    # (it was cut at 32 KB), no temporary file beside it, no EAL runtime
    # directory, no Lua temporary files (os.tmpname's /tmp/lua_*).
    d = tmpdir()
    p, out, names, runtime = slow_close(d, "force", 100)
    try:
        if p.poll() is not None:
            raise AssertionError("ended before it was ready: " + p.stderr.read()[-300:])
        p.send_signal(signal.SIGTERM)
        # The second once the first stop writes (a temporary file or the
        # document itself), however slow the machine.
        for _ in range(600):
            if os.path.exists(out) or any(n.endswith(".tmp") for n in os.listdir(d)):
                break
            time.sleep(0.01)
        subprocess.run(["kill", "-TERM", str(p.pid)], check=True)
        rc, _, err = finish(p, 30)
        temporaries = lua_temporaries(names)
        left = [t for t in temporaries if os.path.exists(t)]
    finally:
        p.kill()
        p.wait()
        remove_temporaries(names)
    expect(rc == 137 and "second signal" in err, "rc %d %s" % (rc, err[-300:]))
    expect(whole_or_none(out, 600000), "a truncated document: %d B" %
           (os.path.getsize(out) if os.path.exists(out) else -1))
    expect(not os.path.exists(out + ".done"), "the close handler was not cut short")
    left = [n for n in os.listdir(d) if n.endswith(".tmp")]
    expect(left == [], left)
    expect(not os.path.exists(runtime), runtime + " left behind")
    expect(len(temporaries) == 2 and left == [], "left behind: %s of %s" % (left, temporaries))


def test_a_repeated_signal_is_one_stop():
    # GNU timeout sends its signal to the process and then to its process
    # group: two SIGTERMs from one sender microseconds apart, both
    # delivered in about one run of six. That is one request, an orderly
    # stop: the close handler finishes, the document is whole, exit 130.
    # (Here 50 ms apart, so that both surely arrive, the first handled.)
    d = tmpdir()
    p, out, names, runtime = slow_close(d, "repeat", 3)
    try:
        if p.poll() is not None:
            raise AssertionError("ended before it was ready: " + p.stderr.read()[-300:])
        p.send_signal(signal.SIGTERM)
        time.sleep(0.05)
        p.send_signal(signal.SIGTERM)
        rc, _, err = finish(p, 60)
        temporaries = lua_temporaries(names)
        left = [t for t in temporaries if os.path.exists(t)]
    finally:
        p.kill()
        p.wait()
        remove_temporaries(names)
    expect(rc == 130 and "second signal" not in err, "rc %d %s" % (rc, err[-300:]))
    expect(os.path.exists(out + ".done"), "the close handler was cut short")
    expect(whole_or_none(out, 600000) and os.path.exists(out), "document")
    expect(not os.path.exists(runtime), runtime + " left behind")
    # An orderly end removes os.tmpname's files too.
    expect(len(temporaries) == 2 and left == [], "left behind: %s of %s" % (left, temporaries))


def test_forced_stop_removes_a_dut():
    # lua/lib/dut.lua's testpmd: its directory (an os.tmpname name) and its
    # EAL runtime directory (registered with linerate.cleanup_on_exit) go
    # with a forced stop too, and testpmd ends once its stdin closes.
    if shutil.which("dpdk-testpmd") is None:
        print("  skip: no dpdk-testpmd")
        return
    d = tmpdir()
    script, made, ready = (os.path.join(d, n) for n in ("pmd.lua", "made", "ready"))
    with open(script, "w") as f:
        f.write("""
local dut = require("dut")
local d <close> = dut.open("testpmd", { fwd = "io", cpu = 1 })
local f = assert(io.open(%r, "w"))
f:write(d.dir, "\\n", "/var/run/dpdk/" .. d.prefix, "\\n"); f:close()
io.open(%r, "w"):close()
while true do linerate.sleep(0.1) end
""" % (made, ready))
    # The script's own directory has no lib/: dut.lua from lua/lib.
    p = start(eal("fdut") + ["--", "--no-live", script])
    paths, tp = [], []
    try:
        for _ in range(600):
            if os.path.exists(ready) or p.poll() is not None:
                break
            time.sleep(0.05)
        if p.poll() is not None:
            raise AssertionError("ended before it was ready: " + p.stderr.read()[-500:])
        with open(made) as f:
            paths = f.read().split()
        tp = [int(c) for c in open("/proc/%d/task/%d/children" % (p.pid, p.pid)).read().split()]
        expect(len(tp) == 1 and all(os.path.exists(x) for x in paths), (tp, paths))
        # Both at once, while the process is stopped, so that the orderly
        # stop never begins: SIGINT first (the lower number), then SIGTERM.
        os.kill(p.pid, signal.SIGSTOP)
        os.kill(p.pid, signal.SIGTERM)
        os.kill(p.pid, signal.SIGINT)
        os.kill(p.pid, signal.SIGCONT)
        rc, _, err = finish(p, 30)
        t0 = time.time()
        for _ in range(600):		# testpmd ends on its stdin's EOF
            if not os.path.exists("/proc/%d" % tp[0]):
                break
            time.sleep(0.05)
        alive = os.path.exists("/proc/%d" % tp[0])
        print("  testpmd ended %.1f s after linerate" % (time.time() - t0))
        left = [x for x in paths if os.path.exists(x)]
    finally:
        p.kill()
        p.wait()
        for pid in tp:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for x in paths:
            subprocess.run(["rm", "-rf", "--", x])
    expect(rc == 137, "rc %d %s" % (rc, err[-300:]))
    expect(not alive, "testpmd %d still runs" % tp[0])
    expect(left == [], "left behind: %s" % left)


def test_forced_stop_removes_a_memif_socket():
    # A memif server's socket file is removed when its port closes, which
    # a forced stop never reaches; the next server on that path could not
    # bind it ("cannot create vdev"). It goes with the forced stop too.
    d = tmpdir()
    sock = os.path.join(d, "a.sock")
    rx = ["--", "--role", "rx", "--port", memif(sock, "server"), "--no-live",
          "--link-timeout", "30"]
    p = start(eal("fsock") + rx)
    try:
        wait_for(sock, 30)
        expect(os.path.exists(sock) and p.poll() is None, "no socket")
        os.kill(p.pid, signal.SIGSTOP)	# no orderly stop begins
        os.kill(p.pid, signal.SIGTERM)
        os.kill(p.pid, signal.SIGINT)
        os.kill(p.pid, signal.SIGCONT)
        rc, _, err = finish(p, 30)
    finally:
        p.kill()
        p.wait()
    expect(rc == 137, "rc %d %s" % (rc, err[-300:]))
    expect(not os.path.exists(sock), "socket left behind")
    # The same path serves again (a link-up wait cut short, said, and
    # a run of 0.1 s without the link).
    r = run(eal("fsock2") + rx[:-1] + ["0.1", "--duration", "0.1"], timeout=60)
    expect("cannot create vdev" not in r.stderr and "link" in r.stderr,
           "rc %d %s" % (r.returncode, r.stderr[-300:]))


if __name__ == "__main__":
    main([test_memif_gen_to_rx, test_memif_jumbo_mixed_exact,
          test_memif_small_buffers_refused, test_telemetry_and_sigterm, test_sigint_stops_a_script,
          test_sigint_during_link_wait, test_sigint_runs_close_handlers,
          test_sigint_is_not_caught_by_pcall,
          test_second_sigint_exits_at_once, test_sigint_during_os_execute,
          test_second_sigterm_from_another_sender_forces_a_clean_stop,
          test_a_repeated_signal_is_one_stop, test_forced_stop_removes_a_dut,
          test_forced_stop_removes_a_memif_socket])
