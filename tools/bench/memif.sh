#!/bin/bash
# memif.sh: gen -> rx over net_memif between two processes, one core each,
# 64 B, 65536 flows, as fast as the link takes, for SECONDS; and the same
# link's ceiling with lr-bare on both sides, measured in the same run.
# Prints both rates, their ratio and rx's loss accounting (PER).
#
#   tools/bench/memif.sh [BUILD=build] [SECONDS=60] [FLOWS=65536] [RATE=max]
set -eu
BUILD=${1:-build}
SECS=${2:-60}
FLOWS=${3:-65536}
RATE=${4:-max}
LR=$BUILD/app/linerate
BARE=$BUILD/tools/bench/lr-bare
PFX=lr_bench_$$
DIR=$(mktemp -d)
EAL="--no-pci --no-huge -m 1024 --log-level=lib.eal:error"
# The receiver's worker on core 0, the sender's on core 1; main lcores sleep.
RXL="--main-lcore 1 -l 0-1"
TXL="-l 0-1"
trap 'rm -rf /var/run/dpdk/${PFX}_* "$DIR"' EXIT
memif() { echo "net_memif0,role=$1,socket=$DIR/memif.sock,socket-abstract=no"; }

# lr-bare rx stops one second after the last frame.
$BARE $EAL $RXL --file-prefix ${PFX}_br -- rx "$(memif server)" "$SECS" >"$DIR/bare_rx" 2>/dev/null &
sleep 1
$BARE $EAL $TXL --file-prefix ${PFX}_bt -- tx "$(memif client)" "$SECS" 64 >"$DIR/bare_tx" 2>/dev/null
wait
bare=$(awk '/lr-bare:/ { print $(NF - 1) }' "$DIR/bare_rx")

rm -f "$DIR/memif.sock"
$LR $EAL $RXL --file-prefix ${PFX}_r -- --role rx --port "$(memif server)" \
	--link-timeout 0 --flows "$FLOWS" --no-live --json "$DIR/rx.json" \
	>"$DIR/rx.out" 2>&1 &
RX=$!
sleep 1
$LR $EAL $TXL --file-prefix ${PFX}_g -- --role gen --port "$(memif client)" \
	--duration "$SECS" --no-live --flows "$FLOWS" --src-ip 10.0.0.1-10.0.0.2 \
	--rate "$RATE" --speed 100G --json "$DIR/gen.json" >"$DIR/gen.out" 2>&1
sleep 2
kill -INT $RX
wait $RX || true
/usr/bin/python3 - "$DIR" "$bare" "$SECS" <<'PY'
import json, sys
d, bare, secs = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
g = json.load(open(d + "/gen.json"))
r = json.load(open(d + "/rx.json"))["rx"]
sent = g["totals"]["tx_packets"]
mpps = g["tasks"][0]["tx_mpps"]
lost = sent - r["received"]
print(f"lr-bare memif tx -> rx        {bare:8.3f} Mpps")
print(f"gen -> rx, {r['flows_seen']} flows       {mpps:8.3f} Mpps over {secs:.0f} s")
print(f"sent {sent}, received once {r['received']}, lost {lost}, "
      f"PER {lost / sent if sent else 0:.3g}, rx seq lost {r['lost']}, dup {r['dup']}, "
      f"out_of_order {r['out_of_order']}")
lat = r.get("latency", {})
print(f"latency p50 {lat.get('p50_ns', 0) / 1e3:.1f} us p99 {lat.get('p99_ns', 0) / 1e3:.1f} us "
      f"p99.9 {lat.get('p999_ns', 0) / 1e3:.1f} us max {lat.get('max_ns', 0) / 1e3:.1f} us")
print(f"gen -> rx / lr-bare          {mpps / bare:.2f}  (target >= 0.9)")
print(f"gen -> rx / 14.88 Mpps        {mpps / 14.88:.2f}  (target >= 1.0)")
PY
