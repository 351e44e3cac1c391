# Sourced by the scripts: locate PostgreSQL 15 and an unprivileged user.
PG_CONFIG=${PG_CONFIG:-}
if [ -z "$PG_CONFIG" ]; then
  if command -v pg_config >/dev/null 2>&1 && pg_config --version | grep -q ' 15'; then
    PG_CONFIG=pg_config
  else
    PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
  fi
fi
PGBIN=$($PG_CONFIG --bindir)
PG_REGRESS=$(dirname "$($PG_CONFIG --pgxs)")/../test/regress/pg_regress

# initdb and postgres refuse root: run them as 'postgres' (created if needed).
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || useradd -m postgres
  as_pg() { runuser -u postgres -- env PATH="$PGBIN:$PATH" "$@"; }
  SUDO=
else
  as_pg() { env PATH="$PGBIN:$PATH" "$@"; }
  SUDO=sudo
  if [ -w "$($PG_CONFIG --pkglibdir)" ]; then SUDO=; fi
fi
