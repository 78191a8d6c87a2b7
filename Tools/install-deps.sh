#!/usr/bin/env bash
# Installs what PushBus needs on a fresh Debian machine with Swift: the C libraries (libzmq, SQLite,
# OpenSSL's libcrypto and libssl, libmicrohttpd, libnghttp2, tcmalloc) through apt; for the tests pyzmq (the
# interop MDP client), kubernetes-validate (the manifest checks) and hypercorn, h2 and cryptography
# (the APNs stand-in, Tests/apns), the official EngageLab and JPush server SDKs and
# openapi-spec-validator (the REST API, Tests/api), websockets (the device channel, Tests/channel),
# Chromium, its driver and Selenium (the console in a browser, Tests/console); for the benchmarks
# nghttpd, h2load, gcc and valgrind. Does nothing when all is there.
set -euo pipefail

# openssl: the command makes the test CA of the TLS tests (the device edge over HTTPS and wss).
packages=(pkg-config libzmq3-dev libsqlite3-dev libssl-dev openssl libmicrohttpd-dev libnghttp2-dev libgoogle-perftools-dev)
# The benchmarks' APNs stand-in (nghttpd) and its ceiling (h2load), a C compiler for the
# allocation counter that bench-allocations preloads (Tools/MallocCount), and valgrind, whose
# callgrind counts bench-instructions' instructions.
if [ "${1:-}" = "--bench" ]; then packages+=(nghttp2-server nghttp2-client gcc valgrind); fi
# The console's browser tests: Debian's Chromium and chromedriver.
if [ "${1:-}" = "--test" ]; then packages+=(chromium chromium-driver); fi
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing Debian packages: ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

if [ "${1:-}" = "--test" ]; then
    if ! python3 -c 'import zmq' 2>/dev/null; then
        echo "installing pyzmq for the interop tests"
        python3 -m pip install --quiet pyzmq
    fi
    if ! python3 -c 'import hypercorn, h2, cryptography' 2>/dev/null; then
        echo "installing hypercorn, h2 and cryptography for the APNs stand-in"
        python3 -m pip install --quiet hypercorn h2 cryptography
    fi
    # The REST API's clients: the official server SDKs (never the unrelated `engagelab` placeholder).
    if ! python3 -c 'import engagelab.client, jpush, openapi_spec_validator' 2>/dev/null; then
        echo "installing engagelab-apppush, jpush and openapi-spec-validator for the REST API tests"
        python3 -m pip install --quiet "engagelab-apppush==0.1.1" "jpush==3.4.1" openapi-spec-validator
    fi
    # The device channel's devices in the tests: an independent WebSocket client.
    if ! python3 -c 'import websockets.sync.client' 2>/dev/null; then
        echo "installing websockets for the device channel tests"
        python3 -m pip install --quiet "websockets>=13"
    fi
    if ! python3 -c 'import selenium' 2>/dev/null; then
        echo "installing selenium for the console's browser tests"
        python3 -m pip install --quiet "selenium>=4.11"
    fi
    if ! python3 -c 'import kubernetes_validate' 2>/dev/null; then
        echo "installing kubernetes-validate for the manifest checks"
        python3 -m pip install --quiet kubernetes-validate
    fi
fi
