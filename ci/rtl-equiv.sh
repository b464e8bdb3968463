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
# --width and --qps set DATA_WIDTH (64) and QP_COUNT (8, up to 65536: few
# QPs make same-QP hazards frequent); --seed the stimulus and configuration
# (1; seed % 5 == 4 turns ACKs and retransmit requests off); --events the
# events to accept (18000, about 3 minutes); --assert compiles both with
# METAROCE_ASSERTIONS (Icarus has no DPI: the import becomes a call into
# the bench); --lenient compares a stream's payload only while its valid
# is high (a change may leave other bits on an idle output); --plant makes
# a known one-line fault in the working tree's copy (the responder's ACK
# coalescing compare), which a run must report (exit 1): the bench's own
# test. Both sides get the working tree's cfg bus, so rtl/metaroce_cfg.vh
# must be the same at REV. Exit 0: identical; 1: a difference, or a run
# that exercised too little; 2: usage, build or tool error. Work files
# (and +vcd's cn_equiv.vcd) go to target/rtl-equiv/: one run at a time in a checkout.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

rev=HEAD width=64 qps=8 seed=1 events=18000 assert=0 plant=0 plusargs=()
usage() { sed -n '/^#   ci/,/one run at a time/p' "$root/ci/rtl-equiv.sh" | sed 's/^# \{0,1\}//' >&2; exit 2; }
fail() { echo "ci/rtl-equiv.sh: $*" >&2; exit 2; }
number() { [[ $2 =~ ^[1-9][0-9]*$ ]] || fail "$1 takes a whole number from 1, not '$2'"; }
while (($#)); do
    case $1 in --rev|--width|--qps|--seed|--events) (($# >= 2)) || fail "$1 takes a value" ;; esac
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
case $width in 64|128|256|512) ;; *) fail "--width takes 64, 128, 256 or 512, not '$width'" ;; esac
((qps <= 65536)) || fail "--qps takes 1 to 65536, not '$qps'"
command -v iverilog >/dev/null || fail "iverilog not found (ci/setup.sh installs it)"
commit=$(git rev-parse --verify --quiet "$rev^{commit}") || fail "no git revision '$rev'"

work=target/rtl-equiv
rm -rf "$work/orig" "$work/new"
mkdir -p "$work/orig" "$work/new"
# The revision's RTL, every module renamed *_orig so that both elaborate
# in one simulation. Module names are lower case and macros upper case,
# so the word-bounded rename touches no macro (checked).
git archive "$commit" rtl | tar -x -C "$work/orig" || fail "no rtl/ at $rev"
cp -r rtl "$work/new/"
# The bench drives both with the working tree's cfg bus (metaroce_cfg.vh).
cmp -s "$work/orig/rtl/metaroce_cfg.vh" rtl/metaroce_cfg.vh \
    || fail "rtl/metaroce_cfg.vh differs at $rev: the two blocks' cfg buses differ, and the bench drives one"
(
    cd "$work/orig/rtl"
    modules=$(grep -ho '^module [a-z_0-9]*' ./*.v | awk '{print $2}' | sort -u)
    for m in $modules; do
        if grep -hqE "^\s*\`(define|ifdef|ifndef|undef)\s+$m\b" ./*.v ./*.vh; then
            fail "module name $m is also a macro name"
        fi
        sed -i "s/\b$m\b/${m}_orig/g" ./*.v ./*.vh
    done
)
if ((plant)); then
    # The responder's "unacked + 1 >= ack_coalesce_pkts" made ">".
    target='wire        coalesce_due = $signed({1'"'"'b0, ent_unacked}) >= coalesce_limit_reg;'
    grep -qF "$target" "$work/new/rtl/roce_responder.v" \
        || fail "--plant's line is no longer in rtl/roce_responder.v: update the plant"
    sed -i 's/ent_unacked}) >= coalesce_limit_reg;/ent_unacked}) > coalesce_limit_reg;/' "$work/new/rtl/roce_responder.v"
    ! cmp -s rtl/roce_responder.v "$work/new/rtl/roce_responder.v" || fail "--plant changed nothing"
fi

# Each side is preprocessed on its own (its own include path, macros and
# include guards), and only then elaborated with the other.
defines=()
((assert)) && defines=(-DMETAROCE_ASSERTIONS)
preprocess() {  # SIDE
    local dir=$work/$1/rtl
    sed -e "s#^+incdir+rtl#+incdir+$dir#" -e "s#^rtl/#$dir/#" "$dir/cn.f" > "$work/$1.f"
    iverilog -g2012 -E "${defines[@]}" -o "$work/$1.pp.v" -f "$work/$1.f" || fail "preprocessing $1's RTL failed"
    sed -i 's/^\s*import "DPI-C" function void metaroce_assertion_failed(input string message);/function automatic void metaroce_assertion_failed(input string message); begin cn_equiv_tb.rtl_assertion(message); end endfunction/' \
        "$work/$1.pp.v"
    ! grep -q 'import "DPI-C"' "$work/$1.pp.v" || fail "a DPI import the bench does not replace, in $1's RTL"
}
preprocess orig
preprocess new
iverilog -g2012 -o "$work/sim.vvp" -s cn_equiv_tb -P cn_equiv_tb.W="$width" -P cn_equiv_tb.Q="$qps" \
    -I "$work/new/rtl" -I cosim/equiv "$work/orig.pp.v" "$work/new.pp.v" cosim/equiv/cn_equiv_tb.sv \
    > "$work/build.log" 2>&1 || { cat "$work/build.log" >&2; fail "build failed"; }
# A port of another width (an interface change between the revisions)
# is only a warning to Icarus.
! grep -iE "expects [0-9]+ bits|padding|pruning" "$work/build.log" >&2 || fail "the two blocks' ports differ (above)"

echo "ci/rtl-equiv.sh: roce_cn at $rev (${commit:0:12}) against the working tree$( ((plant)) && echo ', with the planted fault')"
cd "$work"
vvp -n sim.vvp +seed="$seed" +events="$events" "${plusargs[@]}" | tee run.log || fail "vvp failed"
grep -q '^EQUIV PASS' run.log
