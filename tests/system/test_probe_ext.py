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

from scapy.all import DNS, DNSQR, DNSRR, IP, TCP, UDP, Ether, Raw, wrpcap  # noqa: E402
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
    ipfix, out = os.path.join(d, "x.ipfix"), os.path.join(d, "x.json")
    r = run(eal("fx", mem=1024) + ["--", "--role", "probe", "--port", "net_null0",
                                   "--pcap", pcap, "--flow-ext", "tls,quic,dns,http",
                                   "--biflow", "1",
                                   "--entries", "4096", "--export", "file:" + ipfix,
                                   "--json", out, "--no-live"], timeout=120)
    expect(r.returncode == 0, r.stderr[-800:])
    doc = load_json(out)
    fx = doc["tasks"][0]["flow_ext"]
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
    expect(fx["pool_full"] == 0 and doc["tasks"][0]["rx_packets"] == n, fx)
    print("flowext: %d TLS, %d QUIC, %d DNS, %d HTTP flows: every field as tshark "
          "reads it; %d broken hellos counted; %d B a flow" % (
              len(tls), len(quic), len(dns), len(http), broken, fx["bytes_per_flow"]))


def test_bad_option():
    r = run(eal("fxb") + ["--", "--role", "probe", "--port", "net_null0",
                          "--flow-ext", "tls,smtp"])
    expect(r.returncode == 2 and "flow-ext 'smtp'" in r.stderr and
           len(r.stderr.strip().splitlines()) == 1, (r.returncode, r.stderr))


if __name__ == "__main__":
    main([test_fields_as_tshark_reads_them, test_bad_option])
