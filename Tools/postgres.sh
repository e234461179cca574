#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: a new cluster in a folder of its own, on a free
# loopback port, with a password-protected role and database; nothing outside the folder is
# touched, and stopping it leaves nothing running.
#
#   Tools/postgres.sh start DIR   install PostgreSQL if missing, create and start the cluster in
#                                 DIR (which must be empty or absent); prints its URL, e.g.
#                                 postgres://rewind:…@127.0.0.1:5433/rewind
#   Tools/postgres.sh restart DIR restart it (fast: open connections are cut), same port
#   Tools/postgres.sh stop DIR    stop it (fast shutdown); safe to call when it is not running
#   Tools/postgres.sh resume DIR  start a stopped cluster again, same port
#
# Tools/dev.sh test starts one for the suite when REWIND_TEST_POSTGRES_URL is not set, and
# stops it on exit. Set REWIND_TEST_POSTGRES_URL to test against a server of your own.
#
# On Debian or Ubuntu it installs the postgresql package through apt-get when initdb is missing
# (with sudo when not root). initdb refuses to run as root: as root, the cluster is created and
# run as the postgres user the package creates.
set -euo pipefail

say() { printf 'postgres.sh: %s\n' "$*" >&2; }

# continue_backends: sends SIGCONT to every process of the cluster in $dir. The tests and the
# soak stop backends (SIGSTOP) to make a server that does not answer; one whose stopper was killed
# before continuing it would hold a fast stop or restart forever (it waits for every backend).
continue_backends() {
    local postmaster
    postmaster=$(head -1 "$dir/data/postmaster.pid" 2>/dev/null || true)
    [[ "$postmaster" =~ ^[0-9]+$ ]] || return 0
    as_owner pkill -CONT -P "$postmaster" >/dev/null 2>&1 || true
}

find_bin() {
    local dir
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        [ -x "$dir/initdb" ] && { echo "$dir"; return 0; }
    done
    if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return 0; fi
    return 1
}

ensure_postgres() {
    find_bin >/dev/null && return 0
    if ! command -v apt-get >/dev/null 2>&1; then
        say "PostgreSQL's server programs (initdb, pg_ctl) are needed: install PostgreSQL with your package manager"
        exit 2
    fi
    say "installing postgresql (a throwaway server for the tests)"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
    find_bin >/dev/null || { say "postgresql installed, but initdb was not found"; exit 2; }
}

# Runs a server program as the cluster's owner.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

command="${1:-}"
dir="${2:-}"
[ -n "$command" ] && [ -n "$dir" ] || { say "usage: Tools/postgres.sh start|restart|stop|resume DIR"; exit 2; }

# The server must not inherit its caller's open files. A test process holds hundreds (its logs,
# its connections), and PostgreSQL counts inherited descriptors against max_files_per_process:
# with about 970 of them it refused to start ("insufficient file descriptors available to start
# server process"). Closes every descriptor but 0, 1, 2 and 255 (bash's own, the script).
close_inherited_files() {
    local path fd
    for path in /dev/fd/*; do
        fd="${path##*/}"
        case "$fd" in
            0|1|2|255) ;;
            *[!0-9]*) ;;
            *) eval "exec $fd>&-" 2>/dev/null || true ;;
        esac
    done
}
close_inherited_files

# Starts the cluster in "$dir" on port $1. Loopback only; the socket lives in the cluster's
# folder, not in /var/run. Detached from the caller's output (the log is server.log): the server
# must not hold a pipe open. Room for 300 connections, not PostgreSQL's 100: the test suite runs
# its tests in parallel, each with a store or two, fleet runs with a connection per job, and
# closes that a busy pool runs late; a CI run once met "too many clients" at 100.
serve_on() {
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 180 \
        -o "-c listen_addresses=127.0.0.1 -p $1 -k $dir -c fsync=on -c max_connections=300" start </dev/null >/dev/null 2>&1 \
        || { cat "$dir/server.log" >&2; exit 1; }
}

case "$command" in
    start)
        ensure_postgres
        bin="$(find_bin)"
        mkdir -p "$dir"
        dir="$(cd "$dir" && pwd)"
        [ -z "$(ls -A "$dir")" ] || { say "$dir is not empty"; exit 2; }
        if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; fi
        password="$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
        printf '%s\n' "$password" > "$dir/.password"
        chmod 600 "$dir/.password"
        if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir/.password"; fi
        mkdir -p "$dir/data"
        if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir/data"; fi
        as_owner "$bin/initdb" -D "$dir/data" -U rewind --pwfile="$dir/.password" -A scram-sha-256 -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
            || { cat "$dir/initdb.log" >&2; exit 1; }
        port="$(free_port)"
        serve_on "$port"
        printf '%s\n' "$port" > "$dir/port"
        PGPASSWORD="$password" "$bin/createdb" -h 127.0.0.1 -p "$port" -U rewind rewind
        echo "postgres://rewind:$password@127.0.0.1:$port/rewind"
        ;;
    restart)
        bin="$(find_bin)"
        continue_backends
        # Detached from the caller's output: the server it starts must not hold a pipe open.
        as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast -w -t 180 restart </dev/null >/dev/null 2>&1 \
            || { cat "$dir/server.log" >&2; exit 1; }
        ;;
    resume)
        # A cluster `stop` stopped, on the port it had: what a test uses to take its server away
        # from a writer for a while.
        bin="$(find_bin)"
        serve_on "$(cat "$dir/port")"
        ;;
    stop)
        bin="$(find_bin || true)"
        if [ -n "$bin" ] && [ -f "$dir/data/postmaster.pid" ]; then
            continue_backends
            # A fast stop waits for every backend to exit; one that still does not within 30 s
            # (stopped again, or stuck in the kernel) is left to an immediate stop.
            as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1 \
                || as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
        fi
        ;;
    *)
        say "unknown command '$command': start, restart, stop or resume"
        exit 2
        ;;
esac
