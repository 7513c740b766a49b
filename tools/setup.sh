#!/usr/bin/env bash
# Set up a Debian 12 machine for linerate: packages, hugepages, build.
#   tools/setup.sh [BUILD_DIR] [meson options...]
# Idempotent: quick when everything is there already.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true

pkgs=(build-essential meson ninja-build pkg-config dpdk dpdk-dev libdpdk-dev
      libnuma-dev liblua5.4-dev lua5.4 libcmocka-dev libpcap-dev libjansson-dev
      python3 python3-scapy tshark libfixbuf-tools nfdump softflowd pmacct
      iproute2 iputils-ping iperf3 ethtool sockperf irtt zlib1g-dev
      clang libclang-rt-14-dev python3-matplotlib python3-jsonschema
      libmicrohttpd-dev prometheus groff-base man-db libssl-dev
      python3-cryptography libndpi-dev libndpi-bin)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]}"
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	export DEBIAN_FRONTEND=noninteractive
	echo "wireshark-common wireshark-common/install-setuid boolean false" |
		$sudo debconf-set-selections
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Hugepages: 2 GiB of 2 MiB pages when we may (the benchmarks' scenarios
# take up to 1800 MB); else say so (--no-huge works).
hp=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
if [ -w "$hp" ] && [ "$(cat "$hp")" -lt 1024 ]; then
	echo 1024 > "$hp" 2>/dev/null || true
	mountpoint -q /dev/hugepages || { mkdir -p /dev/hugepages;
		mount -t hugetlbfs nodev /dev/hugepages 2>/dev/null || true; }
fi
if [ -r "$hp" ] && [ "$(cat "$hp")" -ge 256 ] && mountpoint -q /dev/hugepages; then
	echo "setup: $(cat "$hp") hugepages of 2 MiB reserved"
else
	echo "setup: no hugepages; linerate runs with EAL --no-huge -m 512"
fi

if [ ! -d "$build" ]; then
	meson setup "$build" "$@" >/dev/null
elif [ $# -gt 0 ]; then
	meson configure "$build" "$@" >/dev/null
fi
ninja -C "$build"
echo "setup: built $build/app/linerate"
