#!/usr/bin/env bash
# Cycle-by-cycle equivalence of two RTL revisions of the congestion-
# notification block: roce_cn at git revision REV (default HEAD) against
# the working tree's rtl/, side by side in one Icarus Verilog simulation
# (cosim/equiv/cn_equiv_tb.sv) on the same seeded-random events, QP
# contexts, configuration and output stalls, every output compared every
# cycle. For changes meant to keep every cycle and output (timing work,
# issue 15), where the golden model cannot tell a cycle moved. The first
# difference stops the run, naming the output, the cycle and both values.
#
#   ci/rtl-equiv.sh [--rev REV] [--width W] [--qps Q] [--seed S]
#                   [--events N] [--assert] [--lenient] [--plant]
#
# --width and --qps set DATA_WIDTH (64) and QP_COUNT (8; few QPs make
# same-QP hazards frequent); --events the events to accept (18000; about
# 3 minutes); --assert compiles both with METAROCE_ASSERTIONS (Icarus has
# no DPI: the import becomes a call into the bench); --lenient compares a
# stream's payload only while its valid is high (a change may leave other
# bits on an idle output); --plant makes a known one-line fault in the
# working tree's copy (the responder's ACK coalescing compare) and expects
# the run to find it: the bench's own test. Exit 0: identical; 1: a
# difference, or a run that exercised too little; 2: usage or build error.
# Work files go to target/rtl-equiv/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

rev=HEAD width=64 qps=8 seed=1 events=18000 assert=0 plant=0 plusargs=()
usage() { sed -n '/^#   ci/,/^# Work files/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
number() { [[ $2 =~ ^[0-9]+$ ]] || { echo "ci/rtl-equiv.sh: $1 takes a whole number, not '$2'" >&2; exit 2; }; }
while (($#)); do
    case $1 in
        --rev) rev=$2; shift 2 ;;
        --width) number "$1" "$2"; width=$2; shift 2 ;;
        --qps) number "$1" "$2"; qps=$2; shift 2 ;;
        --seed) number "$1" "$2"; seed=$2; shift 2 ;;
        --events) number "$1" "$2"; events=$2; shift 2 ;;
        --assert) assert=1; shift ;;
        --lenient) plusargs+=(+lenient); shift ;;
        --plant) plant=1; shift ;;
        *) usage ;;
    esac
done
case $width in 64|128|256|512) ;; *) echo "ci/rtl-equiv.sh: --width takes 64, 128, 256 or 512, not '$width'" >&2; exit 2 ;; esac
command -v iverilog >/dev/null || { echo "ci/rtl-equiv.sh: iverilog not found (ci/setup.sh installs it)" >&2; exit 2; }
commit=$(git rev-parse --verify --quiet "$rev^{commit}") \
    || { echo "ci/rtl-equiv.sh: no git revision '$rev'" >&2; exit 2; }

work=target/rtl-equiv
rm -rf "$work/orig" "$work/new"
mkdir -p "$work/orig" "$work/new"
# The revision's RTL, every module renamed *_orig so that both elaborate
# in one simulation. Module names are lower case and macros upper case,
# so the word-bounded rename touches no macro (checked).
git archive "$commit" rtl | tar -x -C "$work/orig"
cp -r rtl "$work/new/"
(
    cd "$work/orig/rtl"
    modules=$(grep -ho '^module [a-z_0-9]*' ./*.v | awk '{print $2}' | sort -u)
    for m in $modules; do
        if grep -hqE "^\s*\`(define|ifdef|ifndef|undef)\s+$m\b" ./*.v ./*.vh; then
            echo "ci/rtl-equiv.sh: module name $m is also a macro name" >&2; exit 2
        fi
        sed -i "s/\b$m\b/${m}_orig/g" ./*.v ./*.vh
    done
)
if ((plant)); then
    # The responder's "unacked + 1 >= ack_coalesce_pkts" made ">".
    target='wire        coalesce_due = $signed({1'"'"'b0, ent_unacked}) >= coalesce_limit_reg;'
    grep -qF "$target" "$work/new/rtl/roce_responder.v" \
        || { echo "ci/rtl-equiv.sh: --plant's line is no longer in rtl/roce_responder.v: update the plant" >&2; exit 2; }
    sed -i 's/ent_unacked}) >= coalesce_limit_reg;/ent_unacked}) > coalesce_limit_reg;/' "$work/new/rtl/roce_responder.v"
fi

# Each side is preprocessed on its own (its own include path, macros and
# include guards), and only then elaborated with the other.
defines=()
((assert)) && defines=(-DMETAROCE_ASSERTIONS)
preprocess() {  # SIDE
    local dir=$work/$1/rtl
    sed -e "s#^+incdir+rtl#+incdir+$dir#" -e "s#^rtl/#$dir/#" "$dir/cn.f" > "$work/$1.f"
    iverilog -g2012 -E "${defines[@]}" -o "$work/$1.pp.v" -f "$work/$1.f" || exit 2
    sed -i 's/^\s*import "DPI-C" function void metaroce_assertion_failed(input string message);/function automatic void metaroce_assertion_failed(input string message); begin cn_equiv_tb.rtl_assertion(message); end endfunction/' \
        "$work/$1.pp.v"
    if grep -q 'import "DPI-C"' "$work/$1.pp.v"; then
        echo "ci/rtl-equiv.sh: a DPI import the bench does not replace, in $1's RTL" >&2; exit 2
    fi
}
preprocess orig
preprocess new
iverilog -g2012 -o "$work/sim.vvp" -s cn_equiv_tb -P cn_equiv_tb.W="$width" -P cn_equiv_tb.Q="$qps" \
    -I "$work/new/rtl" -I cosim/equiv "$work/orig.pp.v" "$work/new.pp.v" cosim/equiv/cn_equiv_tb.sv \
    > "$work/build.log" 2>&1 || { cat "$work/build.log" >&2; echo "ci/rtl-equiv.sh: build failed" >&2; exit 2; }

echo "ci/rtl-equiv.sh: roce_cn at $rev (${commit:0:12}) against the working tree$( ((plant)) && echo ', with the planted fault')"
cd "$work"
vvp -n sim.vvp +seed="$seed" +events="$events" "${plusargs[@]}" | tee run.log
grep -q '^EQUIV PASS' run.log
