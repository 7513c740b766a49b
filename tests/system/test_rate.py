#!/usr/bin/env python3
"""Results you can trust: a paced rate that falls short is flagged and makes
the run fail (exit 3), and a gen whose port stops taking frames (its memif
peer killed) ends with a message and exit 4 instead of waiting for ever.

Nothing here asserts that this machine reached a rate: the short runs ask
for what no core can give (1000 Mpps on net_null, or four busy lcores on one
CPU), and the rest checks that the flag agrees with the counters."""
import os
import signal
import subprocess
import time

from lrtest import (SRC, eal, expect, load_json, main, memif, run, start,
                    tmpdir, wait_for)

# net_null says 10G; 1000G lets gen accept a rate no core comes near.
IMPOSSIBLE = ["--speed", "1000G", "--rate", "1000Mpps"]


def consistent(t):
    """The verdict of a paced gen task agrees with its own counters."""
    expect(t["tx_packets"] <= t["rate_pps"] * t["send_s"] + 1, t)
    expect(abs(t["offered"] - t["tx_packets"] / (t["rate_pps"] * t["send_s"]))
           < 1e-6, t)
    expect(t["short"] == (t["offered"] < t["rate_tolerance"]), t)
    expect(t["verdict"] == ("short" if t["short"] else "ok"), t)


def test_short_rate_exits_3():
    d = tmpdir()
    out = os.path.join(d, "r.json")
    r = run(eal("rate1") + ["--", "--role", "gen", "--port", "net_null0",
                            "--duration", "1.5", "--json", out, "--live"] +
            IMPOSSIBLE)
    expect(r.returncode == 3, "rc %d %s" % (r.returncode, r.stderr[-500:]))
    expect("rate short: offered" in r.stderr and "net_null0 queue 0" in r.stderr,
           r.stderr)
    expect("SHORT" in r.stdout, r.stdout)	# the live line
    doc = load_json(out)
    t = doc["tasks"][0]
    expect(doc["verdict"] == "short" and t["short"] and t["offered"] < 0.5, t)
    expect(t["late_packets"] > 0 and "rate short" in t["verdict_why"], t)
    consistent(t)


def test_allow_short_exits_0_still_flagged():
    d = tmpdir()
    out = os.path.join(d, "r.json")
    r = run(eal("rate2") + ["--", "--role", "gen", "--port", "net_null0",
                            "--duration", "0.3", "--json", out, "--no-live",
                            "--allow-short"] + IMPOSSIBLE)
    expect(r.returncode == 0, "rc %d %s" % (r.returncode, r.stderr[-500:]))
    expect("rate short" in r.stderr, r.stderr)
    doc = load_json(out)
    expect(doc["verdict"] == "short" and doc["tasks"][0]["short"], doc["tasks"])


def test_tolerance_option():
    # A tolerance of 0 % never flags; the document says what it was.
    d = tmpdir()
    out = os.path.join(d, "r.json")
    r = run(eal("rate3") + ["--", "--role", "gen", "--port", "net_null0",
                            "--duration", "0.3", "--json", out, "--no-live",
                            "--rate-tolerance", "0"] + IMPOSSIBLE)
    expect(r.returncode == 0, "rc %d %s" % (r.returncode, r.stderr[-500:]))
    t = load_json(out)["tasks"][0]
    expect(t["rate_tolerance"] == 0 and not t["short"] and t["verdict"] == "ok", t)
    r = run(eal("rate3") + ["--", "--role", "gen", "--port", "net_null0",
                            "--rate-tolerance", "120", "--count", "1"])
    expect(r.returncode == 2 and "rate-tolerance" in r.stderr, r.stderr)


def test_lcores_sharing_a_cpu():
    # 1 Mpps over 4 queues whose lcores EAL put on one CPU: each polls a
    # quarter of the time at most, so each task falls short; say why.
    d = tmpdir()
    out = os.path.join(d, "r.json")
    r = run(eal("rate4", lcores="0@0,(1-4)@1") +
            ["--", "--role", "gen", "--port", "net_null0", "--queues", "4",
             "--flows", "4", "--rate", "1Mpps", "--duration", "1", "--json", out,
             "--no-live"])
    expect(r.returncode == 3, "rc %d %s" % (r.returncode, r.stderr[-500:]))
    expect("shares a CPU with lcore" in r.stderr, r.stderr)
    tasks = load_json(out)["tasks"]
    expect(len(tasks) == 4, tasks)
    for t in tasks:
        expect(abs(t["rate_pps"] - 250000) < 1e-6, t)	# each its quarter
        consistent(t)
    expect(any(t["short"] for t in tasks), tasks)


def test_on_time_run_consistent():
    # A modest rate: whether or not the machine let it keep up, the exit
    # code follows the verdict and the verdict the counters.
    d = tmpdir()
    out = os.path.join(d, "r.json")
    r = run(eal("rate5") + ["--", "--role", "gen", "--port", "net_null0",
                            "--rate", "100k", "--count", "20000", "--json", out,
                            "--no-live"])
    doc = load_json(out)
    t = doc["tasks"][0]
    expect(t["tx_packets"] == 20000, t)
    consistent(t)
    expect(r.returncode == (3 if t["short"] else 0),
           "rc %d %s" % (r.returncode, t))


def finish(p, timeout):
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        raise AssertionError("did not end in %d s: %s" % (timeout, err[-500:]))
    return p.returncode, out, err


def test_memif_peer_killed():
    # gen over memif to an rx process that is killed mid-run: gen ends by
    # itself, says which port stopped and how much was sent, exits 4.
    # Paced, so that its lcore is rarely inside the memif PMD's tx: DPDK
    # 22.11's memif unmaps its rings on the interrupt thread when the peer
    # goes, and a tx burst running at that moment faults (seen about one
    # run in eight unpaced; the PMD's race, not one this test is about).
    d = tmpdir()
    sock = os.path.join(d, "memif.sock")
    gen_json = os.path.join(d, "gen.json")
    n = 1000000000
    procs = []
    try:
        rx = start(eal("pkrx") + ["--", "--role", "rx", "--port",
                   memif(sock, "server"),
                   "--link-timeout", "30", "--no-live"])
        procs.append(rx)
        wait_for(sock)
        gen = start(eal("pkgen") + ["--", "--role", "gen", "--port",
                    memif(sock, "client"),
                    "--count", str(n), "--rate", "10k", "--link-timeout", "30",
                    "--json", gen_json, "--live"])
        procs.append(gen)
        # Until gen is sending (its live line), then kill the receiver.
        deadline = time.time() + 30
        while time.time() < deadline and gen.poll() is None:
            line = gen.stdout.readline()
            if "Mpps" in line and "tx    0.000" not in line:
                break
        expect(gen.poll() is None, "gen ended before the peer was killed")
        rx.send_signal(signal.SIGKILL)
        rx.wait(timeout=10)
        rc, out, err = finish(gen, 30)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    expect(rc == 4, "rc %d %s" % (rc, err[-800:]))
    expect("link down" in err or "peer not receiving" in err, err[-800:])
    expect(("of %d sent" % n) in err and "net_memif0" in err, err[-800:])
    doc = load_json(gen_json)
    t = doc["tasks"][0]
    expect(doc["verdict"] == "failed" and t["verdict"] == "failed", t)
    expect(0 < t["tx_packets"] < n, t)


def pcap_with_gap(path, gap_s, frames=2):
    """@p frames UDP frames of 64 B @p gap_s seconds apart (a classic
    capture, us stamps)."""
    import struct
    frame = bytes(12) + b"\x08\x00" + bytes(46)
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i in range(frames):
            us = round(i * gap_s * 1e6)
            f.write(struct.pack("<IIII", us // 1000000, us % 1000000, len(frame),
                                len(frame)) + frame)


SLOT_LUA = """
linerate.live(false)
local t, e = linerate.task{ role = "gen", port = linerate.wire("rs1"), rate = 1e-300 }
print("TASK", t ~= nil, e)
local g = assert(linerate.task{ role = "gen", port = assert(linerate.port("net_null0")),
                                rate = 1000, duration = 0.3 })
linerate.start()
local ok
ok, e = pcall(g.set, g, { rate = 1e-300 })
print("SET", ok, e)
ok, e = pcall(g.set, g, { rate = "1e-12bps" })
print("SET", ok, e)
assert(g:wait(10))
linerate.stop()
"""


def test_rate_too_low_to_schedule():
    """A rate whose slot passes what a schedule holds (1e8 s) is refused,
    not sent unpaced (issue 35 H1): --rate at parsing (exit 2), the Lua
    task and set{} with an error, a replay's multiplier at the start."""
    gen = eal("rate7") + ["--", "--role", "gen", "--port", "net_null0", "--no-live"]
    for rate in ("1e-300", "1e-10", "1e-300%", "1e-12bps"):
        r = run(gen + ["--rate", rate, "--duration", "1"], timeout=30)
        lines = r.stderr.strip().splitlines()
        expect(r.returncode == 2 and len(lines) == 1 and
               "too low to schedule" in lines[0], (rate, r.returncode, r.stderr[-400:]))
    # The slowest rate that fits still runs, paced: one frame in 0.2 s.
    d = tmpdir()
    out = os.path.join(d, "slow.json")
    r = run(gen + ["--rate", "1e-7", "--duration", "0.2", "--json", out], timeout=30)
    expect(r.returncode == 0, r.stderr[-400:])
    t = load_json(out)["tasks"][0]
    expect(t["tx_packets"] == 1 and t["offered"] >= 0 and t["send_s"] > 0, t)
    # A capture's gap of 2^30 s over multiplier 0.001: a slot of 1e12 s.
    cap = os.path.join(d, "gap.pcap")
    pcap_with_gap(cap, 1 << 30)
    r = run(eal("rate7") + ["--", "--role", "gen", "--port", "net_null0", "--no-live",
                            "--pcap", cap, "--multiplier", "0.001", "--duration", "1"],
            timeout=30)
    expect(r.returncode == 1 and "too low to schedule" in r.stderr, r.stderr[-400:])
    path = os.path.join(d, "slot.lua")
    with open(path, "w") as f:
        f.write(SLOT_LUA)
    r = run(eal("rate7") + ["--", path], timeout=30)
    expect(r.returncode == 0, r.stderr[-400:])
    got = [l for l in r.stdout.splitlines() if l.startswith(("TASK", "SET"))]
    expect(len(got) == 3 and all("false" in l and "too low to schedule" in l
                                 for l in got), r.stdout)


def test_short_count_runs_on_time():
    """A paced run that ends by its count is over when its last frame
    went out, not some microseconds of polls later: 1000 frames at 1 Mpps
    (a built gen, and a replay of 1 us gaps) are not "short" for a fixed
    tail in the window (issue 35 L5: offered 99.6 %, no frame late, every
    run). A host's stall of a microsecond at the end of a 1 ms run may
    still make a run short, and that is a true answer (its last frame went
    out late): so the test asks for one run on time in ten, which the
    fixed tail of polls never gave."""
    d = tmpdir()
    cap = os.path.join(d, "us.pcap")
    pcap_with_gap(cap, 1e-6, frames=100)
    out = os.path.join(d, "c.json")
    for opts in (["--count", "1000", "--rate", "1Mpps"],
                 ["--pcap", cap, "--loops", "10"]):
        tries = 0
        while tries < 10:
            tries += 1
            r = run(eal("rate8") + ["--", "--role", "gen", "--port", "net_null0",
                                    "--no-live", "--allow-short", "--json", out] + opts)
            expect(r.returncode == 0, r.stderr[-400:])
            t = load_json(out)["tasks"][0]
            expect(t["tx_packets"] == 1000, t)
            if not t["short"]:
                break
        expect(not t["short"], (opts, tries, t))


if __name__ == "__main__":
    main([test_short_rate_exits_3, test_allow_short_exits_0_still_flagged,
          test_tolerance_option, test_lcores_sharing_a_cpu,
          test_on_time_run_consistent, test_memif_peer_killed,
          test_rate_too_low_to_schedule, test_short_count_runs_on_time])
