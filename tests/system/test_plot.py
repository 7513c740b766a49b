"""tools/plot: each kind of plot rendered from a real short run.

per from lua/per-sweep.lua's rows, rfc2544 from lua/rfc2544.lua's document,
hist and series from an rx run's result document (gen -> delay -> rx, so
that the latency has a spread), probe-grid from tools/bench/probe-grid.sh's
table. Each PNG is checked by its header: the signature, IHDR's width and
height as asked (--size), IEND at its end. Errors are one line on stderr,
exit 2, no traceback.

test_formats: -o's extension is the format (svg, pdf, png) for every kind,
any other a one-line error. test_rfc2544_bounds, _none and _every_kind:
what rfc2544's plot draws for an answer that is a bound (limited by the
tester, max=), none (no valid trial) or the device's, read from the SVG's
text and its elements' ids, and its layout measured on the figure itself
(no legend over a bar or label, no label over another, plain numbers on
the axes): tests/data's two real tester-limited runs and documents built
here (SYNTHETIC).

test_hist_rx_run and test_series_rx_run read rx.latency.buckets and the
document's "series" (--series 0.1) from the binary's own output: they fail
until linerate writes them. test_hist_doc and test_series_doc plot small
documents built here from the same run's real values (marked SYNTHETIC).
"""
import argparse
import copy
import importlib.machinery
import importlib.util
import json
import html
import os
import re
import struct
import subprocess

from lrtest import LINERATE, SRC, eal, expect, load_json, main, no_c, run, tmpdir

PLOT = os.path.join(SRC, "tools", "plot")
BUILD = os.path.dirname(os.path.dirname(LINERATE))
PNG_SIG = b"\x89PNG\r\n\x1a\n"
DATA = os.path.join(SRC, "tests", "data")
TESTPMD = os.path.join(DATA, "rfc2544-testpmd-tester.json")
DELAY = os.path.join(DATA, "rfc2544-delay-tester.json")


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
    # 3: an answer is a bound (a loaded host limits the tester); the
    # document is written all the same, and plotted as it is.
    expect(r.returncode in (0, 3), r.stdout + r.stderr)
    doc = load_json(out)
    s = doc["sizes"][0]
    # an NDR, or none and why (the size's own, when the tester passed
    # nothing on its own path: a busy host)
    expect((s.get("ndr_pps") or 0) > 0 or s.get("ndr_why") or s.get("why"), doc["sizes"])
    rendered("rfc2544", out)
    rendered("auto", out, (1200, 900))


# --- rfc2544: bounds, nones, layout -------------------------------------------

def svg_of(kind, inp, *extra):
    """Plot inp as an SVG; check it is one; return (its markup, its text:
    every <text> in order, lines joined by a space)."""
    out = os.path.join(tmpdir(), kind + ".svg")
    r = plot(kind, inp, "-o", out, *extra)
    expect(r.returncode == 0, "plot %s %s: %d\n%s%s" % (kind, inp, r.returncode,
                                                        r.stdout, r.stderr))
    data = open(out, "rb").read()
    expect(data.lstrip().startswith((b"<?xml", b"<svg")), "%s: not an SVG (%r)" % (
        out, data[:16]))
    svg = data.decode()
    words = " ".join(html.unescape(m) for m in re.findall(r"<text[^>]*>(.*?)</text>", svg, re.S))
    return svg, " ".join(words.split())


def plot_module():
    """tools/plot as a module: its figures are measured, not just written."""
    loader = importlib.machinery.SourceFileLoader("lr_plot", PLOT)
    mod = importlib.util.module_from_spec(importlib.util.spec_from_loader("lr_plot", loader))
    loader.exec_module(mod)
    return mod


def overlap(a, b, slack=1.0):
    """Whether two display boxes overlap by more than slack pixels."""
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > slack and
            min(a.y1, b.y1) - max(a.y0, b.y0) > slack)


def tick_labels(ax, r, problems):
    """(ax, text, box) of the tick labels an axes shows; those that are
    not plain numbers (1e+03, 10^3, 2x10^2, an offset) said in problems."""
    got = []
    for axis in (ax.xaxis, ax.yaxis) if ax.axison else ():
        lo, hi = sorted(axis.get_view_interval())
        for tick in axis.get_major_ticks() + axis.get_minor_ticks():
            t = tick.label1
            if lo <= tick.get_loc() <= hi and t.get_visible() and t.get_text():
                got.append((ax, t.get_text(), t.get_window_extent(r)))
                if any(w in t.get_text() for w in ("e+", "e-", "$", "×", "^")):
                    problems.append("tick label %r: not a plain number" % t.get_text())
        off = axis.get_offset_text().get_text()
        if off:
            problems.append("an offset on an axis: %r" % off)
    return got


def check_layout(doc, size=(1000, 600)):
    """Render an rfc2544 document as tools/plot does and measure it: every
    text inside the figure, no legend over a bar, a mark or a text of
    another panel, no bar label over another label or a bar, and the
    numbers on the axes plain (no 1e+03, no offset, no 10^x)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle
    mod = plot_module()
    path = os.path.join(tmpdir(), "layout.json")
    json.dump(doc, open(path, "w"))
    args = argparse.Namespace(size=size, title=None, key=None, density=False)
    fig = mod.plot_rfc2544(plt, open(path).read(), path, args)
    if not getattr(fig, "lr_laid_out", False):
        fig.tight_layout()		# as main() does
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    W, H = fig.canvas.get_width_height()
    problems = []
    texts, marks, legends = [], [], []
    for ax in fig.axes:
        for t in ax.texts + [ax.title, ax.xaxis.label, ax.yaxis.label]:
            if t.get_visible() and t.get_text().strip():
                texts.append((ax, t.get_text(), t.get_window_extent(r)))
        texts += tick_labels(ax, r, problems)
        for p in ax.patches:
            if isinstance(p, Rectangle) and p.get_height() != 0 and p.get_visible():
                marks.append((ax, "bar", p.get_window_extent(r)))
        for l in ax.lines:
            if l.get_visible() and l.get_marker() not in (None, "None", "", " "):
                marks.append((ax, "marker", l.get_window_extent(r)))
        if ax.get_legend():
            legends.append((ax, ax.get_legend().get_window_extent(r)))
    for ax, t, b in texts:
        if b.x0 < -1 or b.y0 < -1 or b.x1 > W + 1 or b.y1 > H + 1:
            problems.append("text %r outside the figure (%s)" % (t, b))
    for lax, lb in legends:
        for ax, t, b in texts:
            if overlap(lb, b):
                problems.append("a legend over the text %r" % t)
        for ax, what, b in marks:
            if overlap(lb, b):
                problems.append("a legend over a %s" % what)
        for ax in fig.axes:
            if ax is not lax and ax.axison and overlap(lb, ax.get_window_extent(r)):
                problems.append("a legend over a panel")
    labels = [(ax, t.get_text(), t.get_window_extent(r)) for ax in fig.axes
              for t in ax.texts if t.get_visible()]
    for i, (ax, t, b) in enumerate(labels):
        for ax2, t2, b2 in labels[i + 1:]:
            if overlap(b, b2):
                problems.append("the label %r over the label %r" % (t, t2))
        for ax2, what, b2 in marks:
            if what == "bar" and ax2 is ax and overlap(b, b2):
                problems.append("the label %r over a bar" % t)
    plt.close(fig)
    return problems


@no_c
def test_plain_axes():
    """µs, Mpps and counts as plain numbers in hist, series and
    probe-grid too (SYNTHETIC documents: a latency within a decade, one
    on a log axis, rates near 2000 kpps)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    mod = plot_module()
    d = tmpdir()
    docs = {
        "hist": {"rx": {"latency": {"count": 60, "p50_ns": 2100, "max_ns": 9000, "buckets": [
            [1216, 16, 10], [2048, 32, 30], [3008, 32, 15], [8960, 128, 5]]}}},
        "series": {"series": [{"t_s": 1000 + t / 10, "tx_pps": 2.01e6 + t, "rx_pps": 2.01e6,
                               "lat_p50_ns": 2010, "lat_max_ns": 201000}
                              for t in range(1, 6)]},
    }
    problems = []
    for kind, doc in sorted(docs.items()):
        path = os.path.join(d, kind + ".json")
        json.dump(doc, open(path, "w"))
        args = argparse.Namespace(size=(1000, 600), title=None, key=None, density=False)
        fig = mod.PLOTS[kind](plt, open(path).read(), path, args)
        fig.tight_layout()
        fig.canvas.draw()
        for ax in fig.axes:
            got = [t for _, t, _ in tick_labels(ax, fig.canvas.get_renderer(), problems)]
            expect(got, "%s: no tick labels" % kind)
        plt.close(fig)
    expect(not problems, problems)


@no_c
def test_formats():
    """-o's extension is the format, for every kind; another is an error."""
    d = tmpdir()
    rows = os.path.join(d, "per.jsonl")
    with open(rows, "w") as f:	# SYNTHETIC rows of per-sweep.lua's form
        for data, per in ((64, 0.01), (1472, 0.0), (8972, 0.2)):
            f.write(json.dumps({"data": data, "per": per, "sent": 10000}) + "\n")
    grid = os.path.join(d, "grid.txt")
    open(grid, "w").write("  size    flows    bare Mpps   probe Mpps    ratio flows made\n"
                          "    64      128      10.00        8.00        0.800    128\n"
                          "   128      128       9.00        7.50        0.833    128\n")
    hist = os.path.join(d, "hist.json")
    json.dump({"rx": {"latency": {"count": 30, "p50_ns": 1200, "max_ns": 5000,
                                  "buckets": [[1024, 16, 10], [1200, 16, 15],
                                              [4992, 64, 5]]}}}, open(hist, "w"))
    series = os.path.join(d, "series.json")
    json.dump({"series": [{"t_s": t / 10, "tx_pps": 1e6, "lat_p50_ns": 2000}
                          for t in range(1, 6)]}, open(series, "w"))
    for kind, inp in (("rfc2544", TESTPMD), ("per", rows), ("probe-grid", grid),
                      ("hist", hist), ("series", series)):
        # The format is main()'s, the same for every kind: each kind as
        # an SVG, rfc2544 in every format (every kind's PNG is checked by
        # the tests below; .PNG: the extension in any case).
        exts = ((".svg", (b"<?xml", b"<svg")),)
        if kind == "rfc2544":
            exts += ((".pdf", (b"%PDF",)), (".PNG", (PNG_SIG,)))
        for ext, head in exts:
            out = os.path.join(d, kind + ext)
            r = plot(kind, inp, "-o", out)
            expect(r.returncode == 0, "%s -o %s: %d %s" % (kind, out, r.returncode, r.stderr))
            data = open(out, "rb").read()
            expect(data.startswith(head), "%s -o %s: begins %r, not %r" % (
                kind, out, data[:8], head))
        for out, words in (("x.jpg", "unknown extension .jpg"), ("x", "no extension"))[
                :2 if kind in ("rfc2544", "per") else 0]:
            r = plot(kind, inp, "-o", os.path.join(d, out))
            lines = r.stderr.strip().splitlines()
            expect(r.returncode == 2 and len(lines) == 1 and words in lines[0]
                   and not os.path.exists(os.path.join(d, out)),
                   "-o %s: rc %d, want 2 and one line with %r: %s" % (
                       out, r.returncode, words, r.stderr))
    expect(png_size(os.path.join(d, "rfc2544.PNG")) == (1000, 600), "rfc2544.PNG")
    expect("throughput (Mpps)" in open(os.path.join(d, "rfc2544.svg")).read(),
           "the SVG's text is not text")


@no_c
def test_rfc2544_bounds():
    """Two real runs where the tester limited every answer: hatched bars
    marked >= with the reason, never a plain bar; the tester's ceiling."""
    for path, ceiling in ((TESTPMD, "12.04"), (DELAY, "0.7199")):
        doc = load_json(path)
        s = doc["sizes"][0]
        expect(s["ndr_limited_by"] == "tester" and s["pdr_limited_by"] == "tester", s)
        svg, text = svg_of("rfc2544", path)
        for test in ("ndr", "pdr"):
            expect('id="%s-64-bound"' % test in svg and '%s-64-dut' % test not in svg,
                   "%s: the %s not drawn as a bound" % (path, test))
        v = "%.4g" % (s["ndr_pps"] / 1e6)
        expect(("≥ " + v) in text or (">= " + v) in text, "%s: no ≥ %s" % (path, v))
        expect("limited by the tester" in text, "%s: no reason" % path)
        expect(s["ndr_why"] in text and s["pdr_why"] in text,
               "%s: the whys are not said" % path)
        expect('id="ceiling-64"' in svg and ("64 B " + ceiling) in text,
               "%s: no ceiling %s" % (path, ceiling))
        expect("incomplete" in text, "%s: the title does not say incomplete" % path)
        problems = check_layout(doc)
        expect(not problems, "%s: %s" % (path, problems))


def all_invalid():
    """SYNTHETIC, in the form of rfc2544.lua's document: a run where
    every trial through the device was INVALID (no NDR, PDR, latency or
    burst: none, each with why)."""
    doc = load_json(TESTPMD)
    s = doc["sizes"][0]
    for k in ("ndr_pps", "ndr_limited_by", "pdr_pps", "pdr_limited_by", "pdr_loss",
              "ndr_latency", "pdr_latency"):
        s.pop(k, None)
    s["ndr_why"] = s["pdr_why"] = "no valid trial: the tester offered none of the rates asked"
    s["b2b_why"] = "no burst left back to back"
    for t in doc["history"]:
        if t["path"] == "dut":
            t["verdict"], t["invalid"] = "INVALID", True
            t["why"] = t.get("why") or "rate short: SYNTHETIC"
    doc["incomplete"] = ["64 B NDR: none: " + s["ndr_why"], "64 B PDR: none: " + s["pdr_why"],
                         "64 B latency: no NDR to measure it at",
                         "64 B back-to-back: limited by the tester: " + s["b2b_why"]]
    doc["history"].append(dict(doc["history"][-1], test="b2b", phase="b2b", count=20000,
                               why="rate short: SYNTHETIC"))
    return doc


@no_c
def test_rfc2544_none():
    """An all-INVALID run: a "none" mark with its reason at the size, no
    bar (not a 0 Mb/s one), for the NDR, the PDR, the latency and b2b."""
    doc = all_invalid()
    path = os.path.join(tmpdir(), "invalid.json")
    json.dump(doc, open(path, "w"))
    svg, text = svg_of("rfc2544", path)
    for test in ("ndr", "pdr", "back-to-back"):
        expect('id="%s-64-none"' % test in svg, "no none mark for the %s" % test)
        for kind in ("dut", "bound", "below", "unsaid", "label"):
            expect('id="%s-64-%s"' % (test, kind) not in svg, "%s drawn as %s" % (test, kind))
    expect('id="lat-ndr-none-64"' in svg, "no none mark for the latency")
    expect("none [1]" in text and doc["sizes"][0]["ndr_why"] in text, "no why")
    expect("Mb/s" not in text and "% line" not in text, "a rate drawn for none")
    expect(png_size(rendered("rfc2544", path, (1000, 900))) == (1000, 900), "png")
    problems = check_layout(doc, (1000, 900))
    expect(not problems, problems)


def every_kind():
    """SYNTHETIC, in rfc2544.lua's form: four sizes with every kind of
    answer, b2b and the frame loss rate, cut short by SIGTERM."""
    line = {64: 14880952.38, 512: 2349624.06, 1024: 1197318.01, 1518: 812743.82}
    h = []

    def trial(size, pps, lost, verdict="loss"):
        h.append({"index": len(h) + 1, "test": "throughput", "phase": "ndr", "size": size,
                  "pps": pps, "sent": 1000, "received": 1000 - lost, "lost": lost,
                  "verdict": verdict, "path": "dut", "invalid": verdict == "INVALID"})
    trial(64, 208000, 0, "lossless")
    trial(64, 230000, 900)
    trial(1024, 80000, 40)		# the lowest rate tried lost frames
    trial(1024, 160000, 500)
    sizes = [
        {"size": 64, "line_pps": line[64], "ceiling_pps": 719860.3, "ceiling_limited_by": "tester",
         "ndr_pps": 208000.0, "ndr_limited_by": "dut", "pdr_pps": 212000.0,
         "pdr_limited_by": "dut", "pdr_loss": 0.0005, "latency_median_ns": 73216,
         "latency_worst_ns": 298259, "latency_p99_ns": 238592,
         "latency": {"count": 41589, "min_ns": 6550, "mean_ns": 75310, "p50_ns": 73216,
                     "p99_ns": 125440, "max_ns": 160950},
         "pdr_latency": {"count": 41589, "p50_ns": 81000, "p99_ns": 130000},
         "b2b_frames": 1203, "b2b_limited_by": "dut",
         "loss": [{"pct": 100, "pps": 744047.6, "limited_by": "tester",
                   "why": "above the tester's ceiling 719860 pps"},
                  {"pct": 90, "pps": 669642.9, "loss": 0.69},
                  {"pct": 80, "pps": 595238.1, "invalid": True, "limited_by": "tester",
                   "why": "rate short"},
                  {"pct": 70, "pps": 520833.3, "loss": 0.6},
                  {"pct": 30, "pps": 223214.3, "loss": 0.05},
                  {"pct": 20, "pps": 148809.5, "loss": 0.0},
                  {"pct": 10, "pps": 74404.8, "loss": 0.0}]},
        {"size": 512, "line_pps": line[512], "ceiling_pps": 117481.2, "ceiling_limited_by": "max",
         "ndr_pps": 117481.2, "ndr_limited_by": "max", "pdr_pps": 117481.2,
         "pdr_limited_by": "max", "b2b_frames": 20000, "b2b_limited_by": "b2b_max",
         "ndr_why": "passed at max= 5 %"},
        {"size": 1024, "line_pps": line[1024], "ceiling_pps": 598659.0,
         "ceiling_limited_by": "tester", "ndr_pps": 0, "ndr_limited_by": "dut",
         "ndr_why": "lost frames at every rate tried", "pdr_limited_by": None,
         "pdr_why": "no valid trial: the host took the device's CPU",
         "b2b_frames": 0, "b2b_limited_by": "dut"},
        {"size": 1518, "line_pps": line[1518]},
    ]
    return {"dut": "delay", "dut_netem": "SYNTHETIC", "trial_s": 0.2, "interrupted": True,
            "complete": False, "sizes": sizes, "history": h,
            "incomplete": ["512 B NDR: a lower bound (limited by the max)"]}


@no_c
def test_rfc2544_every_kind():
    """Each kind of answer drawn as what it is, side by side; the layout
    holds with four sizes and three rows."""
    doc = every_kind()
    path = os.path.join(tmpdir(), "kinds.json")
    json.dump(doc, open(path, "w"))
    svg, text = svg_of("rfc2544", path)
    want = {"ndr-64-dut", "pdr-64-dut", "back-to-back-64-dut", "ndr-512-bound",
            "pdr-512-bound", "back-to-back-512-bound", "ndr-1024-below", "pdr-1024-none",
            "ndr-1518-none", "pdr-1518-none", "ceiling-64", "ceiling-512", "loss-64",
            "loss-none-64", "lat-ndr-p50-64", "lat-pdr-p50-64", "lat-ndr-none-512"}
    missing = [w for w in sorted(want) if 'id="%s"' % w not in svg]
    expect(not missing, "not drawn: %s" % missing)
    for unwanted in ("ndr-1024-dut", "ndr-1518-dut", "pdr-1024-dut", "ndr-512-dut",
                     "back-to-back-1024-dut"):
        expect('id="%s"' % unwanted not in svg, "%s drawn" % unwanted)
    for words in ("limited by max=", "limited by b2b_max=", "≥ 0.1175", "≥ 20000",
                  "< 0.08", "lost frames at every rate tried", "INTERRUPTED",
                  "the run was interrupted", "512 B ≥ 0.1175", "frame loss (%)",
                  "offered rate (Mpps)", "latency (µs)"):
        expect(words in text, "no %r in the SVG" % words)
    png = os.path.join(tmpdir(), "kinds.png")
    r = plot("rfc2544", path, "-o", png)
    expect(r.returncode == 0 and png_size(png) == (1000, 900), "three rows: 1000x900")
    for size in ((1000, 900), (800, 700)):
        problems = check_layout(doc, size)
        expect(not problems, "%s: %s" % (size, problems))


@no_c
def test_rfc2544_device_seen():
    """Issue 34: a 0.21 Mpps device under a 14.6 Mpps tester's ceiling is
    drawn on a log axis (on a linear one its bar is 1.4 % of the panel),
    a "line" answer is the device's (a solid bar, not a bound), and each
    size notes why the rate above its NDR failed (its lost_at)."""
    doc = {"dut": "delay", "dut_netem": "rate 100mbit limit 1000", "trial_s": 1,
           "complete": True, "interrupted": False, "error": None, "incomplete": [],
           "tests": ["throughput"], "history": [], "sizes": [
               {"size": 64, "line_pps": 14880952.4, "ceiling_pps": 14638565,
                "ceiling_limited_by": "tester", "ndr_pps": 208907, "ndr_limited_by": "dut",
                "pdr_pps": 209362, "pdr_limited_by": "dut", "ndr_hi_pps": 209602,
                "ndr_hi_lost_at": {"generator": 0, "tester": 0, "dut": 58,
                                   "unexplained": 0}},
               {"size": 1518, "line_pps": 812743.8, "ceiling_pps": 812743.8,
                "ceiling_limited_by": "line", "ndr_pps": 812743.8, "ndr_limited_by": "line",
                "pdr_pps": 812743.8, "pdr_limited_by": "line"}]}
    path = os.path.join(tmpdir(), "seen.json")
    json.dump(doc, open(path, "w"))
    svg, text = svg_of("rfc2544", path)
    for w in ("ndr-64-dut", "ndr-1518-dut", "pdr-1518-dut"):
        expect('id="%s"' % w in svg, "not drawn: %s" % w)
    expect('id="ndr-1518-bound"' not in svg, "a line-rate answer drawn as a bound")
    expect("64 B above the NDR, 0.2096 Mpps: lost 58: device 58, tester 0, unexplained 0"
           in text, text[-600:])
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    mod = plot_module()
    args = argparse.Namespace(size=(1000, 600), title=None, key=None, density=False)
    fig = mod.plot_rfc2544(plt, open(path).read(), path, args)
    expect(any(a.get_yscale() == "log" for a in fig.axes) and
           "throughput on a log axis" in fig.lr_drawn,
           fig.lr_drawn)
    plt.close(fig)
    problems = check_layout(doc)
    expect(not problems, problems)


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
        # (300000 frames asked; a busy host's generator may send far fewer)
        expect(lat["count"] > 10000 and lat["p50_ns"] > 10000, lat)
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
    """lib/hist/lr_hist.h's bucket of v ns, as (low, width)."""
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


@no_c
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


@no_c
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
    # One size, two flow counts: a line per flow count, and the one-size
    # axis (test_formats' table has two sizes of one flow count); each
    # cell of the grid is a gen, an lr-bare and a probe run (4 s).
    r = subprocess.run([os.path.join(SRC, "tools", "bench", "probe-grid.sh"), BUILD,
                        "0.3", "64", "128 1024"], capture_output=True,
                       text=True, timeout=120)
    expect(r.returncode == 0, r.stdout + r.stderr)
    rows = [l.split() for l in r.stdout.splitlines()[1:]]
    expect(len(rows) == 2 and all(float(x[3]) > 0 for x in rows), r.stdout)
    path = os.path.join(tmpdir(), "grid.txt")
    open(path, "w").write(r.stdout)
    rendered("probe-grid", path)
    rendered("auto", path, (1100, 700))


# --- errors ---------------------------------------------------------------

@no_c
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
    main([test_errors, test_formats, test_plain_axes, test_rfc2544_bounds, test_rfc2544_none,
          test_rfc2544_every_kind, test_rfc2544_device_seen, test_per, test_rfc2544, test_hist_doc, test_hist_rx_run,
          test_series_doc, test_series_rx_run, test_probe_grid])
