#!/usr/bin/env bash
# Usage: check-config.sh DOT_CONFIG FRAGMENT...
# Verifies that every option a fragment asks for ended up in DOT_CONFIG after
# `make olddefconfig`.  Kconfig silently drops an option whose dependencies are
# not met; this prints each such option with what it became, and exits 1.
set -euo pipefail

if [[ $# -lt 2 ]]; then
    echo "usage: $0 DOT_CONFIG FRAGMENT..." >&2
    exit 2
fi
dotconfig=$1
shift

declare -A have=()
while IFS= read -r line; do
    if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
        have[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
    fi
done <"$dotconfig"

bad=0
checked=0
for frag in "$@"; do
    while IFS= read -r line; do
        want_sym= want_val=
        if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
            want_sym=${BASH_REMATCH[1]} want_val=${BASH_REMATCH[2]}
        elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set ]]; then
            want_sym=${BASH_REMATCH[1]} want_val=n
        else
            continue
        fi
        checked=$((checked + 1))
        got=${have[$want_sym]:-n}
        if [[ "$got" != "$want_val" ]]; then
            echo "config: $want_sym wanted '$want_val' but got '$got' ($(basename "$frag"))" >&2
            bad=$((bad + 1))
        fi
    done <"$frag"
done

if [[ $bad -ne 0 ]]; then
    echo "config: $bad of $checked requested options did not stick (missing dependency?)" >&2
    exit 1
fi
echo "config: all $checked requested options set" >&2
