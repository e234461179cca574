#!/usr/bin/env bash
# Builds Tests/Consumer, an app as the README installs Rewind (`traits: []`), against this
# checkout; runs its tests, and its replay tool on the session they record; then checks that
# nothing of PostgreSQL, SwiftNIO, swift-log or a server framework was built into it (nor
# swift-syntax: it does not use `@BinaryCodable`), and that no
# dependency's manifest needs a newer toolchain than the README's floor (Swift 6.2).
#
#   Tools/consumer.sh            the above (CI runs it)
#   Tools/consumer.sh --sizes    also what Rewind adds to a stripped release binary: the
#                                baseline app, on Rewind's store, and recording (a release build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=${REWIND_CONSUMER_SCRATCH:-$root/.build/consumer}
floor=6.2
cd "$root/Tests/Consumer"

swift build --build-tests --scratch-path "$scratch"
log=$(mktemp -d)/counter.rewind
COUNTER_LOG=$log swift test --skip-build --scratch-path "$scratch"

# The replay tool, as the app's developer runs it: the breach at seq 3, exit 0 (found).
bisect=$("$scratch/debug/counter-rewind" bisect "$log" --invariant never-negative)
echo "$bisect"
grep -q "breaks: seq 3" <<<"$bisect" || { echo "consumer: the replay tool did not find the breach at seq 3" >&2; exit 1; }

# What was built: modules of the server side must not be among them.
built=$(find "$scratch/debug/" -name '*.swiftmodule' -printf '%f\n' | sed 's/\.swiftmodule$//' | sort -u)
forbidden=$(grep -xE 'PostgresNIO|NIO|NIOCore|NIOPosix|NIOSSL|NIOTLS|Logging|Hummingbird.*|Vapor|RewindPostgres' <<<"$built" || true)
if [ -n "$forbidden" ]; then
    echo "consumer: built with traits: [], yet these server-side modules were built:" >&2
    echo "$forbidden" >&2
    exit 1
fi
# Nor swift-syntax: the app marks no type with `@BinaryCodable`, and the log depends on
# RewindCodingCore alone, so the macro's plugin (built from swift-syntax) is not built for it.
syntax=$(grep -xE 'SwiftSyntax.*|SwiftParser.*|SwiftCompilerPlugin.*|SwiftDiagnostics|SwiftBasicFormat|SwiftOperators|RewindMacros|RewindCoding' <<<"$built" || true)
if [ -n "$syntax" ]; then
    echo "consumer: the app does not use @BinaryCodable, yet these modules of the macro were built:" >&2
    echo "$syntax" >&2
    exit 1
fi
echo "consumer: $(wc -l <<<"$built") modules built, none of PostgreSQL, SwiftNIO, swift-log, a server or swift-syntax"

# The toolchain floor: the manifest a Swift $floor toolchain would read in each dependency
# (the newest Package@swift-X.swift with X <= floor, else Package.swift) asks no newer tools.
python3 - "$scratch/checkouts" "$floor" <<'PY'
import pathlib, re, sys
checkouts, floor = pathlib.Path(sys.argv[1]), tuple(map(int, sys.argv[2].split(".")))
def version(text):
    return tuple(int(part) for part in text.split("."))
worst = []
for package in sorted(p for p in checkouts.iterdir() if p.is_dir()):
    candidates = [(version(m.group(1)), p) for p in package.glob("Package@swift-*.swift")
                  if (m := re.match(r"Package@swift-([\d.]+)\.swift", p.name)) and version(m.group(1)) <= floor]
    manifest = max(candidates)[1] if candidates else package / "Package.swift"
    tools = re.search(r"swift-tools-version:\s*([\d.]+)", manifest.read_text().splitlines()[0])
    needed = version(tools.group(1)) if tools else (0,)
    if needed > floor:
        worst.append(f"{package.name} ({manifest.name}) needs tools {tools.group(1)}")
if worst:
    print("consumer: dependencies a Swift %s toolchain cannot read:\n  " % sys.argv[2] + "\n  ".join(worst), file=sys.stderr)
    sys.exit(1)
print(f"consumer: every dependency's manifest reads with Swift {sys.argv[2]}")
PY

# A team that wants `rewind mcp` in its replay tool turns the MCP trait on: the MCP swift-sdk
# (whose manifest names the DocC plugin by branch) must resolve from a consumer's graph too.
mcp=$(mktemp -d)
cp -R "$root/Tests/Consumer/." "$mcp/"
sed -i "s|path: \"../..\", traits: \[\]|path: \"$root\", traits: [\"MCP\"]|" "$mcp/Package.swift"
grep -q 'traits: \["MCP"\]' "$mcp/Package.swift" || { echo "consumer: could not turn the MCP trait on in a copy of the manifest" >&2; exit 1; }
(cd "$mcp" && swift package resolve --scratch-path "$mcp/.build" >/dev/null)
grep -q '"identity" : "swift-sdk"' "$mcp/Package.resolved" || { echo "consumer: with the MCP trait, the MCP swift-sdk did not resolve" >&2; exit 1; }
echo "consumer: with traits: [\"MCP\"], the graph resolves ($(grep -c '"identity"' "$mcp/Package.resolved") packages, the MCP swift-sdk among them)"
rm -rf "$mcp"
if [ "${1:-}" = "--sizes" ]; then
    swift build -c release --scratch-path "$scratch" --product size-baseline
    swift build -c release --scratch-path "$scratch" --product size-store
    swift build -c release --scratch-path "$scratch" --product size-recording
    sizes=$(mktemp -d)
    for product in size-baseline size-store size-recording; do
        strip -o "$sizes/$product" "$scratch/release/$product"
        "$sizes/$product" >/dev/null
    done
    base=$(stat -c %s "$sizes/size-baseline")
    for product in size-store size-recording; do
        size=$(stat -c %s "$sizes/$product")
        printf '%-15s %9d bytes stripped, +%d over the baseline (%d)\n' "$product" "$size" $((size - base)) "$base"
    done
fi
