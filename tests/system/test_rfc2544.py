"""lua/rfc2544.lua: the RFC 2544 search over an emulated device of known
capacity (the delay role with a netem rate and queue limit), testpmd and
the kernel.

What holds under any load: the NDR never exceeds the DUT's capacity by
more than its queue can hide in a trial (a trial above that loses frames;
a generator short of the rate passes at the rate it offered, never more);
every lost frame is placed (lost_at adds up to the loss), and a "dut"
answer has a failure above it whose loss the DUT's own counters hold (or
that its input refused); an answer bounded by the tester (or max=) is said
so, with exit 3, and exit 0 only when every answer is the DUT's (or the
line rate); a device of known capacity, queue and loss gets the textbook
answer when the search reaches it; the tables, JSON and CSV are written.
Whether a busy host lets the search reach the DUT's limit ("dut") or
stops at its own ("tester") depends on the load: both are right answers,
a wrong "dut" never is. How close the NDR comes to the capacity: printed.
"""
import signal
import time
import csv
import glob
import os
import shutil
import subprocess

from lrtest import SRC, eal, expect, load_json, main, run, start, tmpdir

SCRIPT = os.path.join(SRC, "lua", "rfc2544.lua")
CAPACITY_PPS = 100e6 / 8 / 60     # rate 100mbit, 64 B frames (60 B to netem)
LIMIT, TRIAL = 50, 0.2
# What a trial of TRIAL s can pass above the capacity: the DUT's queue and
# the wire's ring before it (1024) fill without a loss.
SLACK_PPS = (LIMIT + 1024) / TRIAL


def rfc(name, *args, timeout=600, lcores="0@0,1@1,2@0"):
    d = tmpdir()
    out, csv_out = os.path.join(d, "r.json"), os.path.join(d, "r.csv")
    r = run(eal(name, lcores=lcores, mem=2048) +
            ["--", SCRIPT, "json=" + out, "csv=" + csv_out] + list(args),
            timeout=timeout)
    return r, out, csv_out


def trials_of(doc, size, path="dut"):
    return [t for t in doc["history"] if t["size"] == size and t["path"] == path]


def check_verdicts(r, doc):
    """What every run must say, whatever the load: counts that add up,
    every lost frame placed (lost_at), every answer with what bounded it
    and the evidence for it, and an exit status that follows: 0 exactly
    when every answer is the DUT's (or the line rate it forwards)."""
    for t in doc["history"]:
        expect(0 <= t["received"] <= t["sent"] and t["lost"] == t["sent"] - t["received"],
               {k: t[k] for k in t if k not in ("latency", "jitter", "dut_counters")})
        expect(t["verdict"] in ("lossless", "loss", "INVALID") and
               (t["verdict"] == "INVALID") == bool(t["invalid"]) and
               (not t["invalid"] or t["why"]), t["verdict"])
        la = t["lost_at"]
        expect(sorted(la) == ["dut", "generator", "tester", "unexplained"] and
               min(la.values()) >= 0 and sum(la.values()) == max(t["lost"], 0), (la, t["lost"]))
        expect(0 <= t["lost_dut"] <= t["lost"], t)
        # Frames the device's input refused (memif pushing back) are a
        # loss; a trial with them is never lossless.
        expect(t["verdict"] != "lossless" or (t["lost"] == 0 and not t.get("refused")), t)
        if t["lost_at"]["tester"] > 0 and not t["invalid"]:
            expect("the tester's" in (t.get("why") or ""), t.get("why"))
        if t.get("pass_pps") is not None:
            # A generator short of the rate: a pass counts at what it
            # offered, never more.
            expect(t["pass_pps"] <= t["pps"] and
                   abs(t["pass_pps"] - min(t["pps"], t["achieved_pps"])) < 1, t)
    for s in doc["sizes"]:
        for k in ("ndr", "pdr"):
            if k + "_limited_by" not in s:
                # not asked, or the tester passed nothing on its own path
                expect(k + "_pps" not in s and (s.get("why") or
                       "throughput" not in doc["tests"]), (k, s))
                continue
            by, pps = s[k + "_limited_by"], s[k + "_pps"]
            expect(by in ("dut", "line", "tester", "max", "steps", None), (k, by))
            if by is None:
                expect(pps is None and s.get(k + "_why"), (k, s))
                continue
            expect(pps is not None and pps >= 0, (k, s))
            if k == "ndr" and s.get("ndr_hi_pps") is not None:
                expect(s["ndr_hi_pps"] > pps, (k, "upper end below the answer", s))
            dut = trials_of(doc, s["size"])
            if by == "dut":
                # A valid trial above the answer whose loss the DUT's own
                # counters hold: the tester's share could not pass it.
                fails = [t for t in dut if not t["invalid"] and t["pps"] > pps and
                         t["test"] == "throughput" and
                         (t["lost_dut"] > 0 and t["lost_at"]["dut"] > 0 or
                          t.get("refused", 0) > 0)]
                expect(fails, (k, pps, "no failure of the DUT's own above a 'dut' answer"))
            elif by == "line":
                # Passed at the line rate, as offered.
                expect(doc["max_pct"] >= 100 and
                       pps >= s["line_pps"] * (1 - doc["resolution_pct"] / 100) - 1, (k, s))
            elif by == "tester":
                # Evidence: a trial above it the tester spoiled, or the
                # tester's own ceiling reached.
                ev = [t for t in dut if (t["invalid"] or t["lost_dut"] < t["lost"]) and
                      t["pps"] >= pps]
                ev += [t for t in dut if t.get("pass_pps") is not None and t["pps"] > pps]
                ceil = s.get("ceiling_pps")
                expect(ev or (ceil is not None and pps >= ceil * 0.999) or
                       doc["dut"] == "wire", (k, "tester without evidence", s))
            elif by == "steps":
                expect(s.get(k + "_why") and "trials ended the search" in s[k + "_why"], s)
            elif by == "max":
                # Passed at max= (a pass short of it within the
                # resolution counts there; the answer is what was offered).
                expect(doc["max_pct"] < 100 and
                       pps >= s["line_pps"] * doc["max_pct"] / 100 *
                       (1 - doc["resolution_pct"] / 100) - 1, (k, s))
    expect(doc["complete"] == (len(doc["incomplete"]) == 0 and not doc.get("error") and
                               not doc["interrupted"]), doc["incomplete"])
    want = 0 if doc["complete"] else 3
    expect(r.returncode == want, "exit %d, want %d: %s%s" % (r.returncode, want,
                                                             r.stdout, r.stderr[-3000:]))
    if not doc["complete"]:
        expect("incomplete (exit 3)" in r.stderr, r.stderr[-2000:])


def quiet_run(doc):
    """No trial spoiled by the tester: a run in which the search must have
    found the DUT's own limit."""
    return not any(t["invalid"] or t["lost_dut"] < t["lost"] or
                   (t["path"] == "tester" and t["lost"] > 0) for t in doc["history"])


def test_ndr_never_above_the_capacity():
    # max=5 (0.74 Mpps): within the tester's reach, above the DUT's 0.21.
    r, out, csv_out = rfc("rfcd", "dut=delay",
                          "dut_netem=rate 100mbit limit %d" % LIMIT, "max=5",
                          "sizes=64", "tests=throughput", "trial=%g" % TRIAL,
                          "warmup=0.02", "steps=12", "resolution=1")
    doc = load_json(out)
    check_verdicts(r, doc)
    s = doc["sizes"][0]
    expect(s["size"] == 64, s)
    if s.get("why"):
        # The tester passed no rate on its own path (a host this busy):
        # said, exit 3 (checked above); nothing of the DUT to check.
        print("  the tester passed nothing: %s" % s["why"])
        return
    if s["ndr_limited_by"] == "dut":
        expect(0 <= s["ndr_pps"] <= CAPACITY_PPS + SLACK_PPS,
               "NDR %.0f pps above the DUT's %.0f and its queue's %.0f" % (
                   s["ndr_pps"], CAPACITY_PPS, SLACK_PPS))
    else:
        expect(s["ndr_pps"] is None or s["ndr_pps"] <= CAPACITY_PPS + SLACK_PPS, s)
    if quiet_run(doc):
        expect(s["ndr_limited_by"] == "dut" and r.returncode == 0, (s, r.stderr[-2000:]))
    expect(s["ndr_trials"] <= 12, s)
    rows = list(csv.DictReader(open(csv_out)))
    expect(len(rows) == 1 and int(rows[0]["size"]) == 64 and
           rows[0]["ndr_limited_by"] == (s["ndr_limited_by"] or ""), rows)
    expect("NDR Mpps" in r.stdout, r.stdout)
    if s["ndr_limited_by"] not in ("dut", None):
        expect(">=" in r.stdout, r.stdout)
    print("  NDR %s pps (%s) of %.0f, %d trials (%d invalid)" % (
        s["ndr_pps"], s["ndr_limited_by"], CAPACITY_PPS, doc["trials"],
        sum(t["invalid"] for t in doc["history"])))


def test_lossy_pdr():
    # A DUT that loses 0.02 % of frames at every rate (below the PDR's
    # 0.1 %) up to its capacity: the PDR is the capacity's, the NDR far
    # below (every trial with frames enough loses some). Before, the PDR
    # search ended where the NDR search had: about 100 times lower.
    r, out, _ = rfc("rfcl", "dut=delay", "dut_netem=rate 100mbit loss 0.02%% limit %d" % LIMIT,
                    "max=5", "sizes=64", "tests=throughput", "trial=%g" % TRIAL,
                    "warmup=0.02", "steps=14", "resolution=1")
    doc = load_json(out)
    check_verdicts(r, doc)
    s = doc["sizes"][0]
    if s.get("why"):
        print("  the tester passed nothing: %s" % s["why"])
        return
    if s["pdr_limited_by"] == "dut":
        expect(CAPACITY_PPS * 0.5 <= s["pdr_pps"] <= CAPACITY_PPS + SLACK_PPS, s["pdr_pps"])
        expect(s["pdr_loss"] <= 0.001, s)
    if s["pdr_pps"] is not None and s["ndr_pps"] is not None:
        expect(s["pdr_pps"] >= s["ndr_pps"], s)
    print("  lossy DUT: NDR %s (%s), PDR %s (%s) of %.0f" % (
        s["ndr_pps"], s["ndr_limited_by"], s["pdr_pps"], s["pdr_limited_by"], CAPACITY_PPS))


def test_capacity_device_textbook():
    # Issue 34: a device of capacity C (rate 100mbit: 208333 frames/s of
    # 64 B) and a 1000-frame queue, trials of T = 0.5 s: the NDR is in
    # [C, C + L/T] widened by the resolution, limited by the device,
    # found on a 2-CPU machine (before: ">= tester" at every size, the
    # host's stalls taken for possible losses). A busy host may still
    # bound it (the tester's, with the counter), never above C + L/T.
    lim, trial = 1000, 0.5
    r, out, _ = rfc("rfctb", "dut=delay", "dut_netem=rate 100mbit limit %d" % lim,
                    "sizes=64", "tests=throughput", "trial=%g" % trial, "warmup=0.02",
                    "steps=16", "resolution=0.5", "max=5")
    doc = load_json(out)
    check_verdicts(r, doc)
    s = doc["sizes"][0]
    hi = CAPACITY_PPS + lim / trial
    for k in ("ndr", "pdr"):
        # The PDR may lose 0.1 % of what it offers over C + L/T.
        top = hi if k == "ndr" else hi / (1 - 0.001)
        if s.get(k + "_pps") is not None:
            expect(s[k + "_pps"] <= top, (k, s[k + "_pps"], top))
        if s.get(k + "_limited_by") == "dut":
            expect(s[k + "_pps"] >= CAPACITY_PPS * (1 - 0.005) - 1, (k, s[k + "_pps"]))
    # Every trial's loss is the device's, in its over_limit: no loss of
    # this path is the tester's or unexplained.
    for t in trials_of(doc, 64):
        expect(t["lost_at"]["unexplained"] == 0 and t["lost_at"]["tester"] == 0,
               t["lost_at"])
        if t["lost"] > 0 and not t["invalid"]:
            expect(t["dut_counters"]["over_limit"] == t["lost"], t["dut_counters"])
    print("  NDR %s (%s), PDR %s (%s) of capacity %.0f .. %.0f" % (
        s.get("ndr_pps"), s.get("ndr_limited_by"), s.get("pdr_pps"), s.get("pdr_limited_by"),
        CAPACITY_PPS, hi))


def test_random_loss_device():
    # Issue 34: 0.5 % random loss at every rate below a capacity of
    # 40 Mb/s of 128 B frames (40323 frames/s, 124 B each to netem), the
    # PDR's ratio 1 %: the PDR is the capacity (before: 0.0003 Mpps, 30 of
    # 31 trials INVALID); the NDR is none, said as the device's with why
    # (a trial at a rate low enough loses no frame by chance).
    cap = 40e6 / 8 / 124
    lim, trial = 300, 0.5
    r, out, _ = rfc("rfcrl", "dut=delay",
                    "dut_netem=rate 40mbit loss random 0.5%% limit %d seed 3" % lim,
                    "sizes=128", "tests=throughput", "trial=%g" % trial, "warmup=0.02",
                    "steps=16", "resolution=0.5", "max=1", "pdr=0.01")
    doc = load_json(out)
    check_verdicts(r, doc)
    s = doc["sizes"][0]
    if s.get("pdr_limited_by") == "dut":
        # Its loss (0.5 %) and an overload (beyond C + L/T) together up
        # to the PDR's 1 % of what was offered.
        expect(cap * 0.99 <= s["pdr_pps"] <= (cap + lim / trial) / (1 - 0.01),
               (s["pdr_pps"], cap))
    if s.get("ndr_limited_by") == "dut":
        expect(s["ndr_pps"] == 0 and "every rate" in s["ndr_why"], (s["ndr_pps"], s["ndr_why"]))
    for t in trials_of(doc, 128):
        expect(t["lost_at"]["unexplained"] == 0 and t["lost_at"]["tester"] == 0,
               t["lost_at"])
    print("  PDR %s (%s) of %.0f; NDR %s (%s): %s" % (
        s.get("pdr_pps"), s.get("pdr_limited_by"), cap, s.get("ndr_pps"),
        s.get("ndr_limited_by"), s.get("ndr_why")))


def test_back_to_back():
    # Issue 34: a burst at the line rate into a queue of L = 300 frames
    # served at C (rate 100mbit, 64 B): it passes whole up to L / (1 -
    # C / R) frames, what the queue holds plus what drains meanwhile. The
    # box takes the burst at the link's speed (the wire's arrival stamps);
    # a burst that did not come back to back is the tester's.
    lim = 300
    r, out, _ = rfc("rfcbq", "dut=delay", "dut_netem=rate 100mbit limit %d" % lim,
                    "sizes=64", "tests=b2b", "warmup=0", "b2b_max=2000",
                    "b2b_trials=1", "calibrate=0")
    doc = load_json(out)
    check_verdicts(r, doc)
    s = doc["sizes"][0]
    want = lim / (1 - CAPACITY_PPS / s["line_pps"])
    if s["b2b_limited_by"] == "dut":
        expect(abs(s["b2b_frames"] - want) <= want * 0.01 + 1, (s["b2b_frames"], want))
    else:
        expect(s["b2b_limited_by"] == "tester" and "back to back" in (s.get("b2b_why") or ""), s)
    print("  b2b %s frames (%s), expected %.1f" % (s["b2b_frames"], s["b2b_limited_by"], want))


def test_tester_limited():
    # Every lcore on one CPU and a DUT no slower than the tester's own
    # path (the same box with no impairment): the DUT passes all the
    # tester can offer. A lower bound, exit 3; never the DUT's limit.
    r, out, _ = rfc("rfctl", "dut=delay", "dut_netem=delay 0 limit 100000",
                    "sizes=64", "tests=throughput", "trial=%g" % TRIAL, "warmup=0",
                    "steps=8", "resolution=2", lcores="0@0,1@0,2@0")
    doc = load_json(out)
    check_verdicts(r, doc)
    s = doc["sizes"][0]
    for k in ("ndr", "pdr"):
        # Never the DUT's: the tester's, or none (every trial spoiled).
        expect(s.get(k + "_limited_by") in ("tester", None), (k, s))
    expect(r.returncode == 3, r.returncode)
    print("  NDR %s (%s), tester's ceiling %s" % (s.get("ndr_pps"), s.get("ndr_limited_by"),
                                                s.get("ceiling_pps")))


def test_interrupted_run_writes_json():
    # SIGTERM in the middle of the search: the results so far, whole,
    # with "interrupted": true, exit 130.
    d = tmpdir()
    out = os.path.join(d, "i.json")
    p = start(eal("rfci", lcores="0@0,1@1,2@0", mem=2048) +
              ["--", SCRIPT, "json=" + out, "dut=delay", "dut_netem=rate 100mbit",
               "sizes=64,128", "trial=0.5", "warmup=0"])
    lines = []
    while len(lines) < 2:
        line = p.stderr.readline()
        if not line:
            break
        if line.startswith("rfc2544:") and " pps " in line:
            lines.append(line)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    expect(p.returncode == 130, (p.returncode, err[-2000:]))
    doc = load_json(out)
    expect(doc["interrupted"] is True and doc["complete"] is False and
           len(doc["history"]) >= 2, {k: doc[k] for k in ("interrupted", "complete")})
    expect(any("interrupted" in i for i in doc["incomplete"]), doc["incomplete"])


def ext_dut(name, *args):
    """rfc2544 over a DUT outside linerate: gen and rx on one worker, the
    DUT on the other CPU."""
    d = tmpdir()
    out = os.path.join(d, "r.json")
    r = run(eal(name, lcores="0@0,1@1", mem=2048) +
            ["--", SCRIPT, "json=" + out, "sizes=64", "tests=throughput,latency",
             "trial=0.2", "warmup=0.02", "steps=6", "latency_trials=1"] + list(args),
            timeout=600)
    doc = load_json(out)
    check_verdicts(r, doc)
    return r, doc


def check_ndr(doc):
    s = doc["sizes"][0]
    if s.get("ndr_pps") is None:
        return s        # no valid trial on a busy host: said, checked above
    expect(0 <= s["ndr_pps"] <= s["line_pps"], s)
    ndr = [t for t in doc["history"] if t["path"] == "dut" and
           min(t.get("pass_pps") or t["pps"], t["pps"]) == s["ndr_pps"]]
    # The NDR is a valid trial that lost nothing and got every frame through.
    if s["ndr_pps"] > 0:
        expect(any(not t["invalid"] and t["lost"] == 0 and t["received"] == t["sent"] > 0 and
                   not t.get("refused") for t in ndr), ndr)
    # The DUT's own counters beside each of its trials.
    expect(all("dut_counters" in t for t in doc["history"] if t["path"] == "dut"),
           "a DUT trial without the DUT's counters")
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
                          "latency_trials=1", "calibrate=0")
    doc = load_json(out)
    check_verdicts(r, doc)
    s = doc["sizes"][0]
    rows = list(csv.DictReader(open(csv_out)))
    expect("jitter us" in r.stdout, r.stdout)
    if s.get("latency_trials", 0) == 0:
        expect(rows[0]["jitter_ns"] == "" and "jitter_ns" not in s, s)
        print("  skip: no valid latency trial")
        return
    j = s["jitter"]
    expect(j["flows"] == 1 and s["jitter_ns"] == j["rfc3550_mean_ns"] > 0, j)
    # The box let frames in together after a stall of its CPU: their
    # transit differences are then the host's, not the jitter's. Asserted
    # where the box was not away more than 1 % of the trial.
    lat = [t for t in doc["history"] if t["test"] == "latency" and not t["invalid"]]
    if all(t["box_stalled_us"] < 2000 for t in lat):
        expect(j["mean_delta_ns"] > 30e3, j)
    else:
        print("  the box was away %.0f us: mean |D| not asserted" %
              max(t["box_stalled_us"] for t in lat))
    expect(abs(float(rows[0]["jitter_ns"]) - s["jitter_ns"]) < 1, rows)
    print("  jitter at the NDR: RFC 3550 %.1f us, mean |D| %.1f us (E|D| 66.7 us)" % (
        j["rfc3550_mean_ns"] / 1e3, j["mean_delta_ns"] / 1e3))


def eal_dirs():
    """The DUT testpmd's EAL runtime directories there are now (another
    run's, or one a crashed run left, are not this test's)."""
    return set(glob.glob("/var/run/dpdk/lrd*"))


def eal_dirs_left(before):
    return sorted(eal_dirs() - before)


def test_testpmd_dut():
    # Debian's dpdk-testpmd forwards between two memif ports, started and
    # ended by the scenario: an NDR it passed whole, and nothing left
    # behind (its process, its sockets, its EAL files).
    if shutil.which("dpdk-testpmd") is None:
        print("  skip: no dpdk-testpmd")
        return
    eal_before = eal_dirs()
    for fwd in ("io", "macswap"):
        r, doc = ext_dut("rfctp", "dut=testpmd", "dut_fwd=" + fwd)
        s = check_ndr(doc)
        expect(doc["dut_what"] == "dpdk-testpmd " + fwd, doc["dut_what"])
        # The latency of the trial that decided the NDR is always there
        # (every frame of it); the latency trials at the NDR may all be
        # invalid on a loaded machine (gen short): then none is reported.
        if s.get("ndr_pps"):
            expect(s["ndr_latency"]["count"] ==
                   sum(b[2] for b in s["ndr_latency"]["buckets"]) > 0,
                   s["ndr_latency"]["count"])
            expect(s.get("latency_trials", 0) == 0 or s["latency_median_ns"] > 0,
                   {k: s[k] for k in s if "latency" not in k or k == "latency_trials"})
        # testpmd's port counters: what entered it is what left it (io
        # forwarding loses nothing it took) or was counted dropped.
        for t in doc["history"]:
            c = t.get("dut_counters")
            if t["path"] == "dut" and c and "in" in c:
                expect(c["in"]["rx"] >= c["out"]["tx"] and t["received"] <= c["out"]["tx"],
                       (c, t["received"]))
        print("  testpmd %s: NDR %s pps (%s), %d trials" % (
            fwd, s.get("ndr_pps"), s.get("ndr_limited_by"), doc["trials"]))
    left = subprocess.run(["pgrep", "-f", "dpdk-testpmd.*file-prefix lrd"],
                          capture_output=True, text=True).stdout
    expect(left == "", "testpmd still running: " + left)
    expect(not eal_dirs_left(eal_before), eal_dirs_left(eal_before))


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
        print("  kernel %s: NDR %s pps (%s), %d trials (%d invalid)" % (
            mode, s.get("ndr_pps"), s.get("ndr_limited_by"), doc["trials"],
            s.get("ndr_invalid", 0) + s.get("pdr_invalid", 0)))
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
             "tests=throughput", "trial=0.1", "warmup=0", "steps=3", "quiet=1",
             "json=" + out],
            timeout=300, cwd=d)
    doc = load_json(out)
    check_verdicts(r, doc)
    expect(doc["sizes"][0]["size"] == 64, out)
    # quiet=1: no line per trial.
    expect(not [l for l in r.stderr.splitlines() if " pps " in l and "sent" in l], r.stderr)
    r = run(eal("rfcn2") + ["--", "no-such-scenario"], timeout=60, cwd=d)
    expect(r.returncode == 1 and "no-such-scenario" in r.stderr, r.stderr)


def test_tail_loss_is_loss():
    # A DUT that holds every frame 700 ms (netem's slot) lets a trial's
    # tail arrive after the receiver stopped: rx's sequence gaps see no
    # loss there, sent - received does. Such a trial lost frames: never
    # an NDR (before: a clean pass at the top rate, loss 0).
    r, out, _ = rfc("rfct", "dut=delay", "dut_netem=slot 700ms limit 100000",
                    "sizes=64", "tests=throughput", "max=1", "steps=1",
                    "warmup=0", "trial=1", "calibrate=0")
    doc = load_json(out)
    check_verdicts(r, doc)
    s = doc["sizes"][0]
    expect(all(t["lost"] > 0 or t["invalid"] for t in doc["history"]) and
           s["ndr_pps"] in (0, None), (s, doc["history"]))
    expect(s["ndr_limited_by"] != "max", s)


def test_bad_arguments():
    # One line on stderr naming the argument, exit 2, before anything runs.
    for args, msg in ((["dut=router"], "want wire, delay, testpmd, kernel"),
                      (["dut=testpmd", "dut_fwd=csum"], "want io, macswap"),
                      (["dut=kernel", "ipv6=1"], "forwards IPv4"),
                      (["dut=delay"], "needs dut_netem"),
                      (["sizes=32"], "integers 64..9018"),
                      (["tests=speed"], "a comma list of throughput"),
                      (["trials=60"], "'trials': no such key"),
                      (["trial=0"], "trial=0: want a number"),
                      (["sizes="], "at least one value"),
                      (["max=-5"], "max=-5"),
                      (["max=150"], "max <= 100"),
                      (["pdr=2"], "pdr < 1"),
                      (["pdr=0"], "0 < pdr"),
                      (["speed=fast"], "speed=fast: want bit/s"),
                      (["steps=2.5"], "steps=2.5: want an integer"),
                      (["json=/no/such/dir/r.json"], "no /no/such/dir"),
                      (["quiet=maybe"], "want 0 or 1"),
                      (["json=" + tmpdir()], "not a directory"),
                      (["csv=" + tmpdir()], "not a directory")):
        r, _, _ = rfc("rfcb", *args, timeout=60)
        lines = r.stderr.strip().splitlines()
        expect(r.returncode == 2 and msg in r.stderr and "traceback" not in r.stderr and
               lines and lines[-1].startswith("rfc2544: argument"), (args, r.stderr))
    # A result that cannot be written (a full disk): one line, exit 1
    # (before: exit 3 and nothing said).
    r, _, _ = rfc("rfcf", "csv=/dev/full", "sizes=64", "tests=throughput", "max=0.01",
                  "trial=0.05", "warmup=0", "steps=1", "calibrate=0", "quiet=1", timeout=120)
    expect(r.returncode == 1 and r.stderr.strip().splitlines()[-1] ==
           "rfc2544: cannot write the results: /dev/full: No space left on device",
           (r.returncode, r.stderr[-500:]))
    r, _, _ = rfc("rfch", "help", timeout=60)
    expect(r.returncode == 0 and "b2b_max=" in r.stdout and "(100000)" in r.stdout and
           "speed=" in r.stdout, r.stdout + r.stderr)


def test_speed_units():
    # 10G however it is written: the line rate of 64 B frames at 10 Gb/s.
    for sp in ("10G", "10g", "10Gbps", "10000M", "1e10", "10gbit"):
        r, out, _ = rfc("rfcs", "speed=" + sp, "sizes=64", "tests=throughput", "max=0.01",
                        "trial=0.05", "warmup=0", "steps=1", "calibrate=0", timeout=120)
        doc = load_json(out)
        expect(doc["speed_bps"] == 1e10 and abs(doc["sizes"][0]["line_pps"] - 14880952.4) < 1,
               (sp, doc["speed_bps"]))


def testpmd_signalled(name, args, *how):
    """rfc2544 over testpmd, signalled (pkill ARGS...) once two trials
    ran; testpmd let go on (SIGCONT) and the run ended whatever happens.
    Returns (exit code, stderr after the trials, document)."""
    d = tmpdir()
    out = os.path.join(d, name + ".json")
    p = start(eal(name, lcores="0@0,1@1", mem=2048) +
              ["--", SCRIPT, "json=" + out, "dut=testpmd", "sizes=64", "trial=0.2",
               "warmup=0", "calibrate=0", "tests=throughput"] + list(args))
    n = 0
    while n < 2:
        line = p.stderr.readline()
        if not line:
            break
        n += line.startswith("rfc2544:") and " pps " in line and "  sent " in line
    subprocess.run(["pkill"] + list(how) + ["-f", "dpdk-testpmd.*file-prefix lrd"])
    try:
        _, err = p.communicate(timeout=120)
    finally:
        subprocess.run(["pkill", "-CONT", "-f", "dpdk-testpmd.*file-prefix lrd"])
        if p.poll() is None:
            p.kill()
    return p.returncode, err, load_json(out)


def test_testpmd_killed():
    # The DUT's process killed in the middle of the search: an error
    # naming it, the trials so far in the JSON, exit 1, nothing left.
    if shutil.which("dpdk-testpmd") is None:
        print("  skip: no dpdk-testpmd")
        return
    eal_before = eal_dirs()
    rc, err, doc = testpmd_signalled("rfck2", [])
    expect(rc == 1 and "dpdk-testpmd" in err and "is gone" in err, (rc, err[-2000:]))
    expect("is gone" in doc["error"] and doc["complete"] is False and len(doc["history"]) >= 2,
           doc.get("error"))
    time.sleep(0.5)
    expect(not eal_dirs_left(eal_before), eal_dirs_left(eal_before))


def test_testpmd_stopped():
    # The DUT's process stopped (SIGSTOP) in the middle of the search: it
    # takes no frame and sends none: the run ends, exit 1, naming it, and
    # the stopped testpmd is ended (before: INVALID trials without end,
    # and a SIGINT then waited in pclose() for a SIGCONT).
    if shutil.which("dpdk-testpmd") is None:
        print("  skip: no dpdk-testpmd")
        return
    eal_before = eal_dirs()
    rc, err, doc = testpmd_signalled("rfcst", ["steps=40"], "-STOP")
    expect(rc == 1 and "stopped forwarding" in err, (rc, err[-2000:]))
    expect("stopped forwarding" in doc["error"] and doc["complete"] is False, doc.get("error"))
    time.sleep(0.5)
    left = subprocess.run(["pgrep", "-f", "dpdk-testpmd.*file-prefix lrd"],
                          capture_output=True, text=True).stdout
    expect(left == "", "testpmd still running: " + left)
    expect(not eal_dirs_left(eal_before), eal_dirs_left(eal_before))


if __name__ == "__main__":
    main([test_bad_arguments, test_speed_units, test_ndr_never_above_the_capacity,
          test_back_to_back, test_lossy_pdr, test_capacity_device_textbook,
          test_random_loss_device, test_tester_limited,
          test_interrupted_run_writes_json, test_latency_jitter, test_testpmd_dut,
          test_testpmd_killed, test_testpmd_stopped, test_kernel_dut, test_by_name, test_tail_loss_is_loss])
