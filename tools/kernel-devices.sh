#!/bin/bash
# kernel-devices.sh: the Linux kernel's UDP stack as devices of seed 001's
# model, beside linerate (issue 15). Three network namespaces k1, k2, k3,
# each a "kernel device": its UDP stack and a UDP echo (tools/udp-echo.py).
# linerate, in this namespace, is the fourth device, lr: its rtt role sends
# over net_af_packet on a veth pair into each namespace and the echo sends
# the frames back. The kernel devices' pairs are measured by sockperf
# ping-pong between the namespaces (over veth pairs of their own) and
# imported with its --full-log. Then lua/kernel-devices.lua solves all six
# pairs for each device's latency, and solves again without one pair
# (HOLDOUT) to predict that pair's mean RTT from the other five: the model's
# check.
#
#   tools/kernel-devices.sh [BUILD=build] [COUNT=5000] [RATE=10000] [SECS=2]
#       [JSON=FILE]
#
# Needs root, iproute2 and sockperf. Everything it makes (namespaces, veth
# pairs, processes, files) carries this run's tag and is removed at the
# end, on failure and on a signal too; addresses are inside its own
# namespaces (10.77.0.0/16 toward linerate, 10.78.0.0/16 between kernels).
set -eu
# Before anything is made: what the run needs (77: a skip to meson).
[ "$EUID" = 0 ] || { echo "kernel-devices: needs root (network namespaces)" >&2; exit 77; }
command -v sockperf >/dev/null || { echo "kernel-devices: needs sockperf" >&2; exit 77; }
command -v ip >/dev/null || { echo "kernel-devices: needs iproute2" >&2; exit 77; }
{ ip netns add "lk$$_probe" && ip netns del "lk$$_probe"; } 2>/dev/null ||
	{ echo "kernel-devices: needs network namespaces (ip netns add failed)" >&2; exit 77; }
BUILD=${1:-build}
COUNT=${2:-5000}
RATE=${3:-10000}
SECS=${4:-2}
JSON=${5:-}
HOLDOUT=${HOLDOUT:-k2,k3}
LR=$BUILD/app/linerate
SRC=$(cd "$(dirname "$0")/.." && pwd)
TAG=lk$$
TMP=$(mktemp -d /tmp/lr_kdev_XXXXXX)
PIDS=()

cleanup() {
	set +e
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	for i in 1 2 3; do
		ip netns del "${TAG}_$i" 2>/dev/null
		ip link del "${TAG}r$i" 2>/dev/null
	done
	rm -rf "$TMP" "/var/run/dpdk/${TAG}"
}
trap cleanup EXIT
trap 'exit 130' INT TERM


ifaces=() macs=() ips=()
for i in 1 2 3; do
	ns=${TAG}_$i
	ip netns add "$ns"
	ip -n "$ns" link set lo up
	# linerate's side stays in this namespace, with no address: the
	# kernel here leaves its frames alone, net_af_packet takes them.
	ip link add "${TAG}r$i" type veth peer name "${TAG}n$i" netns "$ns"
	sysctl -qw "net.ipv6.conf.${TAG}r$i.disable_ipv6=1"
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip link set "${TAG}r$i" up
	ip -n "$ns" addr add "10.77.$i.2/24" dev "${TAG}n$i"
	ip -n "$ns" link set "${TAG}n$i" up
	mac_r=$(cat "/sys/class/net/${TAG}r$i/address")
	# linerate answers no ARP: its address is known to the kernel.
	ip -n "$ns" neigh replace "10.77.$i.1" lladdr "$mac_r" dev "${TAG}n$i" nud permanent
	ifaces+=("${TAG}r$i")
	macs+=("$(ip netns exec "$ns" cat "/sys/class/net/${TAG}n$i/address")")
	ips+=("10.77.$i.2")
	ip netns exec "$ns" /usr/bin/python3 "$SRC/tools/udp-echo.py" "10.77.$i.2" 7007 \
		> "$TMP/echo$i.log" 2>&1 &
	PIDS+=($!)
done

# The kernels' own pairs, each over a veth pair between two namespaces.
sp_args=""
for p in 12 13 23; do
	a=${p:0:1} b=${p:1:1}
	ip link add "${TAG}x$p" netns "${TAG}_$a" type veth peer name "${TAG}y$p" \
		netns "${TAG}_$b"
	ip -n "${TAG}_$a" addr add "10.78.$p.1/24" dev "${TAG}x$p"
	ip -n "${TAG}_$b" addr add "10.78.$p.2/24" dev "${TAG}y$p"
	ip -n "${TAG}_$a" link set "${TAG}x$p" up
	ip -n "${TAG}_$b" link set "${TAG}y$p" up
	ip netns exec "${TAG}_$b" sockperf server -i "10.78.$p.2" -p 11111 \
		> "$TMP/sps$p.log" 2>&1 &
	PIDS+=($!)
done
for i in 1 2 3; do
	grep -q ready "$TMP/echo$i.log" 2>/dev/null || sleep 0.5
done
sleep 0.5
for p in 12 13 23; do
	a=${p:0:1} b=${p:1:1}
	ip netns exec "${TAG}_$a" sockperf ping-pong -i "10.78.$p.2" -p 11111 \
		-t "$SECS" -m 64 --mps "$RATE" --full-log "$TMP/sp$p.csv" \
		> "$TMP/spc$p.log" 2>&1 ||
		{ echo "kernel-devices: sockperf k$a -> k$b failed:" >&2; cat "$TMP/spc$p.log" >&2; exit 1; }
	sp_args="$sp_args${sp_args:+;}k$a,k$b=$TMP/sp$p.csv"
done

join() { local IFS=,; echo "$*"; }
$LR --no-pci --no-huge -m 1024 -l 0-1 --file-prefix "$TAG" \
	--log-level=lib.eal:error -- "$SRC/lua/kernel-devices.lua" \
	"ifaces=$(join "${ifaces[@]}")" "macs=$(join "${macs[@]}")" \
	"ips=$(join "${ips[@]}")" "sockperf=$sp_args" "holdout=$HOLDOUT" \
	"count=$COUNT" "rate=$RATE" "dir=$TMP" ${JSON:+"json=$JSON"}
