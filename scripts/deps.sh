#!/usr/bin/env bash
# Installs what building and testing pg_gpu needs, if it is missing:
# PostgreSQL 15 server and its server headers (Debian 12 / Ubuntu with PGDG),
# a C++ compiler and make.  Uses sudo when not root.  Idempotent and quick when
# everything is present.
set -euo pipefail

need=()
[ -x /usr/lib/postgresql/15/bin/postgres ] || need+=(postgresql-15)
[ -f /usr/include/postgresql/15/server/postgres.h ] || need+=(postgresql-server-dev-15)
command -v g++ >/dev/null 2>&1 || need+=(g++)
command -v make >/dev/null 2>&1 || need+=(make)

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi

SUDO=
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "pg_gpu: need root or sudo to install: ${need[*]}" >&2; exit 1; }
  SUDO=sudo
fi
echo "pg_gpu: installing ${need[*]}"
$SUDO apt-get update -qq
if ! DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/tmp/pg_gpu_apt.log 2>&1; then
  cat /tmp/pg_gpu_apt.log >&2
  echo "pg_gpu: could not install ${need[*]}." >&2
  echo "pg_gpu: PostgreSQL 15 comes with Debian 12; on Ubuntu 24.04 add the PostgreSQL (PGDG) apt repository first." >&2
  exit 1
fi
