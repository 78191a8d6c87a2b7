#!/usr/bin/env bash
# Checks what deploy/ ships: that every executable the launcher starts (`pushbus --dry-run`) has a
# systemd unit wanted by pushbus.target, a Kubernetes workload in deploy/k8s/base and a place in
# the container image; the Kubernetes manifests (base and overlays) against the Kubernetes schemas
# and each other; and the systemd units with systemd-analyze verify (where systemd is installed),
# their ExecStart pointed at the built executables. Usage: validate-deploy.sh [BIN_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(cd "${1:-.build/debug}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [[ ! -x "$bin/pushbus" ]]; then
    echo "validate-deploy: $bin/pushbus is not built" >&2
    exit 1
fi
# The launcher's children, in its order, each executable once (api#2, tagging/1… are the same ones).
mapfile -t executables < <("$bin/pushbus" --dry-run --data-dir "$work/data" \
    | awk -F'\t' '{ n = split($2, path, "/"); name = path[n]; if (!seen[name]++) print name }')
if (( ${#executables[@]} == 0 )); then
    echo "validate-deploy: pushbus --dry-run named no executable" >&2
    exit 1
fi

failed=0
python3 Tools/validate_manifests.py --executables "$(IFS=,; echo "${executables[*]}")" deploy/k8s || failed=1

wants=$(sed -n 's/^Wants=//p' deploy/systemd/pushbus.target)
for exe in "${executables[@]}"; do
    if ! grep -E '^ *&& for exe in ' deploy/container/Containerfile | grep -qw -- "$exe"; then
        echo "container: deploy/container/Containerfile does not copy $exe into the image" >&2
        failed=1
    fi
    unit=$(grep -l -E "^ExecStart=/usr/local/bin/$exe( |$)" deploy/systemd/*.service | head -n 1 || true)
    if [[ -z "$unit" ]]; then
        echo "missing systemd unit: no unit in deploy/systemd runs $exe (ExecStart=/usr/local/bin/$exe)" >&2
        failed=1
        continue
    fi
    name=$(basename "$unit")
    [[ "$name" == *@.service ]] && name="${name%@.service}@0.service"
    if [[ " $wants " != *" $name "* ]]; then
        echo "systemd: pushbus.target does not want $name, so $exe would not start with it" >&2
        failed=1
    fi
done
if (( failed )); then
    exit 1
fi
echo "launcher: ${#executables[@]} executables (${executables[*]}), each with a systemd unit, a Kubernetes workload and a place in the image"

if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "systemd-analyze not found: unit files not verified"
    exit 0
fi
units_dir="$work/units"
mkdir "$units_dir"
for unit in deploy/systemd/*.service deploy/systemd/*.target; do
    sed "s#/usr/local/bin/#$bin/#" "$unit" > "$units_dir/$(basename "$unit")"
done
for template in "$units_dir"/*@.service; do
    cp "$template" "${template%@.service}@0.service"
done
units=()
for unit in "$units_dir"/*.service "$units_dir"/*.target; do
    [[ "$unit" == *@.service ]] || units+=("$unit")
done
# SYSTEMD_UNIT_PATH lets the target find the units it wants next to it.
SYSTEMD_UNIT_PATH="$units_dir:" systemd-analyze verify "${units[@]}"
echo "systemd: ${#units[@]} units verified"
