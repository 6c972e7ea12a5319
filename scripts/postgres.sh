#!/usr/bin/env bash
# Start this machine's PostgreSQL for the storage and tick tests, installing Debian's package if it is
# missing. The tests connect as `postgres` through the Unix socket (no password) and make a fresh
# database per test module, so all this script has to do is make the server reachable. Safe to run again.
#
#   bash scripts/postgres.sh        # then: PBEM_TEST_PG defaults to the socket URL below
set -euo pipefail

SOCKET_DIR=/var/run/postgresql

as_postgres() {
  if [ "$(id -u)" = 0 ]; then su postgres -c "$*"; else sudo -u postgres sh -c "$*"; fi
}

if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "postgres.sh: PostgreSQL is not installed; run as root or: apt-get install postgresql" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql >/dev/null
fi

# The newest installed cluster (Debian creates `main` with the package).
read -r version cluster status < <(pg_lsclusters --no-header | awk '{print $1, $2, $4}' | sort -V | tail -n 1)
if [ -z "${version:-}" ]; then
  version=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
  cluster=main
  pg_createcluster "$version" "$cluster"
  status=down
fi
# The tests connect as the `postgres` role through the socket, from whatever OS user runs them (root on
# CI). Peer authentication allows only the OS user `postgres`; an ident map lets root (and the user who
# ran sudo) in as `postgres` too, and nobody else.
conf_dir=/etc/postgresql/$version/$cluster
if [ -f "$conf_dir/pg_hba.conf" ] && ! grep -q 'map=pbem' "$conf_dir/pg_hba.conf"; then
  sed -i 's/^\(local[[:space:]]\+all[[:space:]]\+postgres[[:space:]]\+peer\)[[:space:]]*$/\1 map=pbem/' "$conf_dir/pg_hba.conf"
  for os_user in postgres root ${SUDO_USER:-}; do
    grep -qE "^pbem[[:space:]]+$os_user[[:space:]]+postgres$" "$conf_dir/pg_ident.conf" \
      || echo "pbem $os_user postgres" >>"$conf_dir/pg_ident.conf"
  done
  edited=1
fi

if [ "$status" != online ]; then
  pg_ctlcluster "$version" "$cluster" start
elif [ "${edited:-0}" = 1 ]; then
  pg_ctlcluster "$version" "$cluster" reload
fi


# Wait until the socket answers (a cold start takes a moment).
for _ in $(seq 1 30); do
  if as_postgres "psql -h $SOCKET_DIR -tAc 'select 1'" >/dev/null 2>&1 \
    && { [ "$(id -u)" != 0 ] || psql -h "$SOCKET_DIR" -U postgres -d postgres -tAc 'select 1' >/dev/null 2>&1; }; then
    echo "postgres.sh: PostgreSQL $version/$cluster ready on $SOCKET_DIR"
    exit 0
  fi
  sleep 1
done
echo "postgres.sh: PostgreSQL $version/$cluster did not answer on $SOCKET_DIR" >&2
exit 1
