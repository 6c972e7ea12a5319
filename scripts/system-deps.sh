#!/usr/bin/env bash
# Debian packages the test suite uses as real servers: PostgreSQL (storage, tick), Dovecot (IMAP),
# Chromium (looking at HTML reports), and the fonts of the board pictures. Installs only what is missing; needs root (CI and dev machines
# here run as root). Safe to run again.
set -euo pipefail
need=()
command -v pg_ctlcluster >/dev/null 2>&1 || need+=(postgresql)
command -v dovecot >/dev/null 2>&1 || need+=(dovecot-imapd)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# fonts of the board pictures in report mail (pbem/render/pictures.py): DejaVu, and Noto CJK for Chinese
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
[ -f /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ] || need+=(fonts-noto-cjk)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "system-deps: missing ${need[*]}; install them as root (apt-get install ${need[*]})" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi
