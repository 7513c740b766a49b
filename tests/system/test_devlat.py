"""lua/device-latency.lua: seed 001's experiment on the virtual testbed.

Devices hold injected latencies (the reflector with --add-delay, the rtt
end with a delay role in front of it); the scenario measures pairs, solves
them with linerate.solve and writes what it recovered. The checks use the
minimum: CPU stops of a loaded machine add to some frames' RTT, never take
from it, so the recovered minimum is what the code guarantees under any
load (the 1 us slots of the wheels and the wire's own RTT are its error).
The mean is printed and written, and checked only for being present.
"""
import glob
import os

from lrtest import SRC, eal, expect, load_json, main, run, tmpdir

SCRIPT = os.path.join(SRC, "lua", "device-latency.lua")
SLACK_NS = 10000


def devlat(name, timeout=240, **kw):
    d = tmpdir()
    out = os.path.join(d, "dl.json")
    args = eal(name, mem=1024) + ["--", SCRIPT, "dir=" + d, "json=" + out]
    args += ["%s=%s" % kv for kv in kw.items()]
    r = run(args, timeout=timeout)
    left = glob.glob(os.path.join(d, "lr_devlat_*"))
    expect(left == [], "samples files left behind: %s" % left)
    return r, (load_json(out) if r.returncode == 0 else None)


def check(doc, injected, count):
    expect(doc["lost"] == 0, "lost RTTs: %s" % doc["lost"])
    expect(doc["count"] == count, doc["count"])
    for dev, want in injected.items():
        d = doc["devices"][dev]
        expect(d["injected_ns"] == want, (dev, d))
        expect(abs(d["recovered_min_ns"] - want) <= SLACK_NS,
               "%s: recovered %.0f ns on the minimum for %d injected" %
               (dev, d["recovered_min_ns"], want))
        for k in ("recovered_mean_ns", "error_mean_ns", "ci95_mean_ns",
                  "baseline_mean_ns"):
            expect(k in d, (dev, k, d))
    for phase in ("baseline", "injected"):
        expect(doc[phase]["rank"] == doc[phase]["unknowns"] == len(injected),
               doc[phase])


def test_seed_experiment_on_the_reflector():
    # The seed's three devices, latency injected into c (always the
    # reflector with all pairs: a,b a,c b,c). 50 us: a hold of t instead
    # of 2 t would be 25 us off.
    r, doc = devlat("dl3", n=3, delay="50us", on="c", count=3000)
    expect(r.returncode == 0, r.stdout + r.stderr)
    check(doc, {"a": 0, "b": 0, "c": 50000}, 3000)
    expect("seed 001: 144 us" in r.stdout, r.stdout)


def test_two_ms_on_the_rtt_end():
    # a is always the rtt end: its hold is the delay role's.
    r, doc = devlat("dl3a", n=3, delay="2ms", on="a", count=3000)
    expect(r.returncode == 0, r.stdout + r.stderr)
    check(doc, {"a": 2000000, "b": 0, "c": 0}, 3000)


def test_ten_devices_ring():
    r, doc = devlat("dl10", n=10, delay="20us", on="c,g", count=500)
    expect(r.returncode == 0, r.stdout + r.stderr)
    want = {chr(97 + i): 0 for i in range(10)}
    want["c"] = want["g"] = 20000
    check(doc, want, 500)
    expect(doc["pairs"] == "ring", doc["pairs"])
    expect(len(doc["injected"]["pairs"]) == 20, len(doc["injected"]["pairs"]))


def test_undetermined_is_refused():
    # An even cycle: its equations are dependent.
    r, doc = devlat("dlu", n=4, pairs="cycle", count=300)
    expect(r.returncode != 0, r.stdout)
    expect("undetermined" in r.stderr and "measure the pair" in r.stderr,
           r.stderr)
    expect(doc is None, doc)


def test_bad_arguments():
    for kw, msg in (({"on": "z"}, "no device z"),
                    ({"delay": "fast"}, "bad time"),
                    ({"n": "1"}, "n: 2..64"),
                    ({"pairs": "star"}, "pairs=all|ring|cycle")):
        r, _ = devlat("dlb", count=100, **kw)
        expect(r.returncode != 0, (kw, r.stdout))
        expect(msg in r.stderr, (kw, r.stderr))


if __name__ == "__main__":
    main([test_seed_experiment_on_the_reflector, test_two_ms_on_the_rtt_end,
          test_ten_devices_ring, test_undetermined_is_refused,
          test_bad_arguments])
