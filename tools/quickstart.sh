#!/usr/bin/env bash
# Set up, build and run the quickstart on the virtual wire (no NIC needed).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh build
# EAL leaves its runtime directory behind: take it away after the run.
trap 'rm -rf /var/run/dpdk/lr_quickstart' EXIT
build/app/linerate --no-pci --no-huge -m 512 -l 0-1 --file-prefix lr_quickstart \
	--log-level=lib.eal:warning -- lua/quickstart.lua "$@"
