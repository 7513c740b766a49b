#!/bin/bash
# probe-ext.sh: what the flow extensions cost the probe, in instructions
# per packet counted by callgrind (the same on a busy and on a quiet
# machine), in one run:
#   - the issue's mix (tools/bench/probe-ext-mix.py: 16384 flows, 10 % TLS,
#     5 % DNS, 5 % HTTP, the rest plain TCP and UDP, 16 packets a flow,
#     64-1500 B) read by the probe without extensions and with every one
#     (--flow-ext tls,quic,dns,http: "apps"), with every extension
#     ("every": and basicplus,pstats,app), and basicplus, pstats, app alone;
#   - the same with QUIC flows in place of the DNS ones;
#   - the same flows all plain: what a flow costs once the extensions have
#     stopped looking at it, with and without them.
# Each run reads the capture with --pcap (no PMD) and counts
# lr_probe_input_pcap and all it calls: parse, cache, extensions.
#
#   tools/bench/probe-ext.sh [BUILD=build] [FLOWS=16384] [PKTS=16]
set -eu
BUILD=$(realpath "${1:-build}")
FLOWS=${2:-16384}
PKTS=${3:-16}
command -v valgrind >/dev/null || { echo "$0: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
HERE=$(dirname "$0")
PFX=lr_bench_px_$$
TMP=$(mktemp -d)
trap 'rm -rf /var/run/dpdk/${PFX}* "$TMP"' EXIT
/usr/bin/python3 "$HERE/probe-ext-mix.py" "$TMP/mix.pcap" "$FLOWS" "$PKTS"
/usr/bin/python3 "$HERE/probe-ext-mix.py" "$TMP/plain.pcap" "$FLOWS" "$PKTS" --plain
/usr/bin/python3 "$HERE/probe-ext-mix.py" "$TMP/quic.pcap" "$FLOWS" "$PKTS" --quic

count() {	# PCAP EXT: packets and instructions
	valgrind --tool=callgrind --toggle-collect=lr_probe_input_pcap \
		--callgrind-out-file="$TMP/cg.out" \
		"$BUILD/app/linerate" --no-pci --no-huge -m 1500 -l 0-1 \
		--file-prefix "$PFX" --log-level=lib.eal:error -- --role probe \
		--port net_null0 --pcap "$1" --flow-ext "$2" --biflow 1 \
		--entries $((FLOWS * 4)) --export none --json "$TMP/r.json" \
		--no-live >/dev/null 2>&1
	/usr/bin/python3 - "$TMP/r.json" "$TMP/cg.out" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["tasks"][0]
ir = 0
for l in open(sys.argv[2]):
    if l.startswith(("summary:", "totals:")):
        ir = int(l.split()[1])
fx = t.get("flow_ext", {})
print("%d %d %s" % (t["rx_packets"], ir, json.dumps(fx.get("records", {}))))
PY
}
printf "%-6s %-10s %9s %12s  %s\n" capture flow-ext packets instr/packet records
ALL=tls,quic,dns,http
EVERY=$ALL,basicplus,pstats,app
for cap in mix quic plain; do
	read -r n0 i0 r0 <<<"$(count "$TMP/$cap.pcap" none)"
	printf "%-6s %-10s %9d %12.1f\n" $cap none "$n0" "$(echo "$i0 / $n0" | bc -l)"
	for ext in apps:$ALL every:$EVERY bplus:basicplus pstats:pstats app:app; do
		read -r n1 i1 r1 <<<"$(count "$TMP/$cap.pcap" "${ext#*:}")"
		printf "%-6s %-10s %9d %12.1f  %s  (x %.3f)\n" $cap "${ext%%:*}" "$n1" \
			"$(echo "$i1 / $n1" | bc -l)" "$r1" \
			"$(echo "($i1 / $n1) / ($i0 / $n0)" | bc -l)"
	done
done
