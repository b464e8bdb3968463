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
# The fuzz crate is its own workspace with its own lock file; a stale one
# makes `cargo fuzz build` rewrite it and a --locked build fail.
cargo metadata --locked --format-version 1 --manifest-path fuzz/Cargo.toml >/dev/null || {
    echo "fuzz/Cargo.lock does not match the workspace's dependencies: run" >&2
    echo "  cargo metadata --format-version 1 --manifest-path fuzz/Cargo.toml >/dev/null" >&2
    echo "and commit the updated fuzz/Cargo.lock" >&2
    exit 1
}
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked --no-fail-fast "$@"
