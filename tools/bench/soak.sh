#!/bin/bash
# soak.sh: long runs that a test cannot afford, run by hand (issue 17;
# doc/performance.md has the figures).
#
#   tools/bench/soak.sh [BUILD=build] [SECONDS=600]
#
# 1. gen -> rx over net_memif (two processes, one CPU each), 9018 B frames
#    at 10 Gb/s, then IMIX at 10 Gb/s, SECONDS each: gen offered its rate
#    (verdict ok), every frame sent arrives (PER 0, received = sent), and
#    every 10 s the receiver's RSS and
#    its pools' mbufs in use (telemetry /linerate/stats mempool_in_use) are
#    sampled: they must stay flat.
# 2. The probe on the virtual wire (gen at 1 Mpps over 16384 flows, an
#    active timeout of 5 s so records flow all the time), exporting IPFIX
#    over TCP to a collector that is killed and started again every 60 s:
#    nothing waits at the end, every record is sent or counted lost, and
#    what the collector wrote is read back by ipfixDump (libfixbuf), an
#    independent decoder (TCP gives no receipt: what died in the killed
#    collector's buffers is shown as the difference).
# Exit 1 when a check fails. Uses both CPUs: nothing else should run.
set -u
BUILD=${1:-build}
SECS=${2:-600}
LR=$(realpath "$BUILD/app/linerate")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
EAL="--no-pci --no-huge -m 1024 --log-level=lib.eal:error"
PFX=lr_soak_$$
TMP=$(mktemp -d /tmp/lr_soak_XXXXXX)
fail=0
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf /var/run/dpdk/${PFX}_* "$TMP"' EXIT

rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
in_use() {
	echo /linerate/stats | dpdk-telemetry.py -f "$1" 2>/dev/null |
		/usr/bin/python3 -c 'import json, sys
for line in sys.stdin:
    line = line.strip()
    if line.startswith("{") and "mempool_in_use" in line:
        print(json.loads(line)["/linerate/stats"]["mempool_in_use"])
        break'
}

memif_soak() {	# label gen-args...
	local label=$1 sock=$TMP/m.sock
	shift
	rm -f "$sock"
	$LR $EAL --lcores '0@1,1@1' --file-prefix ${PFX}_rx -- --role rx --mtu 9000 \
		--port net_memif0,role=server,socket=$sock,socket-abstract=no \
		--link-timeout 30 --duration $((SECS + 60)) --no-live \
		--json "$TMP/rx.json" >"$TMP/rx.log" 2>&1 &
	local rx=$!
	for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
	$LR $EAL --lcores '0@0,1@0' --file-prefix ${PFX}_tx -- --role gen --mtu 9000 \
		--port net_memif0,role=client,socket=$sock,socket-abstract=no \
		--duration "$SECS" --no-live --json "$TMP/gen.json" "$@" \
		>"$TMP/gen.log" 2>&1 &
	local gen=$!
	echo "== $label: $SECS s; t, rx RSS kB, rx mempool_in_use"
	local t=0
	while kill -0 $gen 2>/dev/null; do
		sleep 10
		t=$((t + 10))
		echo "   $t s  $(rss_kb $rx)  $(in_use ${PFX}_rx)"
	done
	wait $gen
	sleep 2
	kill -INT $rx 2>/dev/null
	wait $rx
	/usr/bin/python3 - "$TMP/gen.json" "$TMP/rx.json" <<'PY' || fail=1
import json, sys
g, r = (json.load(open(p)) for p in sys.argv[1:3])
sent = g["totals"]["tx_packets"]
rx = r["rx"]
ok = (rx["received"] == sent and rx["lost"] == 0 and rx["per"] == 0 and
      g["verdict"] == "ok")
t = [t for t in g["tasks"] if t["role"] == "gen"][0]
print("   gen: achieved %.0f pps, %s late packets, longest stall %.0f us"
      % (t["achieved_pps"], t["late_packets"], t["max_stall_us"]))
print("   sent %d received %d lost %d PER %s, gen's verdict %s, %.3f Gb/s; rx pool in use at the end %d of %d: %s"
      % (sent, rx["received"], rx["lost"], rx["per"], g["verdict"],
         g["totals"]["tx_bytes"] * 8 / g["elapsed_s"] / 1e9,
         r["ports"][0]["mempool_in_use"], r["ports"][0]["mempool_size"],
         "ok" if ok else "FAIL"))
sys.exit(0 if ok else 1)
PY
}

# --catch-up: this VM's CPU stops (up to 0.5 ms) are made up, as
# per-sweep.lua does on a shared CPU; gen's verdict still says if it fell short.
memif_soak "9018 B at 10 Gb/s" --size 9018 --rate 10Gbps --flows 64 --catch-up 20000
memif_soak "IMIX at 10 Gb/s" --size imix --rate 10Gbps --flows 1024 --catch-up 20000

# 2. The probe exporting over TCP to a collector restarted every minute.
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
collector() {	# n: one life of the collector, to $TMP/c$n.ipfix
	exec /usr/bin/python3 - "$port" "$TMP/c$1.ipfix" <<'PY'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(4)
with open(sys.argv[2], "wb") as f:
    while True:
        c, _ = s.accept()
        while True:
            d = c.recv(1 << 16)
            if not d:
                break
            f.write(d)
            f.flush()
PY
}
echo "== probe, IPFIX over TCP, the collector restarted every 60 s, $SECS s"
collector 0 &
cpid=$!
$LR $EAL -l 0-1 --file-prefix ${PFX}_pr -- "$SRC/lua/probe-flows.lua" \
	flows=16384 seconds="$SECS" rate=1Mpps active=5 inactive=2 \
	export=tcp:127.0.0.1:$port json="$TMP/probe.json" >"$TMP/probe.log" 2>&1 &
probe=$!
n=0
t=0
while kill -0 $probe 2>/dev/null; do
	sleep 1
	t=$((t + 1))
	if [ $((t % 60)) -eq 0 ]; then
		kill $cpid 2>/dev/null
		wait $cpid 2>/dev/null
		sleep 1
		n=$((n + 1))
		collector $n &
		cpid=$!
		echo "   $t s: collector restarted ($n), probe RSS $(rss_kb $probe) kB"
	fi
done
wait $probe
echo "   probe exit $?"
sleep 1
kill $cpid 2>/dev/null
wait $cpid 2>/dev/null
decoded=0
for f in "$TMP"/c*.ipfix; do
	[ -s "$f" ] || continue
	k=$(ipfixDump --in "$f" 2>/dev/null | grep -c "^--- data record")
	decoded=$((decoded + k))
done
/usr/bin/python3 - "$TMP/probe.json" "$decoded" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
e = d["probe"]["exporter"]
decoded = int(sys.argv[2])
print("   exporter: records %d, records_lost %d, waiting %d, send_errors %d; "
      "ipfixDump decoded %d data records from the collector's files"
      % (e["records"], e["records_lost"], e.get("records_waiting", 0),
         e["send_errors"], decoded))
# TCP gives no receipt: a record the socket took is "records" even when it
# died in the killed collector's receive buffer. The difference is shown;
# more decoded than sent (a duplicate), or records still waiting, fail.
ok = e.get("records_waiting", 0) == 0 and decoded <= e["records"]
print("   every record delivered or counted: %s; %d taken by the socket but "
      "not in the collector's files (in its buffers when it was killed)"
      % ("ok" if ok else "FAIL", e["records"] - decoded))
sys.exit(0 if ok else 1)
PY
exit $fail
