#!/usr/bin/env bash
# The main job: the cosim regression, RTL against golden model on every
# capture under pcaps/ (or the captures and directories given) at every data
# width. Extra arguments go to `metaroce cosim` (see --help).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/ci/setup.sh"
exec cargo run --release --quiet --locked --manifest-path "$root/Cargo.toml" -p metaroce-cosim --bin metaroce -- cosim "$@"
