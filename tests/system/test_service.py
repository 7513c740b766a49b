#!/usr/bin/env python3
"""The probe as a service: a systemd unit systemd-analyze accepts, logs
that suit journald (no live line off a terminal, --log-level), and a
SIGHUP that neither ends the probe nor loses what it counted."""
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import time

from lrtest import LINERATE, eal, expect, load_json, main, run, start, tmpdir
from test_install import install
from test_probe import gen_pcap, ipfix_stream

LIVE = re.compile(r"(?m)^\[ *[0-9.]+ s\] tx ")


def gen_args(name, *more):
    return eal(name) + ["--", "--role", "gen", "--port", "net_null0",
                        "--duration", "1.6"] + list(more)


def test_live_line_only_on_a_terminal():
    # stdout a pipe (journald's is a socket): no live line anywhere.
    r = run(gen_args("live1"))
    expect(r.returncode == 0, r.stderr[-300:])
    expect(not LIVE.search(r.stdout) and not LIVE.search(r.stderr),
           "a live line off a terminal:\n" + r.stdout + r.stderr)
    expect("linerate: tx " in r.stdout, r.stdout)	# the summary stays
    # --live asks for it anyway.
    r = run(gen_args("live2", "--live"))
    expect(r.returncode == 0 and LIVE.search(r.stdout), r.stdout)
    # On a terminal (a pty), as before.
    master, slave = pty.openpty()
    try:
        p = subprocess.Popen([LINERATE] + gen_args("live3"), stdout=slave,
                             stderr=subprocess.PIPE)
        os.close(slave)
        slave = None
        out = b""
        while True:
            ready, _, _ = select.select([master], [], [], 30)
            if not ready:
                break
            try:
                b = os.read(master, 4096)
            except OSError:		# EIO: the pty's last writer is gone
                break
            if not b:
                break
            out += b
        p.wait(timeout=30)
        err = p.stderr.read()
    finally:
        if slave is not None:
            os.close(slave)
        os.close(master)
    text = out.decode(errors="replace").replace("\r\n", "\n")
    expect(p.returncode == 0, err[-300:])
    expect(LIVE.search(text), "no live line on a terminal: %r" % text)
    # --no-live and --live together are a contradiction.
    r = run(gen_args("live4", "--live", "--no-live"))
    expect(r.returncode == 2 and len(r.stderr.strip().split("\n")) == 1 and
           "--live or --no-live" in r.stderr, r.stderr)


def test_log_level():
    # DPDK's "TELEMETRY: No legacy callbacks" is a warning: said at
    # warning, not at err; linerate's summary is notice.
    tele = "TELEMETRY: No legacy callbacks"
    seen = {}
    for level in ("err", "4", "warning", "notice", "debug", "8"):
        r = run(eal("lvl") + ["--", "--role", "gen", "--port", "net_null0",
                              "--count", "100", "--log-level", level])
        expect(r.returncode == 0, "%s: rc %d %s" % (level, r.returncode,
                                                    r.stderr[-300:]))
        seen[level] = (tele in r.stderr, "linerate: tx 100 packets" in r.stdout)
    expect(seen["err"] == (False, False) and seen["4"] == (False, False), seen)
    expect(seen["warning"] == (True, False), seen)
    expect(seen["notice"] == (True, True) and seen["debug"] == (True, True) and
           seen["8"] == (True, True), seen)
    # A bad level: one line naming it, exit 2, nothing run.
    for bad in ("loud", "0", "9", "", "warn"):
        r = run(eal("lvlbad") + ["--", "--role", "gen", "--port", "net_null0",
                                 "--count", "100", "--log-level", bad])
        lines = r.stderr.strip().split("\n")
        expect(r.returncode == 2 and len(lines) == 1 and
               "--log-level '%s'" % bad in lines[0] and r.stdout == "",
               "%r: rc %d %r" % (bad, r.returncode, r.stderr))


def test_sighup_leaves_the_probe_running():
    """SIGHUP (a closed terminal, systemctl kill -s HUP) once ended the
    probe at once: no results, no records. Now it goes on, and its counts
    at the end agree with each other and with the IPFIX it wrote."""
    d = tmpdir()
    pcap, out = os.path.join(d, "h.pcap"), os.path.join(d, "h.json")
    ipfix = os.path.join(d, "h.ipfix")
    gen_pcap("hupg", pcap, "--count", "300", "--flows", "30")
    p = start(eal("hup", mem=1024) + [
        "--", "--role", "probe", "--port",
        "net_pcap0,rx_pcap=%s,infinite_rx=1" % pcap, "--duration", "3",
        "--entries", "1024", "--export", "file:" + ipfix, "--json", out])
    try:
        time.sleep(1.0)
        p.send_signal(signal.SIGHUP)
        time.sleep(0.5)
        p.send_signal(signal.SIGHUP)
        time.sleep(0.3)
        expect(p.poll() is None, "SIGHUP ended the probe: rc %s" % p.poll())
        stdout, stderr = p.communicate(timeout=60)
    finally:
        p.kill()
        p.wait()
    expect(p.returncode == 0, "rc %d %s" % (p.returncode, stderr[-400:]))
    doc = load_json(out)
    pr, t = doc["probe"], doc["tasks"][0]
    expect(t["rx_packets"] > 0 and pr["parsed"]["ok"] == t["rx_packets"],
           (pr["parsed"], t["rx_packets"]))
    expect(pr["flows_created"] == 30 and pr["flows_active"] == 0 and
           sum(pr["flows_ended"].values()) == 30, pr)
    e = pr["exporter"]
    expect(e["records_lost"] == 0 and e["records_waiting"] == 0, e)
    recs = ipfix_stream(ipfix)
    flows = [x for x in recs if "sourceIPv4Address" in x]
    expect(len(recs) == e["records"] and len(flows) == 30, (len(recs), e))
    pkts = sum(int(x["packetDeltaCount"]) for x in flows)
    expect(pkts == t["rx_packets"], "records carry %d packets, the probe "
           "took %d" % (pkts, t["rx_packets"]))


def test_systemd_unit_verifies():
    sa = shutil.which("systemd-analyze")
    if sa is None:
        print("skip: no systemd-analyze (Debian's systemd package)")
        return
    root, p = install()
    unit = os.path.join(os.path.dirname(p["bin"]), "lib", "systemd", "system",
                        "linerate-probe@.service")
    expect(os.path.exists(unit), "meson install made no %s" % unit)
    conf = os.path.join(p["data"], "linerate", "linerate-probe.conf.example")
    expect(os.path.exists(conf), "no %s" % conf)
    text = open(unit).read()
    m = re.search(r"(?m)^ExecStart=(\S+)/linerate ", text)
    expect(m and os.path.exists(root + m.group(1) + "/linerate"), text)
    # The installed unit, its binary under the temporary root (verify
    # checks that ExecStart's command exists) and its man page there too.
    d = tmpdir()
    mine = os.path.join(d, "linerate-probe@.service")
    open(mine, "w").write(text.replace("ExecStart=" + m.group(1),
                                       "ExecStart=" + root + m.group(1)))
    env = dict(os.environ, MANPATH=os.path.join(p["man"]))
    for u in (mine, os.path.join(d, "linerate-probe@eth0.service")):
        if u != mine:
            shutil.copy(mine, u)
        r = subprocess.run([sa, "verify", u], capture_output=True, text=True,
                           env=env, timeout=60)
        # Units of this host's own may be warned about too: only lines
        # about ours count.
        ours = [l for l in (r.stdout + r.stderr).splitlines()
                if "linerate" in l]
        expect(r.returncode == 0 and not ours,
               "systemd-analyze verify %s: rc %d\n%s" % (
                   os.path.basename(u), r.returncode, "\n".join(ours)))
    # The unit's environment file is the example's: every variable it sets
    # is one the unit reads.
    used = set(re.findall(r"\$\$?\{?(LINERATE_[A-Z_]+)", text))
    given = set(re.findall(r"(?m)^#? ?(LINERATE_[A-Z_]+)=", open(conf).read()))
    expect(given and given <= used and
           {"LINERATE_EAL", "LINERATE_ARGS"} <= given, (given, used))


if __name__ == "__main__":
    main([test_live_line_only_on_a_terminal, test_log_level,
          test_sighup_leaves_the_probe_running, test_systemd_unit_verifies])
