#!/usr/bin/env bash
# Makes the keys the APNs stand-in (standin.py) and its tests use, with openssl alone:
#   tls.crt, tls.key           self-signed P-256 certificate for CN=127.0.0.1, SAN IP:127.0.0.1 and DNS:localhost
#   AuthKey.p8                 P-256 provider signing key in PKCS#8 PEM, shaped like Apple's .p8 download
#   AuthKey.pub.pem            its public half, which the stand-in verifies JWTs with
# Usage: make-keys.sh DIR. Files already in DIR are kept, so running it again is cheap and changes nothing.
set -euo pipefail

dir=${1:?usage: make-keys.sh DIR}
mkdir -p "$dir"
cd "$dir"
umask 077

if [ ! -s tls.key ] || [ ! -s tls.crt ]; then
    # A config of our own, so the distribution's openssl.cnf cannot add a CA:TRUE extension to the leaf.
    openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
        -keyout tls.key -out tls.crt -config /dev/stdin 2>/dev/null <<'CNF'
[req]
prompt = no
distinguished_name = subject
x509_extensions = leaf
[subject]
CN = 127.0.0.1
[leaf]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
subjectKeyIdentifier = hash
CNF
fi

if [ ! -s AuthKey.p8 ]; then
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out AuthKey.p8
fi
if [ ! -s AuthKey.pub.pem ]; then
    openssl pkey -in AuthKey.p8 -pubout -out AuthKey.pub.pem
fi
