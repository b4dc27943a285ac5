#!/usr/bin/env bash
# Installs the system packages FunctionHost needs, when they are missing (a fresh machine).
set -euo pipefail
need=()
# python3-venv: the mail tests' SMTP server (aiosmtpd from PyPI) runs in a venv (scripts/smtp-server.sh),
# and so does the file tests' S3-compatible server (moto[server] from PyPI, scripts/s3-server.sh);
# openssl: the CLI those tests make their self-signed certificates with;
# chromium, chromium-driver: the console's end-to-end test (scripts/console-e2e.sh, Selenium from PyPI in a venv).
for pkg in libsqlite3-dev libjavascriptcoregtk-4.1-dev zlib1g-dev libvips-dev pkg-config python3-venv openssl chromium chromium-driver "$@"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
    echo "Installing: ${need[*]}"
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
