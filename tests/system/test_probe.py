"""The probe role end to end: gen's flows into the probe, IPFIX out, read by
independent collectors (ipfixDump from libfixbuf, nfcapd + nfdump, pmacct's
nfacctd, tshark); the distributor's channels and ingress modes; a
collector that is down; malformed packets counted by reason; bad options.
"""
import os
import re
import signal
import socket
import struct
import subprocess
import time

from lrtest import LINERATE, SRC, eal, expect, load_json, main, run, tmpdir


def probe_flows(name, *args):
    return run(eal(name, mem=1024) + ["--", os.path.join(SRC, "lua", "probe-flows.lua")] +
               list(args), timeout=300)


def gen_pcap(name, path, *args):
    """gen's frames (its options in args) written to the pcap at path."""
    r = run(eal(name) + ["--", "--role", "gen", "--port", "net_pcap0,tx_pcap=" + path,
                         "--no-live"] + list(args))
    expect(r.returncode == 0, r.stderr)


def append_frames(path, pkts):
    """scapy's frames appended to a capture gen wrote, in its byte order and
    time precision (scapy took seconds a thousand frames to read gen's and
    write them back); the frames the capture then has."""
    from scapy.all import wrpcap
    head = open(path, "rb").read(4)
    e = "<" if head in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    nano = head in (b"\xa1\xb2\x3c\x4d", b"\x4d\x3c\xb2\xa1")
    expect(e == "<", "%s: a big-endian capture from gen" % path)
    wrpcap(path, pkts, append=True, nano=nano, linktype=1)
    data, n, off = open(path, "rb").read(), 0, 24
    while off + 16 <= len(data):
        off += 16 + struct.unpack_from("<I", data, off + 8)[0]
        n += 1
    expect(off == len(data), "%s: a frame cut short" % path)
    return n


def ipfixdump(path, *opts):
    """Every data record of an IPFIX file as ipfixDump prints it (with
    @p opts: --rfc5610, --hexdump=N), a dict of name to value; a string's
    value without ipfixDump's "(len: N) " before it."""
    r = subprocess.run(["ipfixDump"] + list(opts) + ["--in", path], capture_output=True,
                       text=True, timeout=60)
    expect(r.returncode == 0, r.stderr)
    recs, cur = [], None
    for line in r.stdout.splitlines():
        if line.startswith("--- data record"):
            cur = {}
            recs.append(cur)
        m = re.match(r"\s*\([\d/]+\)(?: \(S\))?\s+(\w+) : (.*)$", line)
        if m and cur is not None:
            v = m.group(2).strip()
            s = re.match(r"\(len: \d+\) (.*)$", v)
            cur[m.group(1)] = s.group(1) if s else v
    return recs


def test_file_export_read_by_ipfixdump():
    d = tmpdir()
    path = os.path.join(d, "f.ipfix")
    r = probe_flows("pf", "flows=500", "count=50000", "size=128",
                    "export=file:" + path)
    expect(r.returncode == 0, r.stdout + r.stderr)
    recs = ipfixdump(path)
    flows = [x for x in recs if "sourceIPv4Address" in x]
    stats = [x for x in recs if "exportedFlowRecordTotalCount" in x]
    expect(len(flows) == 500, len(flows))
    expect(sum(int(x["packetDeltaCount"]) for x in flows) == 50000, "packets")
    # 128 B frames: 110 B of IP per packet
    expect(all(int(x["octetDeltaCount"]) == 110 * int(x["packetDeltaCount"])
               for x in flows), "bytes")
    tuples = {(x["sourceIPv4Address"], x["destinationIPv4Address"],
               x["sourceTransportPort"], x["destinationTransportPort"],
               x["protocolIdentifier"]) for x in flows}
    expect(len(tuples) == 500, len(tuples))
    expect(all(t[1] == "10.0.0.2" and t[3] == "5001" and t[4] == "17" for t in tuples),
           list(tuples)[:3])
    expect(all(x["flowEndReason"] == "4" for x in flows), "forced end")
    expect(len(stats) == 1 and stats[0]["exportedFlowRecordTotalCount"] == "500", stats)
    tshark_reads(path, d, 500, 50000)


def tshark_reads(path, d, flows, packets):
    """The file's messages as UDP datagrams to 4739, decoded by tshark's
    cflow dissector: no malformed message, every record and packet."""
    from scapy.all import IP, UDP, Ether, Raw, wrpcap
    data = open(path, "rb").read()
    off, frames = 0, []
    while off < len(data):
        n = struct.unpack(">H", data[off + 2:off + 4])[0]
        frames.append(Ether() / IP(src="127.0.0.1", dst="127.0.0.1") /
                      UDP(sport=40000, dport=4739) / Raw(data[off:off + n]))
        off += n
    pcap = os.path.join(d, "ipfix.pcap")
    wrpcap(pcap, frames)
    r = subprocess.run(["tshark", "-r", pcap, "-d", "udp.port==4739,cflow", "-T",
                        "fields", "-E", "occurrence=a", "-e", "cflow.packets",
                        "-e", "_ws.malformed"], capture_output=True, text=True,
                       timeout=120)
    expect(r.returncode == 0, r.stderr)
    counts = []
    for line in r.stdout.splitlines():
        cols = line.split("\t")
        expect(len(cols) < 2 or cols[1] == "", "tshark: malformed: " + line)
        counts += [int(x) for x in cols[0].split(",") if x]
    expect(len(counts) == flows and sum(counts) == packets, (len(counts), sum(counts)))


def free_udp_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def nfcapd_collect(export, fmt):
    """Run export(port) with nfcapd listening on port; nfdump's rows."""
    nf = os.path.join(tmpdir(), "nf")
    os.mkdir(nf)
    port = free_udp_port()
    cap = subprocess.Popen(["nfcapd", "-b", "127.0.0.1", "-p", str(port), "-w", nf,
                            "-t", "3600"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        export(port)
        time.sleep(0.5)
    finally:
        cap.send_signal(signal.SIGTERM)
        cap.wait(timeout=30)
    out = subprocess.run(["nfdump", "-R", nf, "-q", "-o", "fmt:" + fmt],
                         capture_output=True, text=True, timeout=60)
    expect(out.returncode == 0, out.stderr)
    return [l.split() for l in out.stdout.splitlines() if l.strip()]


def test_udp_export_read_by_nfcapd():
    def export(port):
        r = probe_flows("pu", "flows=2000", "count=100000",
                        "export=udp:127.0.0.1:%d" % port)
        expect(r.returncode == 0, r.stdout + r.stderr)
    rows = nfcapd_collect(export, "%sa %da %sp %dp %pkt %byt")
    expect(len(rows) == 2000, len(rows))
    expect(sum(int(x[4]) for x in rows) == 100000, "packets")
    expect(len({(x[0], x[2]) for x in rows}) == 2000, "distinct flows")


def test_udp_export_paced_nfcapd_gets_every_record():
    # 16384 flows end at once when the run stops: 656 messages. Unpaced,
    # that burst overflowed nfcapd's socket buffer on loopback (11357 of
    # 16384 flows kept, unseen by the sender: UDP has no acknowledgement).
    # At the default pace every record arrives.
    def export(port):
        r = run(eal("ppace", mem=1024) +
                ["--", os.path.join(SRC, "lua", "probe-flows.lua"), "flows=16384",
                 "count=200000", "export=udp:127.0.0.1:%d" % port], timeout=300)
        expect(r.returncode == 0, r.stdout + r.stderr)
        expect("exported 16385 records" in r.stdout and "0 records lost" in r.stdout,
               r.stdout)
    rows = nfcapd_collect(export, "%sa %da %sp %dp %pkt %byt")
    expect(len(rows) == 16384, len(rows))
    expect(len({(x[0], x[2]) for x in rows}) == 16384, "distinct flows")
    expect(sum(int(x[4]) for x in rows) == 200000, "packets")


def test_udp_pace_bounded_at_the_end():
    # 1 message a second and 1 s to deliver: the end-of-run flush cannot
    # send 3001 records. The process still ends, says so, counts what it
    # dropped in records_lost (nothing left waiting) and exits 1.
    d = tmpdir()
    pcap, out = os.path.join(d, "b.pcap"), os.path.join(d, "b.json")
    gen_pcap("pbg", pcap, "--count", "6000", "--flows", "3000")
    col = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    col.bind(("127.0.0.1", 0))
    try:
        r = run(eal("pbp", mem=1024) + ["--", "--role", "probe", "--port",
                                        "net_pcap0,rx_pcap=" + pcap, "--count", "6000",
                                        "--entries", "16384", "--export",
                                        "udp:127.0.0.1:%d" % col.getsockname()[1],
                                        "--export-rate", "1", "--export-wait", "1",
                                        "--json", out, "--no-live"], timeout=120)
    finally:
        col.close()
    expect(r.returncode == 1 and "still waiting after 1 s at 1 messages/s" in r.stderr,
           (r.returncode, r.stderr))
    e = load_json(out)["probe"]["exporter"]
    expect(e["records"] + e["records_lost"] == 3001 and e["records_lost"] > 0, e)
    expect(e["records_waiting"] == 0 and e["udp_waiting_bytes"] == 0, e)


def test_udp_export_read_by_nfacctd():
    # pmacct's nfacctd decodes the IPFIX into a CSV of 5-tuples, appended at
    # every refresh; summed per flow it must hold every flow and packet.
    d = tmpdir()
    port, out = free_udp_port(), os.path.join(d, "out.csv")
    conf = os.path.join(d, "nfacctd.conf")
    with open(conf, "w") as f:
        f.write("daemonize: false\nnfacctd_ip: 127.0.0.1\nnfacctd_port: %d\n"
                "plugins: print[p]\n"
                "aggregate[p]: src_host, dst_host, src_port, dst_port, proto\n"
                "print_output[p]: csv\nprint_output_file[p]: %s\n"
                "print_output_file_append[p]: true\nprint_refresh_time[p]: 1\n"
                % (port, out))
    nfa = subprocess.Popen(["nfacctd", "-f", conf], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        time.sleep(1)
        r = probe_flows("pnfa", "flows=500", "count=20000", "size=128",
                        "export=udp:127.0.0.1:%d" % port)
        expect(r.returncode == 0, r.stdout + r.stderr)
        time.sleep(2.5)			# a refresh after the last message
    finally:
        nfa.send_signal(signal.SIGINT)
        try:
            nfa.wait(timeout=15)
        except subprocess.TimeoutExpired:
            nfa.kill()
            nfa.wait()
    flows = {}
    for line in open(out):
        x = line.strip().split(",")
        if len(x) != 7 or x[0] == "SRC_IP":
            continue
        pk, by = flows.get(tuple(x[:5]), (0, 0))
        flows[tuple(x[:5])] = (pk + int(x[5]), by + int(x[6]))
    expect(len(flows) == 500, len(flows))
    expect(sum(p for p, _ in flows.values()) == 20000, "packets")
    expect(all(k[1] == "10.0.0.2" and k[3] == "5001" and k[4] == "udp" for k in flows),
           list(flows)[:3])
    expect(all(b == 110 * p for p, b in flows.values()), "bytes")


def test_collector_down_is_counted():
    # Nothing listens on the port: after the first message, ICMP port
    # unreachable makes sends fail; the run ends, failures counted, and
    # exits 1 since records were not delivered.
    r = probe_flows("pdown", "flows=5000", "count=50000",
                    "export=udp:127.0.0.1:%d" % free_udp_port())
    expect(r.returncode == 1 and "IPFIX records not delivered" in r.stderr,
           r.stdout + r.stderr)
    m = re.search(r"exported (\d+) records in (\d+) messages; (\d+) sends failed, "
                  r"(\d+) records lost", r.stdout)
    expect(m, r.stdout)
    sent, msgs, failed, lost = (int(x) for x in m.groups())
    expect(failed >= 1 and lost >= 1, r.stdout)
    expect(sent + lost == 5001, r.stdout)	# 5000 flows and the statistics


def test_udp_closed_port_each_loss_counted_once():
    # Nothing listens: ICMP port unreachable makes sends fail. A record is
    # delivered or lost, never both, so the exporter's records and
    # records_lost add up to the flows and the statistics record, and the
    # cache's export_drops (records it could not hand on) stays 0.
    d = tmpdir()
    pcap, out = os.path.join(d, "c.pcap"), os.path.join(d, "c.json")
    gen_pcap("cpg", pcap, "--count", "20000", "--flows", "5000")
    r = run(eal("cpp", mem=1024) + ["--", "--role", "probe", "--port",
                                    "net_pcap0,rx_pcap=" + pcap, "--count", "20000",
                                    "--entries", "16384", "--export",
                                    "udp:127.0.0.1:%d" % free_udp_port(),
                                    "--json", out, "--no-live"], timeout=120)
    expect(r.returncode == 1, r.stderr)
    p = load_json(out)["probe"]
    e = p["exporter"]
    expect(sum(p["flows_ended"].values()) == 5000, p["flows_ended"])
    expect(e["records_lost"] >= 1 and e["send_errors"] >= 1, e)
    expect(p["export_drops"] == 0 and p["export_ring_full"] == 0, p)
    expect(e["records"] + e["records_lost"] == 5001, e)


def test_ring_drops_reach_the_collector():
    # A 64-record export ring and a 64-entry cache: a pcap of 4000 flows
    # ends flows faster than the main lcore drains the ring. However many
    # the ring refuses (export_drops), the statistics record tells the
    # collector in notSentFlowTotalCount, and every ended flow is in a
    # record or in that count.
    d = tmpdir()
    pcap, out = os.path.join(d, "r.pcap"), os.path.join(d, "r.json")
    ipfix = os.path.join(d, "r.ipfix")
    gen_pcap("rdg", pcap, "--count", "40000", "--flows", "4000")
    r = run(eal("rdp", mem=1024) + ["--", "--role", "probe", "--port",
                                    "net_pcap0,rx_pcap=" + pcap, "--count", "40000",
                                    "--entries", "64", "--ring", "64", "--export",
                                    "file:" + ipfix, "--json", out, "--no-live"],
            timeout=120)
    expect(r.returncode == 0, r.stderr)
    p = load_json(out)["probe"]
    recs = ipfixdump(ipfix)
    flows = [x for x in recs if "sourceIPv4Address" in x]
    stats = [x for x in recs if "exportedFlowRecordTotalCount" in x]
    expect(len(stats) == 1, stats)
    expect(int(stats[0]["notSentFlowTotalCount"]) == p["export_drops"],
           (stats[0], p["export_drops"]))
    expect(p["export_drops"] == p["export_ring_full"], p)
    expect(len(flows) + p["export_drops"] == sum(p["flows_ended"].values()),
           (len(flows), p["export_drops"], p["flows_ended"]))


BUSY_RUN = r"""
local linerate = require("linerate")
linerate.live(false)
local a, b = assert(linerate.wire("busy"))
local probe = assert(linerate.task{ role = "probe", port = b, entries = 64,
                                    ring = 256, export = arg[1] })
local gen = assert(linerate.task{ role = "gen", port = a, flows = 4000,
                                  rate = 500, count = 1500 })
linerate.start()
-- Compute for 4 s without waiting or sleeping: the gen's 3 s of new flows
-- end older ones (the cache holds 64) into the probe's 256-record ring.
local t0, x = linerate.now(), 0
while linerate.now() - t0 < 4 do
	for i = 1, 100000 do x = x + i % 7 end
end
assert(gen:wait(30))
probe:wait{ idle = 0.3 }
linerate.stop()
assert(linerate.write_json(arg[2]))
"""


def test_export_goes_on_while_a_script_computes():
    # The exporter drains the rings from an EAL alarm too, not only while
    # the main lcore waits or sleeps: about 1400 records end in the 4 s the
    # script computes, five times what the ring holds, and none is refused.
    d = tmpdir()
    script, path = os.path.join(d, "busy.lua"), os.path.join(d, "busy.ipfix")
    out = os.path.join(d, "busy.json")
    open(script, "w").write(BUSY_RUN)
    r = run(eal("pbusy", mem=1024) + ["--", script, "file:" + path, out], timeout=120)
    expect(r.returncode == 0, r.stdout + r.stderr)
    p = load_json(out)["probe"]
    expect(p["flows_ended"]["lack_of_resources"] > 4 * 256, p["flows_ended"])
    expect(p["export_ring_full"] == 0 and p["export_drops"] == 0, p)
    expect(p["exporter"]["records_lost"] == 0, p["exporter"])
    flows = [x for x in ipfixdump(path) if "sourceIPv4Address" in x]
    expect(len(flows) == sum(p["flows_ended"].values()),
           (len(flows), p["flows_ended"]))
    expect(sum(int(x["packetDeltaCount"]) for x in flows) == 1500, "packets")


def test_malformed_counted_by_reason():
    from scapy.all import IP, IPv6, TCP, UDP, ARP, Ether, IPv6ExtHdrHopByHop, Raw, wrpcap
    d = tmpdir()
    path = os.path.join(d, "bad.pcap")
    good = Ether() / IP(src="10.1.1.1", dst="10.1.1.2") / TCP(sport=1, dport=2, flags="S")
    pkts = [good, good,
            Ether() / ARP(),
            Ether(bytes(Ether() / IP())[:20]),                      # trunc_l3
            Ether(bytes(Ether() / IP(ihl=4) / UDP())),              # bad_ihl
            Ether(bytes(Ether() / IP(len=999) / UDP())),            # bad_len
            Ether(bytes(Ether() / IP(proto=6) / Raw(b"\x00" * 8))),  # trunc_l4
            Ether() / IPv6() / IPv6ExtHdrHopByHop(nh=0) / IPv6ExtHdrHopByHop(nh=0) /
            IPv6ExtHdrHopByHop(nh=0) / IPv6ExtHdrHopByHop(nh=0) / IPv6ExtHdrHopByHop(nh=0) /
            IPv6ExtHdrHopByHop(nh=0) / IPv6ExtHdrHopByHop(nh=0) / IPv6ExtHdrHopByHop(nh=0) /
            IPv6ExtHdrHopByHop(nh=0) / Raw(b"\x00" * 8),            # bad_ext
            Raw(b"\x00" * 10)]                                     # trunc_l2
    wrpcap(path, pkts)
    ipfix = os.path.join(d, "bad.ipfix")
    out = os.path.join(d, "r.json")
    r = run(eal("pbad", mem=1024) + ["--", "--role", "probe", "--port",
                                     "net_pcap0,rx_pcap=" + path, "--duration", "0.5",
                                     "--entries", "1024", "--export", "file:" + ipfix,
                                     "--json", out, "--no-live"])
    expect(r.returncode == 0, r.stderr)
    p = load_json(out)["probe"]
    want = {"ok": 2, "not_ip": 1, "trunc_l2": 1, "trunc_l3": 1, "bad_ihl": 1,
            "bad_len": 1, "bad_ext": 1, "trunc_l4": 1}
    expect(p["parsed"] == want, p["parsed"])
    flows = [x for x in ipfixdump(ipfix) if "sourceIPv4Address" in x]
    expect(len(flows) == 1 and flows[0]["packetDeltaCount"] == "2" and
           flows[0]["tcpControlBits"] == "2", flows)


SHARDS = r"""
local linerate = require("linerate")
linerate.live(false)
local a, b = assert(linerate.wire("sh", { queues = 2 }))
local probes, gens = {}, {}
for q = 0, 1 do
	probes[#probes + 1] = assert(linerate.task{ role = "probe", port = b, queue = q,
	                                            entries = 4096, export = arg[1] })
	gens[#gens + 1] = assert(linerate.task{ role = "gen", port = a, queue = q,
	                                        flows = 1000, count = 20000,
	                                        slice = q .. "/2" })
end
linerate.start()
for _, g in ipairs(gens) do assert(g:wait(30)) end
for _, p in ipairs(probes) do p:wait{ idle = 0.3 } end
linerate.stop()
local p = linerate.results().probe
print(("shards %d made %d exported %d"):format(p.tasks, p.flows_created, p.exporter.records))
"""


def test_two_shards_no_duplicates():
    d = tmpdir()
    script = os.path.join(d, "sh.lua")
    open(script, "w").write(SHARDS)
    path = os.path.join(d, "sh.ipfix")
    r = run(eal("shards", mem=1024) + ["--", script, "file:" + path], timeout=120)
    expect(r.returncode == 0, r.stdout + r.stderr)
    expect("shards 2 made 1000 exported 1001" in r.stdout, r.stdout)
    flows = [x for x in ipfixdump(path) if "sourceIPv4Address" in x]
    keys = [(x["sourceIPv4Address"], x["sourceTransportPort"]) for x in flows]
    expect(len(keys) == 1000 and len(set(keys)) == 1000, len(set(keys)))
    expect(sum(int(x["packetDeltaCount"]) for x in flows) == 20000, "packets")


TCP_RUN = r"""
local linerate = require("linerate")
linerate.live(false)
local a, b = assert(linerate.wire("tc"))
local probe = assert(linerate.task{ role = "probe", port = b, entries = 4096,
                                    active = 1, inactive = 1, export = arg[1] })
local gen = assert(linerate.task{ role = "gen", port = a, flows = 200,
                                  rate = 20000, duration = 3 })
linerate.start()
assert(gen:wait(30))
probe:wait{ idle = 0.3 }
linerate.stop()
print(("sent %d"):format(gen:stats().tx_packets))
if arg[2] then assert(linerate.write_json(arg[2])) end
"""


def collect_tcp(port, out, secs, delay):
    """A TCP collector that starts after delay s, writes the stream to out,
    for secs s at most or until the thread's done is set (the exporter's
    process has ended) and no connection waits to be taken."""
    import threading
    done = threading.Event()

    def serve():
        time.sleep(delay)
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))
        s.listen(4)
        s.settimeout(0.2)
        end = time.time() + secs
        with open(out, "wb") as f:
            while time.time() < end:
                try:
                    c, _ = s.accept()
                except socket.timeout:
                    # An ended exporter's connections were all made
                    # (connect returned) before it exited: none is left.
                    if done.is_set():
                        break
                    continue
                c.settimeout(max(0.1, end - time.time()))
                while True:
                    try:
                        d = c.recv(65536)
                    except socket.timeout:
                        break
                    if not d:
                        break
                    f.write(d)
        s.close()
    t = threading.Thread(target=serve)
    t.done = done
    t.start()
    return t


def test_tcp_collector_late_gets_everything():
    # The collector comes up 1.5 s into a 3 s run: records made before wait
    # in the buffer, the exporter reconnects with backoff, sends templates
    # and then all of it. Every packet sent is in the records collected.
    d = tmpdir()
    port = free_udp_port()
    out = os.path.join(d, "tcp.ipfix")
    th = collect_tcp(port, out, 12, 1.5)
    script = os.path.join(d, "tcp.lua")
    open(script, "w").write(TCP_RUN)
    try:
        r = run(eal("tcp", mem=1024) + ["--", script, "tcp:127.0.0.1:%d" % port],
                timeout=120)
    finally:
        th.done.set()
        th.join()
    expect(r.returncode == 0, r.stdout + r.stderr)
    sent = int(re.search(r"sent (\d+)", r.stdout).group(1))
    flows = [x for x in ipfixdump(out) if "sourceIPv4Address" in x]
    expect(sum(int(x["packetDeltaCount"]) for x in flows) == sent,
           (len(flows), sent))
    expect(len(flows) > 200, len(flows))		# active timeout 1 s: several each
    expect({x["flowEndReason"] for x in flows} >= {"2", "4"}, "active and forced ends")
    # What waited went out in order after the templates: the sequence
    # numbers never go back.
    expect_seq_unbroken(ipfix_messages(open(out, "rb").read()))


REC_BYTES = {256: 59, 257: 83, 258: 44}	# IPv4, IPv6 record, statistics


def ipfix_messages(data):
    """The whole messages of a stream (a partial last one, cut with its
    connection, left out) as (sequence number, data records, bytes)."""
    off, out = 0, []
    while off + 16 <= len(data):
        n, seq = struct.unpack(">H", data[off + 2:off + 4])[0], \
            struct.unpack(">I", data[off + 8:off + 12])[0]
        if n < 16 or off + n > len(data):
            break
        recs, so = 0, off + 16
        while so + 4 <= off + n:
            sid, sl = struct.unpack(">HH", data[so:so + 4])
            if sid in REC_BYTES:
                recs += (sl - 4) // REC_BYTES[sid]
            so += sl
        out.append((seq, recs, data[off:off + n]))
        off += n
    return out


def expect_seq_unbroken(msgs):
    """Each message's sequence number is the records before it: never back,
    never a gap (nothing lost), over every connection in turn."""
    for (s0, r0, _), (s1, _, _) in zip(msgs, msgs[1:]):
        expect(s1 == s0 + r0, ("sequence", s0, r0, s1))


def test_tcp_collector_never_up_counted():
    # Nothing ever listens: every record is counted lost, none exported,
    # nothing waits at the end, and the run fails (exit 1) saying so.
    d = tmpdir()
    pcap, out = os.path.join(d, "t.pcap"), os.path.join(d, "t.json")
    gen_pcap("tnug", pcap, "--count", "20000", "--flows", "3000")
    r = run(eal("tnu", mem=1024) + ["--", "--role", "probe", "--port",
                                    "net_pcap0,rx_pcap=" + pcap, "--count", "20000",
                                    "--entries", "16384", "--export",
                                    "tcp:127.0.0.1:%d" % free_udp_port(),
                                    "--export-wait", "1", "--json", out, "--no-live"],
            timeout=120)
    expect(r.returncode == 1 and "3001 IPFIX records not delivered" in r.stderr,
           (r.returncode, r.stderr))
    e = load_json(out)["probe"]["exporter"]
    expect(e["records"] == 0 and e["records_lost"] == 3001, e)
    expect(e["records_waiting"] == 0 and e["tcp_waiting_bytes"] == 0, e)


class TcpCollector:
    """A TCP collector on 127.0.0.1:port that keeps each connection's
    stream; with cut_after, it half-closes a connection (shutdown, FIN)
    after its first data message and reads on to the end of the stream,
    cut_after times, so that all the exporter wrote arrives."""

    def __init__(self, port, cut_after=0):
        import threading
        self.streams, self.cut_after, self.done = [], cut_after, False
        self.s = socket.socket()
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.s.bind(("127.0.0.1", port))
        self.s.listen(4)
        self.s.settimeout(0.2)
        self.t = threading.Thread(target=self.serve)
        self.t.start()

    def serve(self):
        while not self.done:
            try:
                c, _ = self.s.accept()
            except socket.timeout:
                continue
            buf, cut = bytearray(), len(self.streams) < self.cut_after
            c.settimeout(0.2)
            while True:
                try:
                    d = c.recv(65536)
                except socket.timeout:
                    if self.done:
                        break
                    continue
                except ConnectionResetError:
                    break
                if not d:
                    break
                buf += d
                if cut and any(m[1] > 0 for m in ipfix_messages(bytes(buf))):
                    c.shutdown(socket.SHUT_WR)
                    cut = False
            c.close()
            self.streams.append(bytes(buf))
        self.s.close()

    def stop(self):
        self.done = True
        self.t.join()


def test_tcp_collector_that_closes_loses_nothing():
    # The collector ends the connection (FIN) after its first data message,
    # twice. The exporter sees each FIN before it writes again, reconnects,
    # and sends the templates and then every message in order: each record
    # once, sequence numbers unbroken over the connections, none lost.
    d = tmpdir()
    port = free_udp_port()
    col = TcpCollector(port, cut_after=2)
    script, out = os.path.join(d, "tcp.lua"), os.path.join(d, "tcp.json")
    open(script, "w").write(TCP_RUN)
    try:
        r = run(eal("tcpcut", mem=1024) + ["--", script, "tcp:127.0.0.1:%d" % port,
                                           out], timeout=120)
    finally:
        col.stop()
    expect(r.returncode == 0, r.stdout + r.stderr)
    sent = int(re.search(r"sent (\d+)", r.stdout).group(1))
    # At least the first FIN comes while messages are still to be made
    # (the end-of-run flush alone is 8 of them).
    expect(len(col.streams) >= 2, len(col.streams))
    msgs = [m for st in col.streams for m in ipfix_messages(st)]
    expect_seq_unbroken(msgs)
    path = os.path.join(d, "all.ipfix")
    open(path, "wb").write(b"".join(m[2] for m in msgs))
    flows = [x for x in ipfixdump(path) if "sourceIPv4Address" in x]
    expect(sum(int(x["packetDeltaCount"]) for x in flows) == sent, (len(flows), sent))
    e = load_json(out)["probe"]["exporter"]
    expect(e["records_lost"] == 0 and e["tcp_cuts"] >= 1, e)
    expect(e["records"] == sum(m[1] for m in msgs), (e, sum(m[1] for m in msgs)))
    # Each coming and going of the collector is one line on stderr (the
    # journal's events): as many as the exporter counted.
    lost = re.findall(r"(?m)^probe: export tcp:127\.0\.0\.1:%d: connection "
                      r"lost \(closed by the collector\): reconnecting" % port,
                      r.stderr)
    made = re.findall(r"(?m)^probe: export tcp:127\.0\.0\.1:%d: connected "
                      r"\(connection (\d+)\)$" % port, r.stderr)
    expect(len(lost) == e["tcp_cuts"] and
           made == [str(i + 1) for i in range(e["tcp_connects"])],
           (e, r.stderr[-800:]))


def test_same_flows_as_softflowd():
    # One pcap (gen's UDP flows and scapy's TCP ones) through softflowd -r
    # into nfcapd, and through the probe into a file: the same 5-tuples with
    # the same packet and byte counts.
    from scapy.all import IP, TCP, Ether
    d = tmpdir()
    pcap = os.path.join(d, "t.pcap")
    gen_pcap("sfg", pcap, "--count", "20000", "--flows", "2000", "--size", "100-300")
    tcp = []
    for i in range(50):		# 50 TCP flows of 4 packets, no FIN
        for k in range(4):
            tcp.append(Ether() / IP(src="10.9.0.%d" % (i + 1), dst="10.9.1.1") /
                       TCP(sport=40000 + i, dport=443, flags="A") / (b"x" * (k * 10)))
    frames = append_frames(pcap, tcp)
    expect(frames == 20200, frames)
    def export(port):
        sf = subprocess.run(["softflowd", "-r", pcap, "-n", "127.0.0.1:%d" % port,
                             "-v", "10", "-d"], capture_output=True, text=True,
                            timeout=120)
        expect(sf.returncode == 0, sf.stderr)
    rows = nfcapd_collect(export, "%sa %da %sp %dp %pr %pkt %byt")
    theirs = sorted(tuple(x) for x in rows)
    ipfix = os.path.join(d, "p.ipfix")
    r = run(eal("sfp", mem=1024) + ["--", "--role", "probe", "--port",
                                    "net_pcap0,rx_pcap=" + pcap, "--count",
                                    str(frames), "--entries", "8192",
                                    "--export", "file:" + ipfix, "--no-live"])
    expect(r.returncode == 0, r.stderr)
    names = {"6": "TCP", "17": "UDP"}
    ours = sorted((x["sourceIPv4Address"], x["destinationIPv4Address"],
                   x["sourceTransportPort"], x["destinationTransportPort"],
                   names[x["protocolIdentifier"]], x["packetDeltaCount"],
                   x["octetDeltaCount"])
                  for x in ipfixdump(ipfix) if "sourceIPv4Address" in x)
    expect(len(ours) == 2050, len(ours))
    expect(ours == theirs, "differ: %s" % (set(ours) ^ set(theirs),))


def test_biflow_read_by_ipfixdump():
    # 20 TCP connections, both directions, the server's SYN-ACK after the
    # client's SYN: one record each, the client as source, the reverse
    # direction under RFC 5103's elements (PEN 29305).
    from scapy.all import IP, TCP, Ether, wrpcap
    d = tmpdir()
    pcap = os.path.join(d, "bi.pcap")
    pkts = []
    for i in range(20):
        c, s_ = "10.5.0.%d" % (200 - i), "10.5.0.1"	# client > server
        pkts.append(Ether() / IP(src=c, dst=s_, ttl=64) / TCP(sport=50000 + i, dport=80, flags="S"))
        pkts.append(Ether() / IP(src=s_, dst=c, ttl=63) / TCP(sport=80, dport=50000 + i, flags="SA"))
        for k in range(3):
            pkts.append(Ether() / IP(src=c, dst=s_, ttl=64) / TCP(sport=50000 + i, dport=80, flags="A"))
    wrpcap(pcap, pkts)
    ipfix = os.path.join(d, "bi.ipfix")
    r = run(eal("bi", mem=1024) + ["--", "--role", "probe", "--port",
                                   "net_pcap0,rx_pcap=" + pcap, "--count", str(len(pkts)),
                                   "--entries", "1024", "--biflow", "1",
                                   "--export", "file:" + ipfix, "--no-live"])
    expect(r.returncode == 0, r.stderr)
    flows = [x for x in ipfixdump(ipfix) if "sourceIPv4Address" in x]
    expect(len(flows) == 20, len(flows))
    for x in flows:
        expect(x["destinationIPv4Address"] == "10.5.0.1" and
               x["destinationTransportPort"] == "80", x)
        expect(x["packetDeltaCount"] == "4" and x["reversePacketDeltaCount"] == "1", x)
        # client: SYN then ACKs (0x12), server: SYN-ACK (0x12)
        expect(x["tcpControlBits"] == "18" and x["reverseTcpControlBits"] == "18", x)
        expect(x["reverseMinimumTTL"] == "63" and x["minimumTTL"] == "64", x)


def test_trim_counts_original_lengths():
    # 1500 B frames seen through a 64 B trim: the same flows, and the bytes
    # of the whole IP packets (1482 each), as without trimming.
    d = tmpdir()
    pcap = os.path.join(d, "big.pcap")
    gen_pcap("trg", pcap, "--count", "2000", "--flows", "200", "--size", "1500")
    results = []
    for trim in ("0", "64"):
        ipfix = os.path.join(d, "t%s.ipfix" % trim)
        r = run(eal("trp", mem=1024) + ["--", "--role", "probe", "--port",
                                        "net_pcap0,rx_pcap=" + pcap, "--count", "2000",
                                        "--entries", "1024", "--trim", trim,
                                        "--export", "file:" + ipfix, "--no-live"])
        expect(r.returncode == 0, r.stderr)
        flows = sorted((x["sourceTransportPort"], x["packetDeltaCount"], x["octetDeltaCount"])
                       for x in ipfixdump(ipfix) if "sourceIPv4Address" in x)
        expect(len(flows) == 200 and all(f[2] == str(1482 * int(f[1])) for f in flows),
               flows[:3])
        results.append(flows)
    expect(results[0] == results[1], "trim changed the flows")
    r = run(eal("trb") + ["--", "--role", "probe", "--port", "net_null0", "--trim", "40"])
    expect(r.returncode == 2 and "headers need 64" in r.stderr, r.stderr)


def test_bad_options():
    for opts, msg in ((["--export", "sctp:1.2.3.4:5"], "want udp"),
                      (["--entries", "0"], "entries"),
                      (["--active", "0"], "active"),
                      (["--export", "udp:nohost.invalid:9"], "collector")):
        r = run(eal("pbadopt") + ["--", "--role", "probe", "--port", "net_null0",
                                  "--duration", "0.1"] + opts)
        expect(r.returncode in (1, 2) and msg in r.stderr, (opts, r.returncode, r.stderr))


def test_export_port_out_of_range():
    # 99999 once wrapped to 34463; 0 and 65536 are no ports either.
    for dest in ("udp:127.0.0.1:99999", "udp:127.0.0.1:0", "tcp:127.0.0.1:65536",
                 "tcp:[::1]:-1", "udp:127.0.0.1:47x"):
        r = run(eal("pport") + ["--", "--role", "probe", "--port", "net_null0",
                                "--duration", "0.1", "--no-live", "--export", dest])
        expect(r.returncode == 2 and "want 1..65535" in r.stderr,
               (dest, r.returncode, r.stderr))
    r = run(eal("pport") + ["--", "--role", "probe", "--port", "net_null0",
                            "--duration", "0.1", "--no-live", "--export",
                            "udp:127.0.0.1:65535"])
    expect(r.returncode == 0, r.stderr)


def mixed_pcap(d):
    """gen's UDP flows of many sizes, and scapy's TCP with flags, ICMP,
    IPv6, VLAN, fragmented datagrams and malformed frames: one pcap."""
    from scapy.all import IP, IPv6, TCP, UDP, ICMP, Dot1Q, Ether, Raw, fragment
    pcap = os.path.join(d, "mix.pcap")
    gen_pcap("mxg", pcap, "--count", "6000", "--flows", "300", "--size", "64-1518")
    pkts = []
    eth = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    later = 0
    for i in range(40):
        a, b = "172.16.%d.1" % i, "172.16.%d.2" % i
        pkts += [eth / IP(src=a, dst=b, ttl=60 + i % 3) / TCP(sport=4000 + i, dport=80, flags="S"),
                 eth / IP(src=b, dst=a) / TCP(sport=80, dport=4000 + i, flags="SA"),
                 eth / IP(src=a, dst=b, ttl=64) / TCP(sport=4000 + i, dport=80, flags="PA") /
                 Raw(b"x" * (i * 7)),
                 eth / IP(src=a, dst=b) / ICMP(type=8, code=0),
                 eth / Dot1Q(vlan=100 + i) / IP(src=a, dst=b) / UDP(sport=53, dport=53),
                 eth / IPv6(src="2001:db8::%x" % i, dst="2001:db8::1") /
                 UDP(sport=i + 1, dport=9) / Raw(b"y" * i)]
        big = IP(src="192.168.%d.1" % i, dst="192.168.200.2", id=1000 + i) / \
            UDP(sport=5000 + i, dport=6000) / Raw(b"z" * 3000)
        frags = fragment(big, fragsize=1000)
        later += len(frags) - 1
        pkts += [eth / f for f in frags]
        pkts += [eth / IP(src="192.168.%d.1" % i, dst="192.168.200.2") /
                 UDP(sport=5000 + i, dport=6000) / Raw(b"w" * 100)]
    pkts += [Ether(bytes(eth / IP(ihl=4) / UDP())),
             Ether(bytes(eth / IP(len=999) / UDP())),
             Raw(b"\x00" * 10)]
    n = append_frames(pcap, pkts)
    expect(n == 6000 + len(pkts), (n, len(pkts)))
    return pcap, n, later


def flow_set(path):
    """Every exported flow record without its timestamps, sorted."""
    out = []
    for x in ipfixdump(path):
        if "packetDeltaCount" not in x:
            continue
        out.append(tuple(sorted((k, v) for k, v in x.items()
                                if not k.startswith("flowStart") and
                                not k.startswith("flowEnd") or k == "flowEndReason")))
    return sorted(out)


def test_channels_and_ingress_modes_same_flows():
    # One pcap through the probe without a distributor, then through 1 and 3
    # channels in full, trim=64 and uh modes and the model backend: the same
    # flow records, each flow once; malformed frames counted at the
    # distributor; later fragments follow their first to its channel.
    d = tmpdir()
    pcap, n, later = mixed_pcap(d)
    runs = {}
    for ch, opts in (("0", []), ("1", []), ("3", []), ("3", ["--ingress", "trim=64"]),
                     ("3", ["--ingress", "uh"]), ("2", ["--ingress", "uh", "--backend", "model"])):
        name = ch + "".join(opts)
        ipfix, out = os.path.join(d, "c.ipfix"), os.path.join(d, "c.json")
        r = run(eal("mxp", lcores="0@0,(1-3)@1", mem=1024) +
                ["--", "--role", "probe", "--port", "net_pcap0,rx_pcap=" + pcap,
                 "--count", str(n), "--entries", "4096", "--channels", ch,
                 "--export", "file:" + ipfix, "--json", out, "--no-live"] + opts,
                timeout=120)
        expect(r.returncode == 0, (name, r.stderr))
        res = load_json(out)
        runs[name] = (flow_set(ipfix), res["probe"]["parsed"])
        dist = [t for t in res["tasks"] if t["role"] == "dist"]
        expect(len(dist) == (ch != "0"), (name, len(dist)))
        if dist:
            t = dist[0]
            expect(t["handed"] == n - 3 and t["rx_packets"] == n, (name, t["handed"]))
            expect(len(t["per_channel"]) == int(ch) and min(t["per_channel"]) > 0,
                   (name, t["per_channel"]))
            expect(t["malformed"]["bad_ihl"] == 1 and t["malformed"]["trunc_l2"] == 1,
                   (name, t["malformed"]))
            expect(t["fragments_steered"] == later and t["fragments_unmatched"] == 0,
                   (name, t["fragments_steered"]))
            expect(t["bytes_per_packet"] == (72 if "uh" in opts else
                                             t["bytes_per_packet"]), name)
    base, parsed = runs["0"]
    expect(len(base) == 300 + 6 * 40, len(base))
    keys = [tuple(v for k, v in f if k not in ("packetDeltaCount", "octetDeltaCount"))
            for f in base]
    expect(len(set(keys)) == len(keys), "a flow exported twice")
    expect(parsed["bad_ihl"] == 1 and parsed["bad_len"] == 1, parsed)
    for name, (flows, p) in runs.items():
        expect(flows == base, (name, len(flows), len(base),
                               [f for f in flows if f not in base][:2]))
        expect(p == parsed, (name, p, parsed))


def test_distributor_bad_input():
    for args, msg in ((["--channels", "3"], "3 channels but 1 worker"),
                      (["--ingress", "uh"], "give channels=N"),
                      (["--channels", "2", "--ingress", "trim=40"], "headers need 64"),
                      (["--channels", "65"], "want a number in 0..64"),
                      (["--channel", "0"], "no dist task"),
                      (["--channels", "1", "--hash-key", "00ff"], "want 16..52")):
        r = run(eal("dbad") + ["--", "--role", "probe", "--port", "net_null0",
                               "--duration", "0.1", "--no-live"] + args)
        expect(r.returncode in (1, 2) and msg in r.stderr, (args, r.returncode, r.stderr))
    # On its own: a second --role is an error of its own.
    r = run(eal("dbad") + ["--", "--role", "dist", "--port", "net_null0",
                           "--duration", "0.1", "--no-live"])
    expect(r.returncode == 2 and "--role probe --channels" in r.stderr, r.stderr)
    r = run(eal("dbadq", lcores="0@0,(1-2)@1") +
            ["--", "--role", "probe", "--port", "net_null0", "--queues", "2",
             "--channels", "2", "--duration", "0.1", "--no-live"])
    expect(r.returncode == 1 and "its RSS spreads flows already" in r.stderr, r.stderr)


T0 = 1700000000		# 2023-11-14 22:13:20 UTC


def ipfix_ms(t):
    """ipfixDump's form of a flowStart/EndMilliseconds at Unix time t."""
    import datetime
    ms = int(round(t * 1000))
    d = datetime.datetime.fromtimestamp(ms // 1000, datetime.timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S") + ".%03d" % (ms % 1000)


def trace_pcap(d):
    """Flows with known packet times spread over 100 s of trace, and the
    records a probe must make of them with --inactive 30 --active 35, in
    trace time: (sport, start, end, packets, reason)."""
    from scapy.all import IP, TCP, UDP, Ether, Raw, wrpcap
    times = {
        1000: [0, 1, 2, 52, 53],		# idle 50 s: two records, idle
        2000: list(range(5, 100, 10)),		# every 10 s: active timeout
        # Silent after 20.25: its active timeout (10.5 + 35) comes before
        # its idle one (20.25 + 30); the next trace time (52) is past
        # both, and the first to come is the reason, as a live clock
        # would have ended it at 45.5.
        3000: [10.5, 15, 20.25],
        4000: [30, 31],				# TCP, FIN at 31
        5000: [90, 99.5],			# still going at the end
    }
    pkts = []
    for sport, ts in times.items():
        for i, t in enumerate(ts):
            if sport == 4000:
                l4 = TCP(sport=sport, dport=80, flags="FA" if i == len(ts) - 1 else "A")
            else:
                l4 = UDP(sport=sport, dport=53)
            p = Ether() / IP(src="10.0.0.1", dst="10.0.0.2") / l4 / Raw(b"x" * 20)
            p.time = T0 + t
            pkts.append(p)
    pkts.sort(key=lambda p: p.time)
    pcap = os.path.join(d, "trace.pcap")
    wrpcap(pcap, pkts)
    want = [(1000, 0, 2, 3, "1"), (1000, 52, 53, 2, "1"),
            (2000, 5, 35, 4, "2"), (2000, 45, 75, 4, "2"), (2000, 85, 95, 2, "4"),
            (3000, 10.5, 20.25, 3, "2"), (4000, 30, 31, 2, "3"),
            (5000, 90, 99.5, 2, "4")]
    want = sorted((str(sp), ipfix_ms(T0 + a), ipfix_ms(T0 + b), str(n), why)
                  for sp, a, b, n, why in want)
    return pcap, len(pkts), want


def test_capture_times_and_trace_timeouts():
    # A capture of 100 s replayed in a fraction of one: flowStart/End are the
    # capture's times, and timeouts run in trace time (an idle gap in the
    # trace ends a flow by its inactive timeout, a long flow by its active
    # one), with and without the distributor, read by ipfixDump. The run
    # ends by itself at the end of the capture.
    d = tmpdir()
    pcap, n, want = trace_pcap(d)
    for opts in ([], ["--channels", "2"], ["--channels", "2", "--ingress", "uh"]):
        ipfix = os.path.join(d, "t.ipfix")
        r = run(eal("trt", lcores="0@0,(1-2)@1", mem=1024) +
                ["--", "--role", "probe", "--port", "net_pcap0,rx_pcap=" + pcap,
                 "--inactive", "30", "--active", "35", "--entries", "1024",
                 "--export", "file:" + ipfix, "--no-live"] + opts, timeout=60)
        expect(r.returncode == 0, (opts, r.stderr))
        expect("end of capture: %d frames" % n in r.stdout + r.stderr, (opts, r.stdout))
        got = sorted((x["sourceTransportPort"], x["flowStartMilliseconds"],
                      x["flowEndMilliseconds"], x["packetDeltaCount"], x["flowEndReason"])
                     for x in ipfixdump(ipfix) if "packetDeltaCount" in x)
        expect(got == want, (opts, [g for g in got if g not in want],
                             [w for w in want if w not in got]))


def test_capture_ends_by_itself():
    # No --duration, and a --count above the capture's length: the probe
    # and the distributor end at the end of the file with every frame
    # counted, and say so.
    d = tmpdir()
    pcap = os.path.join(d, "e.pcap")
    gen_pcap("eog", pcap, "--count", "30000", "--flows", "500", "--size", "64-1518")
    for opts in ([], ["--count", "1000000"], ["--channels", "2"],
                 ["--channels", "2", "--count", "1000000"],
                 ["--channels", "2", "--ingress", "uh"]):
        out = os.path.join(d, "e.json")
        r = run(eal("eop", lcores="0@0,(1-2)@1", mem=1024) +
                ["--", "--role", "probe", "--port", "net_pcap0,rx_pcap=" + pcap,
                 "--entries", "4096", "--export", "none", "--json", out,
                 "--no-live"] + opts, timeout=120)
        expect(r.returncode == 0, (opts, r.stderr))
        expect("end of capture: 30000 frames" in r.stdout + r.stderr, (opts, r.stdout))
        res = load_json(out)
        expect(res["probe"]["parsed"]["ok"] == 30000, (opts, res["probe"]["parsed"]))
        expect(res["probe"]["flows_created"] == 500, (opts, res["probe"]["flows_created"]))
        first = res["tasks"][0]
        expect(first["rx_packets"] == 30000 and first["end_of_capture"] == 30000,
               (opts, first))
        expect(sum(t["local_drops"] for t in res["tasks"]) == 0, (opts, "drops"))


def test_jumbo_chains_same_with_channels():
    # Jumbo frames up to 9000 B on a port of MTU 1500, whose mbufs hold
    # 2048 B: net_pcap chains every frame longer than that. Through the
    # distributor (full, uh, the model backend) the same flows, packets
    # and bytes as without it, none of them bad_len.
    import random
    from scapy.all import IP, UDP, Ether, Raw, wrpcap
    rnd = random.Random(14)
    d = tmpdir()
    pkts = []
    for i in range(80):
        size = rnd.randint(2100, 9000)
        pkts.append(Ether() / IP(src="10.1.0.%d" % (i % 20 + 1), dst="10.2.0.1") /
                    UDP(sport=1000 + i % 40, dport=80) / Raw(b"j" * (size - 42)))
    pcap = os.path.join(d, "jumbo.pcap")
    wrpcap(pcap, pkts)
    want = {}
    for p in pkts:
        k = (p[IP].src, str(p[UDP].sport))
        c = want.get(k, (0, 0))
        want[k] = (c[0] + 1, c[1] + len(p) - 14)
    want = sorted((k[0], k[1], str(v[0]), str(v[1])) for k, v in want.items())
    for opts in ([], ["--channels", "2"], ["--channels", "2", "--ingress", "uh"],
                 ["--channels", "2", "--backend", "model"]):
        ipfix, out = os.path.join(d, "j.ipfix"), os.path.join(d, "j.json")
        r = run(eal("jmb", lcores="0@0,(1-2)@1", mem=1024) +
                ["--", "--role", "probe", "--port", "net_pcap0,rx_pcap=" + pcap,
                 "--count", "80", "--entries", "1024", "--export", "file:" + ipfix,
                 "--json", out, "--no-live"] + opts, timeout=60)
        expect(r.returncode == 0, (opts, r.stderr))
        res = load_json(out)
        expect(res["ports"][0]["mtu"] == 1500, res["ports"])
        expect(res["probe"]["parsed"]["ok"] == 80, (opts, res["probe"]["parsed"]))
        got = sorted((x["sourceIPv4Address"], x["sourceTransportPort"],
                      x["packetDeltaCount"], x["octetDeltaCount"])
                     for x in ipfixdump(ipfix) if "packetDeltaCount" in x)
        expect(got == want, (opts, got[:3], want[:3]))


def ipfix_stream(path):
    """The records of a file that must be IPFIX messages back to back and
    nothing else (ipfixDump says an error but exits 0 on other bytes)."""
    data = open(path, "rb").read()
    off = 0
    while off + 16 <= len(data):
        v, n = struct.unpack(">HH", data[off:off + 4])
        expect(v == 10 and n >= 16, (off, data[off:off + 64]))
        off += n
    expect(off == len(data), (off, len(data)))
    return ipfixdump(path)


def test_export_to_stdout_is_ipfix_only():
    # --export file:- makes stdout the IPFIX stream: the live line (once
    # a second, so the run lasts 2.5 s) and the summary go to stderr, as
    # with --json -. They once landed in stdout between the messages.
    # stdout, whole, is messages that ipfixDump reads, with as many
    # records as the exporter counted.
    d = tmpdir()
    pcap, out = os.path.join(d, "so.pcap"), os.path.join(d, "so.json")
    ipfix = os.path.join(d, "so.ipfix")
    gen_pcap("sog", pcap, "--count", "300", "--flows", "30")
    with open(ipfix, "wb") as f:
        r = subprocess.run([LINERATE] + eal("sop", mem=1024) +
                           ["--", "--role", "probe", "--port",
                            "net_pcap0,rx_pcap=%s,infinite_rx=1" % pcap,
                            "--duration", "2.5", "--entries", "1024",
                            "--export", "file:-", "--json", out, "--live"],
                           stdout=f, stderr=subprocess.PIPE, text=True, timeout=60)
    expect(r.returncode == 0, r.stderr)
    expect("local drops" in r.stderr and "linerate: tx " in r.stderr, r.stderr)
    expect(re.search(r"(?m)^\[ *[0-9.]+ s\] tx ", r.stderr), r.stderr)	# --live
    e = load_json(out)["probe"]["exporter"]
    recs = ipfix_stream(ipfix)
    expect(e["records_lost"] == 0 and len(recs) == e["records"], (len(recs), e))
    expect(len([x for x in recs if "sourceIPv4Address" in x]) == 30, len(recs))
    # The same from a script (export = "file:-" in the task's table),
    # whose write_json("-") is refused then; on the CLI --json - is a bad
    # option beside it.
    script = os.path.join(d, "so.lua")
    with open(script, "w") as f:
        f.write(STDOUT_RUN)
    with open(ipfix, "wb") as f:
        # --live: the live line (its "local drops") off a terminal too.
        r = subprocess.run([LINERATE] + eal("sol", mem=1024) + ["--", "--live",
                                                                script, out],
                           stdout=f, stderr=subprocess.PIPE, text=True, timeout=60)
    expect(r.returncode == 0, r.stderr)
    expect("local drops" in r.stderr and "stdout carries the IPFIX" in r.stderr,
           r.stderr)
    e = load_json(out)["probe"]["exporter"]
    recs = ipfix_stream(ipfix)
    expect(e["records_lost"] == 0 and len(recs) == e["records"], (len(recs), e))
    expect(len([x for x in recs if "sourceIPv4Address" in x]) == 20, len(recs))
    r = run(eal("sou") + ["--", "--role", "probe", "--port", "net_null0",
                          "--export", "file:-", "--json", "-"])
    expect(r.returncode == 2 and "file:-" in r.stderr, (r.returncode, r.stderr))



def test_file_export_to_a_full_disk_fails_the_run():
    # /dev/full takes no byte: every record is lost, and the run fails.
    # stdio's buffer once took the messages, and the counters said all
    # delivered, none lost, with 0 B written; the run exited 0.
    d = tmpdir()
    pcap, out = os.path.join(d, "full.pcap"), os.path.join(d, "full.json")
    gen_pcap("fullg", pcap, "--count", "300", "--flows", "30")
    r = run(eal("fullp", mem=1024) + ["--", "--role", "probe", "--port",
                                      "net_pcap0,rx_pcap=" + pcap, "--entries", "1024",
                                      "--export", "file:/dev/full", "--json", out,
                                      "--no-live"])
    expect(r.returncode == 1 and "records_lost" in r.stderr, (r.returncode, r.stderr))
    e = load_json(out)["probe"]["exporter"]
    expect(e["records"] == 0 and e["bytes"] == 0 and e["records_lost"] == 31, e)

STDOUT_RUN = r"""
local linerate = require("linerate")
local a, b = assert(linerate.wire("so"))
local probe = assert(linerate.task{ role = "probe", port = b, entries = 1024,
                                    export = "file:-" })
local gen = assert(linerate.task{ role = "gen", port = a, flows = 20,
                                  rate = 1500, count = 2500 })
linerate.start()
assert(gen:wait(30))
probe:wait{ idle = 0.3 }
linerate.stop()
assert(linerate.write_json(arg[1]))
local ok, err = linerate.write_json("-")
assert(not ok)
io.stderr:write(err, "\n")
"""

if __name__ == "__main__":
    main([test_file_export_read_by_ipfixdump, test_udp_export_read_by_nfcapd,
          test_udp_export_paced_nfcapd_gets_every_record, test_udp_pace_bounded_at_the_end,
          test_udp_export_read_by_nfacctd,
          test_collector_down_is_counted, test_udp_closed_port_each_loss_counted_once,
          test_ring_drops_reach_the_collector, test_export_goes_on_while_a_script_computes,
          test_malformed_counted_by_reason,
          test_two_shards_no_duplicates, test_tcp_collector_late_gets_everything,
          test_tcp_collector_never_up_counted, test_tcp_collector_that_closes_loses_nothing,
          test_same_flows_as_softflowd, test_biflow_read_by_ipfixdump,
          test_trim_counts_original_lengths, test_bad_options, test_export_port_out_of_range,
          test_channels_and_ingress_modes_same_flows, test_distributor_bad_input,
          test_capture_times_and_trace_timeouts, test_capture_ends_by_itself,
          test_jumbo_chains_same_with_channels, test_export_to_stdout_is_ipfix_only,
          test_file_export_to_a_full_disk_fails_the_run])
