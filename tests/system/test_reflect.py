"""The reflect and rtt roles: pcap in -> reflect -> pcap out checked with
scapy field by field; other frames dropped or reflected by option; rtt
through reflect over the virtual wire and over memif with exact counters;
--add-delay seen in the RTT's minimum; --samples; bad options."""
import os
import struct

from lrtest import (SRC, eal, expect, load_json, main, memif, run, start,
                    tmpdir, wait_for)

RTT_LUA = os.path.join(SRC, "lua", "rtt-reflect.lua")
A_MAC, B_MAC = "02:00:00:00:00:01", "02:00:00:00:00:02"


def lr_payload(flow, seq, magic=0x4c52, extra=40):
    return struct.pack(">HIIQ", magic, flow, seq, 0x1122334455667788) + \
        bytes((i * 7) & 0xff for i in range(extra))


def own_frames():
    """Linerate frames of every shape reflect must swap."""
    from scapy.all import Ether, Dot1Q, IP, IPv6, UDP, Raw
    e = Ether(src=A_MAC, dst=B_MAC)
    return [
        e / IP(src="10.0.0.1", dst="10.0.0.2", ttl=9) /
        UDP(sport=1024, dport=5001) / Raw(lr_payload(0, 0)),
        # No UDP checksum (IPv4's 0): stays 0.
        e / IP(src="10.0.0.3", dst="10.9.0.4") /
        UDP(sport=7, dport=9, chksum=0) / Raw(lr_payload(1, 5)),
        # IPv4 options (IHL 6).
        e / IP(src="192.168.1.1", dst="172.16.0.9",
               options=b"\x01\x01\x01\x00") /
        UDP(sport=4000, dport=4001) / Raw(lr_payload(2, 1)),
        e / Dot1Q(vlan=42, prio=3) / IP(src="10.1.1.1", dst="10.2.2.2") /
        UDP(sport=1111, dport=2222) / Raw(lr_payload(3, 2)),
        e / IPv6(src="fd00::1", dst="fd00::2:3") /
        UDP(sport=5555, dport=6666) / Raw(lr_payload(4, 3)),
        e / Dot1Q(vlan=7) / IPv6(src="2001:db8::a", dst="2001:db8::b") /
        UDP(sport=1, dport=65535) / Raw(lr_payload(5, 4)),
        # The smallest frame: no room for the stamps.
        e / IP(src="10.0.0.1", dst="10.0.0.2") /
        UDP(sport=1024, dport=5001) / Raw(lr_payload(6, 0, extra=0)),
    ]


def other_frames():
    from scapy.all import Ether, ARP, IP, TCP, UDP, Raw
    e = Ether(src=A_MAC, dst=B_MAC)
    return [
        Ether(src=A_MAC, dst="ff:ff:ff:ff:ff:ff") /
        ARP(psrc="10.0.0.1", pdst="10.0.0.2", hwsrc=A_MAC),
        e / IP(src="10.0.0.1", dst="10.0.0.2") / TCP(sport=80, dport=4242) /
        Raw(b"x" * 20),
        e / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=53, dport=53) /
        Raw(b"no linerate header here"),
    ]


def reflect_pcap(name, frames, *opts):
    """frames -> net_pcap -> reflect -> net_pcap: (frames out, doc)."""
    from scapy.all import rdpcap, wrpcap
    d = tmpdir()
    inp, outp = os.path.join(d, "in.pcap"), os.path.join(d, "out.pcap")
    js = os.path.join(d, "r.json")
    wrpcap(inp, frames)
    r = run(eal(name) + ["--", "--role", "reflect", "--port",
                         "net_pcap0,rx_pcap=" + inp, "--peer",
                         "net_pcap1,tx_pcap=" + outp, "--json", js,
                         "--no-live"] + list(opts), timeout=60)
    expect(r.returncode == 0, r.stderr[-1500:])
    return (list(rdpcap(outp)) if os.path.exists(outp) else []), \
        load_json(js)["reflect"]


def cksums_valid(p):
    """Every checksum of @p p as scapy computes it from the bytes."""
    from scapy.all import Ether, IP, UDP, TCP
    q = Ether(bytes(p))
    for layer in (IP, UDP, TCP):
        if layer in q:
            got = q[layer].chksum
            if layer is UDP and IP in q and got == 0:
                continue        # IPv4 without a UDP checksum
            c = q.copy()
            del c[layer].chksum
            want = Ether(bytes(c))[layer].chksum
            if got != want:
                return False
    return True


def check_swapped(i, o, stamp):
    from scapy.all import Ether, Dot1Q, IP, IPv6, UDP
    i, o = Ether(bytes(i)), Ether(bytes(o))
    expect(o.src == i.dst and o.dst == i.src, ("macs", i.summary()))
    expect((Dot1Q in i) == (Dot1Q in o), "vlan")
    if Dot1Q in i:
        expect(o[Dot1Q].vlan == i[Dot1Q].vlan and
               o[Dot1Q].prio == i[Dot1Q].prio, "vlan kept")
    ip = IP if IP in i else IPv6
    expect(o[ip].src == i[ip].dst and o[ip].dst == i[ip].src, "ips")
    if ip is IP:
        expect(o[IP].chksum == i[IP].chksum, "IPv4 checksum unchanged")
        expect(o[IP].options == i[IP].options and o[IP].ttl == i[IP].ttl,
               "ip rest")
    expect(o[UDP].sport == i[UDP].dport and o[UDP].dport == i[UDP].sport,
           "ports")
    expect(cksums_valid(o), ("checksums", o.summary()))
    if ip is IP and i[UDP].chksum == 0:
        expect(o[UDP].chksum == 0, "no UDP checksum stays none")
    pi, po = bytes(i[UDP].payload), bytes(o[UDP].payload)
    expect(len(pi) == len(po), "length")
    room = len(pi) >= 34
    flag = 0x73 if stamp and room else 0x72
    expect(po[0] == 0x4c and po[1] == flag, ("magic", po[:2].hex()))
    if stamp and room:
        rx, tx = struct.unpack(">QQ", po[18:34])
        expect(0 < rx <= tx, ("stamps", rx, tx))
        expect(po[2:18] == pi[2:18] and po[34:] == pi[34:], "payload")
    else:
        expect(po[2:] == pi[2:], "payload identical")


def test_swap_every_field():
    ins = own_frames()
    for stamp in (0, 1):
        outs, doc = reflect_pcap("rfswap%d" % stamp, ins, "--stamp", str(stamp))
        expect(len(outs) == len(ins), (len(outs), doc))
        for i, o in zip(ins, outs):
            check_swapped(i, o, stamp)
        expect(doc["in"] == len(ins) and doc["reflected"] == len(ins) and
               doc["out"] == len(ins) and doc["conserved"], doc)
        expect(doc["stamped"] == (len(ins) - 1 if stamp else 0) and
               doc["unstamped"] == (1 if stamp else 0), doc)


def test_others_drop_or_reflect():
    from scapy.all import Ether, ARP, IP, TCP, UDP
    own = own_frames()[:2]
    others = other_frames()
    outs, doc = reflect_pcap("rfodrop", own + others)
    expect(len(outs) == 2 and doc["others_dropped"] == 3 and
           doc["reflected"] == 2 and doc["conserved"], doc)
    outs, doc = reflect_pcap("rforefl", own + others, "--others", "reflect")
    expect(len(outs) == 5 and doc["others_reflected"] == 3 and
           doc["others_dropped"] == 0 and doc["conserved"], doc)
    arp, tcp, udp = [Ether(bytes(p)) for p in outs[2:]]
    expect(ARP in arp and arp.src == "ff:ff:ff:ff:ff:ff" and arp.dst == A_MAC,
           arp.summary())
    expect(tcp[IP].src == "10.0.0.2" and tcp[TCP].sport == 4242 and
           tcp[TCP].dport == 80 and cksums_valid(tcp), tcp.summary())
    expect(udp[UDP].sport == 53 and bytes(udp[UDP].payload) ==
           b"no linerate header here" and cksums_valid(udp), udp.summary())


def test_never_reflects_twice():
    """A frame that went through a reflector already (its flag) is dropped
    and counted, whatever --others says; reflecting the reflected output
    again gives nothing."""
    outs, _ = reflect_pcap("rfloop1", own_frames())
    again, doc = reflect_pcap("rfloop2", outs, "--others", "reflect")
    expect(len(again) == 0 and doc["looped"] == len(outs) and
           doc["conserved"], doc)


def test_others_from_our_mac_are_looped():
    """--others reflect: a frame whose source is the tx port's own MAC is
    one the reflector sent (it was addressed to it): dropped as looped.
    DPDK's net_pcap gives its ports 02:70:63:61:70:NN ("\\x02pcap" and a
    number): one of these four is the tx port's."""
    from scapy.all import Ether, ARP
    frames = [Ether(src="02:70:63:61:70:%02x" % i, dst="02:00:00:00:00:09") /
              ARP() for i in range(4)]
    outs, doc = reflect_pcap("rfmac", frames, "--others", "reflect")
    expect(doc["looped"] == 1 and doc["others_reflected"] == 3 and
           len(outs) == 3 and doc["conserved"], doc)


def rtt_wire(name, timeout=120, **kw):
    d = tmpdir()
    js = os.path.join(d, "r.json")
    args = ["%s=%s" % (k, v) for k, v in kw.items()] + ["json=" + js]
    r = run(eal(name) + ["--", RTT_LUA] + args, timeout=timeout)
    # A generator this busy host held back is said and fails the scenario
    # (exit 3); the counts below hold whatever the rate was.
    expect(r.returncode == 0 or r.returncode == 3 and "INVALID" in r.stderr and
           "rate short" in r.stderr, (r.stdout[-800:], r.stderr[-1500:]))
    return load_json(js)


def exact(doc, n, reorder=False):
    """Counters exact: sent = reflected = received, nothing lost or twice;
    in order unless a jitter may reorder (@p reorder)."""
    rtt, refl = doc["rtt"], doc.get("reflect")
    expect(rtt["sent"] == n and rtt["received"] == n and rtt["lost"] == 0 and
           rtt["duplicates"] == 0 and (reorder or rtt["reordered"] == 0),
           (rtt, refl))
    expect(rtt["rtt"]["count"] == n, rtt["rtt"])
    if refl is not None:
        expect(refl["in"] == n and refl["reflected"] == n and
               refl["out"] == n and refl["conserved"], refl)
    expect(doc["rx"]["lost"] == 0 and doc["rx"]["received"] == n, doc["rx"])


def test_rtt_over_the_wire():
    n = 20000
    doc = rtt_wire("rfwire", count=n, rate=200000, flows=8)
    exact(doc, n)
    rtt = doc["rtt"]
    # Stamped: the residence is within the RTT.
    expect(rtt["residence"]["count"] == n and rtt["unstamped"] == 0, rtt)
    expect(rtt["residence"]["min_ns"] <= rtt["rtt"]["min_ns"], rtt)
    expect(len(rtt["pairs"]) == 1 and rtt["pairs"][0]["a"] == "rtt" and
           rtt["pairs"][0]["b"] == "reflect", rtt["pairs"])
    for k in ("count", "min_ns", "mean_ns", "p50_ns", "p90_ns", "p99_ns",
              "p999_ns", "max_ns"):
        expect(k in rtt["rtt"], k)


def test_add_delay_raises_the_minimum():
    n = 10000
    base = rtt_wire("rfd0", count=n, rate=100000)["rtt"]["rtt"]["min_ns"]
    for spec, ns in (("delay 20us", 20000), ("delay 2ms", 2000000)):
        doc = rtt_wire("rfd%d" % ns, count=n, rate=100000, add_delay=spec)
        exact(doc, n)
        m = doc["rtt"]["rtt"]["min_ns"]
        # Never early; the slot (about 1 us) and the wire's own RTT on top.
        expect(ns <= m <= ns + base + 20000, (spec, m, base))
        expect(doc["rtt"]["residence"]["min_ns"] >= ns, doc["rtt"]["residence"])
    # A distribution: the minimum is the latency less the jitter at most.
    doc = rtt_wire("rfdn", count=n, rate=100000,
                   add_delay="delay 2ms 100us distribution normal")
    # netem's jitter reorders (no head-of-line blocking: each frame
    # leaves when it is due).
    exact(doc, n, reorder=True)
    expect(doc["rtt"]["reordered"] > 0, doc["rtt"])
    r = doc["rtt"]["rtt"]
    # One-sided, as a busy CPU's stalls only make frames later: never
    # below netem's normal table (4 sigma), and frames drawn short did
    # leave early (16 % of them are due before 2 ms - sigma).
    expect(2e6 - 4 * 100e3 <= r["min_ns"] < 2e6 - 100e3, r)
    res = doc["rtt"]["residence"]
    expect(2e6 - 4 * 100e3 <= res["min_ns"] < 2e6 - 100e3, res)


def test_samples_file():
    n = 5000
    d = tmpdir()
    path = os.path.join(d, "s.csv")
    doc = rtt_wire("rfsamp", count=n, rate=100000, pair="dut1,dut2",
                   samples=path)
    exact(doc, n)
    with open(path) as f:
        lines = f.read().splitlines()
    expect(len(lines) == doc["rtt"]["received"] == n, len(lines))
    vals = []
    for ln in lines:
        a, b, ns = ln.split(",")
        expect(a == "dut1" and b == "dut2", ln)
        vals.append(int(ns))
    expect(min(vals) == doc["rtt"]["rtt"]["min_ns"] and
           max(vals) == doc["rtt"]["rtt"]["max_ns"], (min(vals), max(vals)))


def test_rtt_over_memif():
    """The reflector in its own process, rtt in another, over net_memif."""
    n = 20000
    d = tmpdir()
    sock = os.path.join(d, "m.sock")
    rj, tj = os.path.join(d, "refl.json"), os.path.join(d, "rtt.json")
    refl = start(eal("rfmems", lcores="0-1") + [
        "--", "--role", "reflect", "--port", memif(sock, "server"),
        "--stamp", "1", "--link-timeout", "30", "--duration", "40",
        "--json", rj, "--no-live"])
    try:
        wait_for(sock)
        r = run(eal("rfmemc") + ["--", RTT_LUA, "port=" + memif(sock, "client"),
                                 "count=%d" % n, "rate=100000",
                                 "json=" + tj], timeout=120)
        # Its generator held back by a busy host is said (exit 3).
        expect(r.returncode == 0 or r.returncode == 3 and "rate short" in r.stderr,
               (r.stdout[-800:], r.stderr[-1500:]))
        refl.send_signal(2)
        refl.communicate(timeout=60)
    finally:
        refl.kill()
    doc = load_json(tj)
    exact(doc, n)
    expect(doc["rtt"]["residence"]["count"] == n, doc["rtt"])
    rd = load_json(rj)["reflect"]
    expect(rd["in"] == n and rd["reflected"] == n and rd["out"] == n and
           rd["stamped"] == n and rd["conserved"], rd)


def test_drops_are_counted():
    """What the tx queue does not take (no one reads the wire's far end)
    and what the wheel has no room for (held for a lower --rate) are
    dropped and counted, the counters conserved."""
    d = tmpdir()
    script = os.path.join(d, "drops.lua")
    with open(script, "w") as f:
        f.write("""
linerate.live(false)
local w = linerate.workers()
local function run(name, conf, n)
	-- A pool larger than the wire's ring (4095): the ring fills first.
	local a, b = assert(linerate.wire(name, { mbufs = 16383 }))
	conf.role, conf.port, conf.lcore = "reflect", b, w[1]
	local r = assert(linerate.task(conf))
	local g = assert(linerate.task{ role = "gen", port = a, count = n,
	                                rate = "200000", lcore = w[1] })
	linerate.start()
	assert(g:wait(30))
	-- Read while reflect runs: no verdict on the sums yet (nil).
	print("midrun " .. tostring(linerate.results().reflect.conserved))
	linerate.sleep(0.3)
	linerate.stop()
	local s = linerate.results().reflect
	print(("%s %d %d %d %d %d %s %d"):format(name, s["in"], s.out,
	      s.tx_dropped, s.over_hold, s.held_at_stop, tostring(s.conserved),
	      s.no_mbuf))
end
-- Nothing reads a's rx: the ring fills, the rest is dropped.
run("txfull", { tx_retries = 0 }, 20000)
-- 2 ms at 1000 pps: the wheel holds 66 frames, 200 kpps brings more.
run("hold", { add_delay = "delay 2ms", rate = 1000 }, 20000)
""")
    r = run(eal("rfdrops") + ["--", script], timeout=120)
    expect(r.returncode == 0, (r.stdout[-800:], r.stderr[-1500:]))
    got = {}
    for line in r.stdout.splitlines():
        w = line.split()
        if len(w) == 8 and w[0] in ("txfull", "hold"):
            got[w[0]] = w
    # The results sum every reflect task of the process: the second line
    # holds both runs.
    name, n_in, out, txd, over, held, cons, nomb = got["txfull"]
    expect(int(n_in) == 20000 and int(txd) > 0 and int(nomb) == 0 and
           int(out) + int(txd) == 20000 and cons == "true", got["txfull"])
    expect(r.stdout.count("midrun nil") == 2, r.stdout)
    name, n_in2, out2, txd2, over2, held2, cons2, nomb2 = got["hold"]
    expect(int(n_in2) == 40000 and int(over2) > 0 and cons2 == "true",
           got["hold"])


def test_count_is_exact():
    """--count N reflects N frames: what the burst that reached N held
    past it is freed unread and counted apart (past_count, not in 'in'),
    and nothing is taken after it, with --add-delay too (the held frames
    are sent, the task ends)."""
    frames = [f for _ in range(15) for f in own_frames()[:7]]   # 105
    out, doc = reflect_pcap("rfcount", frames, "--count", "40")
    expect(len(out) == 40 and doc["in"] == 40 and doc["reflected"] == 40, doc)
    expect(0 <= doc["past_count"] < 32 and doc["conserved"], doc)
    # Endless input (net_null), others reflected and held 10 ms: before,
    # the task took every frame until --duration.
    d = tmpdir()
    js = os.path.join(d, "r.json")
    r = run(eal("rfcountd") + ["--", "--role", "reflect", "--port", "net_null0",
                               "--peer", "net_null1", "--others", "reflect",
                               "--count", "1000", "--add-delay", "delay 10ms",
                               "--rate", "100000", "--duration", "20",
                               "--json", js, "--no-live"],
            timeout=60)
    expect(r.returncode == 0, r.stderr[-1500:])
    doc = load_json(js)["reflect"]
    expect(doc["in"] == 1000 and doc["others_reflected"] == 1000 and
           0 <= doc["past_count"] < 32 and doc["conserved"] and
           doc["out"] + doc["tx_dropped"] + doc["over_hold"] +
           doc["held_at_stop"] == 1000, doc)
    expect(load_json(js)["elapsed_s"] < 20, load_json(js)["elapsed_s"])


def test_summary_has_every_counter():
    """The summary line has every counter of the result document's
    reflect section, summed (it said "reflected 0 dropped 0" after
    millions of frames were dropped as not linerate's), and they add up."""
    d = tmpdir()
    js = os.path.join(d, "r.json")
    r = run(eal("rfsum") + ["--", "--role", "reflect", "--port", "net_null0",
                            "--peer", "net_null1", "--duration", "0.5",
                            "--json", js, "--no-live"], timeout=60)
    expect(r.returncode == 0, r.stderr[-1500:])
    doc = load_json(js)["reflect"]
    line = [ln for ln in r.stdout.splitlines()
            if ln.startswith("linerate: reflect: ")]
    expect(len(line) == 1, r.stdout[-1500:])
    w = line[0][len("linerate: reflect: "):].split()
    got = {w[i]: int(w[i + 1]) for i in range(0, len(w), 2)}
    keys = [k for k in doc if k not in ("tasks", "conserved")]
    expect(sorted(got) == sorted(keys) and
           all(got[k] == doc[k] for k in keys), (got, doc))
    expect(got["others_dropped"] > 0 and got["in"] == got["reflected"] +
           got["others_reflected"] + got["others_dropped"] + got["looped"] +
           got["no_mbuf"], got)


def test_add_delay_without_rate_sizes_or_refuses():
    """--add-delay without --rate holds what the port's line rate brings
    in the delay, or is refused in one line that says what to give (it
    held the pool's spare mbufs, 2431 for 1 s, and dropped the rest)."""
    r = run(eal("rfnorate") + ["--", "--role", "reflect", "--port",
                               "net_null0", "--peer", "net_null1",
                               "--add-delay", "delay 1s", "--duration", "1",
                               "--no-live"], timeout=60)
    err = [ln for ln in r.stderr.splitlines() if ln.startswith("linerate: ")]
    expect(r.returncode == 1 and len(err) == 1 and "--rate PPS" in err[0] and
           "--mbufs" in err[0] and "line rate" in err[0],
           (r.returncode, r.stderr[-800:]))
    # A delay the pool holds at line rate runs; and with --rate.
    for extra in (["--add-delay", "delay 20us"],
                  ["--add-delay", "delay 1s", "--rate", "1000"]):
        r = run(eal("rfnorate2") + ["--", "--role", "reflect", "--port",
                                    "net_null0", "--peer", "net_null1",
                                    "--others", "reflect", "--duration",
                                    "0.3", "--no-live"] + extra, timeout=60)
        expect(r.returncode == 0, (extra, r.stderr[-800:]))


def rtt_lua(name, body, timeout=120):
    """Run a Lua script of rtt tasks; return (result document, stdout)."""
    d = tmpdir()
    script, js = os.path.join(d, "s.lua"), os.path.join(d, "r.json")
    with open(script, "w") as f:
        f.write("linerate.live(false)\nlocal w = linerate.workers()\n" +
                body + "\nassert(linerate.write_json('%s'))\n" % js)
    r = run(eal(name) + ["--", script], timeout=timeout)
    expect(r.returncode == 0, (r.stdout[-800:], r.stderr[-1500:]))
    return load_json(js), r.stdout


def conserved(rtt):
    expect(rtt["sent"] == rtt["received"] + rtt["lost"] + rtt["in_flight"],
           rtt)


def test_rtt_counts_what_never_came_back():
    """A reflector that stops after 600 of 1000 frames: the 400 after the
    last one back show no gap to rx; they are lost once --drain has passed
    after the last frame sent, and the rx tasks end then (they waited for
    ever for their count: still running 15 s after gen)."""
    doc, out = rtt_lua("rftail", """
local a, b = assert(linerate.wire("tail"))
assert(linerate.task{ role = "reflect", port = b, count = 600, lcore = w[#w] })
local tasks = assert(linerate.plan{ role = "rtt", port = a, lcores = { w[1] },
                                    count = 1000, rate = "100000", flows = 4,
                                    drain = 0.5 })
linerate.start()
local t0 = linerate.now()
local ended = true
for _, t in ipairs(tasks) do ended = t:wait(60) and ended end
print(("ended %s after %.3f s"):format(tostring(ended), linerate.now() - t0))
linerate.stop()
""")
    rtt = doc["rtt"]
    expect("ended true" in out, out)
    expect(rtt["sent"] == 1000 and rtt["received"] == 600 and
           rtt["lost"] == 400 and rtt["lost_at_end"] == 400 and
           rtt["in_flight"] == 0 and rtt["verdict"] == "ok", rtt)
    conserved(rtt)
    # Not timing: the run ended by the drain, not the 60 s wait.
    secs = float(out.split("after ")[1].split()[0])
    expect(secs < 30, out)


def test_rtt_in_flight_at_the_stop():
    """A run stopped while frames are out (a reflector holding them 300
    ms): they are in flight, neither received nor lost, and the counts
    add up."""
    doc, out = rtt_lua("rfinfl", """
local a, b = assert(linerate.wire("infl"))
assert(linerate.task{ role = "reflect", port = b, add_delay = "delay 300ms",
                      rate = "5000", lcore = w[#w] })
assert(linerate.plan{ role = "rtt", port = a, lcores = { w[1] },
                      count = 100000, rate = "5000", flows = 4 })
linerate.start()
linerate.sleep(1)
linerate.stop()
""")
    rtt = doc["rtt"]
    expect(rtt["in_flight"] > 0 and rtt["lost_at_end"] == 0 and
           rtt["received"] > 0 and rtt["verdict"] == "ok", rtt)
    conserved(rtt)


def test_rtt_unreflected_is_invalid():
    """A looped port (net_ring0 with no arguments: its tx is its rx), no
    reflector: the frames come back unmarked, and their 0.2 us are no
    round trip: verdict invalid, exit 5 (it was a valid 'rtt p50')."""
    d = tmpdir()
    js = os.path.join(d, "r.json")
    r = run(eal("rfloop") + ["--", "--role", "rtt", "--port", "net_ring0",
                             "--count", "1000", "--json", js, "--no-live"],
            timeout=60)
    doc = load_json(js)
    rtt = doc["rtt"]
    expect(r.returncode == 5 and doc["verdict"] == "invalid" and
           rtt["verdict"] == "invalid" and rtt["unreflected"] == 1000 and
           "as they were sent" in r.stderr and "INVALID" in r.stdout,
           (r.returncode, rtt, r.stderr[-800:]))
    conserved(rtt)


def test_rtt_nothing_back_ends_and_says_so():
    """Nothing comes back (net_null): the run ends --drain after the last
    frame sent, not at --duration, every frame lost and no RTT (exit 5);
    it said 'sent 100 received 0 lost 0' and exit 0."""
    d = tmpdir()
    js = os.path.join(d, "r.json")
    r = run(eal("rfnone") + ["--", "--role", "rtt", "--port", "net_null0",
                             "--count", "100", "--drain", "0.2",
                             "--duration", "20", "--json", js, "--no-live"],
            timeout=60)
    doc = load_json(js)
    rtt = doc["rtt"]
    expect(r.returncode == 5 and rtt["lost"] == 100 and
           rtt["received"] == 0 and rtt["rtt"] is None and
           "sent 100 received 0 lost 100 in-flight 0 INVALID" in r.stdout,
           (r.returncode, rtt, r.stdout[-500:], r.stderr[-500:]))
    expect(doc["elapsed_s"] < 15, doc["elapsed_s"])


def test_cli_rtt_and_reflect_on_null():
    """--role rtt and --role reflect from the command line (net_null)."""
    # Nothing reflects on net_null: no frame comes back, no RTT (exit 5).
    r = run(eal("rfclir") + ["--", "--role", "rtt", "--port", "net_null0",
                             "--count", "1000", "--duration", "2",
                             "--no-live"], timeout=60)
    expect(r.returncode == 5 and "none of 1000 frames came back" in r.stderr,
           (r.returncode, r.stderr[-1500:]))
    r = run(eal("rfclif") + ["--", "--role", "reflect", "--port", "net_null0",
                             "--peer", "net_null1", "--others", "reflect",
                             "--duration", "1", "--no-live"], timeout=60)
    expect(r.returncode == 0, r.stderr[-1500:])


def test_bad_options():
    bad = [
        (["--role", "reflect", "--port", "net_null0", "--others", "keep"],
         "--others"),
        (["--role", "reflect", "--port", "net_null0", "--add-delay",
          "delay 2xs"], "2xs"),
        (["--role", "reflect", "--port", "net_null0", "--add-delay",
          "delay 2ms loss 1%"], "--add-delay"),
        (["--role", "reflect", "--port", "net_null0", "--stamp", "2"],
         "stamp"),
        (["--role", "reflect", "--port", "net_null0", "--tx-retries", "-1"],
         "tx-retries"),
        (["--role", "rtt", "--port", "net_null0", "--pair", "a"], "--pair"),
        (["--role", "rtt", "--port", "net_null0", "--pair", "a,b,c"],
         "two device names"),
        (["--role", "rtt", "--port", "net_null0", "--pair", ",b"],
         "two device names"),
        (["--role", "rtt", "--port", "net_null0", "--pair", "x" * 64 + ",b"],
         "of 1..63 bytes"),
        (["--role", "rtt", "--port", "net_null0", "--pair", "x" * 200],
         "pair"),
        (["--role", "rtt", "--port", "net_null0", "--samples", "x.csv"],
         "--pair"),
        (["--role", "rtt", "--port", "net_null0", "--size", "12"], "size"),
        (["--role", "rtt", "--port", "net_null0", "--paire", "a,b"],
         "--paire"),
    ]
    for k, (args, word) in enumerate(bad):
        r = run(eal("rfbad%d" % k) + ["--"] + args)
        expect(r.returncode == 2 and word in r.stderr,
               (args, r.returncode, r.stderr[-500:]))
    # A wheel larger than the port's pool spares: known only with the
    # port, so a failed run (1), saying which --mbufs would do.
    r = run(eal("rfbigw") + ["--", "--role", "reflect", "--port", "net_null0",
                             "--add-delay", "delay 2ms", "--rate", "100M",
                             "--duration", "1"])
    expect(r.returncode == 1 and "--mbufs" in r.stderr and
           "--rate" in r.stderr, (r.returncode, r.stderr[-500:]))


if __name__ == "__main__":
    main([test_swap_every_field, test_others_drop_or_reflect,
          test_never_reflects_twice, test_others_from_our_mac_are_looped,
          test_rtt_over_the_wire,
          test_add_delay_raises_the_minimum, test_samples_file,
          test_rtt_over_memif, test_drops_are_counted, test_count_is_exact,
          test_summary_has_every_counter,
          test_add_delay_without_rate_sizes_or_refuses,
          test_rtt_counts_what_never_came_back, test_rtt_in_flight_at_the_stop,
          test_rtt_unreflected_is_invalid,
          test_rtt_nothing_back_ends_and_says_so,
          test_cli_rtt_and_reflect_on_null,
          test_bad_options])
