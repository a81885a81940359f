#!/usr/bin/env bash
# Installs the Debian packages the tests need when they are missing: chromium (browser tests)
# and postgresql (the scale-out path). With arguments, only those. Needs root or sudo for apt.
set -euo pipefail
wanted=("${@:-chromium postgres}")
wanted=(${wanted[*]})
need=()
for item in "${wanted[@]}"; do
  case "$item" in
    chromium) [ -x /usr/bin/chromium ] || need+=(chromium) ;;
    postgres) ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql) ;;
  esac
done
[ ${#need[@]} -eq 0 ] && exit 0
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "installing system packages: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
