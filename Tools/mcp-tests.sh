#!/usr/bin/env bash
# `rewind mcp` against a real MCP client: the reference Python SDK (`mcp` on PyPI), driven by
# Tests/Agents/mcp_client_test.py against the built `rewind`.
#
#   Tools/mcp-tests.sh      install what is missing, build, run
#
# Installs PyPI's mcp through pip when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'mcp-tests: %s\n' "$*" >&2; }

if ! python3 -c "import mcp.client.stdio" >/dev/null 2>&1; then
    say "installing mcp (PyPI)"
    python3 -m pip install -q mcp 2>/dev/null || python3 -m pip install -q --user --break-system-packages mcp
fi

# What Tools/dev.sh builds (all traits, tests included), so that nothing is recompiled (see
# Tools/browser-tests.sh).
Tools/dev.sh build
bin="$(swift build --enable-all-traits --show-bin-path)"
rm -rf .build/mcp-tests
python3 Tests/Agents/mcp_client_test.py "$bin" .build/mcp-tests
