"""gen --pcap: a capture replayed, checked with rx, tshark and scapy.

What holds under any load: every frame of every loop is sent, byte for
byte as captured unless a rewrite was asked; stamped frames are accounted
by rx exactly (no loss, no reordering, the flows of the capture, new ones
each loop with loop-ip-step); every checksum stays valid (tshark); a frame
is never sent before its time at the capture's timing, and most gaps are
the capture's. How many gaps a stall of the machine disturbs is printed.
"""
import logging
import os
import select
import statistics
import subprocess

from lrtest import HostStalls, eal, expect, load_json, main, run, start, tmpdir

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)   # no MAC lookups
# An IPv6 frame's Ether() without dst makes scapy solicit the neighbour
# on the host's own network and wait 1 s for each frame (70 s of this test
# on a host whose eth0 is on fd00::/64): the frames' MAC is given.
NO_LOOKUP = "02:00:00:00:00:02"


def gen(name, port, *opts, json_out=None):
    args = eal(name) + ["--", "--role", "gen", "--port", port, "--no-live"] + list(opts)
    if json_out:
        args += ["--json", json_out]
    return run(args, timeout=120)


def rx_count(name, path):
    out = path + ".rx.json"
    r = run(eal(name) + ["--", "--role", "rx", "--port", "net_pcap0,rx_pcap=" + path,
                         "--latency", "0", "--no-live", "--json", out], timeout=60)
    expect(r.returncode == 0, r.stderr)
    return load_json(out)["rx"]


def frames(path):
    from scapy.all import rdpcap
    return rdpcap(path)


def tshark_bad_sums(path):
    r = subprocess.run(["tshark", "-r", path, "-o", "ip.check_checksum:TRUE",
                        "-o", "udp.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE",
                        "-T", "fields", "-e", "frame.number",
                        "-Y", "ip.checksum.status == 2 || udp.checksum.status == 2 || "
                        "tcp.checksum.status == 2"],
                       capture_output=True, text=True, timeout=120)
    expect(r.returncode == 0, r.stderr)
    return r.stdout.split()


def test_capture_of_gen_replayed_and_counted():
    d = tmpdir()
    src = os.path.join(d, "gen.pcap")
    r = gen("rpg", "net_pcap0,tx_pcap=" + src, "--count", "1200", "--flows", "12",
            "--size", "64,594,1518", "--udp-cksum", "1")
    expect(r.returncode == 0, r.stderr)
    orig = frames(src)
    expect(len(orig) == 1200, len(orig))

    # One loop, nothing rewritten: the same bytes, and rx counts the
    # original headers exactly.
    same = os.path.join(d, "same.pcap")
    r = gen("rp1", "net_pcap0,tx_pcap=" + same, "--pcap", src, "--rate", "max")
    expect(r.returncode == 0, r.stderr)
    out = frames(same)
    expect([bytes(p) for p in out] == [bytes(p) for p in orig], "frames differ")
    rx = rx_count("rp1r", same)
    expect((rx["received"], rx["lost"], rx["flows_seen"]) == (1200, 0, 12), rx)

    # Three loops stamped, each loop's sources 256 further on and a MAC
    # set: 36 flows, each in order, every checksum valid.
    loops = os.path.join(d, "loops.pcap")
    js = os.path.join(d, "g.json")
    r = gen("rp3", "net_pcap0,tx_pcap=" + loops, "--pcap", src, "--loops", "3",
            "--stamp", "1", "--loop-ip-step", "256", "--src-mac", "02:aa:00:00:00:07",
            "--rate", "max", json_out=js)
    expect(r.returncode == 0, r.stderr)
    t = load_json(js)["tasks"][0]
    expect((t["tx_packets"], t["loops_done"], t["stamped_packets"], t["pcap_frames"],
            t["flows"]) == (3600, 3, 3600, 1200, 12), t)
    rx = rx_count("rp3r", loops)
    expect((rx["received"], rx["lost"], rx["flows_seen"], rx["late"], rx["restarts"],
            rx["dup"], rx["out_of_order"]) == (3600, 0, 36, 0, 0, 0, 0), rx)
    expect(tshark_bad_sums(loops) == [], "bad checksums")
    out = frames(loops)
    from scapy.all import IP
    for k in range(3):
        part = out[k * 1200:(k + 1) * 1200]
        want = "10.0.%d.1" % k
        expect(all(p[IP].src == want for p in part), (k, part[0][IP].src))
        expect(all(p.src == "02:aa:00:00:00:07" for p in part), part[0].src)
        # Beyond the rewritten fields and the header (bytes 42..59), the
        # frames are the capture's: same lengths, same data after it.
        expect([len(p) for p in part] == [len(p) for p in orig], "lengths")
        expect(all(bytes(a)[60:] == bytes(b)[60:] for a, b in zip(part, orig)), "payload")


def test_ipv6_and_tcp_rewritten_with_valid_sums():
    from scapy.all import IP, TCP, UDP, Ether, IPv6, Raw, wrpcap
    d = tmpdir()
    src = os.path.join(d, "mix.pcap")
    pkts = []
    for i in range(40):
        pkts.append(Ether(dst=NO_LOOKUP) / IPv6(src="fd00::1", dst="fd00::2") /
                    UDP(sport=1000 + i % 4, dport=53) / Raw(bytes(range(30))))
        pkts.append(Ether() / IP(src="192.168.1.1", dst="192.168.1.2") /
                    TCP(sport=2000 + i % 3, dport=80) / Raw(b"x" * 20))
        pkts.append(Ether() / IP(src="192.168.1.1", dst="192.168.1.2") /
                    UDP(sport=5, dport=6) / Raw(b"short"))      # no room to stamp
    wrpcap(src, [Ether(bytes(p)) for p in pkts])
    out = os.path.join(d, "out.pcap")
    js = os.path.join(d, "g.json")
    r = gen("rp6", "net_pcap0,tx_pcap=" + out, "--pcap", src, "--loops", "2",
            "--stamp", "1", "--loop-ip-step", "1", "--rate", "max", json_out=js)
    expect(r.returncode == 0, r.stderr)
    t = load_json(js)["tasks"][0]
    expect((t["stamped_packets"], t["unstamped_packets"]) == (80, 160), t)
    expect(tshark_bad_sums(out) == [], "bad checksums")
    got = frames(out)
    expect(len(got) == 240, len(got))
    # Loop 0 as captured, loop 1 one address on.
    expect([p[IPv6].src for p in got if IPv6 in p] == ["fd00::1"] * 40 + ["fd00::2"] * 40,
           "v6 sources")
    expect([p[IP].src for p in got if IP in p] ==
           ["192.168.1.1"] * 80 + ["192.168.1.2"] * 80, "v4 sources")
    rx = rx_count("rp6r", out)
    expect((rx["received"], rx["lost"], rx["flows_seen"]) == (80, 0, 8), rx)


def test_tagged_labelled_and_extended_frames_stamped_and_counted():
    """A double-tagged (QinQ) capture replayed with --stamp: replay found the
    UDP data behind the two tags and stamped it, and rx, which took one
    802.1Q tag, counted every frame foreign (issue 26). Both find headers
    with the one locator (lib/pkt) now: behind two tags of any of the three
    types, an MPLS stack, IPv6 extension headers, a frame replay stamps is
    one rx counts, with its flow, and every checksum stays right."""
    from scapy.all import IP, UDP, Dot1AD, Dot1Q, Ether, IPv6, Raw, wrpcap
    from scapy.contrib.mpls import MPLS
    from scapy.layers.inet6 import IPv6ExtHdrDestOpt, IPv6ExtHdrHopByHop

    def v4(i):
        return IP(src="10.9.0.1", dst="10.9.0.2") / UDP(sport=1000 + i % 3, dport=9)

    kinds = {
        "qinq": lambda i: Ether() / Dot1AD(vlan=100) / Dot1Q(vlan=200) / v4(i),
        "qinq9100": lambda i: Ether(type=0x9100) / Dot1Q(vlan=5) / Dot1Q(vlan=6) / v4(i),
        "qinq8100": lambda i: Ether() / Dot1Q(vlan=7) / Dot1Q(vlan=8) / v4(i),
        "mpls": lambda i: Ether() / MPLS(label=16, s=0) / MPLS(label=17, s=1) / v4(i),
        "v6ext": lambda i: (Ether(dst=NO_LOOKUP) / IPv6(src="fd00::1", dst="fd00::2") /
                            IPv6ExtHdrHopByHop() / IPv6ExtHdrDestOpt() /
                            UDP(sport=1000 + i % 3, dport=9)),
    }
    d = tmpdir()
    for name, make in kinds.items():
        src = os.path.join(d, name + ".pcap")
        wrpcap(src, [Ether(bytes(make(i) / Raw(bytes(range(40))))) for i in range(30)])
        out = os.path.join(d, name + ".out.pcap")
        js = os.path.join(d, name + ".json")
        r = gen("rpq", "net_pcap0,tx_pcap=" + out, "--pcap", src, "--loops", "2",
                "--stamp", "1", "--loop-ip-step", "1", "--rate", "max", json_out=js)
        expect(r.returncode == 0, (name, r.stderr[-600:]))
        t = load_json(js)["tasks"][0]
        expect((t["stamped_packets"], t["unstamped_packets"], t["flows"]) == (60, 0, 3),
               (name, t))
        rx = rx_count("rpqr", out)
        print("%s: rx received %d, foreign %d, flows %d" % (
            name, rx["received"], rx["foreign_packets"], rx["flows_seen"]))
        expect((rx["received"], rx["foreign_packets"], rx["malformed_packets"],
                rx["lost"], rx["flows_seen"]) == (60, 0, 0, 0, 6), (name, rx))
        expect(tshark_bad_sums(out) == [], (name, "bad checksums"))


def test_timing_kept_and_never_early():
    """A frame is never sent before its time at the capture's timing (x
    --multiplier); the gaps are the capture's but for the host's stalls,
    which this test measures while gen runs: with both CPUs busy, a fixed
    50 us bound on the median gap error failed (300 us)."""
    from scapy.all import IP, UDP, Ether, Raw, wrpcap
    import random
    rnd = random.Random(5)
    d = tmpdir()
    src = os.path.join(d, "timed.pcap")
    pkts, t = [], 1700000000.0
    for i in range(200):
        p = Ether() / IP() / UDP(sport=7, dport=9) / Raw(bytes(30))
        p.time = t
        pkts.append(p)
        t += rnd.choice([50e-6, 300e-6, 1e-3, 2e-3])
    wrpcap(src, pkts)
    ts_in = [float(p.time) for p in pkts]
    for mult in (1, 2.5):
        out = os.path.join(d, "o%g.pcap" % mult)
        js = os.path.join(d, "t%g.json" % mult)
        # Made-up stalls are sent at once (the gaps after them shrink):
        # catch-up 0.5 s keeps every frame's slot.
        with HostStalls() as stalls:
            r = gen("rpt", "net_pcap0,tx_pcap=" + out, "--pcap", src, "--multiplier",
                    str(mult), "--catch-up", "500000", json_out=js)
        expect(r.returncode in (0, 3), r.stderr)
        task = load_json(js)["tasks"][0]
        expect(task["timing"] == "capture" and task["tx_packets"] == 200, task)
        ts_out = [float(p.time) for p in frames(out)]
        due = [(x - ts_in[0]) / mult for x in ts_in]
        sent = [x - ts_out[0] for x in ts_out]
        early = max(a - b for a, b in zip(due, sent))
        gaps = [abs((b1 - b0) - (a1 - a0)) for a0, a1, b0, b1 in
                zip(due, due[1:], sent, sent[1:])]
        med = statistics.median(gaps)
        print("multiplier %g: median gap error %.1f us, worst %.1f us, earliest %.1f us "
              "before its time, offered %.4f; host stalls p50 %.1f p90 %.1f max %.1f us"
              % (mult, med * 1e6, max(gaps) * 1e6, early * 1e6, task["offered"],
                 stalls.p50 * 1e6, stalls.p90 * 1e6, stalls.max * 1e6))
        # Nothing leaves before its time. The schedule's start is not in
        # the capture: frame 0's stamp stands for it, and is later by
        # net_pcap's few us of writing it, or by a stall that held it
        # (118 us once with both CPUs busy); a pacing that sends early
        # gains on that with every frame.
        expect(early < 100e-6 + stalls.max, (early, stalls.max))
        # A stall delays the frames due in it (sent at once after it):
        # the gaps it touches are off by up to its length.
        expect(med < 50e-6 + stalls.p90, (med, stalls.p90))


def holds(pid, path):
    """Does process @p pid have @p path open?"""
    try:
        fds = os.listdir("/proc/%d/fd" % pid)
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink("/proc/%d/fd/%s" % (pid, fd)) == path:
                return True
        except OSError:
            pass
    return False


def serve_fifo(path, versions, proc, done, deadline):
    """Write each file of @p versions to the FIFO @p path, one per open of
    it by @p proc (a writer that sends another file when the capture is
    opened again, as a file replaced between two reads), until @p done is
    set or @p deadline passes."""
    import errno
    import time
    for v in versions:
        # The reader's pass over: its end read, the FIFO closed (a reader
        # blocked in its next open holds no descriptor yet).
        while holds(proc.pid, path):
            if done.is_set() or time.time() > deadline:
                return
            time.sleep(0.001)
        while True:
            if done.is_set() or time.time() > deadline:
                return
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError as e:
                if e.errno != errno.ENXIO:     # no reader yet
                    raise
                time.sleep(0.001)
        os.set_blocking(fd, True)
        try:
            with open(v, "rb") as f:
                data = f.read()
            # All but the last byte, until the reader is seen to hold
            # the FIFO: from then on its close can be seen.
            os.write(fd, data[:-1])
            while (not holds(proc.pid, path) and proc.poll() is None and
                   not done.is_set() and time.time() < deadline):
                time.sleep(0.001)
            os.write(fd, data[-1:])
        except BrokenPipeError:
            pass
        finally:
            os.close(fd)


def test_capture_that_changes_while_loaded():
    """A FIFO whose writer sends a small capture, then a big one to the
    next open (as a file replaced by mv between two reads): it was read
    twice, sized by the first and copied from the second past its buffer
    (SIGSEGV, the runtime directory left behind). Read once, it is one
    clean replay of what was read; a file renamed over the path while
    runs load it is either whole capture, never a mix."""
    import shutil
    import threading
    import time
    from scapy.all import IP, UDP, Ether, Raw, wrpcap
    d = tmpdir()
    small = os.path.join(d, "small.pcap")
    big = os.path.join(d, "big.pcap")
    wrpcap(small, [Ether() / IP() / UDP(sport=1, dport=2) / Raw(bytes(58))
                   for _ in range(50)])
    wrpcap(big, [Ether() / IP() / UDP(sport=3, dport=4) / Raw(bytes(1400))
                 for _ in range(400)])
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    out = os.path.join(d, "fifo_out.pcap")
    args = eal("rpfifo")
    p = start(args + ["--", "--role", "gen", "--port", "net_pcap0,tx_pcap=" + out,
                      "--no-live", "--pcap", fifo, "--rate", "max"])
    done = threading.Event()
    w = threading.Thread(target=serve_fifo, args=(fifo, [small, big], p, done,
                                                  time.time() + 60))
    w.start()
    try:
        _, err = p.communicate(timeout=60)
    finally:
        done.set()
        w.join()
        if p.poll() is None:
            p.kill()
            p.wait()
    r = subprocess.CompletedProcess(p.args, p.returncode, "", err)
    prefix = args[args.index("--file-prefix") + 1]
    print("fifo: exit %d, %s" % (r.returncode, r.stderr.strip().splitlines()[-1:]))
    expect(not os.path.exists("/var/run/dpdk/" + prefix), "runtime directory left")
    expect(r.returncode == 0, (r.returncode, r.stderr[-2000:]))
    want = [bytes(p) for p in frames(small)]
    expect([bytes(p) for p in frames(out)] == want, "not the capture read")

    # The path renamed between two captures while runs load it.
    stop = threading.Event()
    alt = [os.path.join(d, "alt%d.pcap" % i) for i in range(2)]
    path = os.path.join(d, "moved.pcap")
    shutil.copy(small, path)

    def mover():
        k = 0
        while not stop.is_set():
            shutil.copy((small, big)[k % 2], alt[k % 2])
            os.replace(alt[k % 2], path)
            k += 1
            time.sleep(0.001)
    m = threading.Thread(target=mover)
    m.start()
    try:
        for i in range(4):
            out = os.path.join(d, "moved%d.pcap" % i)
            args = eal("rpmv%d" % i)
            r = run(args + ["--", "--role", "gen", "--port", "net_pcap0,tx_pcap=" + out,
                            "--no-live", "--pcap", path, "--rate", "max"], timeout=60)
            prefix = args[args.index("--file-prefix") + 1]
            expect(not os.path.exists("/var/run/dpdk/" + prefix), "runtime directory left")
            expect(r.returncode == 0, (r.returncode, r.stderr[-2000:]))
            n = len(frames(out))
            expect(n in (50, 400), n)
    finally:
        stop.set()
        m.join()


def test_timestamps_that_wrap_or_step_back():
    """A capture across 2038-01-19 (pcap's 32-bit seconds, read signed by
    libpcap) reported a span of 1.8e10 s and was sent at once; one that
    steps back (merged files) was sent at once up to where it had been.
    Now the wrap is the capture's 1 ms gaps, a step back is sent right
    after the frame before it, counted and said, and the span is what was
    replayed. A replay at the capture's timing that falls short names that
    timing, not "max"."""
    from scapy.all import IP, UDP, Ether, Raw, wrpcap
    d = tmpdir()
    wrap = os.path.join(d, "wrap.pcap")
    pkts = []
    for i in range(20):
        p = Ether() / IP() / UDP(sport=7, dport=9) / Raw(bytes(30))
        p.time = 2 ** 31 - 0.0105 + i * 1e-3
        pkts.append(p)
    wrpcap(wrap, pkts)
    back = os.path.join(d, "back.pcap")
    pkts = []
    for i in range(20):
        p = Ether() / IP() / UDP(sport=7, dport=9) / Raw(bytes(30))
        p.time = 1700000000 + i * 1e-3 - (5 if i >= 10 else 0)
        pkts.append(p)
    wrpcap(back, pkts)
    for path, span, backwards in ((wrap, 0.019, 0), (back, 0.018, 1)):
        out = os.path.join(d, "out.pcap")
        js = os.path.join(d, "w.json")
        r = gen("rpw", "net_pcap0,tx_pcap=" + out, "--pcap", path, "--catch-up",
                "500000", json_out=js)
        expect(r.returncode in (0, 3), r.stderr[-600:])
        t = load_json(js)["tasks"][0]
        print("%s: span %.9f s, %d backwards, rc %d" % (os.path.basename(path),
              t["pcap_span_s"], t.get("pcap_backwards_frames", -1), r.returncode))
        expect(abs(t["pcap_span_s"] - span) < 1e-6, t["pcap_span_s"])
        expect(t["pcap_backwards_frames"] == backwards and t["tx_packets"] == 20, t)
        expect(("stamped before the frame before them" in r.stderr) == (backwards > 0),
               r.stderr[-600:])
        # Never early: the frames are spread over the capture's span at
        # least (all at once before).
        sent = [float(p.time) for p in frames(out)]
        expect(sent[-1] - sent[0] > span - 100e-6, sent[-1] - sent[0])

    # 1 us gaps at x 1000: 1e9 pps, which no lcore sends (under the line
    # rate of a port said to be 1000G: above it, refused).
    fast = os.path.join(d, "fast.pcap")
    pkts = []
    for i in range(100):
        p = Ether() / IP() / UDP(sport=7, dport=9) / Raw(bytes(30))
        p.time = 1700000000 + i * 1e-6
        pkts.append(p)
    wrpcap(fast, pkts)
    js = os.path.join(d, "f.json")
    r = gen("rpf", "net_null0", "--speed", "1000G", "--pcap", fast, "--multiplier", "1000",
            "--loops", "0", "--count", "2000000", json_out=js)
    t = load_json(js)["tasks"][0]
    expect(r.returncode == 3 and t["verdict"] == "short", (r.returncode, t))
    expect("of the capture's timing x 1000 (" in t["verdict_why"] and
           "of max" not in t["verdict_why"], t["verdict_why"])
    expect(t["verdict_why"] in r.stderr, r.stderr[-600:])


def test_count_loops_forever_and_bad_input():
    from scapy.all import IP, UDP, Ether, Raw, wrpcap
    d = tmpdir()
    src = os.path.join(d, "s.pcap")
    wrpcap(src, [Ether() / IP() / UDP() / Raw(bytes(40)) for _ in range(7)])
    js = os.path.join(d, "c.json")
    r = gen("rpc", "net_null0", "--pcap", src, "--loops", "0", "--count", "2500",
            "--rate", "max", json_out=js)
    expect(r.returncode == 0, r.stderr)
    t = load_json(js)["tasks"][0]
    expect(t["tx_packets"] == 2500 and t["loops_done"] == 357, t)

    raw = os.path.join(d, "raw.pcap")
    wrpcap(raw, [IP() / UDP()], linktype=101)
    big = os.path.join(d, "big.pcap")
    wrpcap(big, [Ether() / IP() / UDP() / Raw(bytes(3000))])
    empty = os.path.join(d, "empty.pcap")
    wrpcap(empty, [])
    for opts, msg in (([ "--pcap", os.path.join(d, "none.pcap")], "No such file"),
                      (["--pcap", raw], "not Ethernet"),
                      (["--pcap", big], "more than the port takes"),
                      (["--pcap", empty], "no Ethernet frame"),
                      (["--pcap", src, "--size", "128"], "not with size"),
                      (["--pcap", src, "--flows", "4"], "not with size"),
                      (["--loops", "3"], "go with pcap"),
                      (["--pcap", src, "--multiplier", "0"], "multiplier"),
                      (["--pcap", src, "--multiplier", "2", "--rate", "1000"], "give one"),
                      # It said "slice 0/2 of 1 flows leaves it none".
                      (["--pcap", src, "--queues", "2"], "on one tx queue; the port has 2")):
        r = gen("rpbad", "net_null0", *opts)
        expect(r.returncode in (1, 2) and msg in r.stderr, (opts, r.returncode, r.stderr))


MULT_SET = """
linerate.live(false)
local g = assert(linerate.task{ role = "gen", port = assert(linerate.port("net_null0")),
                                pcap = arg[1], loops = 0, duration = 0.2 })
linerate.start()
local ok, e = pcall(g.set, g, { multiplier = 1e6 })
print("SET", ok, e)
assert(g:wait(10))
linerate.stop()
"""


def test_multiplier_above_line_rate():
    """A multiplier that asks more of a capture than the line rate (1 ms
    gaps x 1e6: 1 Gpps on net_null's 10G) is refused as such a --rate is,
    at the start and by task:set{} (issue 35 L14); x1000 runs (short or
    not: the host's to say)."""
    from scapy.all import IP, UDP, Ether, Raw, wrpcap
    d = tmpdir()
    src = os.path.join(d, "ms.pcap")
    pkts = []
    for i in range(10):
        p = Ether(dst=NO_LOOKUP) / IP() / UDP() / Raw(bytes(40))
        p.time = 1700000000 + i * 1e-3
        pkts.append(p)
    wrpcap(src, pkts)
    r = gen("rpmul", "net_null0", "--pcap", src, "--multiplier", "1e6", "--loops", "0",
            "--duration", "1")
    lines = [l for l in r.stderr.splitlines() if l.startswith("linerate")]
    expect(r.returncode == 1 and len(lines) == 1 and "above port" in lines[0] and
           "multiplier 1e+06" in lines[0], (r.returncode, r.stderr[-400:]))
    r = gen("rpmul", "net_null0", "--pcap", src, "--multiplier", "1000", "--count", "100",
            "--allow-short")
    expect(r.returncode == 0, r.stderr[-400:])
    script = os.path.join(d, "ms.lua")
    with open(script, "w") as f:
        f.write(MULT_SET)
    r = run(eal("rpmul") + ["--", script, src], timeout=60)
    expect(r.returncode == 0 and "SET\tfalse" in r.stdout and "above port" in r.stdout,
           (r.returncode, r.stdout, r.stderr[-400:]))


def test_fifo_without_writer_interrupted():
    """gen --pcap reads a FIFO once, waiting in open() for its writer: a
    SIGINT meanwhile is an interruption (exit 130, one line), not a
    failure (issue 35 L4: exit 1)."""
    import signal
    import time
    d = tmpdir()
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    p = start(eal("rpfifo") + ["--", "--role", "gen", "--port", "net_null0",
                               "--pcap", fifo, "--no-live"])
    try:
        time.sleep(1.5)
        expect(p.poll() is None, "gen did not wait for the FIFO's writer")
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    lines = [l for l in err.splitlines() if l.startswith("linerate")]
    expect(p.returncode == 130 and len(lines) == 1 and "Interrupted" in lines[0],
           (p.returncode, err[-400:]))


def test_cut_and_versions_as_the_probe():
    """gen --pcap and probe --pcap answer one way for a file (issue 35
    L15): a last record cut short is read up to it and said (gen refused
    the whole capture); a header of version 1.0 or 3.0 is refused by both
    (the probe read them)."""
    import struct
    from scapy.all import IP, UDP, Ether, Raw, wrpcap
    d = tmpdir()
    good = os.path.join(d, "good.pcap")
    wrpcap(good, [Ether(dst=NO_LOOKUP) / IP() / UDP() / Raw(bytes(40)) for _ in range(10)])
    data = open(good, "rb").read()
    cut = os.path.join(d, "cut.pcap")
    with open(cut, "wb") as f:
        f.write(data[:-20])
    out = os.path.join(d, "cut.json")
    # The capture's own timing on a busy host may fall short: that is not
    # what this asks (--allow-short: the exit code is the file's).
    r = gen("rpcut", "net_null0", "--pcap", cut, "--allow-short", json_out=out)
    expect(r.returncode == 0 and "last record is cut short (after 9 frames)" in r.stderr,
           (r.returncode, r.stderr[-400:]))
    expect(load_json(out)["tasks"][0]["tx_packets"] == 9, load_json(out)["tasks"][0])
    r = run(eal("rpcutp") + ["--", "--role", "probe", "--port", "net_null0", "--pcap", cut,
                             "--export", "none", "--no-live"], timeout=60)
    expect(r.returncode == 0 and "cut short" in r.stderr, (r.returncode, r.stderr[-400:]))
    for major in (1, 3):
        v = os.path.join(d, "v%d.pcap" % major)
        with open(v, "wb") as f:
            f.write(data[:4] + struct.pack("<H", major) + data[6:])
        r = gen("rpver", "net_null0", "--pcap", v)
        # libpcap's words: "archaic pcap savefile format" (1.0),
        # "unsupported pcap savefile version 3.4".
        expect(r.returncode == 1 and ("version" in r.stderr or "archaic" in r.stderr),
               (major, r.stderr[-400:]))
        r = run(eal("rpverp") + ["--", "--role", "probe", "--port", "net_null0", "--pcap", v,
                                 "--export", "none", "--no-live"], timeout=60)
        lines = [l for l in r.stderr.splitlines() if "pcap" in l]
        expect(r.returncode == 1 and len(lines) == 1 and
               "version %d.4, not 2.0 to 2.4" % major in lines[0], (major, r.stderr[-400:]))


if __name__ == "__main__":
    main([test_capture_of_gen_replayed_and_counted,
          test_ipv6_and_tcp_rewritten_with_valid_sums,
          test_tagged_labelled_and_extended_frames_stamped_and_counted,
          test_timing_kept_and_never_early, test_capture_that_changes_while_loaded,
          test_timestamps_that_wrap_or_step_back,
          test_count_loops_forever_and_bad_input, test_multiplier_above_line_rate,
          test_fifo_without_writer_interrupted, test_cut_and_versions_as_the_probe])
