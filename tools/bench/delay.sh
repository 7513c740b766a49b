#!/bin/bash
# delay.sh: the delay role's throughput, cost and timing error, in one run.
#
#   tools/bench/delay.sh [BUILD=build] [SECONDS=3]
#
# 1. Saturation on net_null (no NIC, nothing crosses to another CPU): the
#    delay role between net_null0 and net_null1 on one worker lcore, fed as
#    fast as the null PMD gives frames: the frames it sends a second once
#    the delay has filled (its capacity: the highest rate one lcore holds,
#    the frames over netem's limit dropped before they cost the ring),
#    its cycles per frame, and the same for dpdk-testpmd --forward-mode=io
#    on the same two ports (a bare DPDK forwarding loop). Each impaired
#    line ends with "/ wire R": its out rate over the role's own wire mode
#    (no SPEC) measured just before it, in this run (issue 27's ratios).
# 2. Paced: gen on one CPU -> the delay role on the other -> net_null, at
#    rates below its capacity: how late frames leave (sent time less due
#    time: median, p99, p99.9) and how many are later than 10 us.
# Needs hugepages (tools/setup.sh reserves them): the 184 ms ring is 250 MB.
set -eu
BUILD=${1:-build}
SECS=${2:-3}
LR=$BUILD/app/linerate
EAL="--no-pci -m 2048 --log-level=lib.eal:error"
PFX=lr_bench_dl_$$
trap 'rm -rf /var/run/dpdk/${PFX}_* /tmp/${PFX}.json /tmp/${PFX}.out' EXIT
SPECS=("" "delay 1us" "delay 184ms" "delay 184ms 8us distribution normal")

testpmd() {	# frame size -> Mpps one way (the mean of both ports' rx)
	timeout -s INT $((SECS + 2)) dpdk-testpmd $EAL -l 0-1 --file-prefix ${PFX}_tp \
		--vdev net_null0,size=$(($1 - 4)) --vdev net_null1,size=$(($1 - 4)) -- \
		--forward-mode=io --burst 32 --stats-period 1 --total-num-mbufs 16384 \
		</dev/null 2>&1 | awk '/Rx-pps:/ { v[n++ % 2] = $2 }
			END { printf "%.2f\n", (v[0] + v[1]) / 2 / 1e6 }'
}

WIRE=0		# the wire's out Mpps of this size, this run: the ratios' base
saturate() {	# spec size
	$LR $EAL -l 0-1 --file-prefix ${PFX}_sat -- --role delay \
		--port net_null0,size=$(($2 - 4)) --peer net_null1,size=$(($2 - 4)) \
		--netem "$1" --duration "$SECS" --no-live --json /tmp/${PFX}.json \
		--late-share 100 >/dev/null 2>&1	# saturated: late by design
	/usr/bin/python3 - "$1" "$2" /tmp/${PFX}.json "$WIRE" /tmp/${PFX}.out <<'PY'
import json, sys
spec, size, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
wire, outfile = float(sys.argv[4]), sys.argv[5]
d = json.load(open(path))
t = [t for t in d["tasks"] if t["role"] == "delay"][0]
f = t["forward"]
delay_s = 0.184 if "184ms" in spec else 0
out = f["out"] / (t["duration_s"] - delay_s) / 1e6
print("%-38s %5d B  out %6.2f Mpps  %6.1f cycles/frame  over-limit %5.1f %%  "
      "storage %4d MB (BDP %d MB, high %d MB)" % (
      spec or "(none: a wire)", size, out, t["cycles_per_frame"],
      100.0 * f["over_limit"] / max(f["in"], 1),
      f.get("storage_bytes", 0) >> 20, f.get("bdp_bytes", 0) >> 20,
      f["storage_high_bytes"] >> 20) +
      ("  / wire %.2f" % (out / wire) if spec and wire > 0 else ""))
open(outfile, "w").write("%.4f\n" % out)
PY
	[ -n "$1" ] || WIRE=$(cat /tmp/${PFX}.out)
}

paced() {	# spec rate size: rate in % of 10 GbE, SECS seconds of frames
	local count=$(( $2 * 10000000000 / 100 / 8 / ($3 + 20) * SECS ))
	$LR $EAL --lcores '0@0,1@0,2@1' --file-prefix ${PFX}_p -- \
		lua/delay-chain.lua netem="$1" rate="$2%" size="$3" count=$count \
		sink=null linger=0.5 json=/tmp/${PFX}.json >/dev/null 2>&1 ||
		true	# a late box or a short gen is a verdict (exit 3): shown
	/usr/bin/python3 - "$1" "$2" "$3" /tmp/${PFX}.json <<'PY'
import json, sys
spec, rate, size, path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
d = json.load(open(path))
f = d["delay"]["forward"]
l = f["lateness"]
t = [t for t in d["tasks"] if t["role"] == "delay"][0]
print("%-38s %5d B %4s%%  late (sent - due): p50 %8d ns  p99 %9d ns  p99.9 %9d ns  "
      "> 10 us: %6.3f %%  out %d of %d  stalled %.0f us" % (spec, size, rate,
      l.get("p50_ns", 0), l.get("p99_ns", 0), l.get("p999_ns", 0),
      100.0 * f["late"] / max(f["out"], 1), f["out"], f["in"], t["stalled_us"]))
PY
}

echo "== saturation, one lcore, net_null0 <-> net_null1 (forward direction)"
for size in 64 1518; do
	printf "%-38s %5d B  out %6s Mpps (a bare DPDK io loop)\n" "dpdk-testpmd io" \
		"$size" "$(testpmd $size)"
	for spec in "${SPECS[@]}"; do
		saturate "$spec" "$size"
	done
done
echo "== paced: gen (CPU 0) -> delay (CPU 1) -> net_null"
for spec in "delay 184ms" "delay 184ms 8us distribution normal"; do
	for rate in 10 20 40; do	# 1.5, 3.0, 6.0 Mpps: one lcore's share
		paced "$spec" "$rate" 64
	done
	for rate in 10 50 100; do
		paced "$spec" "$rate" 1518
	done
done
