#!/usr/bin/env bash
# Install what a fresh Debian machine with Python 3.11 lacks to build, test and benchmark the tutorial:
#   1. the Python packages of pyproject.toml, with the test extras (pip, editable install);
#   2. Debian's Chromium for the browser tests (only when /usr/bin/chromium is missing);
#   3. Java for the Nu HTML checker, and Node.js/npm (only when missing; both come with this machine kind);
#   4. the npm dev tools of package-lock.json (axe-core, vnu-jar, lighthouse) with `npm ci`,
#      skipped when node_modules already matches the lock file.
# Never downloads a browser of its own (no `playwright install`): Playwright drives /usr/bin/chromium.
# Safe to run again; it only installs what is missing. Usage: bash tools/setup.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON="${PYTHON:-python3}"
say() { printf 'setup: %s\n' "$*" >&2; }

apt_ready=0
apt_install() {
    if [ "$(id -u)" -ne 0 ]; then
        say "need root to apt-get install $*"
        exit 1
    fi
    if [ "$apt_ready" -eq 0 ]; then
        apt-get update -qq
        apt_ready=1
    fi
    say "apt-get install $*"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# 1. Python packages (numpy, matplotlib, jinja2, markdown, latex2mathml; pytest, hypothesis, playwright, …).
say "pip install -e '.[test]'"
"$PYTHON" -m pip install --quiet --disable-pip-version-check --no-input --root-user-action=ignore -e '.[test]'

# 2. Chromium from Debian (Playwright is pointed at /usr/bin/chromium).
if [ ! -x /usr/bin/chromium ]; then
    apt_install chromium fonts-dejavu-core fonts-liberation
fi

# 3. Java (vnu.jar) and Node.js with npm.
command -v java >/dev/null 2>&1 || apt_install default-jre-headless
command -v npm >/dev/null 2>&1 || apt_install nodejs npm

# 4. npm dev tools, exactly as locked. --ignore-scripts: vnu-jar's postinstall would fetch a Java
#    runtime of its own; the system Java above is used instead.
stamp=node_modules/.setup-lock.sha256
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
    && [ -f node_modules/axe-core/axe.min.js ] && [ -f node_modules/vnu-jar/build/dist/vnu.jar ] \
    && [ -x node_modules/.bin/lighthouse ]; then
    say "node_modules matches package-lock.json"
else
    say "npm ci"
    npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
    printf '%s\n' "$want" > "$stamp"
fi
say "ready: $("$PYTHON" --version 2>&1), $(/usr/bin/chromium --version 2>/dev/null | head -n1), node $(node --version)"
