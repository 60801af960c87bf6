#!/usr/bin/env bash
# Install what this machine lacks to build the tutorial, or to build and test it.
#
#   bash tools/setup.sh --build   building only: a project virtual environment .venv/ with the runtime
#                                 packages of pyproject.toml (numpy, scipy, threadpoolctl, matplotlib,
#                                 jinja2, markdown, latex2mathml, rjsmin, rcssmin). No root, no browser, no npm.
#   bash tools/setup.sh           everything the tests need as well:
#                                 1. .venv/ with the test extras too (pytest, hypothesis, playwright, …);
#                                 2. Debian's chromium and chromium-headless-shell (the same build; most
#                                    browser tests run in the shell), firefox-esr, and webkit2gtk-driver with xvfb
#                                    (WebKitGTK needs an X display) for the browser tests;
#                                 3. Java (vnu.jar), Node.js with npm, and Debian's own python3 (the test
#                                    that runs `--build` under it);
#                                 4. the npm tools of package-lock.json (`npm ci`): axe-core, vnu-jar,
#                                    lighthouse, puppeteer-core.
#
# Packages go into .venv/, never into the Python that runs this script, so a Python that refuses
# `pip install` outside a virtual environment (PEP 668: Debian's and Ubuntu's python3) works too.
# .venv/ is made with $PYTHON (default: python3); when that Python has no venv module, Debian's
# python3-venv is installed as root, and without root the script stops with the command to run.
# pip runs only when pyproject.toml (or this folder) changed since the last install; npm ci only when
# package-lock.json did. No browser is ever downloaded (no `playwright install`, PUPPETEER_SKIP_DOWNLOAD):
# the tests drive /usr/bin/chromium-headless-shell, /usr/bin/chromium, /usr/bin/firefox-esr and WebKitGTK's
# MiniBrowser. Safe to run again.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf 'setup: %s\n' "$*" >&2; }

mode=test
case "${1-}" in
    "") ;;
    --build) mode=build ;;
    -h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) say "unknown option: $1 (usage: bash tools/setup.sh [--build])"; exit 2 ;;
esac

PYTHON="${PYTHON:-python3}"
VENV=.venv

is_root() { [ "$(id -u)" -eq 0 ]; }

apt_ready=0
apt_install() {
    if ! is_root; then
        say "need root to install Debian's $*; run: sudo apt-get update && sudo apt-get install -y $*"
        exit 1
    fi
    if [ "$apt_ready" -eq 0 ]; then
        apt-get update -qq
        apt_ready=1
    fi
    say "apt-get install $*"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# ------------------------------------------------------------------ 1. the project virtual environment

venv_works() {
    [ -f "$VENV/pyvenv.cfg" ] && "$VENV/bin/python" -c 'import pip, sys; sys.exit(sys.prefix == sys.base_prefix)' \
        >/dev/null 2>&1
}

make_venv() {
    if ! command -v "$PYTHON" >/dev/null 2>&1; then
        say "no $PYTHON on PATH: install Python 3.11 or newer (Debian: apt-get install python3 python3-venv)"
        exit 1
    fi
    # Debian and Ubuntu ship venv's ensurepip in a separate package (python3.X-venv).
    if ! "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1; then
        local version package
        version="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
        package=python3-venv
        if [ "$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" != "$version" ]; then
            package="python$version-venv"
        fi
        if ! is_root; then
            say "$PYTHON -m venv is unavailable; install Debian's $package first:"
            say "    sudo apt-get update && sudo apt-get install -y $package"
            exit 1
        fi
        apt_install "$package"
    fi
    if [ -e "$VENV" ]; then
        if [ ! -f "$VENV/pyvenv.cfg" ]; then
            say "$VENV exists but is not a virtual environment; move it away and run this again"
            exit 1
        fi
        say "$VENV is broken (made by a Python that is gone?): making it again"
        rm -rf "$VENV"
    fi
    say "$PYTHON -m venv $VENV ($("$PYTHON" --version 2>&1))"
    "$PYTHON" -m venv "$VENV"
    printf '*\n' > "$VENV/.gitignore"  # as Python 3.13's venv does: git ignores the whole folder
}

venv_works || make_venv

# pip runs when the stamp differs: it holds the hash of pyproject.toml and this folder's path (an
# editable install points at one checkout: another worktree gets a venv of its own).
digest() { { printf '%s\n' "$PWD"; cat pyproject.toml; } | sha256sum | cut -d' ' -f1; }
stamp="$VENV/.setup-stamp"
have="$(cat "$stamp" 2>/dev/null || true)"
want_build="build $(digest)"
want_test="test $(digest)"
if [ "$have" = "$want_test" ] || { [ "$mode" = build ] && [ "$have" = "$want_build" ]; }; then
    say "$VENV matches pyproject.toml"
else
    # The build-only install skips compiling every installed module to bytecode (over half of pip's
    # time): a build compiles only the modules it imports, once. The test install compiles them all
    # now, not while the test processes import them side by side.
    if [ "$mode" = build ]; then target=.; want="$want_build"; compile=--no-compile
    else target=".[test]"; want="$want_test"; compile=--compile; fi
    say "$VENV/bin/python -m pip install $compile -e '$target'"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "$compile" -e "$target"
    printf '%s\n' "$want" > "$stamp"
fi

if [ "$mode" = build ]; then
    say "ready to build: $("$VENV/bin/python" --version 2>&1) in $VENV/"
    exit 0
fi

# ------------------------------------------------------------------ 2. browsers from Debian

if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromium-headless-shell ]; then
    apt_install chromium chromium-headless-shell fonts-dejavu-core fonts-liberation
fi
if [ ! -x /usr/bin/firefox-esr ]; then
    apt_install firefox-esr
fi
# WebKitGTK (MiniBrowser and its WebDriver) has no headless mode: its smoke tests start Xvfb.
if [ ! -x /usr/bin/WebKitWebDriver ] || ! command -v Xvfb >/dev/null 2>&1; then
    apt_install webkit2gtk-driver xvfb
fi

# ------------------------------------------------------------------ 3. Java, Node.js, Debian's python3

command -v java >/dev/null 2>&1 || apt_install default-jre-headless
command -v npm >/dev/null 2>&1 || apt_install nodejs npm
[ -x /usr/bin/python3 ] || apt_install python3

# ------------------------------------------------------------------ 4. npm tools, exactly as locked

# --ignore-scripts: vnu-jar's postinstall would fetch a Java runtime of its own (the system Java is
# used instead). PUPPETEER_SKIP_DOWNLOAD: puppeteer-core drives /usr/bin/firefox-esr, never a download.
export PUPPETEER_SKIP_DOWNLOAD=1
npm_stamp=node_modules/.setup-lock.sha256
npm_want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ -f "$npm_stamp" ] && [ "$(cat "$npm_stamp")" = "$npm_want" ] \
    && [ -f node_modules/axe-core/axe.min.js ] && [ -f node_modules/vnu-jar/build/dist/vnu.jar ] \
    && [ -x node_modules/.bin/lighthouse ] && [ -f node_modules/puppeteer-core/package.json ]; then
    say "node_modules matches package-lock.json"
else
    say "npm ci"
    npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
    printf '%s\n' "$npm_want" > "$npm_stamp"
fi

say "ready: $("$VENV/bin/python" --version 2>&1) in $VENV/, $(/usr/bin/chromium --version 2>/dev/null | head -n1)," \
    "$(/usr/bin/firefox-esr --version 2>/dev/null | head -n1), node $(node --version)"
