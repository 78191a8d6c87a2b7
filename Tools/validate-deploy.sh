#!/usr/bin/env bash
# Checks what deploy/ ships: the Kubernetes manifests (base and overlays) against the Kubernetes
# schemas, and the systemd units with systemd-analyze verify (where systemd is installed), their
# ExecStart pointed at the built executables. Usage: validate-deploy.sh [BIN_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(cd "${1:-.build/debug}" && pwd)

python3 Tools/validate_manifests.py deploy/k8s

if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "systemd-analyze not found: unit files not verified"
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for unit in deploy/systemd/*.service deploy/systemd/*.target; do
    sed "s#/usr/local/bin/#$bin/#" "$unit" > "$work/$(basename "$unit")"
done
for template in "$work"/*@.service; do
    cp "$template" "${template%@.service}@0.service"
done
units=()
for unit in "$work"/*.service "$work"/*.target; do
    [[ "$unit" == *@.service ]] || units+=("$unit")
done
# SYSTEMD_UNIT_PATH lets the target find the units it wants next to it.
SYSTEMD_UNIT_PATH="$work:" systemd-analyze verify "${units[@]}"
echo "systemd: ${#units[@]} units verified"
