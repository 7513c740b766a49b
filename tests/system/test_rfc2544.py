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
import os

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
        expect(any(not t["short"] and t["lost"] == 0 for t in ndr), ndr)
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


def test_bad_arguments():
    for args, msg in ((["dut=router"], "dut=wire or dut=delay"),
                      (["dut=delay"], "needs dut_netem"),
                      (["sizes=32"], "frames of 64..9018"),
                      (["tests=speed"], "want throughput")):
        r, _, _ = rfc("rfcb", *args, timeout=60)
        expect(r.returncode != 0 and msg in r.stderr, (args, r.stderr))


if __name__ == "__main__":
    main([test_ndr_never_above_the_capacity, test_bad_arguments])
