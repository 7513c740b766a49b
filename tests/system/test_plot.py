"""tools/plot: each kind of plot rendered from a real short run.

per from lua/per-sweep.lua's rows, rfc2544 from lua/rfc2544.lua's document,
hist and series from an rx run's result document (gen -> delay -> rx, so
that the latency has a spread), probe-grid from tools/bench/probe-grid.sh's
table. Each PNG is checked by its header: the signature, IHDR's width and
height as asked (--size), IEND at its end. Errors are one line on stderr,
exit 2, no traceback.

test_hist_rx_run and test_series_rx_run read rx.latency.buckets and the
document's "series" (--series 0.1) from the binary's own output: they fail
until linerate writes them. test_hist_doc and test_series_doc plot small
documents built here from the same run's real values (marked SYNTHETIC).
"""
import json
import os
import struct
import subprocess

from lrtest import LINERATE, SRC, eal, expect, load_json, main, run, tmpdir

PLOT = os.path.join(SRC, "tools", "plot")
BUILD = os.path.dirname(os.path.dirname(LINERATE))
PNG_SIG = b"\x89PNG\r\n\x1a\n"


def plot(*args):
    return subprocess.run([PLOT] + list(args), capture_output=True, text=True,
                          timeout=120)


def png_size(path):
    """(width, height) of a PNG file, after checking its structure."""
    with open(path, "rb") as f:
        data = f.read()
    expect(data[:8] == PNG_SIG, "%s: not a PNG (%r)" % (path, data[:8]))
    length, kind, w, h = struct.unpack(">I4sII", data[8:24])
    expect(kind == b"IHDR" and length == 13, "%s: no IHDR first" % path)
    expect(data[-12:] == struct.pack(">I", 0) + b"IEND" + data[-4:],
           "%s: no IEND at the end" % path)
    return w, h


def rendered(kind, inp, size=None, *extra):
    """Plot inp as kind; check the PNG and its size; return the path."""
    out = os.path.join(tmpdir(), kind + ".png")
    args = [kind, inp, "-o", out] + (["--size", "%dx%d" % size] if size else [])
    r = plot(*(args + list(extra)))
    expect(r.returncode == 0, "plot %s: %d\n%s%s" % (args, r.returncode, r.stdout, r.stderr))
    expect(png_size(out) == (size or (1000, 600)), (kind, png_size(out), size))
    expect(os.path.getsize(out) > 5000, "%s: %d bytes, an empty plot?" % (
        out, os.path.getsize(out)))
    return out


def refused(args, words):
    """tools/plot args exits 2 with one line naming words, no PNG."""
    out = os.path.join(tmpdir(), "no.png")
    r = plot(*(list(args) + ["-o", out]))
    lines = r.stderr.strip().splitlines()
    expect(r.returncode == 2 and len(lines) == 1 and words in lines[0] and
           "Traceback" not in r.stderr and not os.path.exists(out),
           "%s: rc %d, want 2 and one line with %r:\n%s" % (args, r.returncode,
                                                            words, r.stderr))


# --- per ------------------------------------------------------------------

def test_per():
    rows = os.path.join(tmpdir(), "per.jsonl")
    r = run(eal("plotper", mem=1024) +
            ["--", os.path.join(SRC, "lua", "per-sweep.lua"), "mode=wire",
             "seconds=0.2", "sizes=64,1472,8972", "rate=50%", "catch_up=20000",
             "json=" + rows], timeout=120)
    # A shared CPU may leave a size short: per-sweep says INVALID and exits
    # 1, the rows are written (and plotted as INVALID) all the same.
    expect(r.returncode == 0 or "INVALID" in r.stdout, r.stdout + r.stderr)
    got = [json.loads(l) for l in open(rows)]
    expect([g["data"] for g in got] == [64, 1472, 8972], got)
    expect(got[0]["paper_per"] == 0.4, got[0])
    rendered("per", rows)
    rendered("per", rows, (640, 480), "--title", "three sizes")
    rendered("auto", rows, (801, 333))


# --- rfc2544 --------------------------------------------------------------

def test_rfc2544():
    out = os.path.join(tmpdir(), "r.json")
    # 2 % of 10G (297 kpps) over a 100 Mb/s DUT (208 kpps at 64 B): the
    # search finds it in a few steps.
    r = run(eal("plotrfc", lcores="0@0,1@1,2@0", mem=2048) +
            ["--", os.path.join(SRC, "lua", "rfc2544.lua"), "dut=delay",
             "dut_netem=rate 100mbit limit 50", "sizes=64",
             "tests=throughput,latency", "max=2", "steps=5", "trial=0.2",
             "warmup=0.02", "latency_trials=1", "json=" + out], timeout=300)
    expect(r.returncode == 0, r.stdout + r.stderr)
    doc = load_json(out)
    expect(doc["sizes"][0]["ndr_pps"] > 0, doc["sizes"])
    rendered("rfc2544", out)
    rendered("auto", out, (1200, 900))


# --- an rx run: hist and series ---------------------------------------------

SCENARIO = """
local linerate = require("linerate")
local a, d1 = assert(linerate.wire("plot_in"))
local d2, b = assert(linerate.wire("plot_out"))
local rx = assert(linerate.task{ role = "rx", port = b, flows = 4 })
assert(linerate.task{ role = "delay", port = d1, peer = d2,
                      netem = "delay 30us 10us distribution normal" })
local gen = assert(linerate.task{ role = "gen", port = a, size = 128,
                                  rate = "200kpps", duration = 1.5, flows = 4 })
linerate.start()
assert(gen:wait(30))
rx:wait{ idle = 0.2 }
linerate.stop()
"""
_rx_doc = []


def rx_run():
    """The path of an rx run's result document (--json), run once."""
    if not _rx_doc:
        d = tmpdir()
        lua, out = os.path.join(d, "rx.lua"), os.path.join(d, "rx.json")
        with open(lua, "w") as f:
            f.write(SCENARIO)
        # --series where this linerate has it (test_series_rx_run fails
        # without); the other tests all the same
        series = "--series" in run(["--help"]).stdout
        r = run(eal("plotrx", mem=1024) + ["--"] + (["--series", "0.1"] if series else [])
                + ["--no-live", "--json", out, lua], timeout=120)
        expect(r.returncode == 0, r.stdout + r.stderr)
        lat = load_json(out)["rx"]["latency"]
        expect(lat["count"] > 100000 and lat["p50_ns"] > 10000, lat)
        _rx_doc.append(out)
    return _rx_doc[0]


def test_hist_rx_run():
    """Needs linerate's rx.latency.buckets."""
    path = rx_run()
    lat = load_json(path)["rx"]["latency"]
    expect("buckets" in lat, "rx.latency has no buckets: this linerate does not "
           "write the histogram yet (%s)" % sorted(lat))
    b = lat["buckets"]
    expect(sum(c for _, _, c in b) == lat["count"], "bucket counts != count")
    expect(all(b[i][0] + b[i][1] <= b[i + 1][0] for i in range(len(b) - 1)),
           "buckets not ascending")
    rendered("hist", path)
    rendered("hist", path, (700, 500), "--density")


def hist_bucket(v):
    """lib/stats/lr_hist.h's bucket of v ns, as (low, width)."""
    if v < 64:
        return v, 1
    e = v.bit_length() - 1
    width = 1 << (e - 6)
    return (v >> (e - 6)) << (e - 6), width


def synthetic_buckets(lat):
    """SYNTHETIC: buckets that hold lat's summary: each band between its
    quantiles (min, p50, p90, p99, p999, max) gets its share of the count,
    spread over a few values between its ends."""
    marks = [lat["min_ns"], lat["p50_ns"], lat["p90_ns"], lat["p99_ns"],
             lat["p999_ns"], lat["max_ns"]]
    shares = [0.5, 0.4, 0.09, 0.009, 0.001]
    counts = {}
    left = lat["count"]
    for i, share in enumerate(shares):
        lo, hi = marks[i], max(marks[i + 1], marks[i])
        n = left if i == len(shares) - 1 else int(lat["count"] * share)
        left -= n
        for k in range(16):	# evenly on a log scale
            v = int(max(lo, 1) * (max(hi, 1) / max(lo, 1)) ** (k / 15))
            b = hist_bucket(v)
            counts[b] = counts.get(b, 0) + n // 16 + (n % 16 if k == 15 else 0)
    return [[lo, w, c] for (lo, w), c in sorted(counts.items()) if c > 0]


def test_hist_doc():
    """SYNTHETIC buckets around the rx run's real summary; as rx's and as
    rtt's document (--key, and the first object with buckets)."""
    lat = dict(load_json(rx_run())["rx"]["latency"])
    lat["buckets"] = synthetic_buckets(lat)
    expect(sum(c for _, _, c in lat["buckets"]) == lat["count"], lat["buckets"])
    d = tmpdir()
    rx_doc, rtt_doc = os.path.join(d, "rx.json"), os.path.join(d, "rtt.json")
    json.dump({"version": "SYNTHETIC", "rx": {"latency": lat}}, open(rx_doc, "w"))
    pair = {"a": "x", "b": "y", "rtt": lat}
    json.dump({"version": "SYNTHETIC", "rtt": {"rtt": {"count": 0}, "pairs": [pair]}},
              open(rtt_doc, "w"))
    rendered("hist", rx_doc)
    rendered("hist", rx_doc, None, "--density")
    rendered("auto", rx_doc, (500, 400))
    rendered("hist", rtt_doc)
    rendered("hist", rtt_doc, None, "--key", "rtt.pairs.0.rtt")
    refused(["hist", rtt_doc, "--key", "rtt.rtt"], "has no buckets")
    refused(["hist", rtt_doc, "--key", "rtt.pairs.3"], "no rtt.pairs.3")


def test_series_rx_run():
    """Needs linerate's "series" in the result document."""
    path = rx_run()
    doc = load_json(path)
    expect("series" in doc, "no series in the result document: this linerate "
           "does not write it yet (%s)" % sorted(doc))
    s = doc["series"]
    expect(len(s) >= 10 and all("t_s" in p for p in s), s[:2])
    expect(max(p.get("rx_pps", 0) for p in s) > 100000, s)
    rendered("series", path)
    rendered("auto", path, (1000, 800))


def test_series_doc():
    """SYNTHETIC series: the rx run's real rates and latency, as points of
    the 1.5 s it ran, with a gap in the rx and latency keys."""
    doc = load_json(rx_run())
    gen = next(t for t in doc["tasks"] if t["role"] == "gen")
    rx = next(t for t in doc["tasks"] if t["role"] == "rx")
    lat = doc["rx"]["latency"]
    pts = []
    for i in range(1, 16):
        p = {"t_s": i / 10, "tx_pps": gen["tx_packets"] / gen["duration_s"],
             "tx_bps": gen["tx_bytes"] * 8 / gen["duration_s"], "lost": 0}
        if i != 7:
            p.update(rx_pps=rx["rx_mpps"] * 1e6, rx_bps=rx["rx_gbps_l2"] * 1e9,
                     lat_p50_ns=lat["p50_ns"], lat_p99_ns=lat["p99_ns"])
        pts.append(p)
    path = os.path.join(tmpdir(), "series.json")
    json.dump({"version": "SYNTHETIC", "series": pts}, open(path, "w"))
    rendered("series", path)
    rendered("series", path, (1000, 1000), "--title", "SYNTHETIC")
    rates_only = os.path.join(tmpdir(), "rates.json")
    json.dump({"series": [{"t_s": p["t_s"], "tx_pps": p["tx_pps"]} for p in pts]},
              open(rates_only, "w"))
    rendered("series", rates_only)


# --- probe-grid -----------------------------------------------------------

def test_probe_grid():
    r = subprocess.run([os.path.join(SRC, "tools", "bench", "probe-grid.sh"), BUILD,
                        "0.3", "64 128", "128 1024"], capture_output=True,
                       text=True, timeout=120)
    expect(r.returncode == 0, r.stdout + r.stderr)
    rows = [l.split() for l in r.stdout.splitlines()[1:]]
    expect(len(rows) == 4 and all(float(x[3]) > 0 for x in rows), r.stdout)
    path = os.path.join(tmpdir(), "grid.txt")
    open(path, "w").write(r.stdout)
    rendered("probe-grid", path)
    rendered("auto", path, (1100, 700))


# --- errors ---------------------------------------------------------------

def test_errors():
    d = tmpdir()
    empty, header, rfc = (os.path.join(d, n) for n in ("empty", "header.txt", "r.json"))
    open(empty, "w").close()
    open(header, "w").write("  size    flows    bare Mpps   probe Mpps    ratio flows made\n")
    json.dump({"dut": "wire", "sizes": [], "history": []}, open(rfc, "w"))
    refused(["per", os.path.join(d, "missing.jsonl")], "No such file")
    refused(["auto", empty], "empty")
    refused(["per", empty], "no rows")
    refused(["probe-grid", header], "no rows")
    refused(["rfc2544", rfc], "no throughput results")
    refused(["per", rfc], "looks like kind rfc2544, not per")
    refused(["hist", header], "looks like kind probe-grid, not hist")
    open(empty, "w").write("linerate: no such port\n")
    refused(["hist", empty], "not JSON")
    refused(["auto", empty], "neither JSON nor probe-grid")
    plain, summary = os.path.join(d, "plain.json"), os.path.join(d, "summary.json")
    json.dump({"version": "x", "tasks": []}, open(plain, "w"))
    json.dump({"rx": {"latency": {"count": 3, "p50_ns": 100}}}, open(summary, "w"))
    refused(["series", plain], "no series")
    refused(["hist", plain], "no latency histogram")
    refused(["auto", plain], "not a document tools/plot knows")
    refused(["hist", summary], "latency summaries but no buckets")
    refused(["bars", rfc], "invalid choice")
    refused(["per", rfc, "--size", "10x10"], "want WxH")
    r = plot("per", rfc)
    expect(r.returncode == 2 and "-o" in r.stderr and len(r.stderr.splitlines()) == 1,
           r.stderr)


if __name__ == "__main__":
    main([test_errors, test_per, test_rfc2544, test_hist_doc, test_hist_rx_run,
          test_series_doc, test_series_rx_run, test_probe_grid])
