#!/usr/bin/python3
"""A capture for tools/bench/probe-ext.sh, the issue's mix: FLOWS flows,
10 % of them TLS (handshake, a ClientHello with its own server name, the
ServerHello, then data), 5 % DNS (a query on port 53 and its answer), 5 %
HTTP (a request head and its response's, then data), the rest plain TCP
and UDP; every flow PKTS packets, frames of 64-1500 B, flows interleaved
in a seeded order. Written with struct (scapy only builds the hellos and
DNS messages once): a million frames in seconds.

    probe-ext-mix.py OUT.pcap [FLOWS=16384] [PKTS=16] [--plain] [--quic]

--plain: every flow plain (no application), the same sizes: what a flow
costs once the extensions stopped looking at it. --quic: the DNS flows
are QUIC instead (a client Initial, then short-header packets).
"""
import os
import random
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "unit",
                                "flowext"))
import gen_quic_vectors as gq  # noqa: E402
from scapy.layers.tls.extensions import (ProtocolName, ServerName,  # noqa: E402
                                         TLS_Ext_ALPN, TLS_Ext_ServerName,
                                         TLS_Ext_SupportedVersion_CH,
                                         TLS_Ext_SupportedVersion_SH)
from scapy.layers.tls.handshake import TLSClientHello, TLSServerHello  # noqa: E402
from scapy.layers.tls.record import TLS  # noqa: E402
from scapy.layers.dns import DNS, DNSQR, DNSRR  # noqa: E402


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def frame(src, dst, proto, sport, dport, payload, flags=0x18, seq=0):
    if proto == 6:
        l4 = struct.pack("!HHIIBBHHH", sport, dport, seq, 0, 5 << 4, flags, 65535, 0, 0)
    else:
        l4 = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4) + len(payload), 0, 0, 64,
                     proto, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00" + ip + l4 + payload


def main():
    out = sys.argv[1]
    args = [a for a in sys.argv[2:] if not a.startswith("--")]
    nflows = int(args[0]) if args else 16384
    pkts = int(args[1]) if len(args) > 1 else 16
    plain = "--plain" in sys.argv
    quic = "--quic" in sys.argv
    rng = random.Random(2544)
    ch0 = bytes(TLS(type=22, version=0x0301, msg=[TLSClientHello(
        version=0x0303, ciphers=[0x1301, 0x1302, 0xc02f], random_bytes=bytes(28),
        gmt_unix_time=0, ext=[
            TLS_Ext_SupportedVersion_CH(versions=[0x0304, 0x0303]),
            TLS_Ext_ServerName(servernames=[ServerName(servername=b"f000000.example.com")]),
            TLS_Ext_ALPN(protocols=[ProtocolName(protocol=b"h2")])])]))
    at = ch0.index(b"f000000")
    sh = bytes(TLS(type=22, version=0x0303, msg=[TLSServerHello(
        version=0x0303, cipher=0x1301, random_bytes=bytes(28), gmt_unix_time=0,
        ext=[TLS_Ext_SupportedVersion_SH(version=0x0304),
             TLS_Ext_ALPN(protocols=[ProtocolName(protocol=b"h2")])])]))
    flows = []
    for i in range(nflows):
        c = struct.pack("!I", 0x0a000000 + i + 1)
        s = struct.pack("!I", 0xc0a80000 + (i % 251) + 1)
        kind = ("plain" if plain else "tls" if i % 20 < 2 else
                ("quic" if quic else "dns") if i % 20 == 2 else
                "http" if i % 20 == 3 else "plain")
        proto = 17 if kind in ("quic", "dns") or (kind == "plain" and i % 2) else 6
        sport = 1024 + i % 60000
        dport = {"tls": 443, "quic": 443, "dns": 53, "http": 80}.get(kind,
                                                                    5000 + i % 1000)
        seq = []
        if kind == "tls":
            ch = ch0[:at] + b"f%06d" % i + ch0[at + 7:]
            seq = [(True, b"", 0x02), (False, b"", 0x12), (True, b"", 0x10),
                   (True, ch, 0x18), (False, sh, 0x18)]
        elif kind == "dns":
            q = DNS(id=i & 0xffff, rd=1, qd=DNSQR(qname="d%06d.example.org" % i))
            r = DNS(id=i & 0xffff, qr=1, rd=1, ra=1, qd=q.qd,
                    an=DNSRR(rrname=q.qd.qname, ttl=300, rdata="192.0.2.1"))
            seq = [(True, bytes(q), 0), (False, bytes(r), 0)]
        elif kind == "http":
            req = (b"GET /item/%d HTTP/1.1\r\nHost: h%06d.example.com\r\n"
                   b"User-Agent: bench/1.0\r\nAccept: */*\r\n\r\n" % (i, i))
            resp = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                    b"Content-Length: 1000\r\n\r\n")
            seq = [(True, b"", 0x02), (False, b"", 0x12), (True, b"", 0x10),
                   (True, req, 0x18), (False, resp, 0x18)]
        elif kind == "quic":
            dcid = struct.pack("!Q", rng.getrandbits(64))
            seq = [(True, gq.initial(gq.V1, dcid, 0, gq.crypto(
                0, gq.hello(b"q%06d.example.net" % i))), 0)]
        while len(seq) < pkts:
            n = rng.randint(64, 1500) - 54
            body = bytes(rng.getrandbits(8) for _ in range(8)) * (n // 8) + b"\0" * (n % 8)
            if kind == "quic":
                body = b"\x40" + body[1:]	# a short header
            if kind == "dns":
                break			# a query and its answer
            seq.append((rng.random() < 0.6, body, 0x18))
        flows.append((c, s, proto, sport, dport, seq))
    # interleave: each step a random flow that has packets left
    order = [i for i in range(nflows) for _ in range(len(flows[i][5]))]
    rng.shuffle(order)
    # keep each flow's own order: its k-th appearance sends its k-th packet
    nxt = [0] * nflows
    with open(out, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        t = 1_000_000
        for i in order:
            c, s, proto, sport, dport, seq = flows[i]
            to_server, body, flags = seq[nxt[i]]
            nxt[i] += 1
            fr = (frame(c, s, proto, sport, dport, body, flags) if to_server else
                  frame(s, c, proto, dport, sport, body, flags))
            t += 1
            f.write(struct.pack("<IIII", t // 1_000_000, t % 1_000_000, len(fr), len(fr)) + fr)


if __name__ == "__main__":
    main()
