#!/usr/bin/env bash
# Rewind's one-stop developer command: installs what a fresh machine lacks, then runs a job.
#
#   Tools/dev.sh demo [rewind demo options]   record the shop app's session, then replay it with rewind
#   Tools/dev.sh test [swift test options]    build and run the whole test suite (with a throwaway
#                                             PostgreSQL server for the PostgreSQL store's tests)
#   Tools/dev.sh build                        build everything the tests use: libraries, tools, tests
#   Tools/dev.sh bench [rewind-bench options] run the benchmarks (release build)
#   Tools/dev.sh allocations [--json]         count allocations per dispatch, with and without the recorder
#   Tools/dev.sh soak [store-soak options]    the PostgreSQL soak: recorder and serve through stopped
#                                             backends and restarts, 10 minutes (release build; a
#                                             throwaway server unless REWIND_TEST_POSTGRES_URL is set)
#
# On Debian or Ubuntu it installs libsqlite3-dev and zlib1g-dev (and, for the tests, postgresql, openssl and curl) through apt-get
# when missing (with sudo when not root). On macOS the system SQLite is used, and PostgreSQL's
# tests run when its initdb and pg_ctl are on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'dev.sh: %s\n' "$*" >&2; }

require_swift() {
    if ! command -v swift >/dev/null 2>&1; then
        say "Swift 6.1 or newer is needed and 'swift' is not on PATH: see https://www.swift.org/install/"
        exit 2
    fi
}

ensure_sqlite() {
    [ "$(uname -s)" = "Linux" ] || return 0
    if command -v dpkg-query >/dev/null 2>&1; then
        if dpkg-query -W -f='${Status}' libsqlite3-dev 2>/dev/null | grep -q "install ok installed" \
            && dpkg-query -W -f='${Status}' zlib1g-dev 2>/dev/null | grep -q "install ok installed" \
            && command -v sqlite3 >/dev/null; then
            return 0
        fi
        say "installing libsqlite3-dev (SQLite for the event log), zlib1g-dev (zlib for its snapshots) and sqlite3 (to read logs)"
        local sudo=""
        if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libsqlite3-dev zlib1g-dev sqlite3 >/dev/null
    elif [ ! -f /usr/include/sqlite3.h ] || [ ! -f /usr/include/zlib.h ]; then
        say "SQLite's or zlib's headers (sqlite3.h, zlib.h) are missing: install your distribution's SQLite and zlib development packages"
        exit 2
    fi
}

# The tests' clients for the collector's HTTPS (a self-signed certificate, and a client that
# trusts it): openssl and curl, installed through apt-get when missing.
ensure_test_tools() {
    command -v openssl >/dev/null 2>&1 && command -v curl >/dev/null 2>&1 && return 0
    if ! command -v apt-get >/dev/null 2>&1; then
        say "the tests need openssl and curl: install them with your package manager"
        exit 2
    fi
    say "installing openssl and curl (the collector's HTTPS tests)"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq openssl curl >/dev/null
}

# The jobs for Rewind's own development build one configuration: all of the package's traits
# (PostgreSQL and the report collector), so that the tests, CI's steps and the tools share one
# build instead of recompiling Rewind's modules for each set of traits. The demo builds what a
# user's `swift run rewind` builds (the default traits), as the README's next commands do.
traits=(--enable-all-traits)

job="${1:-}"
[ $# -gt 0 ] && shift
case "$job" in
    demo)
        require_swift
        ensure_sqlite
        swift build --product rewind
        rewind="$(swift build --show-bin-path)/rewind"
        "$rewind" demo "$@"
        # Replay what was just recorded: find the seeded bug, and check the reducer reproduces it.
        output=rewind-demo.rewind
        while [ $# -gt 0 ]; do
            case "$1" in
                -o|--output) output="$2"; shift ;;
                --output=*) output="${1#--output=}" ;;
            esac
            shift
        done
        echo
        echo "\$ rewind bisect $output --invariant non-negative-total"
        "$rewind" bisect "$output" --invariant non-negative-total || true
        echo
        echo "\$ rewind verify $output"
        "$rewind" verify "$output"
        echo
        echo "Look at it in the browser: swift run rewind serve $output"
        ;;
    build)
        # REWIND_BUILT=1: the caller built just now (CI's build step), and the scripts that call
        # this before using the build (docs, browser, MCP, the debug soak) skip the no-op build's
        # ten seconds of planning.
        [ "${REWIND_BUILT:-}" = 1 ] && exit 0
        require_swift
        ensure_sqlite
        swift build "${traits[@]}" --build-tests "$@"
        ;;
    test)
        require_swift
        ensure_sqlite
        ensure_test_tools
        # The PostgreSQL store's tests need a server: a throwaway one (Tools/postgres.sh),
        # unless REWIND_TEST_POSTGRES_URL names one. Without one they are skipped, except
        # under CI=true, where they fail.
        if [ -z "${REWIND_TEST_POSTGRES_URL:-}" ]; then
            pgdir="$(mktemp -d)"
            trap 'Tools/postgres.sh stop "$pgdir"; rm -rf "$pgdir"' EXIT
            if url="$(Tools/postgres.sh start "$pgdir")"; then
                export REWIND_TEST_POSTGRES_URL="$url"
                say "PostgreSQL for the tests: a throwaway server on 127.0.0.1:$(cat "$pgdir/port"), stopped on exit"
            elif [ "${CI:-}" = "true" ]; then
                say "could not start PostgreSQL for the tests"
                exit 1
            else
                say "could not start PostgreSQL: its tests are skipped (set REWIND_TEST_POSTGRES_URL to run them)"
            fi
        fi
        swift test "${traits[@]}" "$@"
        ;;
    bench)
        require_swift
        ensure_sqlite
        exec swift run "${traits[@]}" -c release rewind-bench "$@"
        ;;
    allocations)
        require_swift
        ensure_sqlite
        exec swift run "${traits[@]}" -c release rewind-allocations "$@"
        ;;
    soak)
        require_swift
        ensure_sqlite
        # SOAK_CONFIGURATION=debug uses the debug build (CI's short run, on what it built).
        configuration="${SOAK_CONFIGURATION:-release}"
        if [ "$configuration" = debug ]; then
            # What `build` builds, so that nothing is recompiled (see Tools/browser-tests.sh).
            Tools/dev.sh build
        else
            swift build "${traits[@]}" -c "$configuration" --product rewind
            swift build "${traits[@]}" -c "$configuration" --product rewind-stress
        fi
        bin="$(swift build "${traits[@]}" -c "$configuration" --show-bin-path)"
        restart=()
        if [ -z "${REWIND_TEST_POSTGRES_URL:-}" ]; then
            pgdir="$(mktemp -d)"
            trap 'Tools/postgres.sh stop "$pgdir"; rm -rf "$pgdir"' EXIT
            url="$(Tools/postgres.sh start "$pgdir")" || { say "could not start PostgreSQL for the soak"; exit 1; }
            export REWIND_TEST_POSTGRES_URL="$url"
            # Our own throwaway server: the soak restarts it once.
            restart=(--restart-server "Tools/postgres.sh restart $pgdir")
        fi
        "$bin/rewind-stress" store-soak "${restart[@]}" "$@"
        ;;
    *)
        sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
        [ -z "$job" ] && exit 0
        say "unknown job '$job'"
        exit 2
        ;;
esac
