#!/usr/bin/env python3
"""task:set{rate=}: a gen's rate changed while it runs (issue 28 item 7).

A ramp of three steps on gen -> rx over the virtual wire: every frame sent
is received once (rx lost 0, dup 0); each change was taken by the worker at
the first burst due after it was asked (its slot within one burst of the old
rate after the asked time, unless the worker itself says it lagged); the
packets between two changes are what the schedule asked at that step's rate
(the worker's own counts at the switches, exact to a packet); the offered
ratio is the frames sent over the changing schedule's integral, and the
verdict agrees with it. Bad input is a one-line Lua error. Nothing here
asserts a rate this machine reached: the CPUs may be busy.
"""
import json
import os

from jsonschema import Draft202012Validator, RefResolver

from lrtest import SRC, eal, expect, load_json, main, run, tmpdir

RAMP = """
linerate.live(false)
local a, b = assert(linerate.wire("set1"))
local rx = assert(linerate.task{ role = "rx", port = b })
local g = assert(linerate.task{ role = "gen", port = a, rate = "20000",
                                duration = 1.2 })
linerate.start()
linerate.sleep(0.3)
assert(g:set{ rate = "0.05Mpps" })
linerate.sleep(0.3)
assert(g:set{ rate = 100000 })
linerate.sleep(0.3)
assert(g:set{ rate = "0.3%" })	-- of the wire's 10G at 64 B: 44643 pps
assert(g:wait(10))
rx:wait{ idle = 0.2, timeout = 10 }
linerate.stop()
assert(linerate.write_json(arg[1]))
"""

BAD = """
linerate.live(false)
local a, b = assert(linerate.wire("set2"))
local rx = assert(linerate.task{ role = "rx", port = b })
local g = assert(linerate.task{ role = "gen", port = a, rate = 1000, count = 20 })
local m = assert(linerate.task{ role = "gen", port = assert(linerate.port("net_null0")),
                                rate = "max", count = 10 })
local function err(f)
	local ok, e = pcall(f)
	assert(not ok, "no error")
	e = tostring(e)
	assert(not e:find("\\n"), "not one line: " .. e)
	print("ERR " .. e)
end
err(function() g:set{ rate = "fast" } end)
err(function() g:set{ rate = "max" } end)
err(function() g:set{ rate = "20Gbps" } end)	-- above the wire's 10G
err(function() g:set{ burst = 8 } end)
err(function() rx:set{ rate = 1000 } end)
err(function() m:set{ rate = 1000 } end)
linerate.start()
assert(g:wait(10) and m:wait(10))
rx:wait{ idle = 0.2, timeout = 10 }
linerate.stop()
err(function() g:set{ rate = 2000 } end)
"""


def lua(d, name, text, *args, prefix="set"):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return run(eal(prefix) + ["--", "--no-live", path] + list(args), timeout=60)


def schema_check(doc):
    sd = os.path.join(SRC, "doc", "schema")
    store = {}
    for n in os.listdir(sd):
        if n.endswith(".json"):
            p = os.path.join(sd, n)
            store["file://" + p] = json.load(open(p))
    uri = "file://" + os.path.join(sd, "gen.json")
    v = Draft202012Validator(store[uri], resolver=RefResolver(uri, store[uri], store=store))
    errs = [e.message for e in v.iter_errors(doc)]
    expect(not errs, errs[:3])


def test_ramp():
    d = tmpdir()
    out = os.path.join(d, "ramp.json")
    r = lua(d, "ramp.lua", RAMP, out, prefix="set1")
    expect(r.returncode == 0, "rc %d\n%s" % (r.returncode, r.stderr[-800:]))
    doc = load_json(out)
    schema_check(doc)
    g = [t for t in doc["tasks"] if t["role"] == "gen"][0]
    rx = [t for t in doc["tasks"] if t["role"] == "rx"][0]
    # Nothing lost or doubled across the changes.
    expect(rx["received"] == g["tx_packets"] and rx["lost"] == 0 and
           rx["dup"] == 0, (rx, g["tx_packets"]))
    ch = g["rate_changes"]
    def near(x, y):
        return x is not None and abs(x - y) < 1e-6 * y
    expect(len(ch) == 3 and near(ch[0]["rate_pps"], 50000) and
           near(ch[1]["rate_pps"], 100000) and
           near(ch[2]["rate_pps"], 10e9 * 0.003 / (84 * 8)), ch)
    expect(all(near(c.get("from_rate_pps"), f)
               for c, f in zip(ch, [20000, 50000, 100000])), ch)
    for c in ch:
        expect(c["applied_s"] is not None, c)
        # Taken after it was asked, at the first burst due after it: the
        # slot at most one burst of the old rate after the asked time, and
        # the worker's switch after its slot by the lag it reports.
        expect(c["applied_s"] >= c["asked_s"], c)
        expect(c["slot_s"] - c["asked_s"] <= c["burst_us"] * 1e-6 + 1e-9, c)
        expect(c["applied_s"] - c["asked_s"] <=
               (c["burst_us"] + c["lag_us"]) * 1e-6 + 1e-9, c)
    # Between two changes: the frames the schedule asked at that step's
    # rate over its slots (less what stalls gave up), to a packet.
    for a, b in zip(ch, ch[1:]):
        span = b["slot_s"] - a["slot_s"] - (b["late_before_us"] - a["late_before_us"]) * 1e-6
        n = b["packets_before"] - a["packets_before"]
        expect(abs(n - span * a["rate_pps"]) <= 1.01, (a, b, n, span * a["rate_pps"]))
    expect(ch[0]["packets_before"] <= ch[0]["slot_s"] * 20000 + 1, ch[0])
    # The offered ratio against the changing schedule: the frames sent
    # over what each step asked, not over the last rate.
    send = g["send_s"]
    # The schedule's start: the first step's packets and late time before
    # the first slot at the new rate.
    first = ch[0]["slot_s"] - ch[0]["packets_before"] / 20000 - ch[0]["late_before_us"] * 1e-6
    asked = (ch[0]["slot_s"] - first) * 20000
    for a, b in zip(ch, ch[1:]):
        asked += (b["slot_s"] - a["slot_s"]) * a["rate_pps"]
    asked += (first + send - ch[-1]["slot_s"]) * ch[-1]["rate_pps"]
    expect(abs(g["offered"] - g["tx_packets"] / asked) < 1e-4,
           (g["offered"], g["tx_packets"], asked))
    expect(g["short"] == (g["offered"] < g["rate_tolerance"]), g)
    expect(g["verdict"] == ("short" if g["short"] else "ok"), g)
    expect((doc["verdict"] == "short") == g["short"], (doc["verdict"], g["short"]))
    print("ramp: %d frames, offered %.4f of the changing schedule, %d late, "
          "changes taken %s us after asked" % (
              g["tx_packets"], g["offered"], g["late_packets"],
              ["%.0f" % ((c["applied_s"] - c["asked_s"]) * 1e6) for c in ch]))


def test_bad_input():
    d = tmpdir()
    r = lua(d, "bad.lua", BAD, prefix="set2")
    expect(r.returncode == 0, "rc %d\n%s" % (r.returncode, r.stderr[-800:]))
    errs = [l[4:] for l in r.stdout.splitlines() if l.startswith("ERR ")]
    expect(len(errs) == 7, r.stdout)
    want = ["set rate 'fast'", "between paced and unpaced", "above port",
            "'burst' cannot change live", "changes nothing live",
            "between paced and unpaced", "has ended"]
    for e, w in zip(errs, want):
        expect(w in e, (w, e))


if __name__ == "__main__":
    main([test_ramp, test_bad_input])
