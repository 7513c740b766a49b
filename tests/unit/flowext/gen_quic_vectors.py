#!/usr/bin/python3
"""QUIC client Initials, protected here with python3-cryptography as RFC 9001
§5 and RFC 9369 §3.3 say (an implementation that is not linerate's), the
ClientHello inside built by scapy: quic_vectors.h for test_quic.c. With
--check, each datagram is also written to a pcap and tshark (which derives
the Initial keys itself) must find the server name in it.

    /usr/bin/python3 tests/unit/flowext/gen_quic_vectors.py --check > tests/unit/flowext/quic_vectors.h
"""
import os
import random
import subprocess
import sys
import tempfile

from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from scapy.layers.tls.extensions import (ProtocolName, ServerName, TLS_Ext_ALPN,
                                         TLS_Ext_Padding, TLS_Ext_ServerName,
                                         TLS_Ext_SupportedVersion_CH)
from scapy.layers.tls.handshake import TLSClientHello

V1 = (0x00000001, bytes.fromhex("38762cf7f55934b34d179ae6a4c80cadccbb7f0a"), "quic", 0)
V2 = (0x6b3343cf, bytes.fromhex("0dede3def700a6db819381be6e269dcbf9bd2ed9"), "quicv2", 1)


def hkdf_extract(salt, ikm):
    h = hmac.HMAC(salt, hashes.SHA256())
    h.update(ikm)
    return h.finalize()


def expand_label(secret, label, n):
    full = b"tls13 " + label.encode()
    info = n.to_bytes(2, "big") + bytes([len(full)]) + full + b"\0"
    out, t, i = b"", b"", 1
    while len(out) < n:
        h = hmac.HMAC(secret, hashes.SHA256())
        h.update(t + info + bytes([i]))
        t = h.finalize()
        out += t
        i += 1
    return out[:n]


def varint(v):
    if v < 64:
        return bytes([v])
    if v < 16384:
        return (v | 0x4000).to_bytes(2, "big")
    return (v | 0x80000000).to_bytes(4, "big")


def initial(ver, dcid, pn, payload, scid=b"\x01\x02\x03\x04"):
    version, salt, prefix, itype = ver
    client = expand_label(hkdf_extract(salt, dcid), "client in", 32)
    key = expand_label(client, prefix + " key", 16)
    iv = expand_label(client, prefix + " iv", 12)
    hp = expand_label(client, prefix + " hp", 16)
    pn_len = 2
    # 1200 bytes at least for the datagram (RFC 9000 §14.1): PADDING
    head_len = 1 + 4 + 1 + len(dcid) + 1 + len(scid) + 1 + 2
    payload += b"\0" * max(0, 1200 - head_len - pn_len - len(payload) - 16)
    length = pn_len + len(payload) + 16
    first = 0xc0 | itype << 4 | (pn_len - 1)
    header = (bytes([first]) + version.to_bytes(4, "big") + bytes([len(dcid)]) + dcid +
              bytes([len(scid)]) + scid + varint(0) + (length | 0x4000).to_bytes(2, "big") +
              pn.to_bytes(pn_len, "big"))
    nonce = bytes(a ^ b for a, b in zip(iv, pn.to_bytes(12, "big")))
    ct = AESGCM(key).encrypt(nonce, payload, header)
    pn_off = len(header) - pn_len
    sample = ct[4 - pn_len:4 - pn_len + 16]
    enc = Cipher(algorithms.AES(hp), modes.ECB()).encryptor()
    mask = enc.update(sample) + enc.finalize()
    h = bytearray(header)
    h[0] ^= mask[0] & 0x0f
    for i in range(pn_len):
        h[pn_off + i] ^= mask[1 + i]
    return bytes(h) + ct


def crypto(off, data):
    return b"\x06" + varint(off) + varint(len(data)) + data


def hello(sni, pad=0):
    ext = [TLS_Ext_ServerName(servernames=[ServerName(servername=sni)]),
           TLS_Ext_ALPN(protocols=[ProtocolName(protocol=b"h3")]),
           TLS_Ext_SupportedVersion_CH(versions=[0x0304])]
    if pad:   # a post-quantum key share's worth, before the name
        ext.insert(0, TLS_Ext_Padding(padding=b"\0" * pad))
    return bytes(TLSClientHello(version=0x0303, ciphers=[0x1301], ext=ext,
                                random_bytes=bytes(28), gmt_unix_time=0))


def cbytes(name, b):
    rows = [", ".join("0x%02x" % x for x in b[i:i + 12]) for i in range(0, len(b), 12)]
    return "static const uint8_t %s[] = {\n\t%s\n};\n" % (name, ",\n\t".join(rows))


def tshark_sni(datagrams):
    """The server names tshark finds in the datagrams, sent to UDP 443."""
    from scapy.all import IP, UDP, Ether, wrpcap
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "q.pcap")
        wrpcap(path, [Ether() / IP(src="10.0.0.1", dst="10.0.0.2") /
                      UDP(sport=50000, dport=443) / x for x in datagrams])
        out = subprocess.run(["tshark", "-r", path, "-o", "tls.desegment_ssl_records:TRUE",
                              "-T", "fields", "-e", "tls.handshake.extensions_server_name"],
                             capture_output=True, text=True, check=True).stdout
    return [l for l in out.split() if l]


def main():
    rng = random.Random(37)
    dcid = bytes.fromhex("8394c8f03e515708")
    vec = {}
    # One Initial, v1; and v2.
    ch = hello(b"quic.example.net")
    vec["q_v1"] = [initial(V1, dcid, 0, crypto(0, ch))]
    vec["q_v2"] = [initial(V2, dcid, 0, crypto(0, ch))]
    # A 1.8 kB hello over two Initials, its CRYPTO frames cut in pieces and
    # shuffled within and across the packets (as Chromium sends them), with
    # PING and PADDING frames between; the name in the second packet.
    big = hello(b"split.example.com", pad=1500)
    cuts = sorted(rng.sample(range(1, len(big)), 9))
    pieces = [(a, big[a:b]) for a, b in zip([0] + cuts, cuts + [len(big)])]
    rng.shuffle(pieces)
    first = [p for p in pieces if p[0] < 900]
    second = [p for p in pieces if p[0] >= 900]
    pay1 = b"".join(crypto(o, d) + b"\x01" for o, d in first)
    pay2 = b"".join(b"\0\0" + crypto(o, d) for o, d in second)
    vec["q_split"] = [initial(V1, dcid, 0, pay1), initial(V1, dcid, 1, pay2)]
    out = ["/* Generated by gen_quic_vectors.py: do not edit. */"]
    for name, dgs in vec.items():
        for i, d in enumerate(dgs):
            out.append(cbytes("%s_%d" % (name, i), d))
    out.append('#define QUIC_SNI "quic.example.net"\n#define QUIC_SPLIT_SNI "split.example.com"')
    out.append("#define QUIC_SPLIT_FIRST_HAS_NAME %d" %
               int(any(o <= big.index(b"split.example.com") < o + len(d) for o, d in first)))
    if "--check" in sys.argv:
        for name, dgs in vec.items():
            got = tshark_sni(dgs)
            want = "split.example.com" if name == "q_split" else "quic.example.net"
            if want not in got:
                sys.exit("tshark finds no %s in %s: %s" % (want, name, got))
            print("tshark: %s -> %s" % (name, got), file=sys.stderr)
    print("\n".join(out))


if __name__ == "__main__":
    main()
