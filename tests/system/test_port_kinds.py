#!/usr/bin/env python3
"""The real binary through kernel-backed ports (issue 38 items 1 and 6):
net_af_packet with qpairs=2, net_af_xdp and net_tap, each on interfaces of
the test's own (a veth pair in a network namespace, a tap), with exact
counts checked against the kernel's own evidence rather than linerate's:

- the interface's counters (ip -s link: what the kernel delivered to it
  and what it dropped),
- the receiving packet sockets' own PACKET_STATISTICS, read from outside
  the process (pidfd_getfd(2) on linerate's sockets: DPDK 22.11's
  net_af_packet does not read them, so a frame its ring had no room for
  is in no counter of the result),
- on the tap, a raw socket of the test's counting every frame by flow.

Received == sent is asserted only where those counters say the kernel
dropped nothing; otherwise every missing frame must be one the kernel
counted as dropped, and the test says so. Everything made (namespaces,
interfaces, processes, files) goes in a finally, also on failure.
"""
import json
import os
import shutil
import subprocess
import sys
import time

from lrtest import LINERATE, VethNetns, eal, expect, load_json, main, sh, tmpdir

PY = "/usr/bin/python3"

# Reads, from outside, PACKET_STATISTICS of every packet socket of process
# PID (pidfd_getfd(2): root may take a copy of another process's fd) and
# writes {ifindex: [packets, drops], ...} summed per interface to OUT.
# The kernel counts tp_packets with the drops in them; reading clears
# both (the PMD never reads them: nothing of its is disturbed).
PKTSTATS = r"""
import ctypes, json, os, socket, struct, sys
pid, out = int(sys.argv[1]), sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
inodes = {}
with open("/proc/%d/net/packet" % pid) as f:
    next(f)
    for line in f:
        w = line.split()
        inodes[int(w[8])] = int(w[4])	# inode -> ifindex
pidfd = os.pidfd_open(pid)
res = {}
for fd in os.listdir("/proc/%d/fd" % pid):
    try:
        link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
    except OSError:
        continue
    if not link.startswith("socket:["):
        continue
    ino = int(link[8:-1])
    if ino not in inodes:
        continue
    mine = libc.syscall(438, pidfd, int(fd), 0)	# pidfd_getfd
    if mine < 0:
        sys.exit("pidfd_getfd: errno %d" % ctypes.get_errno())
    s = socket.socket(fileno=mine)
    packets, drops = struct.unpack("II", s.getsockopt(263, 6, 8))	# SOL_PACKET, PACKET_STATISTICS
    s.detach()
    os.close(mine)
    r = res.setdefault(str(inodes[ino]), [0, 0, 0])
    r[0] += packets
    r[1] += drops
    r[2] += 1
json.dump(res, open(out, "w"))
"""

# Counts linerate's frames (magic 0x4C52 after the UDP header) per flow on
# IFACE from a raw socket of its own, once READY is written, until N came
# or nothing came for 2 s after the first (at most 60 s); writes {"flows": {flow: n},
# "other": n, "drops": its socket's own drops} to OUT.
TAPREAD = r"""
import errno, json, os, socket, struct, sys, time
iface, n, ready, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
end = time.time() + 30
def up():
    try:
        return int(open("/sys/class/net/%s/flags" % iface).read(), 16) & 1
    except OSError:
        return 0
while not up():	# the port brings it up when it starts
    if time.time() > end:
        sys.exit("no interface " + iface + " up")
    time.sleep(0.02)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 24)
s.bind((iface, 0))
s.settimeout(0.2)
open(ready, "w").close()
flows, other, got, last = {}, 0, 0, time.time()
stop = time.time() + 60
while got < n and (got == 0 or time.time() - last < 2) and time.time() < stop:
    try:
        f = s.recv(65536)
    except socket.timeout:
        continue
    except OSError as e:	# down while the port restarts: not a frame
        if e.errno != errno.ENETDOWN:
            raise
        time.sleep(0.01)
        continue
    last = time.time()
    if len(f) >= 44 and f[12:14] == b"\x08\x00" and f[23] == 17 and \
            f[42:44] == b"\x4c\x52":
        fl = struct.unpack(">I", f[44:48])[0]
        flows[fl] = flows.get(fl, 0) + 1
        got += 1
    else:
        other += 1
packets, drops = struct.unpack("II", s.getsockopt(263, 6, 8))
json.dump({"flows": flows, "other": other, "drops": drops}, open(out, "w"))
"""


def link_stats(ns, iface):
    """The kernel's counters of @p iface in @p ns (ip -s link)."""
    j = json.loads(sh("ip", "-n", ns, "-j", "-s", "link", "show", "dev", iface).stdout)
    return j[0]["stats64"]


class Veth(VethNetns):
    """lrtest's veth pair in a namespace, and an interface's index."""

    def __init__(self, tag):
        super().__init__("k", tag)

    def ifindex(self, iface):
        return int(sh("ip", "netns", "exec", self.ns, "cat",
                      "/sys/class/net/%s/ifindex" % iface).stdout)


def run_in(ns, args, timeout=120, env=None):
    """linerate in namespace @p ns; killed on the way out if still there."""
    p = subprocess.Popen(["ip", "netns", "exec", ns, LINERATE] + args,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env)
    try:
        out, err = p.communicate(timeout=timeout)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    return p.returncode, out, err


def flows_of(doc):
    return {f["flow"]: f for f in doc["rx"]["flows"]}


def check_exact(doc, sent_per_flow, kernel_drops, port_drops, what):
    """rx's per-flow counts against what was sent: received + lost == sent
    for every flow, lost being sent − received (a tail lost after the last
    arrival is lost too, and rx's own gap count can only be part of it);
    received == sent where the kernel and the port dropped nothing, else
    every missing frame is one the kernel or the port counted. Returns the
    frames lost."""
    fl = flows_of(doc)
    expect(set(fl) <= set(sent_per_flow), (what, sorted(fl)))
    missing = 0
    for flow, sent in sent_per_flow.items():
        got = fl[flow]["packets"] if flow in fl else 0
        rx_lost = fl[flow]["lost"] if flow in fl else 0
        lost = sent - got
        expect(0 <= lost and 0 <= rx_lost <= lost and
               got + lost == sent, (what, flow, sent, got, rx_lost))
        expect(fl.get(flow, {}).get("dup", 0) == 0, (what, flow, fl.get(flow)))
        missing += lost
    if kernel_drops == 0 and port_drops == 0:
        expect(missing == 0, "%s: %d frames missing, and no counter of the kernel "
               "or the port dropped one" % (what, missing))
    else:
        expect(missing <= kernel_drops + port_drops,
               "%s: %d frames missing, only %d counted dropped (kernel %d, port %d)"
               % (what, missing, kernel_drops + port_drops, kernel_drops, port_drops))
        print("  %s: %d of %d lost, counted by the kernel (%d dropped) or the "
              "port (%d)" % (what, missing, sum(sent_per_flow.values()),
                             kernel_drops, port_drops))
    return missing


def test_af_packet_qpairs_on_veth():
    """gen over net_af_packet on one veth end, rx over net_af_packet with
    qpairs=2 and two queues on the other: the kernel's fanout spreads the
    32 flows over both queues (the PMD itself says it has no RSS), and
    every flow's frames are there, exactly, unless the packet sockets'
    own statistics counted a drop."""
    d = tmpdir()
    out, script = os.path.join(d, "r.json"), os.path.join(d, "p.lua")
    stats, helper = os.path.join(d, "sock.json"), os.path.join(d, "pktstats.py")
    open(helper, "w").write(PKTSTATS)
    flows, per = 32, 100
    with Veth("afp") as v:
        open(script, "w").write("""
local a = assert(linerate.port("net_af_packet0,iface=%s", {}))
local b = assert(linerate.port("net_af_packet1,iface=%s,qpairs=2", {queues = 2}))
assert(a.link_up and b.link_up and b.rxq == 2, "ports")
local r0 = assert(linerate.task{role = "rx", port = b, queue = 0, lcore = 2})
local r1 = assert(linerate.task{role = "rx", port = b, queue = 1, lcore = 3})
local g = assert(linerate.task{role = "gen", port = a, lcore = 1, count = %d,
                               flows = %d, rate = "10k"})
linerate.start()
assert(g:wait(120))
r0:wait{idle = 0.5}
r1:wait{idle = 0.5}
-- The receiving sockets' own counters, read by another process while
-- they are still open ($PPID: this process).
assert(os.execute("%s %s $PPID %s"))
linerate.stop()
assert(linerate.write_json("%s"))
""" % (v.a, v.b, flows * per, flows, PY, helper, stats, out))
        before = link_stats(v.ns, v.b)
        rc, o, err = run_in(v.ns, eal("afp", lcores="0@0,1@0,(2-3)@1") +
                            ["--", "--no-live", script])
        after = link_stats(v.ns, v.b)
        ifb = v.ifindex(v.b)
    expect(rc == 0, (rc, err[-1500:]))
    doc = load_json(out)
    ports = {p["name"]: p for p in doc["ports"]}
    a, b = ports["net_af_packet0"], ports["net_af_packet1"]
    expect(b["driver"] == "net_af_packet" and b["rx_queues"] == 2 and
           b["rss"] is None and b["rss_none"] == "the PMD has no RSS" and
           b["rx_offloads"]["granted"] == [] and b["link_up"] and b["link_mbps"] > 0, b)
    expect(a["opackets"] == flows * per and a["drops"]["oerrors"] == 0, a)
    sock = load_json(stats).get(str(ifb))
    expect(sock is not None and sock[2] == 2, ("sockets on the rx end", load_json(stats)))
    kdrops = sock[1]
    # The veth delivered every frame to the receiving end (and the
    # kernel's own: IPv6 neighbour discovery), and dropped none there.
    delivered = after["rx"]["packets"] - before["rx"]["packets"]
    vdrop = after["rx"]["dropped"] - before["rx"]["dropped"]
    expect(delivered >= flows * per and vdrop == 0, (before, after))
    rx = [t for t in doc["tasks"] if t["role"] == "rx"]
    # The fanout's hash put flows on both queues (32 flows: all on one
    # would be 2^-31).
    expect(len(rx) == 2 and all(t["own_packets"] > 0 for t in rx),
           [(t["queue"], t["own_packets"]) for t in rx])
    portd = sum(b["drops"][k] for k in ("imissed", "rx_nombuf", "ierrors"))
    check_exact(doc, {f: per for f in range(flows)}, kdrops + vdrop, portd,
                "af_packet qpairs=2")
    # The sockets saw what the port read plus what they dropped.
    expect(sock[0] == b["ipackets"] + kdrops, (sock, b["ipackets"]))
    print("  queues %s; kernel delivered %d, sockets dropped %d" %
          ([t["own_packets"] for t in rx], delivered, kdrops))


def test_af_packet_unread_sockets_refused():
    """net_af_packet opens its qpairs= sockets when the port is probed and
    the kernel spreads frames over all of them: a port with fewer rx
    queues than qpairs lost the frames of the unread sockets in no counter
    (512 of 3200 in the test above with one queue). linerate refuses such
    a port in one line, exit 1, before anything runs; with as many queues
    as qpairs it runs."""
    with Veth("afq") as v:
        rc, o, err = run_in(v.ns, eal("afq") + [
            "--", "--role", "rx", "--port", "net_af_packet0,iface=%s,qpairs=2" % v.b,
            "--duration", "0.2", "--no-live"], timeout=60)
        lines = [l for l in err.splitlines() if l.startswith("linerate: ")]
        expect(rc == 1 and len(lines) == 1 and lines[0].startswith(
            "linerate: port net_af_packet0: net_af_packet spreads frames over its 2 "
            "sockets (qpairs=2) and 1 rx queue(s) read 1 of them") and
            "give the port 2 queues (--queues 2) or qpairs=1" in lines[0],
            (rc, err[-800:]))
        rc, o, err = run_in(v.ns, eal("afq2", lcores="0@0,(1-2)@1") + [
            "--", "--role", "gen", "--port", "net_af_packet0,iface=%s,qpairs=2" % v.a,
            "--queues", "2", "--flows", "2", "--count", "100", "--no-live"], timeout=60)
        expect(rc == 0 and "tx 100 packets" in o, (rc, o[-300:], err[-800:]))


def test_af_xdp_on_veth():
    """gen over net_af_packet on one veth end, rx over net_af_xdp on the
    other: the XDP mode the kernel gave (veth has native XDP), and every
    frame there unless the port or the veth counted a drop (a frame XDP
    had no room for in the socket's ring is in the veth's rx dropped,
    not in the port's drops: 18976 of 20000 sent to a stopped reader). Where the PMD cannot start here, linerate
    must refuse the port in one line, and the test says so."""
    d = tmpdir()
    out, script = os.path.join(d, "r.json"), os.path.join(d, "x.lua")
    link = os.path.join(d, "link.json")
    flows, per = 16, 100
    with Veth("xdp") as v:
        open(script, "w").write("""
local a = assert(linerate.port("net_af_packet0,iface=%s", {}))
local b, err = linerate.port("net_af_xdp0,iface=%s", {})
if not b then io.stderr:write("NOPORT ", err, "\\n") os.exit(7) end
assert(os.execute("ip -d -j link show dev %s > %s"))
local r = assert(linerate.task{role = "rx", port = b, lcore = 1})
local g = assert(linerate.task{role = "gen", port = a, lcore = 1, count = %d,
                               flows = %d, rate = "10k"})
linerate.start()
assert(g:wait(120))
r:wait{idle = 0.5}
linerate.stop()
assert(linerate.write_json("%s"))
""" % (v.a, v.b, v.b, link, flows * per, flows, out))
        # The sanitizer build: DPDK 22.11's af_xdp PMD leaves libxdp's
        # umem (80 B from xsk_umem__create) at close, not linerate's.
        supp = os.path.join(d, "lsan.supp")
        open(supp, "w").write("leak:xsk_umem__create\n")
        env = dict(os.environ, LSAN_OPTIONS="suppressions=" + supp)
        before = link_stats(v.ns, v.b)
        rc, o, err = run_in(v.ns, eal("xdp") + ["--", "--no-live", script], env=env)
        after = link_stats(v.ns, v.b)
        # The program goes with the process.
        left = json.loads(sh("ip", "-n", v.ns, "-d", "-j", "link", "show", "dev",
                             v.b).stdout)[0].get("xdp")
    if rc == 7:
        said = [l for l in err.splitlines() if l.startswith("NOPORT ")]
        expect(len(said) == 1 and "net_af_xdp0" in said[0], err[-800:])
        print("  af_xdp refused here: %s" % said[0])
        return
    expect(rc == 0, (rc, err[-1500:]))
    xdp = json.loads(open(link).read())[0].get("xdp")
    expect(xdp is not None and xdp.get("mode") in (1, 2, 3), xdp)
    expect(left is None, ("XDP program left on the veth", left))
    mode = {1: "native (driver)", 2: "generic (skb)", 3: "offloaded"}[xdp["mode"]]
    doc = load_json(out)
    b = {p["name"]: p for p in doc["ports"]}["net_af_xdp0"]
    expect(b["driver"] == "net_af_xdp" and b["rss"] is None and b["link_up"], b)
    delivered = after["rx"]["packets"] - before["rx"]["packets"]
    vdrop = after["rx"]["dropped"] - before["rx"]["dropped"]
    portd = sum(b["drops"][k] for k in ("imissed", "rx_nombuf", "ierrors"))
    check_exact(doc, {f: per for f in range(flows)}, vdrop, portd, "af_xdp")
    # What XDP redirected to the socket the PMD read: the veth counted it.
    expect(delivered >= b["ipackets"] >= flows * per - portd - vdrop,
           (delivered, b["ipackets"], b["drops"]))
    print("  XDP mode %s; veth delivered %d, port read %d" %
          (mode, delivered, b["ipackets"]))


def test_tap_to_kernel():
    """gen out of a net_tap port with two queues, read on the kernel side
    by a raw socket of the test's own, frame by frame per flow: every
    frame there unless the reader's socket counted a drop; the tap's
    kernel counters saw as many as the port sent. RSS: taken or not, the
    result says which (the PMD sets RSS through an eBPF program by
    rte_flow, and needs the kernel's multiq qdisc for its flows)."""
    d = tmpdir()
    out, script = os.path.join(d, "r.json"), os.path.join(d, "t.lua")
    ready, counted = os.path.join(d, "ready"), os.path.join(d, "read.json")
    reader = os.path.join(d, "tapread.py")
    open(reader, "w").write(TAPREAD)
    tap = "lrtap%d" % (os.getpid() % 100000)
    ns = "lr_pk_tap_%d" % (os.getpid() % 100000)
    flows, per = 16, 100
    open(script, "w").write("""
local a = assert(linerate.port("net_tap0,iface=%s", {queues = 2}))
assert(a.link_up and a.txq == 2, "tap port")
local t0 = linerate.now()
while not io.open("%s") do
  assert(linerate.now() - t0 < 30, "no reader")
  linerate.sleep(0.05)
end
assert(os.execute("ip -j -s link show dev %s > %s.before"))
local g = {}
for q = 0, 1 do
  g[q] = assert(linerate.task{role = "gen", port = a, queue = q, lcore = 1 + q,
                              count = %d, flows = %d, flow_base = q * %d,
                              rate = "5k"})
end
linerate.start()
for q = 0, 1 do assert(g[q]:wait(120)) end
linerate.stop()
linerate.sleep(0.3)
assert(os.execute("ip -j -s link show dev %s > %s.after"))
assert(linerate.write_json("%s"))
""" % (tap, ready, tap, counted, flows * per // 2, flows // 2, flows // 2,
       tap, counted, out))
    rd = p = None
    try:
        sh("ip", "netns", "add", ns)
        rd = subprocess.Popen(["ip", "netns", "exec", ns, PY, reader, tap,
                               str(flows * per), ready, counted],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        rc, o, err = run_in(ns, eal("tap", lcores="0@0,1@0,2@1") +
                            ["--", "--no-live", script])
        rout, rerr = rd.communicate(timeout=90)
        expect(rc == 0, (rc, err[-1500:]))
        expect(rd.returncode == 0, rerr[-800:])
        left = sh("ip", "-n", ns, "link", "show", "dev", tap, check=False)
    finally:
        if rd is not None and rd.poll() is None:
            rd.kill()
            rd.communicate()
        sh("ip", "netns", "del", ns, check=False)
    expect(left.returncode != 0, "the tap outlived its process")
    doc = load_json(out)
    port = doc["ports"][0]
    expect(port["driver"] == "net_tap" and port["tx_queues"] == 2 and port["link_up"] and
           port["opackets"] == flows * per and port["drops"]["oerrors"] == 0, port)
    # RSS: what the result says holds together, whichever it is.
    if port["rss"] is None:
        expect(isinstance(port["rss_none"], str) and port["rss_none"], port)
        rss = "not taken: %s" % port["rss_none"]
        if "Disabling rte flow support" in err:
            rss += " (the PMD: rte_flow disabled, no multiq qdisc)"
    else:
        rss = "taken: %s" % ",".join(port["rss"]["hash_functions"])
    before = json.load(open(counted + ".before"))[0]["stats64"]
    after = json.load(open(counted + ".after"))[0]["stats64"]
    seen = json.load(open(counted))
    kin = after["rx"]["packets"] - before["rx"]["packets"]
    expect(kin == flows * per and after["rx"]["dropped"] == before["rx"]["dropped"],
           ("the tap's kernel rx", before["rx"], after["rx"]))
    got = {int(k): n for k, n in seen["flows"].items()}
    missing = 0
    for f in range(flows):
        expect(got.get(f, 0) <= per, (f, got.get(f)))
        missing += per - got.get(f, 0)
    expect(set(got) <= set(range(flows)), sorted(got))
    if seen["drops"] == 0:
        expect(missing == 0, "tap: %d frames not read and the reader's socket "
               "dropped none" % missing)
    else:
        expect(missing <= seen["drops"], (missing, seen))
        print("  tap: %d lost in the reader's own socket (%d dropped)" %
              (missing, seen["drops"]))
    print("  tap: %d frames read on the kernel side; RSS %s" %
          (flows * per - missing, rss))


def test_virtio_user_to_testpmd_vhost():
    """gen over net_virtio_user into a vhost-user server that is not
    linerate: dpdk-testpmd's net_vhost in rxonly mode, whose own counters
    say what arrived. Every frame there unless testpmd counted a drop,
    once the sender waits for the server to read its ring before it
    exits; the port says its driver, its grants and a link speed of
    none."""
    testpmd = shutil.which("dpdk-testpmd")
    if testpmd is None:
        print("  skip: no dpdk-testpmd (package dpdk)")
        return
    d = tmpdir()
    sock, out = os.path.join(d, "vhost.sock"), os.path.join(d, "r.json")
    n = 3000
    tp = None
    try:
        # testpmd ends, printing its statistics, at a line on its stdin.
        tp = subprocess.Popen([testpmd] + eal("tpvhost", mem=1024) +
                              ["--vdev", "net_vhost0,iface=" + sock, "--",
                               "--forward-mode=rxonly", "--total-num-mbufs=8192"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        end = time.time() + 180	# 1 GB of --no-huge memory to fill, on a busy host
        while not os.path.exists(sock) and tp.poll() is None and time.time() < end:
            time.sleep(0.1)
        expect(os.path.exists(sock), "testpmd made no vhost-user socket")
        # The sender stays 3 s after its last frame: frames still in the
        # vring when it exits are lost with the connection, though gen
        # counted them sent (2962-2989 of 3000 here with --role gen,
        # which exits at once; all 3000 with a second's wait).
        script = os.path.join(d, "vu.lua")
        open(script, "w").write("""
local a = assert(linerate.port("net_virtio_user0,path=%s", {}))
local g = assert(linerate.task{role = "gen", port = a, count = %d, flows = 4,
                               rate = "10k"})
linerate.start()
assert(g:wait(120))
linerate.sleep(3)
assert(linerate.write_json("%s"))
""" % (sock, n, out))
        r = subprocess.run([LINERATE] + eal("vuser") + ["--", "--no-live", script],
                           capture_output=True, text=True, timeout=120)
        time.sleep(0.5)	# testpmd's lcore reads what is in the ring
        tpout = tp.communicate("\n", timeout=60)[0]
    finally:
        if tp is not None and tp.poll() is None:
            tp.kill()
            tp.communicate()
    expect(r.returncode == 0, (r.returncode, r.stderr[-1000:]))
    expect(not os.path.exists(sock), "the vhost-user socket outlived testpmd")
    # The accumulated statistics of all ports (testpmd's last block).
    import re
    got = re.findall(r"RX-packets: (\d+) +RX-dropped: (\d+)", tpout)
    expect(got, tpout[-1500:])
    rxp, rxd = int(got[-1][0]), int(got[-1][1])
    port = load_json(out)["ports"][0]
    expect(port["driver"] == "net_virtio_user" and port["opackets"] == n and
           port["drops"]["oerrors"] == 0 and port["rss"] is None and
           port["link_up"] and port["link_mbps"] == 0, port)
    if rxd == 0:
        expect(rxp == n, "testpmd received %d of %d and dropped none" % (rxp, n))
    else:
        expect(rxp + rxd >= n, (rxp, rxd))
        print("  virtio_user: testpmd received %d, dropped %d" % (rxp, rxd))
    print("  virtio_user -> testpmd vhost: %d of %d; rx offloads %s, tx %s" %
          (rxp, n, port["rx_offloads"]["granted"], port["tx_offloads"]["granted"]))


if __name__ == "__main__":
    if os.geteuid() != 0 or not shutil.which("ip"):
        print("skip: needs root and iproute2 (network namespaces)")
        sys.exit(77)
    main([test_af_packet_qpairs_on_veth, test_af_packet_unread_sockets_refused,
          test_af_xdp_on_veth, test_tap_to_kernel, test_virtio_user_to_testpmd_vhost])
