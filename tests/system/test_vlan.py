"""gen's VLAN and QinQ tags, DSCP, ECN, TTL/hop limit and DF, checked on
the wire by tshark (its checksum validation on), and the roles that read
them: rx counts every flow of a QinQ run with per-flow VIDs, rtt and
reflect (which keeps the tags) round trip them, gen's replay stamps tagged
frames, the probe keys and exports both VLAN ids (vlanId, and
dot1qCustomerVlanId for QinQ's inner tag) and the ToS (ipfixDump), from a
capture and through the distributor. Bad values are one-line errors from the
command line and from Lua.
"""
import os
import struct
import subprocess

from lrtest import LINERATE, eal, expect, load_json, main, run, tmpdir
from test_probe import ipfixdump


def gen_pcap(name, path, *opts):
    r = run(eal(name) + ["--", "--role", "gen", "--port",
                         "net_pcap0,tx_pcap=" + path, "--no-live"] + list(opts))
    expect(r.returncode == 0, r.stderr[-1500:])


def tshark(path, *fields):
    """One list of field values per frame, tshark validating the IPv4, UDP
    checksums (its prefs are off by default)."""
    cmd = ["tshark", "-r", path, "-o", "ip.check_checksum:TRUE",
           "-o", "udp.check_checksum:TRUE", "-T", "fields", "-E", "occurrence=a",
           "-E", "aggregator=,"]
    for f in fields:
        cmd += ["-e", f]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    expect(r.returncode == 0, r.stderr)
    return [dict(zip(fields, l.split("\t"))) for l in r.stdout.splitlines()]


def hexof(payload):
    """tshark's bytes field, with or without colons (versions differ)."""
    return payload.replace(":", "")


def flow_of(payload):
    raw = bytes.fromhex(payload.replace(":", ""))
    magic, flow = struct.unpack(">HI", raw[:6])
    expect(magic & 0xffde == 0x4c52, hex(magic))
    return flow


def test_qinq_ipv4_fields_by_tshark():
    # 12 flows: the inner VID varies fastest (100..105), then the outer
    # (10..11); every field where 802.1ad, 802.1Q and RFC 791/2474/3168 put
    # it, both checksums valid.
    good = tshark_good()
    d = tmpdir()
    path = os.path.join(d, "q.pcap")
    gen_pcap("vq4", path, "--count", "36", "--flows", "12", "--size", "100",
             "--outer-vlan", "10-11", "--outer-pcp", "3", "--outer-dei", "1",
             "--vlan", "100-105", "--vlan-pcp", "5", "--vlan-dei", "0",
             "--dscp", "46", "--ecn", "1", "--ttl", "7", "--df", "0",
             "--udp-cksum", "1")
    rows = tshark(path, "frame.len", "eth.type", "ieee8021ad.id",
                  "ieee8021ad.priority", "ieee8021ad.dei",
                  "vlan.id", "vlan.priority", "vlan.dei", "vlan.etype",
                  "ip.dsfield.dscp", "ip.dsfield.ecn", "ip.ttl", "ip.flags.df",
                  "ip.checksum.status", "udp.checksum.status", "udp.payload")
    expect(len(rows) == 36, len(rows))
    seen = set()
    for r in rows:
        f = flow_of(r["udp.payload"])
        # 100 B on the wire, the tags' 8 B included, less the FCS; the
        # inner tag dissected as 802.1Q's (TPID 0x8100).
        want = {"frame.len": "96", "eth.type": "0x88a8",
                "ieee8021ad.id": str(10 + f // 6), "ieee8021ad.priority": "3",
                "ieee8021ad.dei": "1",
                "vlan.id": str(100 + f % 6), "vlan.priority": "5",
                "vlan.dei": "0", "vlan.etype": "0x0800",
                "ip.dsfield.dscp": "46", "ip.dsfield.ecn": "1", "ip.ttl": "7",
                "ip.flags.df": "0", "ip.checksum.status": good,
                "udp.checksum.status": good}
        got = {k: r[k] for k in want}
        expect(got == want, (f, got, want))
        seen.add((got["ieee8021ad.id"], got["vlan.id"]))
    expect(len(seen) == 12, seen)


def test_checksum_status_is_validated():
    """The checksum fields above mean something: a frame whose IPv4 and UDP
    checksums were broken on purpose reads as Bad with these prefs."""
    from scapy.all import IP, UDP, Dot1Q, Ether, Raw, wrpcap
    d = tmpdir()
    path = os.path.join(d, "bad.pcap")
    wrpcap(path, [Ether() / Dot1Q(vlan=5) / IP(chksum=0x1234) /
                  UDP(chksum=0x4321) / Raw(b"x" * 20)])
    rows = tshark(path, "ip.checksum.status", "udp.checksum.status")
    good = tshark_good()
    expect(rows[0]["ip.checksum.status"] != good and
           rows[0]["udp.checksum.status"] != good, rows)


def tshark_good():
    """What tshark prints for a good checksum (one frame it must like)."""
    from scapy.all import IP, UDP, Ether, Raw, wrpcap
    d = tmpdir()
    path = os.path.join(d, "good.pcap")
    wrpcap(path, [Ether() / IP() / UDP() / Raw(b"x" * 20)])
    return tshark(path, "ip.checksum.status")[0]["ip.checksum.status"]


def test_tag_ipv6_and_dot1q_outer_by_tshark():
    good = tshark_good()
    d = tmpdir()
    # One 802.1Q tag over IPv6: traffic class and hop limit; IPv6's UDP
    # checksum always on.
    path = os.path.join(d, "v6.pcap")
    gen_pcap("vq6", path, "--count", "8", "--flows", "4", "--size", "88",
             "--dst-ip", "fd00::2", "--vlan", "4092-4095", "--vlan-pcp", "7",
             "--dscp", "10", "--ecn", "3", "--ttl", "255")
    rows = tshark(path, "frame.len", "eth.type", "vlan.id", "vlan.priority",
                  "vlan.etype", "ipv6.hlim", "ipv6.tclass.dscp", "ipv6.tclass.ecn",
                  "udp.checksum.status", "udp.payload")
    expect(len(rows) == 8, rows)
    for r in rows:
        f = flow_of(r["udp.payload"])
        got = {k: r[k] for k in r if k != "udp.payload"}
        expect(got == {"frame.len": "84", "eth.type": "0x8100",
                       "vlan.id": str(4092 + f), "vlan.priority": "7",
                       "vlan.etype": "0x86dd", "ipv6.hlim": "255",
                       "ipv6.tclass.dscp": "10", "ipv6.tclass.ecn": "3",
                       "udp.checksum.status": good}, (f, got))
    # Both tags 0x8100 (--outer-tpid), and the untagged default unchanged.
    path = os.path.join(d, "dd.pcap")
    gen_pcap("vqdd", path, "--count", "2", "--size", "72", "--outer-vlan", "7",
             "--outer-tpid", "0x8100", "--vlan", "8")
    rows = tshark(path, "eth.type", "vlan.id", "vlan.etype", "ip.checksum.status")
    expect(all(r == {"eth.type": "0x8100", "vlan.id": "7,8",
                     "vlan.etype": "0x8100,0x0800", "ip.checksum.status": good}
               for r in rows) and len(rows) == 2, rows)
    path = os.path.join(d, "plain.pcap")
    gen_pcap("vqpl", path, "--count", "2")
    rows = tshark(path, "frame.len", "eth.type", "ip.ttl", "ip.flags.df",
                  "ip.dsfield", "ip.checksum.status")
    expect(all(r == {"frame.len": "60", "eth.type": "0x0800", "ip.ttl": "64",
                     "ip.flags.df": "1", "ip.dsfield": "0x00",
                     "ip.checksum.status": good} for r in rows) and len(rows) == 2,
           rows)


BAD = [("vlan", "4096"), ("vlan", "10-5"), ("outer-vlan", "4096"), ("vlan-pcp", "8"),
       ("vlan-dei", "2"), ("outer-pcp", "8"), ("dscp", "64"), ("ecn", "4"),
       ("ttl", "0"), ("ttl", "256"), ("outer-tpid", "0x0800")]


def one_line_error(r, want):
    lines = [l for l in r.stderr.splitlines() if want in l]
    expect(r.returncode != 0 and len(lines) == 1, (r.returncode, want, r.stderr))


def test_bad_values_cli_and_lua():
    d = tmpdir()
    for i, (k, v) in enumerate(BAD):
        r = run(eal("vbad%d" % i) + ["--", "--role", "gen", "--port", "net_null0",
                                     "--count", "1", "--" + k, v, "--no-live"])
        one_line_error(r, "%s '%s'" % (k, v))
        script = os.path.join(d, "bad%d.lua" % i)
        open(script, "w").write(
            'local t, err = linerate.task{ role = "gen", port = "net_null0", '
            'count = 1, ["%s"] = "%s" }\nassert(t, err)\n' % (k, v))
        r = run(eal("vbadl%d" % i) + ["--", script])
        one_line_error(r, "%s '%s'" % (k, v))
    # Too small for the tags and linerate's header: said, not cut.
    r = run(eal("vsmall") + ["--", "--role", "gen", "--port", "net_null0",
                             "--count", "1", "--vlan", "1", "--outer-vlan", "2",
                             "--size", "68", "--no-live"])
    one_line_error(r, "2 VLAN tags and the 18 B header need 72 B")
    expect(r.returncode == 2, r.returncode)
    # At the 64 B default, before any port: a bad option (exit 2).
    r = run(eal("vsmall") + ["--", "--role", "gen", "--port", "net_null0",
                             "--vlan", "0-4095", "--flows", "10", "--no-live"])
    one_line_error(r, "frame size 64 B outside 68..9018 (a VLAN tag")
    expect(r.returncode == 2, r.returncode)
    r = run(eal("vouter") + ["--", "--role", "gen", "--port", "net_null0",
                             "--count", "1", "--outer-vlan", "2", "--size", "68",
                             "--no-live"])
    one_line_error(r, "outer-vlan without vlan")


RX_QINQ = """
linerate.live(false)
local a, b = assert(linerate.wire("vq", { queues = 1 }))
local rx = assert(linerate.task{ role = "rx", port = b, flows = 24 })
local g = assert(linerate.task{ role = "gen", port = a, rate = 200000,
                                count = 24000, flows = 24, %s })
linerate.start()
assert(g:wait(60)); rx:wait{ idle = 0.2, timeout = 30 }
linerate.stop()
assert(linerate.write_json("%s"))
"""


def test_gen_rx_qinq_every_flow():
    d = tmpdir()
    js = os.path.join(d, "r.json")
    script = os.path.join(d, "rx.lua")
    # IPv6 behind one tag: rx finds its header and timestamp there too.
    open(script, "w").write(RX_QINQ % (
        'size = 92, vlan = "7-30", ["dst-ip"] = "fd00::2", ttl = 2', js))
    r = run(eal("vrx6", mem=1024) + ["--", script], timeout=120)
    expect(r.returncode == 0, r.stdout + r.stderr[-1500:])
    rx = load_json(js)["rx"]
    expect(rx["received"] == 24000 and rx["lost"] == 0 and
           rx["latency"]["count"] == 24000, rx)
    expect(all(f["packets"] == 1000 and f["lost"] == 0 for f in rx["flows"]), rx["flows"])
    open(script, "w").write(RX_QINQ % (
        'size = 72, outer_vlan = "10-13", vlan = "200-205", '
        'vlan_pcp = 2, dscp = 8, ttl = 3', js))
    r = run(eal("vrx", mem=1024) + ["--", script], timeout=120)
    expect(r.returncode == 0, r.stdout + r.stderr[-1500:])
    doc = load_json(js)
    rx = doc["rx"]
    expect(rx["received"] == 24000 and rx["lost"] == 0 and
           rx["latency"]["count"] == 24000, rx)
    flows = rx["flows"]
    expect(len(flows) == 24, len(flows))
    for f in flows:
        expect(f["packets"] == 1000 and f["lost"] == 0, f)
    t = [t for t in doc["tasks"] if t["role"] == "rx"][0]
    expect(t["own_packets"] == 24000 and t["foreign_packets"] == 0, t)
    g = [t for t in doc["tasks"] if t["role"] == "gen"][0]
    expect(g["vlan_tags"] == 2 and g["frame_bytes_max"] == 72, g)
    # The document as doc/schema says it is (gen's vlan_tags with it).
    from test_schema import valid
    valid("run.json", doc, "gen -> rx over QinQ")


RTT_QINQ = """
linerate.live(false)
local w = linerate.workers()
local a, b = assert(linerate.wire("vrt"))
assert(linerate.task{ role = "reflect", port = b, stamp = 1, lcore = w[2] or w[1] })
local tasks = assert(linerate.plan{ role = "rtt", port = a, lcores = { w[1] },
    count = 4000, rate = "100000", size = 128, flows = 8, vlan = "300-303",
    ["outer-vlan"] = "20-21" })
linerate.start()
for _, t in ipairs(tasks) do t:wait(30) end
linerate.stop()
assert(linerate.write_json("%s"))
"""


def test_rtt_reflect_qinq():
    d = tmpdir()
    js = os.path.join(d, "r.json")
    script = os.path.join(d, "rtt.lua")
    open(script, "w").write(RTT_QINQ % js)
    r = run(eal("vrtt", mem=1024) + ["--", script], timeout=120)
    expect(r.returncode == 0, r.stdout + r.stderr[-1500:])
    doc = load_json(js)
    rtt, refl = doc["rtt"], doc["reflect"]
    expect(rtt["sent"] == rtt["received"] == 4000 and rtt["lost"] == 0, rtt)
    expect(rtt["residence"]["count"] == 4000 and rtt["unstamped"] == 0, rtt)
    expect(refl["reflected"] == 4000 and refl["conserved"], refl)


def test_reflect_keeps_tags():
    good = tshark_good()
    d = tmpdir()
    inp, outp = os.path.join(d, "in.pcap"), os.path.join(d, "out.pcap")
    gen_pcap("vrfg", inp, "--count", "8", "--flows", "4", "--size", "80",
             "--outer-vlan", "30", "--vlan", "40-43", "--vlan-pcp", "6",
             "--udp-cksum", "1", "--src-ip", "10.0.0.1", "--dst-ip", "10.9.9.9")
    r = run(eal("vrf") + ["--", "--role", "reflect", "--port",
                          "net_pcap0,rx_pcap=" + inp, "--peer",
                          "net_pcap1,tx_pcap=" + outp, "--no-live"], timeout=60)
    expect(r.returncode == 0, r.stderr[-1500:])
    fields = ("eth.type", "ieee8021ad.id", "vlan.id", "vlan.priority", "ip.src",
              "ip.dst", "udp.srcport", "udp.dstport", "ip.checksum.status",
              "udp.checksum.status", "udp.payload")
    a, b = tshark(inp, *fields), tshark(outp, *fields)
    expect(len(a) == len(b) == 8, (len(a), len(b)))
    for x, y in zip(a, b):
        for k in ("eth.type", "ieee8021ad.id", "vlan.id", "vlan.priority"):
            expect(x[k] == y[k], (k, x, y))
        expect((y["ip.src"], y["ip.dst"], y["udp.srcport"], y["udp.dstport"]) ==
               (x["ip.dst"], x["ip.src"], x["udp.dstport"], x["udp.srcport"]), (x, y))
        expect(y["ip.checksum.status"] == good == y["udp.checksum.status"], y)
        expect(hexof(y["udp.payload"])[:4] == "4c72", y["udp.payload"][:8])	# "Lr"


def test_replay_stamps_tagged_frames():
    """gen --pcap --stamp 1 over QinQ frames that have no linerate header:
    the header lands in the UDP data behind the tags, the checksum valid,
    and rx counts every frame as its own."""
    from scapy.all import IP, UDP, Dot1AD, Dot1Q, Ether, Raw, wrpcap
    good = tshark_good()
    d = tmpdir()
    src, out = os.path.join(d, "src.pcap"), os.path.join(d, "out.pcap")
    wrpcap(src, [Ether() / Dot1AD(vlan=5) / Dot1Q(vlan=6 + i % 2) /
                 IP(src="10.0.0.%d" % (1 + i % 2), dst="10.0.1.1") /
                 UDP(sport=1000, dport=2000) / Raw(bytes(40)) for i in range(20)])
    r = run(eal("vrp") + ["--", "--role", "gen", "--port", "net_pcap0,tx_pcap=" + out,
                          "--pcap", src, "--stamp", "1", "--rate", "max", "--no-live"])
    expect(r.returncode == 0, r.stderr[-1500:])
    rows = tshark(out, "ieee8021ad.id", "vlan.id", "udp.checksum.status", "udp.payload")
    expect(len(rows) == 20, rows)
    for i, x in enumerate(rows):
        expect(x["ieee8021ad.id"] == "5" and x["vlan.id"] == str(6 + i % 2), x)
        expect(x["udp.checksum.status"] == good and hexof(x["udp.payload"])[:4] == "4c52", x)
    js = os.path.join(d, "rx.json")
    r = run(eal("vrpr") + ["--", "--role", "rx", "--port", "net_pcap0,rx_pcap=" + out,
                           "--duration", "0.5", "--json", js, "--no-live"])
    expect(r.returncode == 0, r.stderr[-1500:])
    t = load_json(js)["tasks"][0]
    expect(t["own_packets"] == 20 and t["foreign_packets"] == 0, t)


def test_probe_exports_vlan_and_tos():
    """Four flows that differ only by their outer VID are four records (the
    probe's key has the VLAN id), each with its vlanId (the outer tag's, as
    RFC 7133's dot1qVlanId is for QinQ) and the ToS byte gen wrote."""
    d = tmpdir()
    pcap, ipfix = os.path.join(d, "g.pcap"), os.path.join(d, "p.ipfix")
    gen_pcap("vpg", pcap, "--count", "400", "--flows", "4", "--size", "96",
             "--outer-vlan", "100-103", "--vlan", "7", "--src-port", "1024",
             "--dscp", "34", "--ecn", "2")
    js = os.path.join(d, "p.json")
    r = run(eal("vpp", mem=1024) + ["--", "--role", "probe", "--port", "net_null0",
                                    "--pcap", pcap, "--entries", "4096",
                                    "--export", "file:" + ipfix, "--json", js,
                                    "--no-live"], timeout=120)
    expect(r.returncode == 0, r.stderr[-1500:])
    recs = [x for x in ipfixdump(ipfix) if "packetDeltaCount" in x]
    expect(len(recs) == 4, recs)
    expect(sorted(int(x["vlanId"]) for x in recs) == [100, 101, 102, 103], recs)
    for x in recs:
        expect(int(x["packetDeltaCount"]) == 100, x)
        expect(int(x["ipClassOfService"]) == 34 << 2 | 2, x)
        expect(x.get("dot1qCustomerVlanId") == "7", x)


QINQ_PROBE = [["--pcap"], ["--channels", "2", "--ingress", "uh"],
              ["--channels", "2", "--ingress", "uh", "--backend", "model"],
              ["--channels", "2"]]


def probe_records(name, pcap, d, opts):
    """The probe over @p pcap (its --pcap, or net_pcap into a distributor),
    its IPFIX file's flow records as ipfixDump reads them."""
    ipfix = os.path.join(d, name + ".ipfix")
    if opts[0] == "--pcap":
        port = ["--port", "net_null0", "--pcap", pcap]
    else:
        port = ["--port", "net_pcap0,rx_pcap=" + pcap] + opts
    r = run(eal(name, lcores="0@0,(1-2)@1", mem=1024) +
            ["--", "--role", "probe"] + port +
            ["--entries", "4096", "--export", "file:" + ipfix, "--no-live"],
            timeout=120)
    expect(r.returncode == 0, (opts, r.stderr[-1500:]))
    # (vlanId, dot1qCustomerVlanId or -1 when the record lacks it, packets)
    return sorted((int(x["vlanId"]), int(x.get("dot1qCustomerVlanId", -1)),
                   int(x["packetDeltaCount"]))
                  for x in ipfixdump(ipfix) if "packetDeltaCount" in x)


def test_probe_keys_and_exports_inner_vlan():
    """QinQ flows that differ only in the inner (customer) VID are one
    record each, with dot1qCustomerVlanId (IANA 245, the C-TAG's id) that
    VID and vlanId the S-tag's: from the capture and through the
    distributor (Unified Header records of the fast and the model backend,
    whole frames). The VIDs cross a byte (0xfe..0x103) under the outer VID
    4095, every bit of both set somewhere. One tag: 0, as IANA's element
    is the C-TAG's, which such a frame has not."""
    d = tmpdir()
    pcap = os.path.join(d, "q.pcap")
    gen_pcap("vig", pcap, "--count", "600", "--flows", "6", "--size", "96",
             "--outer-vlan", "4095", "--vlan", "254-259", "--src-port", "1024")
    for i, opts in enumerate(QINQ_PROBE):
        got = probe_records("vip%d" % i, pcap, d, opts)
        expect(got == [(4095, v, 100) for v in range(254, 260)], (opts, got))
    one = os.path.join(d, "one.pcap")
    gen_pcap("vig1", one, "--count", "40", "--flows", "2", "--size", "96",
             "--vlan", "3000-3001", "--src-port", "1024")
    got = probe_records("vip1t", one, d, ["--pcap"])
    expect(got == [(3000, 0, 20), (3001, 0, 20)], got)


if __name__ == "__main__":
    main([test_qinq_ipv4_fields_by_tshark, test_checksum_status_is_validated,
          test_tag_ipv6_and_dot1q_outer_by_tshark, test_bad_values_cli_and_lua,
          test_gen_rx_qinq_every_flow, test_rtt_reflect_qinq, test_reflect_keeps_tags,
          test_replay_stamps_tagged_frames, test_probe_exports_vlan_and_tos,
          test_probe_keys_and_exports_inner_vlan])
