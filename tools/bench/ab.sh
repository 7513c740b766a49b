#!/bin/bash
# ab.sh: two builds of linerate measured in one sitting, interleaved (A B,
# then B A, ROUNDS times), on the fast paths a restructuring touches: gen on
# net_null, gen + rx on the virtual wire (16 flows with latency, 65536
# flows), the probe's cycles per packet at 16 K and 131 K flows, the delay
# box and the reflector on net_null. Prints each figure's median for A and
# B, their spread (max - min over the median, in %) and B / A (for
# Mpps higher is better, for cycles lower).
#
#   tools/bench/ab.sh BUILD_A BUILD_B [ROUNDS=3] [SECONDS=2]
#
# Each build runs its own tree's scripts (BUILD/..). Needs a quiet machine:
# run nothing else beside it.
set -eu
A=$(realpath "$1")
B=$(realpath "$2")
ROUNDS=${3:-3}
SECS=${4:-2}
EAL="--no-pci --no-huge -m 2048 -l 0-1 --log-level=lib.eal:error"
PFX=lr_bench_ab_$$
TMP=$(mktemp -d)
trap 'rm -rf /var/run/dpdk/${PFX}* "$TMP"' EXIT

tasknum() {	# json role expr: a figure of the first task of role
	/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
t = [t for t in d["tasks"] if t["role"] == sys.argv[2]][0]
print(eval(sys.argv[3], {}, {"t": t}))' "$@"
}

gen_null() {
	"$1/app/linerate" $EAL --file-prefix ${PFX}g -- --role gen --port net_null0 \
		--duration "$SECS" --no-live --json "$TMP/g.json" >/dev/null 2>&1
	tasknum "$TMP/g.json" gen 't["tx_packets"] / t["duration_s"] / 1e6'
}
wire_rx() {	# 16 flows latency on; 65536 flows latency on
	"$1/app/linerate" $EAL --file-prefix ${PFX}w -- "$1/../tools/bench/wire-rx.lua" 2e6 \
		2>/dev/null | awk 'NR == 2 { a = $4 } NR == 5 { b = $4 } END { print a, b }'
}
probe() {	# cycles per packet at 16 K and 131 K flows, 64 B
	"$1/app/linerate" $EAL --file-prefix ${PFX}p -- "$1/../tools/bench/probe-bench.lua" \
		sizes=64 flows=16384,131072 seconds="$SECS" 2>/dev/null |
		awk 'NR > 1 { printf "%s ", $5 } END { print "" }'
}
delay() {
	"$1/app/linerate" $EAL --file-prefix ${PFX}d -- --role delay \
		--port net_null0,size=60 --peer net_null1,size=60 --netem "delay 1us" \
		--duration "$SECS" --no-live --late-share 100 --json "$TMP/d.json" >/dev/null 2>&1
	tasknum "$TMP/d.json" delay 't["forward"]["out"] / t["duration_s"] / 1e6'
}
reflect() {
	"$1/app/linerate" $EAL --file-prefix ${PFX}r -- --role reflect \
		--port net_null0,size=60 --others reflect --duration "$SECS" --no-live \
		--json "$TMP/r.json" >/dev/null 2>&1
	tasknum "$TMP/r.json" reflect 't["out"] / t["duration_s"] / 1e6'
}
one() {	# build label: a line of figures
	echo "$2 gen_null_mpps $(gen_null "$1")" >> "$TMP/all"
	set -- "$1" "$2" $(wire_rx "$1")
	echo "$2 wire_16f_lat_mpps $3" >> "$TMP/all"
	echo "$2 wire_65536f_mpps $4" >> "$TMP/all"
	set -- "$1" "$2" $(probe "$1")
	echo "$2 probe_16k_cyc ${3:-nan}" >> "$TMP/all"
	echo "$2 probe_131k_cyc ${4:-nan}" >> "$TMP/all"
	echo "$2 delay_mpps $(delay "$1")" >> "$TMP/all"
	echo "$2 reflect_mpps $(reflect "$1")" >> "$TMP/all"
}
: > "$TMP/all"
for r in $(seq "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then one "$A" A; one "$B" B; else one "$B" B; one "$A" A; fi
	echo "ab: round $r of $ROUNDS done" >&2
done
/usr/bin/python3 - "$TMP/all" <<'PY'
import statistics, sys
v = {}
order = []
for line in open(sys.argv[1]):
    who, what, x = line.split()
    if what not in order:
        order.append(what)
    v.setdefault((who, what), []).append(float(x))
print("%-20s %10s %7s %10s %7s %7s" % ("figure", "A median", "spread", "B median",
                                       "spread", "B/A"))
for what in order:
    a, b = v[("A", what)], v[("B", what)]
    ma, mb = statistics.median(a), statistics.median(b)
    sa = 100 * (max(a) - min(a)) / ma if ma else float("nan")
    sb = 100 * (max(b) - min(b)) / mb if mb else float("nan")
    print("%-20s %10.3f %6.1f%% %10.3f %6.1f%% %7.3f" % (what, ma, sa, mb, sb,
                                                          mb / ma if ma else float("nan")))
PY
