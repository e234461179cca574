#!/usr/bin/env bash
# Builds the DocC documentation of every library module, failing on any DocC warning.
#
#   Tools/docs.sh                  build every module's archive into .build/docs/<Module>.doccarchive
#   Tools/docs.sh preview MODULE   serve one module's documentation at http://localhost:8080
#
# Uses swift-docc-plugin (a package dependency) and the toolchain's docc.
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(Rewind RewindCoding RewindLogCore RewindSQLite RewindPostgres RewindReplay RewindTesting RewindCLI RewindInspector RewindFeedback RewindOpenCombine RewindUpload)

if [ "${1:-}" = "preview" ]; then
    module="${2:?usage: Tools/docs.sh preview MODULE}"
    exec swift package --disable-sandbox preview-documentation --target "$module"
fi

mkdir -p .build/docs
failed=()
for module in "${modules[@]}"; do
    log=".build/docs/$module.log"
    # --warnings-as-errors: an unresolved link or a parameter doc for a parameter that does not
    # exist fails the build instead of scrolling by.
    if swift package --allow-writing-to-directory .build/docs generate-documentation \
        --target "$module" --warnings-as-errors --output-path ".build/docs/$module.doccarchive" >"$log" 2>&1; then
        echo "docs: $module ok"
    else
        echo "docs: $module has DocC warnings or errors:" >&2
        grep -E "^(warning|error):" "$log" | grep -v "invocation failed\|error was encountered\|NSCocoaErrorDomain" >&2 || tail -20 "$log" >&2
        failed+=("$module")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "docs: failed for ${failed[*]}" >&2
    exit 1
fi
