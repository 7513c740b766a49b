#!/bin/bash
# probe-grid.sh: Table I of the CESNET paper on this testbed: the probe's
# packet rate on one worker lcore for frame sizes x flow counts, fed from
# memory by net_pcap (infinite_rx=1 replays a pcap that gen wrote), next to
# lr-bare rx on the same replay (the source's own ceiling) in the same run.
# The probe's side is probe-bench.lua's measurement (mode=pcap), one point
# a run; this script writes the captures and measures the ceiling.
#
#   tools/bench/probe-grid.sh [BUILD=build] [SECONDS=3] [SIZES="64 128 256 512"] [FLOWS="128 16384 131072"]
#   HUGE=1 tools/bench/probe-grid.sh ...     (hugepages instead of --no-huge)
set -eu
BUILD=${1:-build}
SECS=${2:-3}
SIZES=${3:-64 128 256 512}
FLOWS=${4:-128 16384 131072}
LR=$BUILD/app/linerate
BARE=$BUILD/tools/bench/lr-bare
BENCH=$(dirname "$0")
PFX=lr_bench_$$
DIR=$(mktemp -d)
MEM="--no-huge -m 3072"
if [ "${HUGE:-0}" = 1 ]; then
	MEM="--huge-unlink -m 1800"
	# 1800 MB of 2 MiB pages: tools/setup.sh reserves 2 GiB; say so if less.
	hp=/sys/kernel/mm/hugepages/hugepages-2048kB
	free=$(( $(cat $hp/free_hugepages 2>/dev/null || echo 0) * 2 ))
	if [ "$free" -lt 1800 ]; then
		echo "probe-grid: HUGE=1 needs 1800 MB of free 2 MiB hugepages, $free MB" \
			"are free (echo 1024 > $hp/nr_hugepages)" >&2
		exit 1
	fi
fi
EAL="--no-pci $MEM -l 0-1 --log-level=lib.eal:error"
trap 'rm -rf /var/run/dpdk/${PFX}_* "$DIR"' EXIT

printf "%6s %8s %12s %12s %8s %10s\n" size flows "bare Mpps" "probe Mpps" ratio "flows made"
for size in $SIZES; do
	for flows in $FLOWS; do
		pcap=$DIR/s${size}_f$flows.pcap
		count=$(( flows * 2 > 65536 ? flows * 2 : 65536 ))
		mbufs=$(( count + 8192 ))
		$LR $EAL --file-prefix ${PFX}_g -- --role gen --port "net_pcap0,tx_pcap=$pcap" \
			--count $count --size "$size" --flows "$flows" \
			--src-ip 10.0.0.1-10.0.0.4 --order shuffle --no-live >/dev/null 2>&1
		src="net_pcap0,rx_pcap=$pcap,infinite_rx=1"
		bare=$($BARE $EAL --file-prefix ${PFX}_b -- rx "$src" "$SECS" "$size" $mbufs 2>/dev/null |
			awk '/lr-bare:/ { print $(NF - 1) }')
		$LR $EAL --file-prefix ${PFX}_p -- --no-live "$BENCH/probe-bench.lua" \
			mode=pcap rx="$src" mbufs=$mbufs sizes="$size" flows="$flows" \
			seconds="$SECS" > "$DIR/p.txt" 2>&1
		# probe-bench's row: size flows Mpps drops cyc/pkt alone flows-made
		awk -v s="$size" -v f="$flows" -v bare="$bare" '$1 == s && $2 == f {
			printf "%6s %8s %12.2f %12.2f %8.2f %10d\n", s, f, bare, $3,
			       $3 / bare, $7 }' "$DIR/p.txt"
		rm -f "$pcap"
	done
done
