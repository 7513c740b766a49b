#!/bin/bash
# delay-ab.sh: issue 27's ratio for two or more builds in one sitting: the
# delay box's saturation out rate (64 B, net_null both ways, the back
# direction a wire, one worker lcore) under "delay 184ms" and "delay 184ms
# 8us distribution normal", each over the same build's wire measured in the
# same round. The builds alternate within each round; the wall clock moves
# 30 % from one round to the next here, so take the median of many rounds.
#
#   tools/bench/delay-ab.sh ROUNDS BUILD [BUILD...]
#
# Needs hugepages (the 184 ms ring is 238 MB) and a quiet machine.
set -eu
ROUNDS=$1
shift
PFX=lr_bench_dab_$$
TMP=$(mktemp -d)
trap 'rm -rf /var/run/dpdk/${PFX}* "$TMP"' EXIT

out() {	# build spec -> "Mpps cycles/frame"
	"$1/app/linerate" --no-pci -m 2048 -l 0-1 --file-prefix $PFX \
		--log-level=lib.eal:error -- --role delay \
		--port net_null0,size=60 --peer net_null1,size=60 --netem "$2" \
		--duration 3 --late-share 100 --no-live --json "$TMP/r.json" \
		>/dev/null 2>&1
	/usr/bin/python3 - "$TMP/r.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = [t for t in d["tasks"] if t["role"] == "delay"][0]
held = 0.184 if "184ms" in sys.argv[2] else 0	# before the first frame leaves
print("%.3f %.0f" % (t["forward"]["out"] / (t["duration_s"] - held) / 1e6,
                     t["cycles_per_frame"]))
PY
}

for r in $(seq 1 "$ROUNDS"); do
	for b in "$@"; do
		read -r wire wcyc <<<"$(out "$b" "")"
		line=$(printf "round %d %-20s wire %6.2f Mpps (%s cyc)" "$r" \
			"$(basename "$(dirname "$(realpath "$b")")")" "$wire" "$wcyc")
		for spec in "delay 184ms" "delay 184ms 8us distribution normal"; do
			read -r mpps cyc <<<"$(out "$b" "$spec")"
			line="$line | ${spec:0:20} $mpps ($cyc cyc) $(/usr/bin/python3 -c \
				"print('%.2f' % ($mpps / $wire))")"
		done
		echo "$line"
	done
done
