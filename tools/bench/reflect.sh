#!/bin/bash
# reflect.sh: the reflect role's throughput and the RTT floor through it,
# each against a reference from the same run.
#
#   tools/bench/reflect.sh [BUILD=build] [SECONDS=3]
#
# 1. Mpps at 64 B on one lcore, net_null in and out (no NIC, nothing crosses
#    to another CPU): `--role reflect --others reflect` (null's frames are
#    not linerate's: Ethernet swapped, as testpmd's macswap does), then
#    dpdk-testpmd --forward-mode=macswap on the same port. The ratio is the
#    figure (target >= 1.0).
# 2. RTT floor and spread (min, p50, p99.9): rtt through reflect over the
#    virtual wire (one process; rtt and reflect share a worker lcore) and
#    over memif (the reflector in a process of its own, its worker on CPU 0,
#    rtt's on CPU 1), against sockperf
#    ping-pong over loopback (the kernel's UDP both ways; sockperf reports
#    half the RTT, doubled here) and irtt over loopback (a frame every
#    100 us; its JSON's round trips, RTT as irtt measures it, which includes
#    the server's own processing as ours includes the reflector's).
# The figures need a quiet machine: on a shared CPU they say little.
set -eu
BUILD=${1:-build}
SECS=${2:-3}
LR=$BUILD/app/linerate
EAL="--no-pci --no-huge -m 512 --log-level=lib.eal:error"
PFX=lr_bench_rf_$$
TMP=$(mktemp -d)
trap 'rm -rf /var/run/dpdk/${PFX}_* "$TMP"; kill $(jobs -p) 2>/dev/null || true' EXIT

echo "== reflect vs testpmd macswap, 64 B, one lcore, net_null"
$LR $EAL -l 0-1 --file-prefix ${PFX}_r -- --role reflect \
	--port net_null0,size=60 --others reflect --duration "$SECS" --no-live \
	--json "$TMP/r.json" >/dev/null 2>&1
refl=$(/usr/bin/python3 - "$TMP/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = [t for t in d["tasks"] if t["role"] == "reflect"][0]
print("%.2f" % (t["out"] / t["duration_s"] / 1e6))
PY
)
tp=$(timeout -s INT $((SECS + 2)) dpdk-testpmd $EAL -l 0-1 --file-prefix ${PFX}_tp \
	--vdev net_null0,size=60 -- --forward-mode=macswap --burst 32 \
	--stats-period 1 --total-num-mbufs 16384 </dev/null 2>&1 |
	awk '/Tx-pps:/ { v = $2 } END { printf "%.2f\n", v / 1e6 }')
echo "reflect  $refl Mpps"
echo "macswap  $tp Mpps"
awk -v a="$refl" -v b="$tp" 'BEGIN { if (b > 0) printf "ratio    %.2f\n", a / b }'

rtt_line() {	# label json
	/usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[2]))["rtt"]["rtt"]
print("%-22s min %8.2f  p50 %8.2f  p99.9 %8.2f us  (%d frames)" % (
    sys.argv[1], r["min_ns"] / 1e3, r["p50_ns"] / 1e3, r["p999_ns"] / 1e3,
    r["count"]))
PY
}

echo "== RTT through reflect, 64 B at 100 kpps, vs sockperf ping-pong (loopback)"
N=$((SECS * 100000))
$LR $EAL -l 0-1 --file-prefix ${PFX}_w -- lua/rtt-reflect.lua count=$N \
	rate=100000 size=64 stamp=0 json="$TMP/w.json" >/dev/null 2>&1
rtt_line "reflect, virtual wire" "$TMP/w.json"

SOCK=$TMP/m.sock
# Each process's worker on its own CPU: two pollers on one CPU would take
# turns by the scheduler's slices (ms).
$LR $EAL --lcores '0@1,1@0' --file-prefix ${PFX}_ms -- --role reflect \
	--port net_memif0,role=server,socket=$SOCK,socket-abstract=no \
	--link-timeout 30 --duration $((SECS + 20)) --no-live >/dev/null 2>&1 &
refl_pid=$!
for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.1; done
$LR $EAL -l 0-1 --file-prefix ${PFX}_mc -- lua/rtt-reflect.lua count=$N \
	rate=100000 size=64 \
	port=net_memif0,role=client,socket=$SOCK,socket-abstract=no \
	json="$TMP/m.json" >/dev/null 2>&1
kill -INT $refl_pid 2>/dev/null || true
wait $refl_pid 2>/dev/null || true
rtt_line "reflect, memif" "$TMP/m.json"

sockperf server -i 127.0.0.1 -p 11111 >/dev/null 2>&1 &
sp_pid=$!
sleep 0.5
sockperf ping-pong -i 127.0.0.1 -p 11111 -t "$SECS" -m 64 2>&1 |
	awk '/<MIN> observation/ { mn = $(NF) } /percentile 50.000/ { p50 = $(NF) }
	     /percentile 99.900/ { p999 = $(NF) }
	     END { printf "%-22s min %8.2f  p50 %8.2f  p99.9 %8.2f us  (RTT: 2 x sockperf'"'"'s)\n",
		   "sockperf, loopback", 2 * mn, 2 * p50, 2 * p999 }'
kill $sp_pid 2>/dev/null || true

irtt server -b 127.0.0.1:2112 -i 0 >/dev/null 2>&1 &
ir_pid=$!
sleep 0.5
if irtt client -i 100us -d "${SECS}s" -l 64 -Q -o "$TMP/irtt.json" \
	127.0.0.1:2112 2>/dev/null; then
	/usr/bin/python3 - "$TMP/irtt.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = sorted(r["delay"]["rtt"] for r in d["round_trips"]
           if r.get("lost") == "false" and "rtt" in r.get("delay", {}))
q = lambda p: v[min(len(v) - 1, int(p * len(v)))] / 1e3
print("%-22s min %8.2f  p50 %8.2f  p99.9 %8.2f us  (%d round trips)" % (
    "irtt, loopback", v[0] / 1e3, q(0.5), q(0.999), len(v)))
PY
fi
kill $ir_pid 2>/dev/null || true
