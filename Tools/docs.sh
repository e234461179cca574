#!/usr/bin/env bash
# Builds the DocC documentation of every library module, failing on any DocC warning.
#
#   Tools/docs.sh                  build every module's archive into .build/docs/<Module>.doccarchive
#   Tools/docs.sh preview MODULE   serve one module's documentation at http://localhost:8080
#
# Archives: the toolchain's docc over the symbol graphs of the debug build (all traits on, as
# Tools/dev.sh builds). Preview: swift-docc-plugin (a package dependency).
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(Rewind RewindCodingCore RewindCoding RewindLogCore RewindSQLite RewindPostgres RewindReplay RewindTesting RewindCLI RewindInspector RewindFeedback RewindOpenCombine RewindUpload)

if [ "${1:-}" = "preview" ]; then
    module="${2:?usage: Tools/docs.sh preview MODULE}"
    exec swift package --disable-sandbox preview-documentation --target "$module"
fi

mkdir -p .build/docs
log=.build/docs/docs.log
: >"$log"

# The symbol graphs come from the modules the debug build compiled (Tools/dev.sh build: all
# traits, tests included), read by the toolchain's swift-symbolgraph-extract with the search
# paths and Clang module maps each module was compiled with, taken from the build's own
# description (.build/debug.yaml). Nothing is compiled here: `swift package dump-symbol-graph`
# builds the package without its tests, a different set of targets, after which SwiftPM
# recompiled Rewind's modules for every later build of the other set (one to two minutes of
# CI's time each way). Options as the DocC plugin sets them: public symbols, synthesized
# members, extension blocks.
Tools/dev.sh build >>"$log" 2>&1 || { echo "docs: the debug build failed:" >&2; tail -20 "$log" >&2; exit 1; }
graphs=.build/docs/symbol-graphs
rm -rf "$graphs"
mkdir -p "$graphs"
if ! python3 - .build/debug.yaml "$graphs" "${modules[@]}" >>"$log" 2>&1 <<'PY'
import json, subprocess, sys
manifest, output, modules = sys.argv[1], sys.argv[2], sys.argv[3:]
# Each module's compile command (the target's, not the copy built for the host's tools).
commands, key = {}, None
for line in open(manifest):
    stripped = line.strip()
    if stripped.startswith('"C.') and stripped.endswith('-debug.module":'):
        key = stripped[3:-len('-debug.module":')]
    elif key and stripped.startswith("args: ["):
        commands[key] = json.loads(stripped[len("args: "):])
        key = None
for module in modules:
    args = next((a for a in commands.values() if "-module-name" in a and a[a.index("-module-name") + 1] == module), None)
    if args is None:
        sys.exit(f"no compile command for {module} in {manifest}")
    flags, i = [], 0
    while i < len(args):
        if args[i] in ("-I", "-F", "-Xcc", "-sdk", "-target", "-module-cache-path", "-swift-version"):
            flags += args[i:i + 2]
            i += 2
        else:
            i += 1
    command = ["swift", "symbolgraph-extract", "-module-name", module, "-minimum-access-level", "public",
               "-emit-extension-block-symbols", "-output-dir", output] + flags
    result = subprocess.run(command, capture_output=True, text=True)
    print(f"{module}: exit {result.returncode}")
    if result.returncode != 0:
        sys.exit(f"swift symbolgraph-extract failed for {module}:\n{result.stderr[-2000:]}")
PY
then
    echo "docs: the symbol graphs could not be made:" >&2
    tail -20 "$log" >&2
    exit 1
fi
docc=$(command -v docc || xcrun --find docc 2>/dev/null || true)
[ -n "$docc" ] || { echo "docs: the toolchain has no docc" >&2; exit 1; }

# convert MODULE: its archive from its catalog and its own symbol graphs; 0 when DocC warned
# of nothing (--warnings-as-errors: an unresolved link or a parameter doc for a parameter that
# does not exist fails instead of scrolling by).
convert() {
    local module=$1 own
    own=$(mktemp -d)
    cp "$graphs/$module.symbols.json" "$own/"
    cp "$graphs/$module"@*.symbols.json "$own/" 2>/dev/null || true
    rm -rf ".build/docs/$module.doccarchive"
    local status=0
    "$docc" convert "Sources/$module/$module.docc" --emit-lmdb-index \
        --fallback-display-name "$module" --fallback-bundle-identifier "$module" \
        --additional-symbol-graph-dir "$own" --output-path ".build/docs/$module.doccarchive" \
        --warnings-as-errors >".build/docs/$module.log" 2>&1 || status=$?
    rm -rf "$own"
    return $status
}

# Two conversions at a time (each mostly one core).
failed=()
pending=()
settle() {
    local entry=$1
    if wait "${entry##*:}"; then
        echo "docs: ${entry%%:*} ok"
    else
        failed+=("${entry%%:*}")
        echo "docs: ${entry%%:*} has DocC warnings or errors:" >&2
        grep -E "(warning|error):" ".build/docs/${entry%%:*}.log" >&2 || tail -20 ".build/docs/${entry%%:*}.log" >&2
    fi
}
for module in "${modules[@]}"; do
    convert "$module" &
    pending+=("$module:$!")
    if [ ${#pending[@]} -ge 2 ]; then
        settle "${pending[0]}"
        pending=("${pending[@]:1}")
    fi
done
for entry in "${pending[@]}"; do settle "$entry"; done
if [ ${#failed[@]} -gt 0 ]; then
    echo "docs: failed for ${failed[*]}" >&2
    exit 1
fi
