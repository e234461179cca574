#!/usr/bin/env bash
# The inspector's browser tests: headless Chromium driven by WebDriver through Selenium
# (Tests/Browser/inspector_test.py), against the built `rewind serve`.
#
#   Tools/browser-tests.sh      install what is missing, build, run; screenshots land in
#                               .build/inspector-screenshots/
#
# Installs Debian's chromium and chromium-driver through apt-get (with sudo when not root) and
# PyPI's selenium through pip when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'browser-tests: %s\n' "$*" >&2; }

if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    if ! command -v apt-get >/dev/null 2>&1; then
        say "Chromium and its WebDriver (chromedriver) are needed: install them with your package manager"
        exit 2
    fi
    say "installing chromium and chromium-driver"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver >/dev/null
fi
if ! python3 -c "import selenium" >/dev/null 2>&1; then
    say "installing selenium (PyPI)"
    python3 -m pip install -q selenium 2>/dev/null || python3 -m pip install -q --user --break-system-packages selenium
fi

# What Tools/dev.sh builds (all traits, tests included), so that nothing is recompiled: a build
# of one product between builds of everything made SwiftPM recompile Rewind's modules each way.
Tools/dev.sh build
bin="$(swift build --enable-all-traits --show-bin-path)"
rm -rf .build/browser-tests
python3 Tests/Browser/inspector_test.py "$bin" .build/browser-tests .build/inspector-screenshots
