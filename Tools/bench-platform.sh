#!/usr/bin/env bash
# The machine's floor (docs/benchmarks.md, "The machine's floor"): what one thread wake-up and one
# durable page sync cost here, measured by a small C program (Tools/PlatformFloor) with nothing of
# PushBus in the way. At low rates each request pays a few of each, whatever the code above them
# does, so these say how far the stack's CPU a call at half the peak can fall on this machine.
# The sync is measured in DIR, which should be on the disk the services' databases use.
# Usage: bench-platform.sh [DIR] [ROUNDS]   (defaults a scratch directory under /var/tmp, 3).
# Prints one JSON line a round.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d /var/tmp/bench-platform.XXXXXX)
trap 'rm -rf "$work"' EXIT
dir=${1:-$work}
rounds=${2:-3}
gcc -O2 -o "$work/platform-floor" Tools/PlatformFloor/platform_floor.c -lpthread
for _ in $(seq 1 "$rounds"); do
    "$work/platform-floor" "$dir/platform-floor.$$"
done
