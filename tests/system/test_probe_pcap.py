"""The probe's --pcap: a capture file loaded into memory and read in place,
against the same file read through net_pcap (rx_pcap=FILE): the same flow
records (read by ipfixDump, times included), parse results, packets and
bytes; trace-time timeouts alike; bad files a one-line error or counted.
"""
import os
import struct

from lrtest import eal, expect, load_json, main, run, tmpdir
from test_probe import gen_pcap, ipfixdump, mixed_pcap, trace_pcap


def records(path):
    """Every flow record of an IPFIX file, whole (times too), sorted."""
    return sorted(tuple(sorted(x.items())) for x in ipfixdump(path)
                  if "packetDeltaCount" in x)


def probe(name, src, d, *opts):
    """One probe run over capture src: through net_pcap (src[0] == 'pmd') or
    --pcap; (records, result document)."""
    ipfix, out = os.path.join(d, name + ".ipfix"), os.path.join(d, name + ".json")
    how, pcap = src
    port = (["--port", "net_pcap0,rx_pcap=" + pcap] if how == "pmd" else
            ["--port", "net_null0", "--pcap", pcap])
    r = run(eal(name, mem=1024) + ["--", "--role", "probe"] + port +
            ["--entries", "4096", "--export", "file:" + ipfix, "--json", out,
             "--no-live"] + list(opts), timeout=120)
    expect(r.returncode == 0, (name, how, opts, r.stderr))
    return records(ipfix), load_json(out), r


def same_as_net_pcap(d, pcap, n, *opts, cut=0):
    a, ra, _ = probe("pmd", ("pmd", pcap), d, *opts)
    b, rb, r = probe("map", ("map", pcap), d, *opts)
    expect(len(a) > 0 and a == b, (opts, len(a), len(b),
                                   [x for x in b if x not in a][:2],
                                   [x for x in a if x not in b][:2]))
    expect(ra["probe"]["parsed"] == rb["probe"]["parsed"],
           (opts, ra["probe"]["parsed"], rb["probe"]["parsed"]))
    for k in ("flows_created", "flows_ended", "later_fragments", "unmatched_fragments"):
        expect(ra["probe"][k] == rb["probe"][k], (opts, k, ra["probe"][k], rb["probe"][k]))
    ta, tb = ra["tasks"][0], rb["tasks"][0]
    expect(ta["rx_packets"] == tb["rx_packets"] == n, (opts, ta["rx_packets"],
                                                       tb["rx_packets"], n))
    expect(ta["rx_bytes"] == tb["rx_bytes"], (opts, ta["rx_bytes"], tb["rx_bytes"]))
    expect(tb["pcap_frames"] == n and tb["end_of_capture"] == n and
           tb["pcap_cut_bytes"] == cut, (opts, tb))
    return rb


def test_same_records_as_net_pcap():
    # gen's UDP of many sizes, scapy's TCP with flags, ICMP, IPv6, VLAN,
    # fragments and malformed frames: full and trimmed, the same records
    # as net_pcap's path gives, times included, and the same counts.
    d = tmpdir()
    pcap, n, _ = mixed_pcap(d)
    same_as_net_pcap(d, pcap, n)
    same_as_net_pcap(d, pcap, n, "--trim", "64")
    # --count stops at N exactly in both
    a, ra, _ = probe("pmdc", ("pmd", pcap), d, "--count", "1000")
    b, rb, _ = probe("mapc", ("map", pcap), d, "--count", "1000")
    expect(a == b, (len(a), len(b)))
    expect(ra["tasks"][0]["rx_packets"] == rb["tasks"][0]["rx_packets"] == 1000,
           (ra["tasks"][0]["rx_packets"], rb["tasks"][0]["rx_packets"]))


def test_trace_timeouts_as_net_pcap():
    # 100 s of trace read in a fraction of one: the capture's times, and
    # timeouts in trace time, as test_probe's trace test wants them.
    d = tmpdir()
    pcap, n, want = trace_pcap(d)
    same_as_net_pcap(d, pcap, n, "--inactive", "30", "--active", "35")
    got, _, _ = probe("mapt", ("map", pcap), d, "--inactive", "30", "--active", "35")
    got = sorted((x["sourceTransportPort"], x["flowStartMilliseconds"],
                  x["flowEndMilliseconds"], x["packetDeltaCount"], x["flowEndReason"])
                 for x in (dict(r) for r in got))
    expect(got == want, ([g for g in got if g not in want], [w for w in want if w not in got]))


NS_MAGIC = (0xa1b23c4d, 0x4d3cb2a1)	# read in either byte order


def pcap_records(path):
    """A capture's frames as (seconds, ns, original length, bytes): read
    here (scapy took 3 s to read 3000 frames and 2 s to write them)."""
    data = open(path, "rb").read()
    e = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    nano = struct.unpack(e + "I", data[:4])[0] == NS_MAGIC[0]
    out, off = [], 24
    while off + 16 <= len(data):
        sec, frac, cap, orig = struct.unpack(e + "IIII", data[off:off + 16])
        out.append((sec, frac if nano else frac * 1000, orig, data[off + 16:off + 16 + cap]))
        off += 16 + cap
    return out


def write_pcap(path, recs, nano):
    """recs as an Ethernet capture of this host's byte order, its stamps in
    ns or (truncated) us."""
    out = [struct.pack("<IHHiIII", 0xa1b23c4d if nano else 0xa1b2c3d4, 2, 4, 0, 0,
                       65535, 1)]
    for sec, ns, orig, data in recs:
        out.append(struct.pack("<IIII", sec, ns if nano else ns // 1000, len(data), orig) +
                   data)
    with open(path, "wb") as f:
        f.write(b"".join(out))


def test_ns_and_swapped_files():
    # A ns-stamped file and one written in the other byte order: read, the
    # same records as net_pcap's (the IPFIX times are ms; the ns are the
    # trace's), the precision said.
    d = tmpdir()
    src = os.path.join(d, "g.pcap")
    gen_pcap("nsg", src, "--count", "3000", "--flows", "50", "--size", "64-1518")
    recs = pcap_records(src)
    expect(len(recs) == 3000, len(recs))
    ns = os.path.join(d, "ns.pcap")
    write_pcap(ns, recs, nano=True)
    rb = same_as_net_pcap(d, ns, 3000)
    expect(rb["tasks"][0]["pcap_ts_precision"] == "ns", rb["tasks"][0])
    # us stamps, in the other byte order (by hand: every field of every
    # header swapped)
    us = os.path.join(d, "us.pcap")
    write_pcap(us, recs, nano=False)
    with open(us, "rb") as f:
        data = f.read()
    out = [struct.pack(">IHHiIII", *struct.unpack("<IHHiIII", data[:24]))]
    off = 24
    while off < len(data):
        h = struct.unpack("<IIII", data[off:off + 16])
        out.append(struct.pack(">IIII", *h) + data[off + 16:off + 16 + h[2]])
        off += 16 + h[2]
    be = os.path.join(d, "be.pcap")
    with open(be, "wb") as f:
        f.write(b"".join(out))
    rb = same_as_net_pcap(d, be, 3000)
    expect(rb["tasks"][0]["pcap_ts_precision"] == "us", rb["tasks"][0])


def ns_times(path):
    """(flowStartNanoseconds, flowEndNanoseconds) of every data record of an
    IPFIX file, as Unix ns: decoded here, ipfixDump prints whole seconds."""
    data = open(path, "rb").read()
    tmpl, out, off = {}, [], 0
    while off + 16 <= len(data):
        mlen = struct.unpack_from(">HH", data, off)[1]
        end, s = off + mlen, off + 16
        while s + 4 <= end:
            sid, slen = struct.unpack_from(">HH", data, s)
            p, send = s + 4, s + slen
            if sid == 2:
                while p + 4 <= send:
                    tid, n = struct.unpack_from(">HH", data, p)
                    p += 4
                    fields = []
                    for _ in range(n):
                        fid, flen = struct.unpack_from(">HH", data, p)
                        p += 4
                        if fid & 0x8000:
                            p += 4
                        fields.append((fid & 0x7fff, flen))
                    tmpl[tid] = fields
            elif sid >= 256 and sid in tmpl:
                size = sum(f[1] for f in tmpl[sid])
                while p + size <= send:
                    rec = {}
                    for fid, flen in tmpl[sid]:
                        if fid in (156, 157):
                            sec, frac = struct.unpack_from(">II", data, p)
                            rec[fid] = (sec - 2208988800) * 10**9 + \
                                (frac * 10**9 + 2**31) // 2**32
                        p += flen
                    if 156 in rec:
                        out.append((rec[156], rec[157]))
            s = send
        off = end
    return sorted(out)


def test_ns_kept():
    # A ns file read with --ns 1: the records' flowStart/EndNanoseconds are
    # the file's, to the ns; through net_pcap they are its us (libpcap
    # opens the file at us precision).
    from decimal import Decimal
    from scapy.all import IP, UDP, Ether, Raw, wrpcap
    d = tmpdir()
    pkts = []
    for t in ("1700000000.000000123", "1700000000.000001789", "1700000001.500000007"):
        p = Ether() / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1000, dport=53) / \
            Raw(b"x" * 20)
        p.time = Decimal(t)
        pkts.append(p)
    pcap = os.path.join(d, "ns.pcap")
    wrpcap(pcap, pkts, nano=True)
    t0 = 1700000000 * 10**9
    for how, want in (("map", (t0 + 123, t0 + 1500000007)),
                      ("pmd", (t0, t0 + 1500000000))):
        ipfix = os.path.join(d, how + ".ipfix")
        port = (["--port", "net_null0", "--pcap", pcap] if how == "map" else
                ["--port", "net_pcap0,rx_pcap=" + pcap])
        r = run(eal("ns" + how) + ["--", "--role", "probe"] + port +
                ["--ns", "1", "--export", "file:" + ipfix, "--no-live"], timeout=30)
        expect(r.returncode == 0, (how, r.stderr))
        got = ns_times(ipfix)
        # NTP's fraction holds ns to within 1
        expect(len(got) == 1 and all(abs(g - w) <= 1 for g, w in zip(got[0], want)),
               (how, got, want))


def test_bad_files():
    d = tmpdir()
    good = os.path.join(d, "ok.pcap")
    gen_pcap("bfg", good, "--count", "100", "--flows", "10")
    with open(good, "rb") as f:
        data = f.read()

    def write(name, b):
        p = os.path.join(d, name)
        with open(p, "wb") as f:
            f.write(b)
        return p

    corrupt = bytearray(data)
    # the 11th record's caplen: 100 records of 60 B after a 24 B header
    struct.pack_into("<I", corrupt, 24 + 10 * (16 + 60) + 8, 0x7fffffff)
    raw = bytearray(data)
    struct.pack_into("<I", raw, 20, 101)		# LINKTYPE_RAW
    ng = write("ng.pcapng", b"\x0a\x0d\x0d\x0a" + b"\x1c\x00\x00\x00" +
               b"\x4d\x3c\x2b\x1a" + b"\x01\x00\x00\x00" + b"\xff" * 8 +
               b"\x1c\x00\x00\x00")
    cases = ((os.path.join(d, "none.pcap"), "No such file"),
             (write("short.pcap", data[:10]), "shorter than a pcap file header"),
             (write("text.pcap", b"hello, this is no capture at all\n"),
              "not a pcap file"),
             (ng, "pcapng, not pcap"),
             (write("corrupt.pcap", bytes(corrupt)), "record 11 at byte"),
             (write("raw.pcap", bytes(raw)), "not Ethernet"),
             (d, "not a regular file"))
    # A FIFO that nothing writes: refused at once, not waited on in
    # open() for ever (issue 35 L4).
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    cases += ((fifo, "not a regular file (a pipe or FIFO"),)
    for path, msg in cases:
        r = run(eal("bf") + ["--", "--role", "probe", "--port", "net_null0",
                             "--pcap", path, "--export", "none", "--no-live"],
                timeout=30)
        lines = [l for l in r.stderr.splitlines() if "pcap" in l]
        expect(r.returncode in (1, 2) and msg in r.stderr and len(lines) == 1,
               (path, r.returncode, r.stderr))
    # --pcap with a distributor's channels: refused
    r = run(eal("bfc") + ["--", "--role", "probe", "--port", "net_null0", "--pcap", good,
                          "--channels", "1", "--no-live"])
    expect(r.returncode in (1, 2) and "--channels" in r.stderr, r.stderr)
    # A cut last record (a writer killed): the frames before it, counted,
    # as net_pcap reads them; the header alone: no frames, a clean end.
    cut = write("cut.pcap", data[:-30])
    same_as_net_pcap(d, cut, 99, cut=16 + 60 - 30)
    out = os.path.join(d, "h.json")
    r = run(eal("bfh") + ["--", "--role", "probe", "--port", "net_null0", "--pcap",
                          write("hdr.pcap", data[:24]), "--export", "none",
                          "--json", out, "--no-live"], timeout=30)
    expect(r.returncode == 0, r.stderr)
    t = load_json(out)["tasks"][0]
    expect(t["rx_packets"] == 0 and t["pcap_frames"] == 0 and t["end_of_capture"] == 0, t)


if __name__ == "__main__":
    main([test_same_records_as_net_pcap, test_trace_timeouts_as_net_pcap,
          test_ns_and_swapped_files, test_ns_kept, test_bad_files])
