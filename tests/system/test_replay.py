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
import statistics
import subprocess

from lrtest import eal, expect, load_json, main, run, tmpdir

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)   # no MAC lookups


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
        pkts.append(Ether() / IPv6(src="fd00::1", dst="fd00::2") /
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


def test_timing_kept_and_never_early():
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
              "before its time, offered %.4f" % (mult, med * 1e6, max(gaps) * 1e6,
                                                 early * 1e6, task["offered"]))
        # net_pcap stamps a frame when it writes it: a few us of its own.
        expect(early < 100e-6, early)
        expect(med < 50e-6, med)


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
                      (["--pcap", src, "--multiplier", "2", "--rate", "1000"], "give one")):
        r = gen("rpbad", "net_null0", *opts)
        expect(r.returncode in (1, 2) and msg in r.stderr, (opts, r.returncode, r.stderr))


if __name__ == "__main__":
    main([test_capture_of_gen_replayed_and_counted,
          test_ipv6_and_tcp_rewritten_with_valid_sums,
          test_timing_kept_and_never_early, test_count_loops_forever_and_bad_input])
