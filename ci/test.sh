#!/usr/bin/env bash
# The test command (README, and CI through .ci/run): formatting, clippy,
# then every test: golden unit tests, the cosim regression at 64 and 512
# bits, expected-result snapshots, the tshark oracle, the CLI, Verilator lint
# and Yosys synthesis. Extra arguments go to `cargo test`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/ci/setup.sh"
cd "$root"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked --no-fail-fast "$@"
