#!/bin/bash
# metrics-scrape.sh: what a Prometheus scrape every 100 ms costs gen's rate.
# gen unpaced on net_null for SECONDS, with --metrics and a scraper that
# fetches /metrics every 100 ms (as a Prometheus with scrape_interval 100ms
# would), against the same run without --metrics; interleaved (none, then
# scraped, ROUNDS times). Prints each run's Mpps, the medians, and
# scraped / none (1.0: no cost). The scrape is answered on the main lcore
# (lcore 0), gen runs on lcore 1: a ratio below 1 is what the scraper and
# the main lcore's work take from gen's CPU on this machine.
#
#   tools/bench/metrics-scrape.sh [BUILD=build] [ROUNDS=3] [SECONDS=3]
#
# Needs a quiet machine: run nothing else beside it.
set -eu
BUILD=$(realpath "${1:-build}")
ROUNDS=${2:-3}
SECS=${3:-3}
EAL="--no-pci --no-huge -m 1024 -l 0-1 --log-level=lib.eal:error"
PFX=lr_bench_mx_$$
TMP=$(mktemp -d)
SCRAPER=
trap '[ -n "$SCRAPER" ] && kill "$SCRAPER" 2>/dev/null; rm -rf /var/run/dpdk/${PFX}* "$TMP"' EXIT

free_port() {
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

mpps() {
	/usr/bin/python3 -c '
import json, sys
t = [t for t in json.load(open(sys.argv[1]))["tasks"] if t["role"] == "gen"][0]
print("%.3f" % (t["tx_packets"] / t["duration_s"] / 1e6))' "$1"
}

# Fetch URL every 100 ms (from one start time: no drift), counting the
# scrapes that came back whole, into FILE at SIGTERM.
scraper() {
	/usr/bin/python3 -c '
import signal, sys, time, urllib.request
url, out = sys.argv[1], sys.argv[2]
n = 0
def done(*a):
    open(out, "w").write("%d\n" % n)
    sys.exit(0)
signal.signal(signal.SIGTERM, done)
t = time.monotonic()
while True:
    try:
        with urllib.request.urlopen(url, timeout=1) as r:
            if b"linerate_tx_packets_total{" in r.read():
                n += 1
    except OSError:
        pass
    t += 0.1
    time.sleep(max(0, t - time.monotonic()))' "$1" "$2" &
	SCRAPER=$!
}

run_gen() {	# extra args...
	"$BUILD/app/linerate" $EAL --file-prefix "$PFX" -- --role gen --port net_null0 \
		--duration "$SECS" --no-live --json "$TMP/g.json" "$@" >/dev/null 2>&1
	mpps "$TMP/g.json"
}

none=()
scraped=()
scrapes=0
for r in $(seq "$ROUNDS"); do
	none+=("$(run_gen)")
	port=$(free_port)
	scraper "http://127.0.0.1:$port/metrics" "$TMP/n"
	scraped+=("$(run_gen --metrics "127.0.0.1:$port")")
	kill "$SCRAPER"
	wait "$SCRAPER" 2>/dev/null || true
	SCRAPER=
	scrapes=$((scrapes + $(cat "$TMP/n" 2>/dev/null || echo 0)))
	echo "round $r: none ${none[-1]} Mpps, scraped every 100 ms ${scraped[-1]} Mpps"
done
/usr/bin/python3 - "$scrapes" "$ROUNDS" "$SECS" "${none[*]}" "${scraped[*]}" <<'PY'
import statistics, sys
scrapes, rounds, secs = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
a = [float(x) for x in sys.argv[4].split()]
b = [float(x) for x in sys.argv[5].split()]
ma, mb = statistics.median(a), statistics.median(b)
print("gen on net_null: none median %.3f Mpps (%.3f-%.3f), scraped median %.3f Mpps "
      "(%.3f-%.3f), %d scrapes answered (%.1f a second)" %
      (ma, min(a), max(a), mb, min(b), max(b), scrapes, scrapes / (rounds * secs)))
print("ratio scraped / none: %.3f" % (mb / ma))
PY
