#!/usr/bin/env bash
# Debian packages the test suite uses as real servers: PostgreSQL (storage, tick), Dovecot (IMAP),
# Chromium (looking at HTML reports; make demo's screenshots of the mails), and the fonts of the board
# pictures. Installs only what is missing, with apt-get; needs root for that (CI and dev machines here
# run as root), and says what it will install and why before it does. Safe to run again.
set -euo pipefail
need=()
why=()
want() { need+=("$1"); why+=("  $1: $2"); }
command -v pg_ctlcluster >/dev/null 2>&1 || want postgresql "the tests run the host on PostgreSQL too"
command -v dovecot >/dev/null 2>&1 || want dovecot-imapd "a real IMAP server for the mail tests"
command -v chromium >/dev/null 2>&1 || want chromium "the browser tests, and make demo's screenshots of the mails"
# fonts of the board pictures in report mail (pbem/render/pictures.py): DejaVu, and Noto CJK for Chinese
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || want fonts-dejavu-core "the board pictures' letters"
[ -f /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ] || want fonts-noto-cjk "Chinese in the board pictures"
if [ ${#need[@]} -gt 0 ]; then
  echo "system-deps: these Debian packages are missing:" >&2
  printf '%s\n' "${why[@]}" >&2
  if [ "$(id -u)" != 0 ]; then
    echo "system-deps: install them as root: apt-get install ${need[*]}" >&2
    exit 1
  fi
  echo "system-deps: installing them now as root (apt-get install ${need[*]})" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi
