#!/usr/bin/env python3
"""The real binary over net_null, the virtual wire and net_pcap, checked with
tshark and scapy rather than with linerate's own decoder."""
import glob
import os
import re
import struct
import subprocess

from lrtest import (LINERATE, SRC, VethNetns, eal, expect, load_json, main, memif, run,
                    sh, tmpdir)


def test_null_exact_count():
    d = tmpdir()
    out = os.path.join(d, "r.json")
    r = run(eal("null1") + ["--", "--role", "gen", "--port", "net_null0",
                            "--count", "1000000", "--size", "128", "--json", out,
                            "--no-live"])
    expect(r.returncode == 0, r.stderr)
    doc = load_json(out)
    t = doc["tasks"][0]
    expect(t["tx_packets"] == 1000000 and t["tx_bytes"] == 1000000 * 124, t)
    expect(doc["ports"][0]["opackets"] == 1000000, doc["ports"])
    expect("tx 1000000 packets" in r.stdout, r.stdout)


def test_null_duration_and_rate():
    d = tmpdir()
    out = os.path.join(d, "r.json")
    r = run(eal("null2") + ["--", "--role", "gen", "--port", "net_null0",
                            "--duration", "0.5", "--rate", "200k", "--json", out,
                            "--no-live"])
    t = load_json(out)["tasks"][0]
    # Never early; how late depends on when the shared machine gives the
    # lcore back, which is not the code's guarantee (a generous bound).
    expect(0.5 <= t["duration_s"] < 10, t["duration_s"])
    # 200 kpps for 0.5 s: never more. Fewer only when the shared machine
    # took the lcore away, and then the run says so and exits 3.
    expect(t["tx_packets"] <= 100001 and t["send_s"] <= 0.5 + 1 / 200e3 + 1e-6, t)
    expect(t["verdict"] == ("short" if t["offered"] < 0.999 else "ok"), t)
    expect(r.returncode == (3 if t["verdict"] == "short" else 0), r.stderr)


def test_quickstart_on_the_wire():
    r = run(eal("wire1") + ["--", os.path.join(SRC, "lua", "quickstart.lua"),
                            "count=300000", "size=128", "flows=4"])
    expect(r.returncode == 0, r.stdout + r.stderr)
    expect("sent 300000, received 300000" in r.stdout and
           "4 flows: 300000 received once, 0 lost" in r.stdout and
           "quickstart: OK" in r.stdout, r.stdout)


def test_scenarios_refuse_bad_arguments():
    """Every scenario of lua/ reads key=value arguments with testbed.params:
    an unknown key, a word that is not key=value or a value out of range
    is one line on stderr naming the script, and exit 2, before anything
    runs; `help` lists the keys and exits 0."""
    scripts = sorted(glob.glob(os.path.join(SRC, "lua", "*.lua")))
    expect(len(scripts) >= 10, scripts)
    for s in scripts:
        name = os.path.basename(s)[:-len(".lua")]
        cases = [("nokey=1", "argument 'nokey': no such key"),
                 ("300000", "argument '300000': want key=value")]
        if name == "quickstart":
            cases += [("count=0", "argument count=0: want an integer, 1 <= count"),
                      ("size=32", "64 <= size <= 1518"),
                      ("flows=x", "argument flows=x: want an integer")]
        for a, said in cases:
            # DPDK's own lines (EAL:, TELEMETRY:) are not the script's.
            r = run(eal("badarg") + ["--", "--no-live", s, a], timeout=30)
            lines = [l for l in r.stderr.splitlines()
                     if not re.match(r"^(EAL|TELEMETRY): ", l)]
            expect(r.returncode == 2 and len(lines) == 1 and
                   lines[0].startswith(name + ": ") and said in lines[0],
                   "%s %s: rc %d\n%s" % (name, a, r.returncode, r.stderr[-400:]))
        r = run(eal("help") + ["--", "--no-live", s, "help"], timeout=30)
        expect(r.returncode == 0 and "count=" in r.stdout
               if name == "quickstart" else r.returncode == 0,
               "%s help: rc %d\n%s" % (name, r.returncode, r.stdout[-400:]))


def test_wire_multiqueue_jumbo():
    d = tmpdir()
    script = os.path.join(d, "mq.lua")
    with open(script, "w") as f:
        f.write("""
local a, b = assert(linerate.wire{queues = 2, mtu = 9000})
local rx, gen = {}, {}
for q = 0, 1 do
  rx[q] = assert(linerate.task{role = "rx", port = b, queue = q})
  gen[q] = assert(linerate.task{role = "gen", port = a, queue = q, size = 9018,
                                count = 20000, flow_base = q * 100})
end
linerate.start()
for q = 0, 1 do assert(gen[q]:wait(30)) end
for q = 0, 1 do rx[q]:wait{idle = 0.2} end
linerate.stop()
for q = 0, 1 do
  local s = rx[q]:stats()
  assert(s.own_packets == 20000, ("queue %d got %d"):format(q, s.own_packets))
  assert(s.rx_bytes == 20000 * 9014)
end
""")
    out = os.path.join(d, "r.json")
    r = run(eal("wire2") + ["--", "--json", out, script])
    expect(r.returncode == 0, r.stderr)
    doc = load_json(out)
    expect(doc["totals"]["rx_packets"] == 40000 == doc["totals"]["tx_packets"],
           doc["totals"])


def pcap_frames(path):
    """(length, udp src port, payload bytes) of each frame, read by tshark."""
    r = subprocess.run(["tshark", "-r", path, "-T", "fields", "-e", "frame.len",
                        "-e", "udp.srcport", "-e", "udp.payload"],
                       capture_output=True, text=True, check=True)
    return [line.split("\t") for line in r.stdout.splitlines()]


def test_pcap_out_read_by_tshark():
    d = tmpdir()
    path = os.path.join(d, "gen.pcap")
    r = run(eal("pcap1") + ["--", "--role", "gen", "--port",
                            "net_pcap0,tx_pcap=" + path, "--count", "300",
                            "--size", "100", "--flows", "3", "--no-live"])
    expect(r.returncode == 0, r.stderr)
    frames = pcap_frames(path)
    expect(len(frames) == 300, len(frames))
    seq = {}
    for i, (length, sport, payload) in enumerate(frames):
        expect(length == "96", length)	# 100 B on the wire less the FCS
        expect(int(sport) == 1024 + i % 3, sport)
        raw = bytes.fromhex(payload.replace(":", ""))
        magic, flow, s, tsc = struct.unpack(">HIIQ", raw[:18])
        expect(magic == 0x4C52 and flow == i % 3, (magic, flow))
        expect(s == seq.get(flow, 0), (flow, s))
        seq[flow] = s + 1
        expect(tsc > 0, tsc)


def test_pcap_in_own_and_foreign():
    from scapy.all import ARP, IP, UDP, Ether, Raw, wrpcap
    d = tmpdir()
    path = os.path.join(d, "in.pcap")
    pkts = []
    for i in range(100):
        hdr = struct.pack(">HIIQ", 0x4C52, i % 5, i // 5, 12345 + i)
        pkts.append(Ether() / IP(src="10.0.0.1", dst="10.0.0.2") /
                    UDP(sport=1024 + i % 5, dport=5001) / Raw(hdr + bytes(10)))
    pkts.append(Ether() / ARP())
    pkts.append(Ether() / IP() / UDP() / Raw(b"\x00" * 18))	# wrong magic
    pkts.append(Ether(bytes(Ether() / IP() / UDP() / Raw(struct.pack(">HIIQ", 0x4C52, 1, 2, 3))
                      )[:40]))					# truncated
    wrpcap(path, pkts)
    out = os.path.join(d, "r.json")
    r = run(eal("pcap2") + ["--", "--role", "rx", "--port", "net_pcap0,rx_pcap=" + path,
                            "--duration", "0.5", "--json", out, "--no-live"])
    expect(r.returncode == 0, r.stderr)
    t = load_json(out)["tasks"][0]
    expect(t["own_packets"] == 100 and t["foreign_packets"] == 3, t)
    expect(t["rx_packets"] == 103, t)


def test_capture_formats_end_exactly():
    """A capture ends after exactly the frames net_pcap reads, whatever its
    format: little- and big-endian pcap, ns timestamps, pcapng, and a last
    record cut short (the PMD stops before it)."""
    from scapy.all import IP, UDP, Ether, PcapNgWriter, PcapWriter, Raw
    d = tmpdir()
    pkts = [Ether() / IP(src="10.0.0.1", dst="10.0.0.2") /
            UDP(sport=1024 + i % 3, dport=5001) / Raw(bytes(20 + i))
            for i in range(100)]
    cases = []
    for name, kw in (("le", {}), ("be", {"endianness": ">"}),
                     ("ns", {"nano": True})):
        path = os.path.join(d, name + ".pcap")
        w = PcapWriter(path, **kw)
        w.write(pkts)
        w.close()
        cases.append((path, 100))
    path = os.path.join(d, "ng.pcapng")
    w = PcapNgWriter(path)
    w.write(pkts)
    w.close()
    cases.append((path, 100))
    cut = os.path.join(d, "cut.pcap")
    data = open(os.path.join(d, "le.pcap"), "rb").read()
    open(cut, "wb").write(data[:-10])
    cases.append((cut, 99))
    for path, want in cases:
        out = os.path.join(d, "r.json")
        r = run(eal("fmt") + ["--", "--role", "rx", "--port",
                              "net_pcap0,rx_pcap=" + path, "--json", out,
                              "--no-live"], timeout=60)
        # Not linerate's frames: rx has no loss to give (exit 5), and
        # counts every one.
        expect(r.returncode == 5 and "no linerate frame of a tracked flow" in r.stderr,
               (path, r.returncode, r.stderr[-400:]))
        t = load_json(out)["tasks"][0]
        expect(t["rx_packets"] == want and "end of capture: %d frames" % want
               in r.stderr, (path, t["rx_packets"], r.stderr[-400:]))


def test_pcap_out_full_disk_fails():
    """A gen capture (net_pcap tx_pcap) onto a full file system: the PMD
    drops libpcap's write errors, and the run ended 0 with part of the
    frames and a cut record (issue 35 L10). Now one line naming the file
    and the reason, exit 1; onto room, every frame, exit 0."""
    if os.geteuid() != 0:
        print("  skip: needs root (mount)")
        return
    d = tmpdir()
    small = os.path.join(d, "small")
    os.mkdir(small)
    path = os.path.join(small, "gen.pcap")
    # 3000 frames of 96 B: 336024 B of capture, onto a tmpfs of 128 KiB
    # mounted in a mount namespace of linerate's own: it goes with the
    # process, whatever the end of the test.
    gen = ["--", "--role", "gen", "--count", "3000", "--size", "100",
           "--no-live", "--port"]
    r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                        'mount -t tmpfs -o size=128k lr_st_full "$0" && exec "$@"',
                        small, LINERATE] + eal("pcapfull") + gen +
                       ["net_pcap0,tx_pcap=" + path],
                       capture_output=True, text=True, timeout=60)
    lines = [l for l in r.stderr.splitlines() if path in l]
    expect(r.returncode == 1 and len(lines) == 1 and
           lines[0].startswith("linerate: port net_pcap0: capture %s: not written whole"
                               % path) and
           "336024 B" in lines[0] and "No space left on device" in lines[0],
           "rc %d %r" % (r.returncode, r.stderr[-600:]))
    expect(os.listdir(small) == [], os.listdir(small))	# the mount went with it
    # The same onto room: exit 0, nothing said, every frame there.
    path = os.path.join(d, "gen.pcap")
    r = run(eal("pcaproom") + gen + ["net_pcap0,tx_pcap=" + path])
    expect(r.returncode == 0 and "capture" not in r.stderr,
           "rc %d %r" % (r.returncode, r.stderr[-600:]))
    expect(os.path.getsize(path) == 336024, os.path.getsize(path))
    expect(len(pcap_frames(path)) == 3000, len(pcap_frames(path)))
    # A device keeps no size: not checked, not a failure.
    r = run(eal("pcapdevnull") + gen + ["net_pcap0,tx_pcap=/dev/null"])
    expect(r.returncode == 0 and "capture" not in r.stderr,
           "rc %d %r" % (r.returncode, r.stderr[-600:]))


def test_virtual_ports_say_themselves():
    """What a port says about itself (issue 38 item 2): net_ring and
    net_null carry their driver, the offloads asked and granted (rx:
    none granted), RSS (net_ring: null with its reason; net_null with
    two queues: the fields by name and the key it holds, read back), the
    link after the wait, and their drops over the run (all 0)."""
    d = tmpdir()
    out = os.path.join(d, "ring.json")
    r = run(eal("pring") + ["--vdev", "net_ring0", "--", "--role", "gen", "--port",
                            "net_ring0", "--count", "1000", "--json", out, "--no-live"])
    expect(r.returncode == 0, r.stderr[-800:])
    p = load_json(out)["ports"][0]
    expect(p["driver"] == "net_ring" and p["name"] == "net_ring0", p)
    expect(p["rss"] is None and p["rss_none"] == "the PMD has no RSS", p)
    expect(p["rx_offloads"]["granted"] == [] and
           "IPV4_CKSUM" in p["rx_offloads"]["asked"] and
           "UDP_CKSUM" in p["tx_offloads"]["asked"] and
           set(p["tx_offloads"]["granted"]) <= set(p["tx_offloads"]["capable"]) &
           set(p["tx_offloads"]["asked"]), p)
    expect(p["link_up"] is True and p["link_up_at_end"] is True and
           p["link_mbps"] == 10000 and p["link_duplex"] == "full" and
           p["link_timeout_s"] == 5 and 0 <= p["link_wait_s"] < 5, p)
    expect(p["drops"] == {"imissed": 0, "rx_nombuf": 0, "ierrors": 0, "oerrors": 0,
                          "xstats": {}}, p["drops"])
    out = os.path.join(d, "null.json")
    r = run(eal("pnull") + ["--vdev", "net_null0", "--", "--role", "gen", "--port",
                            "net_null0", "--queues", "2", "--flows", "2", "--count",
                            "1000", "--json", out, "--no-live"])
    expect(r.returncode == 0, r.stderr[-800:])
    p = load_json(out)["ports"][0]
    rss = p["rss"]
    expect(p["driver"] == "net_null" and "rss_none" not in p and rss is not None, p)
    expect({"ipv4", "ipv4-udp", "ipv4-tcp", "ipv6-udp"} <= set(rss["hash_functions"]) and
           rss["rss_hf"] == p["rss_hf"] and rss["key_len"] == 40 and
           re.fullmatch("[0-9a-f]{80}", rss["key"]), rss)
    expect(p["rx_offloads"]["granted"] == [] and "RSS_HASH" in p["rx_offloads"]["asked"], p)


def test_link_down_is_said_not_hung_on():
    """A port whose link stays down (a memif server no client joins) is
    waited for --link-timeout, said in one line, and the run goes on:
    link_up false in the result, and rx, which got nothing, invalid."""
    d = tmpdir()
    out, sock = os.path.join(d, "r.json"), os.path.join(d, "m.sock")
    r = run(eal("plink") + ["--", "--role", "rx", "--port", memif(sock, "server"),
                            "--link-timeout", "1", "--duration", "0.3", "--json", out,
                            "--no-live"], timeout=60)
    said = [l for l in r.stderr.splitlines() if "link down" in l]
    expect(r.returncode == 5 and len(said) == 1 and
           "net_memif0: link down after 1.0 s" in said[0], (r.returncode, r.stderr[-800:]))
    doc = load_json(out)
    p = doc["ports"][0]
    expect(p["link_up"] is False and p["link_up_at_end"] is False and
           1 <= p["link_wait_s"] < 30 and p["link_timeout_s"] == 1, p)
    expect(doc["verdict"] == "invalid", doc["verdict"])
    expect(not os.path.exists(sock), "memif socket left")


class Netns(VethNetns):
    """lrtest's veth pair in a namespace, and linerate run in it."""

    def __init__(self, tag):
        super().__init__("v", tag)

    def run(self, args, timeout=120):
        return subprocess.run(["ip", "netns", "exec", self.ns, LINERATE] + args,
                              capture_output=True, text=True, timeout=timeout)


def root_with_netns():
    if os.geteuid() != 0:
        print("  skip: needs root (ip netns)")
        return False
    return True


def test_af_packet_port_on_veth():
    """net_af_packet on a veth pair in a namespace of the test's own: each
    port says its driver, its link up with a speed, and its counters; the
    receiver's frames are rx's."""
    if not root_with_netns():
        return
    d = tmpdir()
    out, script = os.path.join(d, "r.json"), os.path.join(d, "v.lua")
    with Netns("pveth") as n:
        with open(script, "w") as f:
            f.write("""
local a = assert(linerate.port("net_af_packet0,iface=%s", {}))
local b = assert(linerate.port("net_af_packet1,iface=%s", {}))
assert(a.link_up and b.link_up, "port.link_up")
local r = assert(linerate.task{role = "rx", port = b})
local g = assert(linerate.task{role = "gen", port = a, count = 2000, rate = "20k"})
linerate.start()
assert(g:wait(60))
r:wait{idle = 0.3}
linerate.stop()
assert(linerate.write_json("%s"))
""" % (n.a, n.b, out))
        r = n.run(eal("pveth") + ["--", "--no-live", script])
    expect(r.returncode == 0, (r.returncode, r.stderr[-1000:]))
    doc = load_json(out)
    ports = {p["name"]: p for p in doc["ports"]}
    expect(set(ports) == {"net_af_packet0", "net_af_packet1"}, list(ports))
    for p in ports.values():
        expect(p["driver"] == "net_af_packet" and p["link_up"] and p["link_mbps"] > 0 and
               p["link_speed_mbps"] == p["link_mbps"] and p["rss"] is None and
               p["rss_none"] == "the PMD has no RSS" and
               set(p["drops"]) == {"imissed", "rx_nombuf", "ierrors", "oerrors", "xstats"}, p)
    a, b = ports["net_af_packet0"], ports["net_af_packet1"]
    rx = doc["tasks"][0]
    # The PMD of DPDK 22.11 does not read the kernel's drops on its
    # socket (PACKET_STATISTICS): a frame the kernel dropped under load
    # is in no counter, so all 2000 is the usual case, not a promise.
    expect(a["opackets"] == 2000 and b["ipackets"] >= rx["own_packets"] and
           0 < rx["own_packets"] <= 2000 and rx["verdict"] == "ok", (a, b, rx))
    expect(doc["rx"]["limited_by"] is None and doc["rx"]["port_rx_drops"] == 0, doc["rx"])


# Sends linerate frames of flow 0 (magic, flow, sequence, TX stamp 0: no
# latency) from FIRST on, N of them, out of IFACE into the veth: as fast as
# a raw socket goes, or at about PPS frames a second (a burst of 50 each
# 50 / PPS s).
SENDER = r"""
import socket, struct, sys, time
iface, first, n, pps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((iface, 0))
s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
eth = bytes.fromhex("020000000002020000000001") + struct.pack(">H", 0x0800)
def csum(h):
    x = sum(struct.unpack(">10H", h))
    x = (x >> 16) + (x & 0xFFFF)
    return (~((x >> 16) + x)) & 0xFFFF
for seq in range(first, first + n):
    if pps and seq % 50 == 0:
        time.sleep(50 / pps)
    pay = struct.pack(">HIIQ", 0x4C52, 0, seq, 0) + bytes(14)
    udp = struct.pack(">HHHH", 1024, 5001, 8 + len(pay), 0) + pay
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    ip = ip[:10] + struct.pack(">H", csum(ip)) + ip[12:]
    while True:
        try:
            s.send(eth + ip + udp)
            break
        except OSError:
            pass
"""


def test_receiving_port_drops_are_the_testers_loss():
    """A receiving port that drops frames itself while rx runs (its reader
    stopped: net_pcap on a veth, the process SIGSTOPped while 30000
    frames come, its kernel buffer full) says so in its drops over the
    run, and rx's verdict says the loss is the tester's (invalid,
    limited_by port), not the device's. The same port with its reader
    running drops none and rx is ok."""
    if not root_with_netns():
        return
    import signal
    import time
    d = tmpdir()
    sender = os.path.join(d, "send.py")
    with open(sender, "w") as f:
        f.write(SENDER)
    docs, errs = {}, {}
    with Netns("pdrop") as n:
        def send(first, count, pps=0):
            r = subprocess.run(["ip", "netns", "exec", n.ns, "/usr/bin/python3", sender,
                                n.a, str(first), str(count), str(pps)],
                               capture_output=True, text=True, timeout=120)
            expect(r.returncode == 0, r.stderr[-500:])
        for stall in (False, True):
            out = os.path.join(d, "%d.json" % stall)
            p = subprocess.Popen(["ip", "netns", "exec", n.ns, LINERATE] +
                                 eal("pdrop%d" % stall) +
                                 ["--", "--role", "rx", "--port", "net_pcap0,rx_iface=" + n.b,
                                  "--duration", "3", "--live", "--json", out],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                # rx is polling once the live line comes.
                line = p.stdout.readline()
                expect(" s] " in line, line)
                if stall:
                    p.send_signal(signal.SIGSTOP)
                    time.sleep(0.2)
                # Read from the start, paced: libpcap's ring in immediate
                # mode holds about 32 frames, and a reader the host took
                # the CPU from for 2 ms dropped 17 at 20 kpps.
                send(0, 30000 if stall else 1000, 0 if stall else 2000)
                if stall:
                    p.send_signal(signal.SIGCONT)
                    time.sleep(0.3)
                    send(30000, 100)	# a gap behind them: rx's loss
                outs, errs[stall] = p.communicate(timeout=60)
                expect(p.returncode in ((5,) if stall else (0, 5)),
                       (p.returncode, errs[stall][-500:]))
            finally:
                if p.poll() is None:
                    p.send_signal(signal.SIGCONT)
                    p.kill()
                    p.wait()
            docs[stall] = load_json(out)
            # The summary says it too (rx's words), when it dropped.
            expect(("port dropped" in outs) ==
                   (docs[stall]["ports"][0]["drops"]["imissed"] > 0), outs[-500:])
    ok, bad = docs[False], docs[True]
    port, rx = ok["ports"][0], ok["tasks"][0]
    # Read from the start, the port drops none, and rx is ok; on a host
    # so busy that it dropped some all the same, rx says so as below
    # (test_af_packet_port_on_veth has an ok that no load changes).
    dropped = port["drops"]["imissed"]
    expect(0 < rx["own_packets"] <= 1000 and
           rx["verdict"] == ("invalid" if dropped else "ok") and
           ok["rx"]["limited_by"] == ("port" if dropped else None) and
           ok["rx"]["port_rx_drops"] == dropped,
           (port["drops"], rx["own_packets"], rx["verdict"], errs[False][-500:]))
    if dropped:
        print("  (busy host: the paced reader's port dropped %d)" % dropped)
    port, rx = bad["ports"][0], bad["tasks"][0]
    drops = port["drops"]
    # Frames the kernel held were read; the rest the port dropped (and
    # the kernel's own frames on the veth: IPv6 neighbour discovery).
    expect(drops["imissed"] > 0 and 0 < rx["own_packets"] < 30100 and rx["lost"] > 0 and
           drops["xstats"].get("rx_missed_errors") == drops["imissed"], (drops, rx))
    expect(rx["verdict"] == "invalid" and
           ("port net_pcap0 dropped %d frames itself while the task ran (imissed %d"
            % (drops["imissed"], drops["imissed"])) in rx["verdict_why"] and
           "tester's" in rx["verdict_why"] and
           ("rx counted %d lost" % rx["lost"]) in rx["verdict_why"], rx)
    expect(bad["verdict"] == "invalid" and bad["rx"]["limited_by"] == "port" and
           bad["rx"]["port_rx_drops"] == drops["imissed"], bad["rx"])
    said = [l for l in errs[True].splitlines() if "dropped" in l and "itself" in l]
    expect(len(said) == 1 and said[0].startswith("linerate: task 0: port net_pcap0"),
           errs[True][-800:])

if __name__ == "__main__":
    main([test_null_exact_count, test_null_duration_and_rate,
          test_quickstart_on_the_wire, test_scenarios_refuse_bad_arguments,
          test_wire_multiqueue_jumbo,
          test_pcap_out_read_by_tshark, test_pcap_in_own_and_foreign,
          test_capture_formats_end_exactly, test_pcap_out_full_disk_fails,
          test_virtual_ports_say_themselves, test_link_down_is_said_not_hung_on,
          test_af_packet_port_on_veth, test_receiving_port_drops_are_the_testers_loss])
