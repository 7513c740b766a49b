#!/bin/bash
# gen-null.sh: gen's packet rate on net_null, one worker lcore, 64 B, against
# dpdk-testpmd txonly and lr-bare (alloc + tx, no payload writes), all in one
# run, each measured ROUNDS times in turn; prints medians and ratios.
#
#   tools/bench/gen-null.sh [BUILD=build] [SECONDS=5] [ROUNDS=3] [SIZE=64]
#
# EAL memory: --no-huge -m 1024 for every tool (HUGE=1: hugepages, unlinked).
set -eu
BUILD=${1:-build}
SECS=${2:-5}
ROUNDS=${3:-3}
SIZE=${4:-64}
LR=$BUILD/app/linerate
BARE=$BUILD/tools/bench/lr-bare
MEM="--no-huge -m 1024"
[ "${HUGE:-0}" = 1 ] && MEM="--huge-unlink -m 1024"
EAL="--no-pci $MEM -l 0-1 --log-level=lib.eal:error"
PFX=lr_bench_$$
trap 'rm -rf /var/run/dpdk/${PFX}_*' EXIT

testpmd() {
	timeout -s INT $((SECS + 1)) dpdk-testpmd $EAL --file-prefix ${PFX}_tp \
		--vdev net_null0 -- --forward-mode=txonly --txpkts=$((SIZE - 4)) \
		--burst 32 --stats-period 1 --total-num-mbufs 16384 </dev/null 2>&1 |
		awk '/Tx-pps:/ { v = $2 } END { printf "%.3f\n", v / 1e6 }'
}
bare() {
	$BARE $EAL --file-prefix ${PFX}_bare -- tx net_null0 "$SECS" "$SIZE" 2>/dev/null |
		awk '/lr-bare:/ { print $(NF - 1) }'
}
gen() {	# extra gen options
	$LR $EAL --file-prefix ${PFX}_gen -- --role gen --port net_null0 \
		--duration "$SECS" --no-live --size "$SIZE" "$@" 2>/dev/null |
		awk -v s="$SECS" '/^linerate: tx/ { printf "%.3f\n", $3 / s / 1e6 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

declare -A runs
for r in $(seq "$ROUNDS"); do
	runs[testpmd]+="$(testpmd) "
	runs[bare]+="$(bare) "
	runs[gen]+="$(gen) "
	runs[fixed]+="$(gen --fixed 1) "
	runs[gen_cksum_flows]+="$(gen --udp-cksum 1 --flows 1024) "
done
declare -A m
for k in testpmd bare gen fixed gen_cksum_flows; do
	m[$k]=$(echo ${runs[$k]} | tr ' ' '\n' | median)
	printf "%-16s %8s Mpps   (runs: %s)\n" "$k" "${m[$k]}" "${runs[$k]}"
done
awk -v g="${m[gen]}" -v t="${m[testpmd]}" -v b="${m[bare]}" -v f="${m[fixed]}" \
	-v c="${m[gen_cksum_flows]}" 'BEGIN {
	printf "gen / testpmd txonly        %.2f  (target >= 1.2)\n", g / t
	printf "gen / lr-bare               %.2f  (target >= 0.7)\n", g / b
	printf "gen --fixed 1 / lr-bare     %.2f\n", f / b
	printf "gen --fixed 1 / testpmd     %.2f\n", f / t
	printf "gen, UDP cksum, 1024 flows / testpmd  %.2f\n", c / t
}'
