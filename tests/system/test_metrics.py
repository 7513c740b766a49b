#!/usr/bin/env python3
"""--metrics: /metrics in Prometheus' text format, scraped by a real
Prometheus (Debian's), whose answers are compared with the run's result
document.

- A gen -> rx over a virtual wire and a gen -> probe, with --metrics and
  --metrics-linger: Prometheus (its own config and storage in a temp dir,
  a 300 ms scrape interval) scrapes the run; its API's answers at the last
  scrape (a counter's value, rate() over the run, histogram_quantile() of
  rx's latency, the probe's records) equal the JSON's.
- The exposition parsed by the text format's rules: HELP and TYPE before
  the samples of a family, label values escaped, counters' _total,
  histograms cumulative with +Inf equal to _count.
- doc/grafana-linerate.json is JSON, and every metric it queries exists;
  doc/usage.md's table of metrics is what /metrics says.
- Bad --metrics (address, port in use) and bad linerate.metrics{}: one
  line, exit non-zero.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

from lrtest import LINERATE, SRC, eal, expect, load_json, main, run, tmpdir

PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
SCRAPE_S = 0.3

# gen -> rx over a wire, paced so that it runs a while (scrapes see it
# move), and gen -> probe. The tasks are made, then scraped at 0 before
# they start (linerate.sleep serves scrapes), so that a counter's first
# sample in Prometheus is 0 and rate() over the run is exact
# (linerate.metrics() says how many scrapes it answered).
SCRIPT = r"""
local name = ...
linerate.live(false)
local a, b = assert(linerate.wire(name))
local c, d = assert(linerate.wire(name .. "p"))
local rx = assert(linerate.task{ role = "rx", port = b, flows = 4 })
local gen = assert(linerate.task{ role = "gen", port = a, flows = 4,
                                  rate = 20000, count = 30000 })
local probe = assert(linerate.task{ role = "probe", port = d, entries = 4096,
                                    export = "none", count = 3000 })
local g2 = assert(linerate.task{ role = "gen", port = c, flows = 30,
                                 rate = 3000, count = 3000 })
-- Scraped twice at 0 (the scrapes take turns: the first is stored).
local url, n = assert(linerate.metrics())
local t = 0
while n < 2 and t < 30 do
	linerate.sleep(0.05)
	t = t + 0.05
	url, n = linerate.metrics()
end
linerate.start()
assert(gen:wait(60) and g2:wait(60) and probe:wait(60))
rx:wait{ idle = 0.3, timeout = 30 }
linerate.stop()
"""


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Prometheus:
    """Debian's prometheus on a loopback port of its own, scraping
    @p targets every SCRAPE_S; ended (and its directory removed) on exit,
    also on failure."""

    def __init__(self, targets):
        self.dir = tmpdir()
        self.port = free_port()
        self.ntargets = len(targets)
        cfg = os.path.join(self.dir, "prometheus.yml")
        with open(cfg, "w") as f:
            f.write("global:\n  scrape_interval: %dms\n  scrape_timeout: %dms\n"
                    "scrape_configs:\n  - job_name: linerate\n"
                    "    static_configs:\n      - targets: [%s]\n" %
                    (SCRAPE_S * 1000, SCRAPE_S * 1000,
                     ", ".join("'%s'" % t for t in targets)))
        self.argv = [PROMETHEUS, "--config.file=" + cfg,
                     "--storage.tsdb.path=" + os.path.join(self.dir, "data"),
                     "--web.listen-address=127.0.0.1:%d" % self.port,
                     "--log.level=warn"]

    def __enter__(self):
        self.log = open(os.path.join(self.dir, "log"), "w")
        self.p = subprocess.Popen(self.argv, stdout=self.log, stderr=self.log)
        end = time.time() + 60
        while True:
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/-/ready" %
                                            self.port, timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            expect(self.p.poll() is None and time.time() < end,
                   "prometheus did not start: %s" % self.logtext())
            time.sleep(0.2)
        # Its scrape manager takes its targets some seconds after it is
        # ready (5 s here): a run started before would go unseen at first.
        # Its first scrapes of the targets, down or not, say it has them.
        while len(self.query("up")) < self.ntargets:
            expect(self.p.poll() is None and time.time() < end,
                   "prometheus scrapes nothing: %s" % self.logtext())
            time.sleep(0.2)
        return self

    def __exit__(self, *exc):
        self.p.terminate()
        try:
            self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.log.close()
        return False

    def logtext(self):
        self.log.flush()
        return open(os.path.join(self.dir, "log")).read()[-1500:]

    def query(self, q, at=None):
        """The result vector of instant query @p q (at time @p at)."""
        args = {"query": q}
        if at is not None:
            args["time"] = repr(at)
        url = "http://127.0.0.1:%d/api/v1/query?%s" % (
            self.port, urllib.parse.urlencode(args))
        with urllib.request.urlopen(url, timeout=10) as r:
            body = json.load(r)
        expect(body["status"] == "success", "%s: %s" % (q, body))
        return body["data"]["result"]


def one(res, what):
    expect(len(res) == 1, "%s: want one series, got %s" % (what, res))
    return res[0]


def test_prometheus_scrapes_the_run():
    d = tmpdir()
    port = free_port()
    script = os.path.join(d, "run.lua")
    out = os.path.join(d, "out.json")
    with open(script, "w") as f:
        f.write(SCRIPT)
    target = "127.0.0.1:%d" % port
    with Prometheus([target]) as prom:
        # Linger 20 s at most: it ends at the first scrape after the run's
        # results are final (0.2 s later, or the time a busy host takes).
        r = run(eal("mxprom") + ["--", "--metrics", target,
                                 "--metrics-linger", "20", "--json", out,
                                 script, "mx%d" % os.getpid()], timeout=120)
        expect(r.returncode == 0, r.stdout[-500:] + r.stderr[-1500:])
        doc = load_json(out)
        tasks = {(t["role"], t["port_name"]): t for t in doc["tasks"]}
        name = "mx%d" % os.getpid()
        gen = tasks[("gen", "net_ring_%sa" % name)]
        rx = tasks[("rx", "net_ring_%sb" % name)]
        sel_gen = '{job="linerate",role="gen",port="net_ring_%sa"}' % name
        sel_rx = '{job="linerate",role="rx",port="net_ring_%sb"}' % name
        # The last scrape, which read the final counts (the linger waited
        # for it); Prometheus appends what it scraped right after. Its
        # time: that of rx's last sample.
        end = time.time() + 10
        while True:
            last = prom.query("last_over_time(linerate_rx_packets_total%s[5m])" % sel_rx)
            if last and int(last[0]["value"][1]) == rx["rx_packets"]:
                break
            expect(time.time() < end, "Prometheus never stored rx's final "
                   "count %d: %s" % (rx["rx_packets"], last))
            time.sleep(0.2)
        raw = one(prom.query("linerate_rx_packets_total%s[5m]" % sel_rx), "raw")
        samples = [(float(t), int(v)) for t, v in raw["values"]]
        t_end = samples[-1][0]
        expect(samples[0][1] == 0, "no scrape before the start: %s" % samples[:3])
        expect(len(samples) >= 3, "too few scrapes: %s" % samples)

        # Counters at the last scrape: the JSON's.
        for metric, sel, want in (
                ("linerate_tx_packets_total", sel_gen, gen["tx_packets"]),
                ("linerate_tx_bytes_total", sel_gen, gen["tx_bytes"]),
                ("linerate_rx_packets_total", sel_rx, rx["rx_packets"]),
                ("linerate_rx_bytes_total", sel_rx, rx["rx_bytes"]),
                ("linerate_rx_received_total", sel_rx, rx["received"]),
                ("linerate_rx_lost_total", sel_rx, rx["lost"]),
                ("linerate_rx_duplicates_total", sel_rx, rx["dup"]),
                ("linerate_rx_reordered_total", sel_rx, rx["out_of_order"]),
                ("linerate_gen_late_packets_total", sel_gen, gen["late_packets"])):
            got = one(prom.query(metric + sel, at=t_end), metric)
            expect(float(got["value"][1]) == want,
                   "%s: Prometheus %s, JSON %d" % (metric, got["value"][1], want))
        expect(float(one(prom.query("linerate_rx_per_ratio" + sel_rx, at=t_end),
                         "per")["value"][1]) == rx["per"], "per")

        # rate() over a window that holds every sample of the run, evaluated
        # at the last: its first sample is 0 (so no extrapolation before it)
        # and its last at the window's end (none after), so rate * window
        # is the last count exactly: the JSON's.
        w = 60
        got = one(prom.query("rate(linerate_rx_packets_total%s[%ds])" %
                             (sel_rx, w), at=t_end), "rate")
        expect(abs(float(got["value"][1]) * w - rx["rx_packets"]) < 1e-6 * rx["rx_packets"],
               "rate %s/s over %d s, JSON %d frames" % (got["value"][1], w,
                                                         rx["rx_packets"]))
        expect(any(0 < v < rx["rx_packets"] for _, v in samples),
               "no scrape while rx received: %s" % samples)

        # histogram_quantile() on rx's latency: Prometheus interpolates in
        # the exposition's buckets (4 a power of two), the JSON's p50 is
        # the middle of lr_hist's bucket (1/64 of one) that holds the
        # median: both in the same exposition bucket, or (a rank on a
        # bound) its neighbour.
        lat = rx["latency"]
        got = one(prom.query("histogram_quantile(0.5, linerate_rx_latency_seconds_bucket%s)"
                             % sel_rx, at=t_end), "quantile")
        q = float(got["value"][1]) * 1e9
        p50 = lat["p50_ns"]
        expect(p50 / 1.6 - 2 <= q <= p50 * 1.6 + 2,
               "histogram_quantile 0.5: %g ns, JSON p50 %d ns" % (q, p50))
        cnt = one(prom.query("linerate_rx_latency_seconds_count" + sel_rx, at=t_end), "count")
        expect(int(cnt["value"][1]) == lat["count"], "latency count %s, JSON %d" %
               (cnt["value"][1], lat["count"]))

        # The probe: its flows and the exporter's records.
        pr = doc["probe"]
        got = one(prom.query('linerate_exporter_records_total{role="probe"}', at=t_end),
                  "records")
        expect(int(got["value"][1]) == pr["exporter"]["records"],
               "records %s, JSON %d" % (got["value"][1], pr["exporter"]["records"]))
        got = prom.query('sum(linerate_probe_flows_created_total)', at=t_end)
        expect(int(one(got, "flows")["value"][1]) == pr["flows_created"],
               "flows %s, JSON %d" % (got, pr["flows_created"]))
        up = one(prom.query('up{job="linerate"}', at=t_end), "up")
        expect(up["value"][1] == "1", "target down at its last scrape: %s" % up)


# The text format (0.0.4): https://prometheus.io/docs/instrumenting/exposition_formats/
NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\\\|\\"|\\n)*"'
SAMPLE = re.compile(r"^(%s)(\{(?:%s)(?:,%s)*\})? (\S+)$" % (NAME, LABEL, LABEL))


def unescape(v):
    return re.sub(r'\\(.)', lambda m: "\n" if m.group(1) == "n" else m.group(1), v)


def parse_exposition(text):
    """{family: (type, [(name, labels, value)])}, by the format's rules."""
    fams, typed, cur = {}, {}, None
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name = line.split(" ", 3)[2]
            expect(re.fullmatch(NAME, name), line)
            continue
        if line.startswith("# TYPE "):
            _, _, name, t = line.split(" ")
            expect(t in ("counter", "gauge", "histogram", "summary", "untyped"), line)
            expect(name not in typed, "TYPE twice: " + line)
            typed[name] = t
            fams[name] = (t, [])
            cur = name
            continue
        expect(not line.startswith("#") and line.strip(), "stray line %r" % line)
        m = SAMPLE.match(line)
        expect(m, "not a sample: %r" % line)
        name, labels, value = m.group(1), m.group(2) or "", m.group(3)
        float(value)
        base = re.sub(r"_(bucket|sum|count)$", "", name) \
            if typed.get(cur) == "histogram" else name
        expect(base == cur, "sample %s outside its family (%s)" % (name, cur))
        lab = dict((k, unescape(v)) for k, v in
                   re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', labels))
        fams[cur][1].append((name, lab, float(value)))
    return fams


def check_families(fams):
    for fam, (t, samples) in fams.items():
        expect(fam.startswith("linerate_"), fam)
        if t == "counter":
            expect(fam.endswith("_total"), "counter without _total: " + fam)
        if t != "histogram":
            continue
        series = {}
        for name, lab, v in samples:
            key = tuple(sorted((k, x) for k, x in lab.items() if k != "le"))
            series.setdefault(key, {"b": [], "count": None})
            if name.endswith("_bucket"):
                series[key]["b"].append((float(lab["le"]), v))
            elif name.endswith("_count"):
                series[key]["count"] = v
        for key, s in series.items():
            les = [le for le, _ in s["b"]]
            expect(les == sorted(les) and les[-1] == float("inf"),
                   "%s %s: le not ascending to +Inf" % (fam, key))
            vals = [v for _, v in s["b"]]
            expect(all(a <= b for a, b in zip(vals, vals[1:])),
                   "%s %s: buckets not cumulative" % (fam, key))
            expect(vals[-1] == s["count"], "%s %s: +Inf %g != _count %s" %
                   (fam, key, vals[-1], s["count"]))


def scrape(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        expect(r.headers["Content-Type"].startswith("text/plain; version=0.0.4"),
               r.headers["Content-Type"])
        return r.read().decode()


def test_exposition_format():
    d = tmpdir()
    script = os.path.join(d, "run.lua")
    # A wire whose name needs escaping in a label value: " and \.
    with open(script, "w") as f:
        f.write(SCRIPT.replace("n < 2 and", "n < 0 and"))
    port = free_port()
    p = subprocess.Popen([LINERATE] + eal("mxfmt") +
                         ["--", "--metrics", "127.0.0.1:%d" % port,
                          "--metrics-linger", "30", script, 'q"x\\y'],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        texts, end = [], time.time() + 60
        url = "http://127.0.0.1:%d/metrics" % port
        # Scrapes while it runs, then the lingering final one.
        while p.poll() is None and time.time() < end:
            try:
                texts.append(scrape(url))
            except OSError:
                pass
            time.sleep(0.3)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    expect(p.returncode == 0, err[-1500:])
    expect(len(texts) >= 2, "%d scrapes" % len(texts))
    for t in texts:
        check_families(parse_exposition(t))
    fams = parse_exposition(texts[-1])
    ports = {lab.get("port") for _, lab, _ in fams["linerate_rx_packets_total"][1]}
    expect('net_ring_q"x\\yb' in ports, "label not escaped right: %s" % ports)
    rx = [v for n, lab, v in fams["linerate_rx_latency_seconds"][1]
          if n.endswith("_count")]
    expect(rx and rx[0] > 0, "no latency: %s" % rx)


def test_grafana_dashboard_names_exist():
    path = os.path.join(SRC, "doc", "grafana-linerate.json")
    with open(path) as f:
        dash = json.load(f)
    exprs = []

    def walk(o):
        if isinstance(o, dict):
            for k, v in o.items():
                if k == "expr" and isinstance(v, str):
                    exprs.append(v)
                else:
                    walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)
    walk(dash)
    expect(len(exprs) >= 8, "only %d queries" % len(exprs))
    # Every family, from a scrape of a run that serves them all (HELP and
    # TYPE are there with or without samples).
    port = free_port()
    p = subprocess.Popen([LINERATE] + eal("mxdash") +
                         ["--", "--role", "gen", "--port", "net_null0",
                          "--duration", "10", "--rate", "1000", "--no-live",
                          "--metrics", "127.0.0.1:%d" % port],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end, text = time.time() + 30, None
        while text is None and time.time() < end and p.poll() is None:
            try:
                text = scrape("http://127.0.0.1:%d/metrics" % port)
            except OSError:
                time.sleep(0.2)
        # Nothing but GET /metrics: 404 for another path, 405 for POST.
        for path, data, code in (("/", None, 404), ("/metrics", b"x", 405)):
            try:
                urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path),
                                       data=data, timeout=10)
                got = 200
            except urllib.error.HTTPError as e:
                got = e.code
            expect(got == code, "%s %s: %d, want %d" % (
                "POST" if data else "GET", path, got, code))
    finally:
        p.terminate()
        p.communicate(timeout=30)
    expect(text is not None, "no scrape")
    fams = parse_exposition(text)
    names = set()
    for e in exprs:
        names |= set(re.findall(r"\b(linerate_[a-zA-Z0-9_]+)", e))
    missing = [n for n in names if n not in fams and
               re.sub(r"_(bucket|sum|count)$", "", n) not in fams]
    expect(not missing, "the dashboard queries metrics that do not exist: %s" % missing)
    expect(len(names) >= 8, "only %d metrics: %s" % (len(names), names))
    # doc/usage.md's table of metrics is the exposition's families.
    doc = open(os.path.join(SRC, "doc", "usage.md")).read()
    table = doc[doc.index("| metric | type | what |"):]
    table = table[:table.index("\n\n")]
    rows = {m.group(1): (m.group(2), m.group(3)) for m in
            re.finditer(r"^\| `(linerate_\w+)` \| (\w+) \| (.*) \|$", table, re.M)}
    helps = dict(re.findall(r"^# HELP (\S+) (.*)$", text, re.M))
    want = {n: (t, helps[n]) for n, (t, _) in fams.items()}
    expect(rows == want, "doc/usage.md's metrics differ from /metrics: %s" %
           sorted(set(rows.items()) ^ set(want.items())))


def test_bad_metrics():
    base = eal("mxbad") + ["--", "--role", "gen", "--port", "net_null0",
                           "--count", "10", "--no-live"]
    for bad in ("70000", "abc", "1.2.3:9", "[::1", "300.0.0.1:9", "-1"):
        r = run(base + ["--metrics", bad])
        lines = r.stderr.strip().splitlines()
        expect(r.returncode == 2 and len(lines) == 1 and "--metrics" in lines[0],
               "%s: rc %d %s" % (bad, r.returncode, r.stderr))
    r = run(base + ["--metrics-linger", "-1"])
    expect(r.returncode == 2 and "--metrics-linger" in r.stderr, r.stderr)
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    try:
        r = run(base + ["--metrics", "127.0.0.1:%d" % s.getsockname()[1]])
    finally:
        s.close()
    err = [l for l in r.stderr.splitlines() if "linerate:" in l]
    expect(r.returncode == 1 and len(err) == 1 and "in use" in err[0],
           "port in use: rc %d %s" % (r.returncode, r.stderr))
    # Port 0: a free one, said.
    r = run(base + ["--metrics", "127.0.0.1:0"])
    expect(r.returncode == 0 and re.search(r"metrics at http://127\.0\.0\.1:\d+/metrics",
                                           r.stderr), r.stderr)
    # Lua: a bad address is nil and why; a bad key an error.
    d = tmpdir()
    lua = os.path.join(d, "m.lua")
    with open(lua, "w") as f:
        f.write('assert(select(2, linerate.metrics()) == "metrics: not serving")\n'
                'local ok, err = linerate.metrics{listen = "1.2.3:4"}\n'
                'assert(ok == nil and err:find("--metrics"), err)\n'
                'local url = assert(linerate.metrics{listen = "127.0.0.1:0", linger = 0})\n'
                'assert(url:match("^http://127.0.0.1:%d+/metrics$"), url)\n'
                'assert(select(2, linerate.metrics{listen = "127.0.0.1:0"}):find("already"))\n'
                'assert(not pcall(linerate.metrics, {lisen = "1"}))\n'
                'local u, n = linerate.metrics()\n'
                'assert(u == url and n == 0, tostring(n))\n')
    r = run(eal("mxlua") + ["--", lua])
    expect(r.returncode == 0, r.stderr[-800:])


def test_linger_ends_at_a_get_only():
    """--metrics-linger waits for a GET that read the final counts: a HEAD
    does not end it (issue 35 L2); a SIGINT during it exits 130, not 0
    (L3)."""
    port = free_port()
    url = "http://127.0.0.1:%d/metrics" % port
    args = eal("mxlinger") + ["--", "--role", "gen", "--port", "net_null0", "--count", "10",
                              "--no-live", "--metrics", "127.0.0.1:%d" % port,
                              "--metrics-linger", "20"]

    def head():
        req = urllib.request.Request(url, method="HEAD")
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status

    p = subprocess.Popen([LINERATE] + args, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        heads, end = 0, time.time() + 30
        while heads < 5 and time.time() < end and p.poll() is None:
            try:
                heads += head() == 200
            except OSError:
                pass
            time.sleep(0.2)
        expect(heads == 5 and p.poll() is None, ("HEADs ended the linger", heads, p.poll()))
        scrape(url)
        out, err = p.communicate(timeout=10)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    expect(p.returncode == 0, err[-800:])
    p = subprocess.Popen([LINERATE] + args, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        end = time.time() + 30
        while time.time() < end:
            try:
                if head() == 200:
                    break
            except OSError:
                time.sleep(0.1)
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=10)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    expect(p.returncode == 130, (p.returncode, err[-800:]))


def test_drippers_do_not_blind_scrapes():
    """Connections that send a byte now and then (slowloris) cannot keep
    the scrapes from an answer (issue 35 M7): one address holds 4 of the
    32 connections at most, and a request has 5 s from its connection's
    accept (or the answer before) to its end, however it drips; without
    ADDR the server is this host's alone."""
    port = free_port()
    url = "http://127.0.0.1:%d/metrics" % port
    p = subprocess.Popen([LINERATE] + eal("mxdrip") +
                         ["--", "--role", "gen", "--port", "net_null0", "--rate", "1000",
                          "--duration", "30", "--no-live", "--allow-short",
                          "--metrics", str(port)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    drips = []

    def drip(src, n):
        for _ in range(n):
            try:
                c = socket.socket()
                c.bind((src, 0))
                c.settimeout(2)
                c.connect(("127.0.0.1", port))
                c.send(b"G")
                drips.append(c)
            except OSError:
                pass

    def tick():
        for c in list(drips):
            try:
                c.send(b"E")
            except OSError:
                drips.remove(c)

    def scrape_ok():
        try:
            scrape(url)
            return True
        except OSError:
            return False
    try:
        end = time.time() + 30
        while not scrape_ok() and time.time() < end:
            time.sleep(0.1)
        # One address's 32: 4 taken, the rest closed; the scrapes answered.
        drip("127.0.0.2", 32)
        got = []
        for _ in range(6):
            tick()
            got.append(scrape_ok())
            time.sleep(0.5)
        expect(all(got), ("one address blinded the scrapes", got))
        for c in drips:
            c.close()
        drips.clear()
        # 32 addresses, a connection each: the server full, each cut 5 s
        # after its accept, however it drips.
        for i in range(32):
            drip("127.0.0.%d" % (10 + i), 1)
        t0, ok_at = time.time(), None
        while time.time() - t0 < 12 and ok_at is None:
            tick()
            if scrape_ok():
                ok_at = time.time() - t0
            time.sleep(0.5)
        expect(ok_at is not None and ok_at < 9, ("drippers held the server", ok_at))
        time.sleep(1)
        tick()
        tick()
        expect(not drips, "%d drippers still connected" % len(drips))
    finally:
        for c in drips:
            c.close()
        p.kill()
        p.communicate()
    # Without ADDR: 127.0.0.1, said so for port 0.
    r = run(eal("mxdrip") + ["--", "--role", "gen", "--port", "net_null0", "--count", "10",
                             "--no-live", "--metrics", "0"])
    expect(r.returncode == 0 and
           re.search(r"metrics at http://127\.0\.0\.1:\d+/metrics", r.stderr), r.stderr)


if __name__ == "__main__":
    main([test_bad_metrics, test_exposition_format, test_prometheus_scrapes_the_run,
          test_grafana_dashboard_names_exist, test_linger_ends_at_a_get_only,
          test_drippers_do_not_blind_scrapes])
