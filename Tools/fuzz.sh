#!/usr/bin/env bash
# Builds the libFuzzer target for the frame and payload decoders and runs it for a bounded time.
# Usage: Tools/fuzz.sh [SECONDS]   (make fuzz runs it for 60 s)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
work=.build/fuzz
rm -rf "$work/src"
mkdir -p "$work/src" "$work/corpus"
# One module: the shared sources without their imports of each other.
for file in Shared/ZeroMQ/*.swift Shared/Majordomo/*.swift Shared/JSON/*.swift Shared/Schema/*.swift Tools/FuzzTarget/FuzzDecoders.swift; do
    sed -E '/^import (ZeroMQ|Majordomo|JSON|Schema)$/d' "$file" > "$work/src/$(basename "$(dirname "$file")")-$(basename "$file")"
done
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name FuzzDecoders -I Shared/CZeroMQ \
    "$work"/src/*.swift -lzmq -o "$work/fuzz-decoders"
cp -n Tools/FuzzTarget/corpus/* "$work/corpus/" 2>/dev/null || true
"$work/fuzz-decoders" "$work/corpus" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1
