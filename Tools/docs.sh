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

modules=(Rewind RewindCoding RewindLogCore RewindSQLite RewindPostgres RewindReplay RewindTesting RewindCLI RewindInspector RewindFeedback RewindOpenCombine RewindUpload)

if [ "${1:-}" = "preview" ]; then
    module="${2:?usage: Tools/docs.sh preview MODULE}"
    exec swift package --disable-sandbox preview-documentation --target "$module"
fi

mkdir -p .build/docs
log=.build/docs/docs.log
: >"$log"

# The symbol graphs come from the modules the debug build already compiled (what
# `swift package dump-symbol-graph` reads: no compile when the build is up to date; the DocC
# plugin's own extraction rebuilt the whole package for the host, about three minutes of CI's
# time). Options as the plugin sets them: public symbols, synthesized members, extension blocks.
if ! swift package --enable-all-traits dump-symbol-graph --emit-extension-block-symbols >>"$log" 2>&1; then
    echo "docs: the symbol graphs could not be made:" >&2
    tail -20 "$log" >&2
    exit 1
fi
graphs=$(sed -n 's/^Files written to //p' "$log" | tail -1)
[ -d "$graphs" ] || { echo "docs: no symbol graph folder in the output ($log)" >&2; exit 1; }
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
