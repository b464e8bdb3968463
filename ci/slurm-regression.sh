#!/usr/bin/env bash
# The cosim regression as a Slurm job array: task K of N runs
# `metaroce cosim --shard K/N`; the last task to finish merges every
# shard's JSON summary into one JUnit and JSON report.
#
#   sbatch --array=1-8 ci/slurm-regression.sh [COSIM ARGS...]
#
# Run it from the repository root on a shared filesystem. Build once on a
# login node first (`cargo build --release --locked`) so the tasks do not
# all verilate. SEED (default: the array job's id) and RESULTS (default:
# results/JOBID) can be set in the environment; every task must share them.
#SBATCH --job-name=metaroce-cosim
#SBATCH --cpus-per-task=4
#SBATCH --time=02:00:00
#SBATCH --output=slurm-%A_%a.out
set -euo pipefail

root=$(pwd)
metaroce="$root/target/release/metaroce"
job=${SLURM_ARRAY_JOB_ID:?run with sbatch --array=1-N}
shard=${SLURM_ARRAY_TASK_ID:?run with sbatch --array=1-N}
shards=${SLURM_ARRAY_TASK_COUNT:?run with sbatch --array=1-N}
seed=${SEED:-$job}
results=${RESULTS:-$root/results/$job}
mkdir -p "$results"

status=0
"$metaroce" cosim --seed "$seed" --shard "$shard/$shards" --jobs "${SLURM_CPUS_PER_TASK:-1}" \
    --json "$results/shard-$shard.json" --junit "$results/shard-$shard.xml" "$@" || status=$?
touch "$results/done-$shard"

# The last task to finish merges (mkdir is atomic on shared filesystems).
done_count=$(find "$results" -name 'done-*' | wc -l)
if [ "$done_count" -eq "$shards" ] && mkdir "$results/merging" 2>/dev/null; then
    "$metaroce" report merge "$results"/shard-*.json --junit "$results/all.xml" --json "$results/all.json"
fi
exit "$status"
