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
log=.build/docs/docs.log
# One plugin run for every module: the package is planned and its symbol graphs built once,
# not once a module (a run a module spent about a minute of CI's time on that alone).
# --warnings-as-errors: an unresolved link or a parameter doc for a parameter that does not
# exist fails the build instead of scrolling by.
targets=()
for module in "${modules[@]}"; do targets+=(--target "$module"); done
status=0
swift package --allow-writing-to-directory .build/docs generate-documentation \
    "${targets[@]}" --warnings-as-errors --output-path .build/docs >"$log" 2>&1 || status=$?
missing=()
for module in "${modules[@]}"; do
    if grep -q "Finished building documentation for '$module'" "$log" && [ -d ".build/docs/$module.doccarchive" ]; then
        echo "docs: $module ok"
    else
        missing+=("$module")
    fi
done
if [ "$status" -ne 0 ] || [ ${#missing[@]} -gt 0 ]; then
    echo "docs: DocC warnings or errors (full log: $log):" >&2
    grep -E "^(warning|error):|: (warning|error):" "$log" | grep -v "invocation failed\|error was encountered\|NSCocoaErrorDomain" >&2 || tail -20 "$log" >&2
    [ ${#missing[@]} -gt 0 ] && echo "docs: no archive for ${missing[*]}" >&2
    exit 1
fi
