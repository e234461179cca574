#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each for a set time over the committed seed corpus.
#
#   Fuzz/run.sh [SECONDS] [TARGET …]     SECONDS per target (default 60); TARGETs among
#                                         binary-payload, generated-code, json-payload, jsonl-import,
#                                         report (default: all)
#   FUZZ_CONFIGURATION=debug Fuzz/run.sh  a debug build (faster to build, slower to run)
#   FUZZ_JOBS=1 Fuzz/run.sh               one target at a time (default: one per core; the last
#                                         targets, fewer than the cores, each run as several
#                                         processes sharing its SECONDS, so that no core idles)
#
# New inputs that add coverage go to .build/corpus/TARGET (kept between runs); a crash, hang or
# runaway allocation is written to .build/crashes/TARGET/ and makes the script exit 1. Turn each
# into a regression test (the input's bytes, decoded in a test) before fixing it.
set -euo pipefail
cd "$(dirname "$0")"

seconds=${1:-60}
shift || true
targets=${*:-binary-payload generated-code json-payload jsonl-import report}
configuration=${FUZZ_CONFIGURATION:-release}

# libFuzzer without its main, from the toolchain's clang runtime (see Package.swift).
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")
REWIND_FUZZER_NO_MAIN=$(ls "$toolchain"/lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-*.a 2>/dev/null | head -1)
if [ -z "$REWIND_FUZZER_NO_MAIN" ]; then
    echo "this toolchain has no libFuzzer runtime (libclang_rt.fuzzer_no_main)" >&2
    exit 2
fi
export REWIND_FUZZER_NO_MAIN

# The macro's host tool from the main package's debug build (`swift build` or Tools/dev.sh build
# at the top) when it is newer than the macro's sources: this package then does not compile
# swift-syntax again (see Package.swift). Otherwise it builds its own.
tool=$(cd .. && pwd)/.build/debug/RewindMacros-tool
if [ -x "$tool" ] && [ -z "$(find ../Sources/RewindMacros -newer "$tool" -print -quit)" ]; then
    export REWIND_MACRO_TOOL=$tool
else
    export REWIND_MACRO_TOOL=
fi

# The build's own status, not grep's: a failed build stops here with its errors shown.
build_log=$(mktemp)
if ! swift build -c "$configuration" >"$build_log" 2>&1; then
    grep -E "error|warning: " "$build_log" >&2 || tail -n 40 "$build_log" >&2
    rm -f "$build_log"
    exit 1
fi
grep -E "^Build complete|warning: " "$build_log" || true
rm -f "$build_log"
bin=.build/$configuration

# Each target is one process on one core: as many run side by side as there are cores
# (FUZZ_JOBS), each for SECONDS.
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}

# run_target TARGET [PARTS]: fuzzes it for SECONDS of CPU, as PARTS processes (1 by default)
# side by side over its one corpus, each for SECONDS / PARTS; its summary line goes to
# .build/fuzz-TARGET.summary, and it exits 1 on an artifact or a run that never started.
run_target() {
    local target=$1 parts=${2:-1} seeds corpus crashes log runs coverage found part
    case $target in
        binary-payload|generated-code) seeds=Corpus/binary ;;
        json-payload) seeds=Corpus/json ;;
        jsonl-import) seeds=Corpus/jsonl ;;
        report) seeds=Corpus/report ;;
    esac
    corpus=.build/corpus/$target
    crashes=.build/crashes/$target
    mkdir -p "$corpus" "$crashes"
    log=.build/fuzz-$target.log
    local pids=()
    for part in $(seq "$parts"); do
        "$bin/fuzz-$target" -max_total_time="$(( (seconds + parts - 1) / parts ))" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
            -artifact_prefix="$crashes/" -print_final_stats=1 "$corpus" "$seeds" >"$log.$part" 2>&1 &
        pids+=($!)
    done
    for part in "${pids[@]}"; do wait "$part" || true; done
    cat $(seq -f "$log.%g" "$parts") >"$log"
    rm -f $(seq -f "$log.%g" "$parts")
    # Executions summed over the parts; coverage the widest part's.
    runs=$(grep -E "stat::number_of_executed_units" "$log" | awk '{ total += $2; seen = 1 } END { if (seen) print total }')
    coverage=$(grep -E "^#[0-9]+.*(DONE|pulse|NEW|REDUCE).*cov:" "$log" | sed -E 's/.*cov: ([0-9]+).*/\1/' | sort -n | tail -1)
    found=$(find "$crashes" -type f | wc -l | tr -d ' ')
    echo "fuzz-$target: ${runs:-0} executions in $seconds s$([ "$parts" -gt 1 ] && echo " ($parts processes)"), coverage ${coverage:-?} edges, corpus $(ls "$corpus" | wc -l | tr -d ' ') inputs, $found crash/hang/oom artifacts" >".build/fuzz-$target.summary"
    [ "$found" = 0 ] && [ -n "$runs" ] && [ "$(grep -c "stat::number_of_executed_units" "$log")" -eq "$parts" ]
}

for target in $targets; do
    case $target in
        binary-payload|generated-code|json-payload|jsonl-import|report) ;;
        *) echo "unknown target $target" >&2; exit 2 ;;
    esac
done

failed=0
# Running targets as TARGET:PID:SLOTS, SLOTS the cores each holds.
running=()
finish() {
    local target=$1 pid=$2
    if ! wait "$pid"; then
        failed=1
        cat ".build/fuzz-$target.summary" 2>/dev/null
        tail -n 40 ".build/fuzz-$target.log" >&2
    else
        cat ".build/fuzz-$target.summary"
    fi
}
held() { local total=0 entry; for entry in "${running[@]}"; do total=$((total + ${entry##*:})); done; echo "$total"; }
# The targets that would run last, fewer than the cores (5 on 2: the fifth alone, a core idle
# for its whole run), are split instead: each as jobs/left processes of a share of its time,
# so that every core works to the end and each target still gets SECONDS of CPU.
set -- $targets
count=$#
left=$((count % jobs))
index=0
for target in $targets; do
    index=$((index + 1))
    parts=1
    if [ "$left" -gt 0 ] && [ $((jobs / left)) -ge 2 ] && [ "$index" -gt $((count - left)) ]; then parts=$((jobs / left)); fi
    # Room for its processes: the oldest running target finishes first.
    while [ ${#running[@]} -gt 0 ] && [ $(( $(held) + parts )) -gt "$jobs" ]; do
        entry=${running[0]}
        finish "${entry%%:*}" "$(cut -d: -f2 <<<"$entry")"
        running=("${running[@]:1}")
    done
    run_target "$target" "$parts" &
    running+=("$target:$!:$parts")
done
for entry in "${running[@]}"; do finish "${entry%%:*}" "$(cut -d: -f2 <<<"$entry")"; done
exit $failed
