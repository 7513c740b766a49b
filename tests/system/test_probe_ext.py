#!/usr/bin/env python3
"""The probe's flow extensions (--flow-ext tls,quic,dns,http) end to end: a
capture of TLS, QUIC, DNS and HTTP flows built by scapy and
python3-cryptography (random server names, ALPN lists, hellos cut in TCP
segments, a QUIC hello over two Initials, queries and their answers,
request and response heads) read by the probe; every record's fields,
read back by ipfixDump --rfc5610 (libfixbuf: it learns the enterprise
elements from our type records), against what tshark dissects from the
same capture; broken hellos and undecryptable Initials counted, never
exported as fields; plain flows untouched.
"""
import os
import random
import re
import subprocess
import sys

from lrtest import SRC, eal, expect, load_json, main, run, tmpdir
from test_probe import ipfixdump

sys.path.insert(0, os.path.join(SRC, "tests", "unit", "flowext"))
import gen_quic_vectors as gq  # noqa: E402

from scapy.all import (DNS, DNSQR, DNSRR, ICMP, IP, TCP, UDP, Ether, Raw,  # noqa: E402
                       wrpcap)
from scapy.layers.tls.extensions import (ProtocolName, ServerName,  # noqa: E402
                                         TLS_Ext_ALPN, TLS_Ext_ServerName,
                                         TLS_Ext_SupportedGroups,
                                         TLS_Ext_SupportedVersion_CH,
                                         TLS_Ext_SupportedVersion_SH)
from scapy.layers.tls.handshake import TLSClientHello, TLSServerHello  # noqa: E402
from scapy.layers.tls.record import TLS  # noqa: E402

CLIENT, SERVER = "10.1.0.1", "10.2.0.1"


def name(rng):
    return ".".join("".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789-")
                            for _ in range(rng.randint(1, 20)))
                    for _ in range(rng.randint(2, 4))).strip("-") + ".test"


def client_hello(rng, sni, alpn):
    ext = [TLS_Ext_SupportedVersion_CH(versions=[0x0304, 0x0303]),
           TLS_Ext_SupportedGroups(groups=[29, 23, 24][:rng.randint(1, 3)]),
           TLS_Ext_ServerName(servernames=[ServerName(servername=sni.encode())]),
           TLS_Ext_ALPN(protocols=[ProtocolName(protocol=a.encode()) for a in alpn])]
    rng.shuffle(ext)
    ciphers = rng.sample([0x1301, 0x1302, 0x1303, 0xc02f, 0xc030, 0xcca8], rng.randint(1, 6))
    return bytes(TLS(type=22, version=0x0301, msg=[TLSClientHello(
        version=0x0303, ciphers=ciphers, ext=ext, random_bytes=bytes(28),
        gmt_unix_time=0)]))


def server_hello(alpn):
    return bytes(TLS(type=22, version=0x0303, msg=[TLSServerHello(
        version=0x0303, cipher=0x1301, random_bytes=bytes(28), gmt_unix_time=0,
        ext=[TLS_Ext_SupportedVersion_SH(version=0x0304),
             TLS_Ext_ALPN(protocols=[ProtocolName(protocol=alpn.encode())])])]))


def capture(d, seed=37):
    """The capture and what each flow (by the client's port) must give."""
    rng = random.Random(seed)
    pk, want, t = [], {}, [1.0]

    def add(p):
        p.time = t[0]
        t[0] += 0.0001
        pk.append(p)

    def tcp(port, payloads, sport_server=443):
        """A connection: its handshake, then the payloads in order, with
        the sequence numbers tshark's reassembly follows."""
        c = Ether() / IP(src=CLIENT, dst=SERVER)
        s = Ether() / IP(src=SERVER, dst=CLIENT)
        seq = {True: 1000, False: 5000}
        sv = sport_server
        add(c / TCP(sport=port, dport=sv, flags="S", seq=999))
        add(s / TCP(sport=sv, dport=port, flags="SA", seq=4999, ack=1000))
        add(c / TCP(sport=port, dport=sv, flags="A", seq=1000, ack=5000))
        for to_server, data in payloads:
            if to_server:
                add(c / TCP(sport=port, dport=sv, flags="PA", seq=seq[True],
                            ack=seq[False]) / Raw(data))
            else:
                add(s / TCP(sport=sv, dport=port, flags="PA", seq=seq[False],
                            ack=seq[True]) / Raw(data))
            seq[to_server] += len(data)

    port = 20000
    for i in range(40):		# TLS: a hello, most with its answer
        port += 1
        sni, alpn = name(rng), rng.sample(["h2", "http/1.1", "spdy/3", "acme-tls/1"],
                                          rng.randint(1, 3))
        ch = client_hello(rng, sni, alpn)
        answered = i % 4 != 0
        pay = []
        if i % 5 == 0:		# the hello in two segments: whole only
            cut = rng.randint(10, len(ch) - 10)	# in the second
            pay = [(True, ch[:cut]), (True, ch[cut:])]
        else:
            pay = [(True, ch)]
        if answered:
            pay.append((False, server_hello(alpn[0])))
        tcp(port, pay)
        want[port] = {"app": "tls", "sni": sni, "split": i % 5 == 0,
                      "alpn": alpn[0], "answered": answered}
    for i in range(6):		# broken hellos: lying lengths
        port += 1
        ch = bytearray(client_hello(rng, name(rng), ["h2"]))
        ch[43] = 0xff		# session id length past the hello
        tcp(port, [(True, bytes(ch))])
        want[port] = {"app": "broken"}
    for i in range(10):		# plain TCP: no application
        port += 1
        tcp(port, [(True, bytes(rng.randrange(256) for _ in range(100)))])
        want[port] = {"app": None}
    for i in range(12):		# QUIC: v1 and v2, one or two Initials
        port += 1
        sni = name(rng)
        dcid = bytes(rng.randrange(256) for _ in range(8))
        ver = gq.V1 if i % 2 == 0 else gq.V2
        ch = gq.hello(sni.encode(), pad=1500 if i % 3 == 0 else 0)
        if i % 3 == 0:		# over two Initials, pieces shuffled
            cut = 700
            dgs = [gq.initial(ver, dcid, 0, gq.crypto(cut, ch[cut:])),
                   gq.initial(ver, dcid, 1, gq.crypto(0, ch[:cut]))]
        else:
            dgs = [gq.initial(ver, dcid, 0, gq.crypto(0, ch))]
        for dg in dgs:
            add(Ether() / IP(src=CLIENT, dst=SERVER) / UDP(sport=port, dport=443) / Raw(dg))
        want[port] = {"app": "quic", "sni": sni, "version": ver[0]}
    for i in range(4):		# an Initial tampered with: does not decrypt
        port += 1
        dg = bytearray(gq.initial(gq.V1, b"\x11" * 8, 0,
                                  gq.crypto(0, gq.hello(name(rng).encode()))))
        dg[200] ^= 0x40
        add(Ether() / IP(src=CLIENT, dst=SERVER) / UDP(sport=port, dport=443) / Raw(bytes(dg)))
        want[port] = {"app": "broken"}
    for i in range(16):		# DNS: a query and, mostly, its answer
        port += 1
        qname, qtype = name(rng), rng.choice([1, 28, 15, 16])
        q = DNS(id=rng.randrange(65536), rd=1, qd=DNSQR(qname=qname, qtype=qtype))
        add(Ether() / IP(src=CLIENT, dst=SERVER) / UDP(sport=port, dport=53) / q)
        answered = i % 4 != 0
        rcode = 0 if i % 5 else 3
        if answered:
            an = DNSRR(rrname=qname, type=1, ttl=rng.randrange(1, 86400),
                       rdata="192.0.2.%d" % rng.randrange(1, 255)) if rcode == 0 else None
            r = DNS(id=q.id, qr=1, rd=1, ra=1, rcode=rcode, qd=q.qd, an=an)
            add(Ether() / IP(src=SERVER, dst=CLIENT) / UDP(sport=53, dport=port) / r)
        want[port] = {"app": "dns", "name": qname, "qtype": qtype, "id": q.id,
                      "answered": answered, "rcode": rcode if answered else 0,
                      "answers": (1 if rcode == 0 else 0) if answered else 0}
    for i in range(16):		# HTTP: a request head and its response's
        port += 1
        host, path_ = name(rng), "/" + name(rng).replace(".", "/")
        ua = "linerate-test/%d (%s)" % (i, name(rng))
        method = rng.choice(["GET", "POST", "HEAD", "PUT"])
        req = ("%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: %s\r\nReferer: "
               "http://%s/\r\nAccept: */*\r\n\r\n" % (method, path_, host, ua, host)).encode()
        ctype = rng.choice(["text/html", "application/json", "image/png"])
        resp = ("HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: 0\r\n\r\n" %
                (200 if i % 3 else 404, "OK" if i % 3 else "Not Found", ctype)).encode()
        tcp(port, [(True, req), (False, resp)], sport_server=80)
        want[port] = {"app": "http", "host": host, "target": path_, "ua": ua,
                      "method": method, "status": 200 if i % 3 else 404, "ctype": ctype}
    path = os.path.join(d, "apps.pcap")
    wrpcap(path, pk)
    return path, want, len(pk)


def probe_file(tag, pcap, ext, d):
    """The probe over @p pcap with --flow-ext @p ext, biflow, IPFIX to a
    file: (the file, the task's result)."""
    ipfix, out = os.path.join(d, tag + ".ipfix"), os.path.join(d, tag + ".json")
    r = run(eal(tag, mem=1024) + ["--", "--role", "probe", "--port", "net_null0",
                                  "--pcap", pcap, "--flow-ext", ext, "--biflow", "1",
                                  "--entries", "4096", "--export", "file:" + ipfix,
                                  "--json", out, "--no-live"], timeout=120)
    expect(r.returncode == 0, r.stderr[-800:])
    return ipfix, load_json(out)["tasks"][0]


def ipfix_records(path):
    """Flow records of an IPFIX file, by ipfixDump --rfc5610 (names from
    the file's type records), octets in hex."""
    return [x for x in ipfixdump(path, "--rfc5610", "--hexdump=64")
            if "sourceTransportPort" in x]


def tshark_app_fields(pcap):
    """Per client port: tshark's DNS and HTTP fields, the answer's over
    the query's, the response's beside the request's."""
    f = ["udp.srcport", "udp.dstport", "tcp.srcport", "tcp.dstport", "dns.id",
         "dns.qry.name", "dns.qry.type", "dns.flags.response", "dns.flags.rcode",
         "dns.count.answers", "http.request.method", "http.host", "http.request.uri",
         "http.user_agent", "http.referer", "http.response.code", "http.content_type"]
    r = subprocess.run(["tshark", "-r", pcap, "-Y", "dns or http", "-T", "fields",
                        "-E", "separator=|"] + sum((["-e", x] for x in f), []),
                       capture_output=True, text=True, timeout=120)
    expect(r.returncode == 0, r.stderr[-500:])
    out = {}
    for line in r.stdout.splitlines():
        v = dict(zip(f, (line.split("|") + [""] * len(f))[:len(f)]))
        us, ud, ts_, td = (int(x) if x else 0 for x in
                           (v["udp.srcport"], v["udp.dstport"], v["tcp.srcport"],
                            v["tcp.dstport"]))
        port = (ud if us == 53 else us) or (td if ts_ == 80 else ts_)
        o = out.setdefault(port, {})
        for k, x in v.items():
            if x and not k.endswith("port"):
                if k.startswith("dns.") and k in o and v["dns.flags.response"] != "1":
                    continue	# the answer's over the query's
                o[k] = x
    return out


def tshark_fields(pcap):
    """Per client port: tshark's server name, ALPN list and JA3 of the
    ClientHello (TCP or QUIC), and the ServerHello's ALPN."""
    r = subprocess.run(["tshark", "-r", pcap, "-o", "tls.desegment_ssl_records:TRUE",
                        "-o", "tcp.desegment_tcp_streams:TRUE", "-Y", "tls.handshake",
                        "-T", "fields", "-E", "separator=|", "-e", "tcp.srcport",
                        "-e", "udp.srcport", "-e", "tls.handshake.type",
                        "-e", "tls.handshake.extensions_server_name",
                        "-e", "tls.handshake.extensions_alpn_str",
                        "-e", "tls.handshake.ja3"],
                       capture_output=True, text=True, timeout=120)
    expect(r.returncode == 0, r.stderr[-500:])
    out = {}
    for line in r.stdout.splitlines():
        tp, up, hs, sni, alpn, ja3 = (line.split("|") + [""] * 6)[:6]
        if hs.startswith("2"):		# ServerHello: from port 443
            continue
        port = int(tp or up)
        out[port] = {"sni": sni, "alpn": alpn.split(",")[0], "ja3": ja3}
    return out


def test_fields_as_tshark_reads_them():
    d = tmpdir()
    pcap, want, n = capture(d)
    ipfix, task = probe_file("fx", pcap, "tls,quic,dns,http", d)
    fx = task["flow_ext"]
    recs = {int(x["sourceTransportPort"]): x for x in ipfix_records(ipfix)
            if x.get("destinationTransportPort") in ("443", "53", "80")}
    ts = tshark_fields(pcap)
    ta = tshark_app_fields(pcap)
    expect(len(recs) == len(want), (len(recs), len(want)))
    tls = [p for p, w in want.items() if w["app"] == "tls"]
    quic = [p for p, w in want.items() if w["app"] == "quic"]
    for p, w in want.items():
        x = recs[p]
        if w["app"] == "tls":
            # the name, the first ALPN offer (or the server's choice) and
            # JA3 as tshark reads the hello; versions the hellos' (1.3)
            expect(x.get("TLSSNI") == w["sni"] == ts[p]["sni"], (p, x, ts.get(p)))
            expect(x.get("tlsAlpn") == w["alpn"] == ts[p]["alpn"], (p, x, ts[p]))
            expect(x.get("tlsClientVersion") == "772", (p, x))
            expect(x.get("tlsServerVersion") == ("772" if w["answered"] else "772"), (p, x))
            # MD5 of the JA3 text: tshark's (--hexdump prints 0x...)
            expect(len(ts[p]["ja3"]) == 32 and
                   x.get("tlsJa3Fingerprint") == "0x" + ts[p]["ja3"],
                   (p, x.get("tlsJa3Fingerprint"), ts[p]["ja3"]))
        elif w["app"] == "dns":
            t = ta[p]
            expect(x.get("DNSName") == w["name"] == t["dns.qry.name"], (p, x, t))
            expect(x.get("DNSQType") == str(w["qtype"]) == t["dns.qry.type"], (p, x, t))
            expect(x.get("DNSTransactionID") == str(w["id"]) == str(int(t["dns.id"], 16)),
                   (p, x, t))
            expect(x.get("DNSRCode") == str(w["rcode"]) and
                   x.get("DNSAnswers") == str(w["answers"]), (p, x, w))
            if w["answered"]:
                expect(t["dns.flags.rcode"] == str(w["rcode"]) and
                       t["dns.count.answers"] == str(w["answers"]), (p, t))
        elif w["app"] == "http":
            t = ta[p]
            # each cut to its buffer (lr_flowext.h's LR_HTTP_*_MAX), as
            # doc/usage.md says
            for ipfix_key, ts_key, wk, cut in (("httpHost", "http.host", "host", 63),
                                               ("httpUrl", "http.request.uri", "target", 127),
                                               ("httpUserAgent", "http.user_agent", "ua", 127),
                                               ("httpMethod", "http.request.method", "method", 15),
                                               ("httpContentType", "http.content_type",
                                                "ctype", 31)):
                expect(x.get(ipfix_key) == w[wk][:cut] and w[wk] == t[ts_key],
                       (p, ipfix_key, x, t))
            expect(x.get("httpStatusCode") == str(w["status"]) == t["http.response.code"],
                   (p, x, t))
            expect(x.get("httpReferer") == ("http://%s/" % w["host"])[:127] and
                   "http://%s/" % w["host"] == t["http.referer"], (p, x, t))
        elif w["app"] == "quic":
            expect(x.get("quicSNI") == w["sni"] == ts[p]["sni"], (p, x, ts.get(p)))
            expect(x.get("quicVersion") == str(w["version"]), (p, x))
            expect(x.get("tlsAlpn") == "h3" == ts[p]["alpn"], (p, x, ts[p]))
        else:
            # no fields: a broken hello or Initial, or no application
            expect(not any(k in x for k in ("TLSSNI", "quicSNI", "tlsAlpn", "DNSName",
                                            "httpHost")), (p, w, x))
    dns = [p for p, w in want.items() if w["app"] == "dns"]
    http = [p for p, w in want.items() if w["app"] == "http"]
    expect(fx["records"] == {"tls": len(tls), "quic": len(quic), "dns": len(dns),
                             "http": len(http)}, fx)
    # every TLS hello and DNS query without its answer is partial; every
    # QUIC hello and HTTP exchange whole
    expect(fx["partial"] == {"tls": sum(1 for p in tls if not want[p]["answered"]),
                             "quic": 0,
                             "dns": sum(1 for p in dns if not want[p]["answered"]),
                             "http": 0}, fx)
    broken = sum(1 for w in want.values() if w["app"] == "broken")
    expect(fx["payloads"]["malformed"] == broken, fx)
    expect(fx["pool_full"] == 0 and task["rx_packets"] == n, fx)
    print("flowext: %d TLS, %d QUIC, %d DNS, %d HTTP flows: every field as tshark "
          "reads it; %d broken hellos counted; %d B a flow" % (
              len(tls), len(quic), len(dns), len(http), broken, fx["bytes_per_flow"]))


def xtra_capture(d, seed=41):
    """TCP and UDP flows with random TTLs, DF bits, windows, options, MSS,
    payload sizes and gaps (some past the 30 packets pstats keeps), and
    an ICMP flow, for basicplus and pstats."""
    rng = random.Random(seed)
    pk, t = [], [2000.0]

    def add(p):
        p.time = t[0]
        t[0] += rng.choice([0.000137, 0.0021, 0.013, 0.4])
        pk.append(p)

    def opts():
        o = [("MSS", rng.randint(536, 9000))]
        for k in rng.sample([("SAckOK", b""), ("WScale", rng.randint(0, 14)),
                             ("Timestamp", (rng.randrange(1 << 32), 0)),
                             ("NOP", None)], rng.randint(0, 4)):
            o.append(k)
        return o

    for i in range(24):
        cport = 30000 + i
        c = IP(src=CLIENT, dst=SERVER, ttl=rng.randint(1, 255),
               flags="DF" if rng.random() < 0.5 else 0)
        s = IP(src=SERVER, dst=CLIENT, ttl=rng.randint(1, 255),
               flags="DF" if rng.random() < 0.5 else 0)
        if i % 3 == 2:		# UDP: datagrams both ways, some empty
            for k in range(rng.randint(1, 40)):
                fwd = k == 0 or rng.random() < 0.6	# the client first
                n = rng.choice([0, 1, 50, 400, 1400])
                add(Ether() / (c if fwd else s) /
                    UDP(sport=cport if fwd else 5353, dport=5353 if fwd else cport) /
                    Raw(b"Z" * n))
            continue
        add(Ether() / c / TCP(sport=cport, dport=8080, flags="S", seq=1,
                              window=rng.randint(1, 65535), options=opts()))
        add(Ether() / s / TCP(sport=8080, dport=cport, flags="SA", seq=1, ack=2,
                              window=rng.randint(1, 65535), options=opts()))
        for _ in range(rng.randint(0, 45)):
            fwd = rng.random() < 0.5
            n = rng.choice([0, 0, 1, 100, 1000, 1448])
            add(Ether() / (c if fwd else s) /
                TCP(sport=cport if fwd else 8080, dport=8080 if fwd else cport,
                    flags=rng.choice(["A", "PA"]) if n else "A",
                    window=rng.randint(1, 65535), seq=2, ack=2) / Raw(b"Z" * n))
    add(Ether() / IP(src=CLIENT, dst=SERVER) / ICMP())
    path = os.path.join(d, "xtra.pcap")
    wrpcap(path, pk)
    return path, len(pk)


def ipfix_with_lists(path):
    """Flow records of an IPFIX file by ipfixDump --rfc5610, each
    basicList's items under its element's name (packetLength, ...)."""
    r = subprocess.run(["ipfixDump", "--rfc5610", "--in", path], capture_output=True,
                       text=True, timeout=60)
    expect(r.returncode == 0, r.stderr)
    recs, cur, lst = [], None, None
    for line in r.stdout.splitlines():
        if line.startswith("--- data record"):
            cur, lst = {}, None
            recs.append(cur)
            continue
        m = re.match(r"\s*count: \d+\s+semantic: \S+\s+ie: \([\d/]+\) (\w+)", line)
        if m and cur is not None:
            lst = cur.setdefault(m.group(1), [])
            continue
        m = re.match(r"\s+\d+\s+: (.*)$", line)
        if m and lst is not None:
            lst.append(m.group(1).strip())
            continue
        m = re.match(r"\s*\([\d/]+\)(?: \(S\))?\s+(\w+) : (.*)$", line)
        if m and cur is not None:
            cur[m.group(1)] = m.group(2).strip()
            lst = None
    return [x for x in recs if "sourceTransportPort" in x]


def tshark_packets(pcap):
    """Every packet as tshark dissects it: time, addresses, ports, TTL, DF,
    TCP window, flags, option kinds, MSS, payload bytes."""
    f = ["frame.time_epoch", "ip.src", "ip.len", "ip.ttl", "ip.flags.df", "tcp.srcport",
         "tcp.dstport", "udp.srcport", "udp.dstport", "tcp.window_size_value",
         "tcp.flags", "tcp.option_kind", "tcp.options.mss_val", "tcp.len", "udp.length"]
    r = subprocess.run(["tshark", "-r", pcap, "-T", "fields", "-E", "separator=|",
                        "-E", "occurrence=a", "-E", "aggregator=,"] +
                       sum((["-e", x] for x in f), []),
                       capture_output=True, text=True, timeout=120)
    expect(r.returncode == 0, r.stderr[-500:])
    return [dict(zip(f, (line.split("|") + [""] * len(f))[:len(f)]))
            for line in r.stdout.splitlines()]


def expected_xtra(pkts):
    """basicplus and pstats per client port, from tshark's packets, as
    doc/usage.md says them: each direction's first packet's TTL, DF,
    window; the options and MSS of the packets up to the first reverse
    one; the first 30 packets with payload."""
    from decimal import Decimal
    flows = {}
    for p in pkts:
        if not (p["tcp.srcport"] or p["udp.srcport"]):
            continue
        sp = int(p["tcp.srcport"] or p["udp.srcport"])
        dp = int(p["tcp.dstport"] or p["udp.dstport"])
        cport = sp if sp >= 30000 else dp
        f = flows.get(cport)
        if f is None:
            f = flows[cport] = {"client": p["ip.src"], "first": [None, None],
                                "opt": [0, 0], "mss": [0, 0], "syn": 0, "seq": [],
                                "done": False}
        d = 0 if p["ip.src"] == f["client"] else 1
        if not f["done"]:
            if f["first"][d] is None:
                f["first"][d] = (int(p["ip.ttl"]), 0x40 if p["ip.flags.df"] in
                                 ("1", "True") else 0,
                                 int(p["tcp.window_size_value"] or 0))
            for k in filter(None, p["tcp.option_kind"].split(",")):
                if int(k) < 64:
                    f["opt"][d] |= 1 << (63 - int(k))
            if p["tcp.options.mss_val"]:
                f["mss"][d] = int(p["tcp.options.mss_val"].split(",")[0])
            fl = int(p["tcp.flags"], 16) if p["tcp.flags"] else 0
            if p["tcp.srcport"] and fl & 0x12 == 0x02:
                f["syn"] = int(p["ip.len"])
            f["done"] = None not in f["first"]
        n = int(p["tcp.len"]) if p["tcp.srcport"] else int(p["udp.length"]) - 8
        if n > 0 and len(f["seq"]) < 30:
            ms = int(Decimal(p["frame.time_epoch"]) * 1000)
            f["seq"].append((str(n), ms,
                             str(int(p["tcp.flags"], 16) & 0xff if p["tcp.flags"] else 0),
                             "1" if d == 0 else "-1"))
    return flows


def test_basicplus_pstats_as_tshark_reads_them():
    d = tmpdir()
    pcap, n = xtra_capture(d)
    ipfix, task = probe_file("fxx", pcap, "basicplus,pstats,tls", d)
    fx = task["flow_ext"]
    want = expected_xtra(tshark_packets(pcap))
    recs = ipfix_with_lists(ipfix)
    got = {int(x["sourceTransportPort"]): x for x in recs
           if x["protocolIdentifier"] in ("6", "17")}
    expect(sorted(got) == sorted(want), (sorted(got), sorted(want)))
    long_ = 0
    for port, w in want.items():
        x = got[port]
        for i, (key, rev) in enumerate((("ipTTL", "reverseIpTTL"),
                                        ("fragmentFlags", "reverseFragmentFlags"),
                                        ("tcpWindowSize", "reverseTcpWindowSize"))):
            for dd, k in ((0, key), (1, rev)):
                v = w["first"][dd][i] if w["first"][dd] else 0
                expect(x[k] == str(v), (port, k, x[k], v))
        expect(x["tcpOptions"] == str(w["opt"][0]) and
               x["reverseTcpOptions"] == str(w["opt"][1]), (port, x, w["opt"]))
        expect(x["tcpMss"] == str(w["mss"][0]) and x["tcpMssRev"] == str(w["mss"][1]),
               (port, x, w["mss"]))
        expect(x["tcpSynSize"] == str(w["syn"]), (port, x["tcpSynSize"], w["syn"]))
        seq = w["seq"]
        expect(x.get("packetLength", []) == [s[0] for s in seq], (port, x, seq))
        expect(x.get("packetFlag", []) == [s[2] for s in seq], (port, x, seq))
        expect(x.get("packetDirection", []) == [s[3] for s in seq], (port, x, seq))
        # ipfixDump prints dateTimeMilliseconds as UTC "Y-m-d H:M:S.mmm"
        import datetime
        ms = [int(datetime.datetime.strptime(v, "%Y-%m-%d %H:%M:%S.%f").replace(
            tzinfo=datetime.timezone.utc).timestamp() * 1000 + 0.5)
            for v in x.get("packetTime", [])]
        expect(ms == [s[1] for s in seq], (port, ms, seq))
        long_ += len(seq) == 30
    expect(long_ > 0, "no flow reached pstats' 30 packets: the cap is untested")
    icmp = [x for x in recs if x["protocolIdentifier"] == "1"]
    expect(len(icmp) == 1 and icmp[0]["ipTTL"] == "0" and
           icmp[0].get("packetLength") == [], icmp)
    expect(fx["records"]["basicplus"] == len(want) and
           fx["records"]["pstats"] == sum(1 for w in want.values() if w["seq"]), fx)
    expect(task["rx_packets"] == n, fx)
    print("basicplus, pstats: %d flows (%d at pstats' cap) as tshark reads them; "
          "%d B a flow" % (len(want), long_, fx["bytes_per_flow"]))


def ndpireader_flows(pcap):
    """Per client port (the 20000s): the protocol ndpiReader (nDPI's own
    reader, Debian's libndpi-bin) names, as "ids/name"."""
    r = subprocess.run(["ndpiReader", "-i", pcap, "-v", "2"], capture_output=True,
                       text=True, timeout=120)
    expect(r.returncode == 0, r.stderr[-500:])
    out = {}
    for line in r.stdout.splitlines():
        m = re.search(r"(?:TCP|UDP) [\d.]+:(\d+) <?-> [\d.]+:(\d+) \[proto: ([\d.]+)/([^\]]+)\]",
                      line)
        if m:
            a, b = int(m.group(1)), int(m.group(2))
            out[a if a >= 20000 else b] = (m.group(3), m.group(4))
    return out


def test_app_labels_as_ndpireader_names_them():
    """--flow-ext app: each flow's applicationName is what ndpiReader
    names from the same capture, its applicationId RFC 6759's engine 20,
    ntop's PEN and nDPI's id; the counts are ndpiReader's confidence."""
    d = tmpdir()
    pcap, want, n = capture(d)
    ipfix, task = probe_file("fxa", pcap, "app,tls", d)
    lab = task["flow_ext"]["labels"]
    peer = ndpireader_flows(pcap)
    recs = {int(x["sourceTransportPort"]): x for x in ipfix_records(ipfix)}
    expect(len(peer) == len(want) and set(peer) <= set(recs), (len(peer), len(want)))
    names = {}
    for port, (ids, name) in peer.items():
        x = recs[port]
        sel = int(ids.split(".")[-1]) if not ids.endswith(".0") else int(ids.split(".")[0])
        expect(x.get("applicationName") == name, (port, x.get("applicationName"), name))
        # ipfixDump prints an octetArray of up to 8 bytes as the number
        # its bytes make in the host's (little-endian) order
        aid = int(x.get("applicationId", "0")).to_bytes(7, "little")
        expect(aid == bytes([20]) + (35632).to_bytes(4, "big") + sel.to_bytes(2, "big"),
               (port, aid.hex(), ids))
        names[name] = names.get(name, 0) + 1
    expect(lab["named"] + lab["guessed"] + lab["unknown"] == len(want) and
           lab["pool_full"] == 0 and lab["unknown"] == names.get("Unknown", 0), lab)
    print("app: %d flows named as ndpiReader names them (%s); nDPI %s" % (
        len(peer), ", ".join("%s %d" % kv for kv in sorted(names.items())), lab["ndpi"]))


def test_bad_option():
    r = run(eal("fxb") + ["--", "--role", "probe", "--port", "net_null0",
                          "--flow-ext", "tls,smtp"])
    expect(r.returncode == 2 and "flow-ext 'smtp'" in r.stderr and
           len(r.stderr.strip().splitlines()) == 1, (r.returncode, r.stderr))


if __name__ == "__main__":
    main([test_fields_as_tshark_reads_them, test_basicplus_pstats_as_tshark_reads_them,
          test_app_labels_as_ndpireader_names_them, test_bad_option])
