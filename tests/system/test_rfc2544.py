"""lua/rfc2544.lua: the RFC 2544 search over an emulated device of known
capacity (the delay role with a netem rate and queue limit).

What holds under any load: the NDR never exceeds the DUT's capacity by
more than its queue can hide in a trial (a trial above that loses frames,
and a trial whose generator fell short is invalid, never a pass); every trial the search took as its NDR was valid;
the back-to-back burst never exceeds what the DUT's queue and the rings
before it hold; the tables, JSON and CSV are written. How close the NDR
comes to the capacity depends on a free CPU: printed, not asserted.
"""
import csv
import glob
import os
import shutil
import subprocess

from lrtest import SRC, eal, expect, load_json, main, run, tmpdir

SCRIPT = os.path.join(SRC, "lua", "rfc2544.lua")
CAPACITY_PPS = 100e6 / 8 / 60     # rate 100mbit, 64 B frames (60 B to netem)
LIMIT, TRIAL = 50, 0.2
# What a trial of TRIAL s can pass above the capacity: the DUT's queue and
# the wire's ring before it (1024) fill without a loss.
SLACK_PPS = (LIMIT + 1024) / TRIAL


def rfc(name, *args, timeout=600):
    d = tmpdir()
    out, csv_out = os.path.join(d, "r.json"), os.path.join(d, "r.csv")
    r = run(eal(name, lcores="0@0,1@1,2@0", mem=2048) +
            ["--", SCRIPT, "json=" + out, "csv=" + csv_out] + list(args),
            timeout=timeout)
    return r, out, csv_out


def test_ndr_never_above_the_capacity():
    r, out, csv_out = rfc("rfcd", "dut=delay",
                          "dut_netem=rate 100mbit limit %d" % LIMIT,
                          "sizes=64", "tests=throughput,b2b", "trial=%g" % TRIAL,
                          "warmup=0.02", "steps=12", "resolution=1",
                          "b2b_max=20000", "b2b_trials=1")
    expect(r.returncode == 0, r.stdout + r.stderr)
    doc = load_json(out)
    s = doc["sizes"][0]
    expect(s["size"] == 64, s)
    expect(0 <= s["ndr_pps"] <= CAPACITY_PPS + SLACK_PPS,
           "NDR %.0f pps above the DUT's %.0f and its queue's %.0f" % (
               s["ndr_pps"], CAPACITY_PPS, SLACK_PPS))
    expect(s["pdr_pps"] >= 0 and s["ndr_trials"] <= 12, s)
    # The trial taken as the NDR was valid and lost nothing.
    ndr = [t for t in doc["history"] if t.get("pps") == s["ndr_pps"] and
           t.get("count") is None]
    if s["ndr_pps"] > 0:
        expect(any(not t["invalid"] and t["lost"] == 0 for t in ndr), ndr)
    for t in doc["history"]:
        expect(t["received"] <= t["sent"], t)
    # the DUT's queue, and the rings on the way hold a few thousand.
    expect(0 <= s["b2b_frames"] <= LIMIT + 3 * 1024 + 64, s["b2b_frames"])
    rows = list(csv.DictReader(open(csv_out)))
    expect(len(rows) == 1 and int(rows[0]["size"]) == 64, rows)
    expect("NDR Mpps" in r.stdout, r.stdout)
    print("  NDR %.0f pps of %.0f, b2b %d frames, %d trials (%d invalid)" % (
        s["ndr_pps"], CAPACITY_PPS, s["b2b_frames"], doc["trials"],
        s["ndr_invalid"] + s["pdr_invalid"]))


def ext_dut(name, *args):
    """rfc2544 over a DUT outside linerate: gen and rx on one worker, the
    DUT on the other CPU."""
    d = tmpdir()
    out = os.path.join(d, "r.json")
    r = run(eal(name, lcores="0@0,1@1", mem=2048) +
            ["--", SCRIPT, "json=" + out, "sizes=64", "tests=throughput,latency",
             "trial=0.2", "warmup=0.02", "steps=6", "latency_trials=1"] + list(args),
            timeout=600)
    expect(r.returncode == 0, r.stdout + r.stderr)
    return r, load_json(out)


def check_ndr(doc):
    s = doc["sizes"][0]
    expect(0 < s["ndr_pps"] <= s["line_pps"], s)
    ndr = [t for t in doc["history"] if t.get("pps") == s["ndr_pps"]]
    # The NDR is a valid trial that lost nothing and got every frame through.
    expect(any(not t["invalid"] and t["lost"] == 0 and t["received"] == t["sent"] > 0
               for t in ndr), ndr)
    for t in doc["history"]:
        # What the DUT held from an earlier trial is stale, never counted:
        # received <= sent in every trial.
        expect(t["received"] <= t["sent"], {k: t[k] for k in t if k != "latency"})
    return s


def test_latency_jitter():
    # A DUT that delays each frame by 200 us +/- 100 us (netem's jitter,
    # uniform), offered 0.03 % of 10G (4464 frames/s, 224 us apart: no
    # reordering): the latency trial at the NDR reports the jitter of the
    # frames' transit times. For independent uniform delays on [-a, a],
    # E|D| = 2a/3 = 67 us. A stall of this shared machine only adds to
    # |D| (frames held and let go together differ by their 224 us), so the
    # mean |D| is above 30 us whatever the load; without the DUT's jitter
    # it is a few us. A loaded machine may leave no valid latency trial:
    # then no jitter is reported.
    r, out, csv_out = rfc("rfcj", "dut=delay", "dut_netem=delay 200us 100us",
                          "max=0.03", "sizes=64", "tests=throughput,latency",
                          "trial=0.2", "warmup=0.02", "steps=6", "resolution=5",
                          "latency_trials=1")
    expect(r.returncode == 0, r.stdout + r.stderr)
    s = load_json(out)["sizes"][0]
    rows = list(csv.DictReader(open(csv_out)))
    expect("jitter us" in r.stdout, r.stdout)
    if s.get("latency_trials", 0) == 0:
        expect(rows[0]["jitter_ns"] == "" and "jitter_ns" not in s, s)
        print("  skip: no valid latency trial")
        return
    j = s["jitter"]
    expect(j["flows"] == 1 and s["jitter_ns"] == j["rfc3550_mean_ns"] > 0, j)
    expect(j["mean_delta_ns"] > 30e3, j)
    expect(abs(float(rows[0]["jitter_ns"]) - s["jitter_ns"]) < 1, rows)
    print("  jitter at the NDR: RFC 3550 %.1f us, mean |D| %.1f us (E|D| 66.7 us)" % (
        j["rfc3550_mean_ns"] / 1e3, j["mean_delta_ns"] / 1e3))


def test_testpmd_dut():
    # Debian's dpdk-testpmd forwards between two memif ports, started and
    # ended by the scenario: an NDR it passed whole, and nothing left
    # behind (its process, its sockets, its EAL files).
    if shutil.which("dpdk-testpmd") is None:
        print("  skip: no dpdk-testpmd")
        return
    for fwd in ("io", "macswap"):
        r, doc = ext_dut("rfctp", "dut=testpmd", "dut_fwd=" + fwd)
        s = check_ndr(doc)
        expect(doc["dut_what"] == "dpdk-testpmd " + fwd, doc["dut_what"])
        # The latency of the trial that decided the NDR is always there
        # (every frame of it); the latency trials at the NDR may all be
        # invalid on a loaded machine (gen short): then none is reported.
        expect(s["ndr_latency"]["count"] == sum(b[2] for b in s["ndr_latency"]["buckets"]) > 0,
               s["ndr_latency"]["count"])
        expect(s["latency_trials"] == 0 or s["latency_median_ns"] > 0,
               {k: s[k] for k in s if "latency" not in k or k == "latency_trials"})
        print("  testpmd %s: NDR %.3f Mpps (%.1f %% of line), %d trials" % (
            fwd, s["ndr_pps"] / 1e6, 100 * s["ndr_pps"] / s["line_pps"], doc["trials"]))
    left = subprocess.run(["pgrep", "-f", "dpdk-testpmd.*file-prefix lrd"],
                          capture_output=True, text=True).stdout
    expect(left == "", "testpmd still running: " + left)
    expect(not glob.glob("/var/run/dpdk/lrd*"), glob.glob("/var/run/dpdk/lrd*"))


def test_kernel_dut():
    # The kernel forwarding IPv4 (and bridging) in a namespace of its own
    # over veth pairs and net_af_packet; the namespace and links removed.
    if os.geteuid() != 0 or shutil.which("ip") is None or \
            subprocess.run(["ip", "netns", "add", "lrdprobe%d" % os.getpid()]).returncode != 0:
        print("  skip: needs root and network namespaces")
        return
    subprocess.run(["ip", "netns", "del", "lrdprobe%d" % os.getpid()])
    for mode in ("forward", "bridge"):
        # From 1 % of 10G down: net_af_packet's own ceiling is below 1 Mpps.
        r, doc = ext_dut("rfck", "dut=kernel", "dut_mode=" + mode, "max=1")
        s = check_ndr(doc)
        expect(doc["dut_what"] == "Linux kernel " + mode, doc["dut_what"])
        print("  kernel %s: NDR %.3f Mpps, %d trials (%d invalid)" % (
            mode, s["ndr_pps"] / 1e6, doc["trials"], s["ndr_invalid"] + s["pdr_invalid"]))
    ns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    expect("lrd" not in ns and "lrd" not in links, ns + links)


def test_by_name():
    # The short form: the scenario by its name, from linerate's lua/, in a
    # directory that has no such file.
    d = tmpdir()
    out = os.path.join(d, "n.json")
    r = run(eal("rfcn", lcores="0@0,1@1,2@0", mem=2048) +
            ["--", "rfc2544", "dut=delay", "dut_netem=rate 1gbit", "sizes=64",
             "tests=throughput", "trial=0.1", "warmup=0", "steps=3", "json=" + out],
            timeout=300, cwd=d)
    expect(r.returncode == 0, r.stdout + r.stderr)
    expect(load_json(out)["sizes"][0]["size"] == 64, out)
    r = run(eal("rfcn2") + ["--", "no-such-scenario"], timeout=60, cwd=d)
    expect(r.returncode == 1 and "no-such-scenario" in r.stderr, r.stderr)


def test_tail_loss_is_loss():
    # A DUT that holds every frame 700 ms (netem's slot) lets a trial's
    # tail arrive after the receiver stopped: rx's sequence gaps see no
    # loss there, sent - received does. Such a trial lost frames: never
    # an NDR (before: a clean pass at the top rate, loss 0).
    r, out, _ = rfc("rfct", "dut=delay", "dut_netem=slot 700ms limit 100000",
                    "sizes=64", "tests=throughput", "max=1", "steps=1",
                    "warmup=0", "trial=1")
    expect(r.returncode == 0, r.stdout + r.stderr)
    doc = load_json(out)
    for t in doc["history"]:
        expect(t["lost"] >= t["sent"] - t["received"], t)
    s = doc["sizes"][0]
    expect(all(t["lost"] > 0 or t["invalid"] for t in doc["history"]) and
           s["ndr_pps"] == 0, (s, doc["history"]))


def test_bad_arguments():
    for args, msg in ((["dut=router"], "dut=wire, delay"),
                      (["dut=testpmd", "dut_fwd=csum"], "fwd=io or fwd=macswap"),
                      (["dut=kernel", "ipv6=1"], "forwards IPv4"),
                      (["dut=delay"], "needs dut_netem"),
                      (["sizes=32"], "frames of 64..9018"),
                      (["tests=speed"], "want throughput"),
                      (["trials=60"], "'trials': no such key"),
                      (["trial=0"], "trial=0: want a number > 0"),
                      (["sizes="], "at least one frame size"),
                      (["max=-5"], "max=-5")):
        r, _, _ = rfc("rfcb", *args, timeout=60)
        expect(r.returncode != 0 and msg in r.stderr, (args, r.stderr))


if __name__ == "__main__":
    main([test_ndr_never_above_the_capacity, test_latency_jitter, test_testpmd_dut,
          test_kernel_dut,
          test_by_name, test_tail_loss_is_loss, test_bad_arguments])
