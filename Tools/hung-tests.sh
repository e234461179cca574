#!/usr/bin/env bash
# Tools/hung-tests.sh LOG: for a `swift test` run that hangs. Prints what the test process's
# threads are doing (through gdb, when it is installed and may attach): the Swift pool's
# threads in full (a test or effect blocked there holds up every async test), the others
# counted by where they wait. Then names the Swift Testing tests that started in LOG (swift
# test's output) and never ended, and stops the test processes: every process on the machine
# whose command line names a `PackageTests.xctest`, so not while another package's tests run.
# CI runs it when the tests pass their time limit; run it by hand on a stuck local run.
#
#   Tools/hung-tests.sh --names LOG   only the names, touching no process (HungTestsScriptTests)
set -uo pipefail

# A test's end is any of: "✔ Test "…" passed after", "━ … passed after … with 1 known issue",
# "✘ … failed after", each perhaps "… with 14 test cases passed after" for a parameterized one.
# (Counting only the first and third once listed 46 tests that had ended beside the one that
# had not.) Swift Testing prints "started" before a test waits for one of its slots (twice the
# cores), so tests queued behind a hung one are listed too: the hung one is among the earliest
# started.
names() {
    echo "== tests that started and did not end (and may be waiting behind one that hangs)"
    awk '
        /^◇ Test ".*" started\.$/ {
            name = $0; sub(/^◇ Test "/, "", name); sub(/" started\.$/, "", name); open[name]++; next
        }
        /^(✔|✘|━) Test ".*" (with [0-9]+ test cases? )?(passed|failed) after / {
            name = $0; sub(/^(✔|✘|━) Test "/, "", name); sub(/" (with [0-9]+ test cases? )?(passed|failed) after .*$/, "", name); open[name]--; next
        }
        END { for (name in open) if (open[name] > 0) print "  " name }
    ' "$1" | sort
}

if [ "${1:-}" = "--names" ]; then
    names "${2:?usage: Tools/hung-tests.sh --names LOG}"
    exit
fi
log=${1:?usage: Tools/hung-tests.sh LOG}

# The test binary: swift test runs `<package>PackageTests.xctest`, once per testing library.
pids=$(pgrep -f 'PackageTests\.xctest' || true)
for pid in $pids; do
    echo "== threads of process $pid: $(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)"
    if ! command -v gdb >/dev/null; then
        echo "  (gdb is not installed: no stacks)"
        continue
    fi
    timeout 120 gdb -p "$pid" -batch -ex "thread apply all bt 40" 2>/dev/null \
        | grep -E '^(Thread|#)' \
        | { command -v swift >/dev/null && swift demangle --simplified || cat; } \
        | python3 -c '
import re, sys, collections
threads = re.split(r"\n(?=Thread )", sys.stdin.read())
others = collections.Counter()
for thread in threads:
    frames = [line for line in thread.split("\n")[1:] if line.startswith("#")]
    if not frames:
        continue
    if any("swift_job_run" in frame for frame in frames):
        print(thread.split("\n")[0] + "  [Swift pool]")
        for frame in frames:
            print("  " + frame[:240])
    else:
        ours = [re.sub(r"^#\d+\s+(0x\w+ in )?", "", f)[:160] for f in frames if "/Sources/" in f or "/Tests/" in f]
        top = re.sub(r"^#\d+\s+(0x\w+ in )?", "", frames[0])[:60]
        others[(ours[0] if ours else top)] += 1
print("other threads, by where they wait:")
for where, count in others.most_common():
    print(f"  {count:3}  {where}")
'
done

names "$log"

for pid in $pids; do kill -KILL "$pid" 2>/dev/null || true; done
