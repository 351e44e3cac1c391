#!/usr/bin/env bash
# Builds Citus 13.x (the last release line that supports PostgreSQL 15) from
# its public source and installs it into a staging directory, .citus/stage at
# the repository root, so it can be tested next to pg_gpu or copied to another
# machine that has the same PostgreSQL build.
#
# Usage:
#   scripts/citus_build.sh [SRC_DIR]     build; SRC_DIR is an existing Citus
#                                        13.x source tree (fetched if omitted)
#   scripts/citus_build.sh --install-staged
#                                        copy .citus/stage/... into / , that is
#                                        into $(pg_config --pkglibdir) and
#                                        $(pg_config --sharedir)/extension
#
# Settings taken from the environment:
#   PG_CONFIG      pg_config of the target PostgreSQL 15 (default: found on PATH,
#                  else /usr/lib/postgresql/15/bin/pg_config)
#   CITUS_REF      tag to build when fetching the source (default v13.2.2)
#   CITUS_GIT_DIR  a local git directory (clone or bare mirror) of
#                  citusdata/citus to export CITUS_REF from when the network
#                  cannot reach github.com
#   CITUS_BITCODE  1 to also build and stage the LLVM JIT bitcode (slower);
#                  default 0, which PostgreSQL handles fine (no JIT inlining
#                  of Citus functions)
#   JOBS           parallel make jobs (default 2)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STAGE_TOP="$ROOT/.citus"
STAGE="$STAGE_TOP/stage"
CITUS_REF=${CITUS_REF:-v13.2.2}
CITUS_BITCODE=${CITUS_BITCODE:-0}
JOBS=${JOBS:-2}
REPO_URL=https://github.com/citusdata/citus

say() { echo "citus_build: $*"; }
die() { echo "citus_build: error: $*" >&2; exit 1; }

# Find the PostgreSQL 15 we build against.
PG_CONFIG=${PG_CONFIG:-}
if [ -z "$PG_CONFIG" ]; then
  if command -v pg_config >/dev/null 2>&1 && pg_config --version | grep -q ' 15\.'; then
    PG_CONFIG=$(command -v pg_config)
  else
    PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
  fi
fi

# Run a command as root: directly when we are root, else through sudo.
as_root() {
  if [ "$(id -u)" = 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    return 1
  fi
}

# ---------------------------------------------------------------------------
# --install-staged: copy the staged files into the local PostgreSQL.
# ---------------------------------------------------------------------------
install_staged() {
  [ -x "$PG_CONFIG" ] || command -v "$PG_CONFIG" >/dev/null 2>&1 || die "pg_config not found ($PG_CONFIG)"
  local pkglibdir sharedir
  pkglibdir=$("$PG_CONFIG" --pkglibdir)
  sharedir=$("$PG_CONFIG" --sharedir)
  # The stage mirrors absolute paths, so its library must sit exactly where
  # this PostgreSQL looks for it; otherwise it was built for another layout.
  [ -f "$STAGE$pkglibdir/citus.so" ] ||
    die "no $STAGE$pkglibdir/citus.so; run scripts/citus_build.sh first (or the stage was built for a different PostgreSQL layout)"
  [ -d "$STAGE$sharedir/extension" ] || die "no $STAGE$sharedir/extension in the stage"
  if [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null 2>&1; then
    die "need root or sudo to write into $pkglibdir and $sharedir"
  fi
  # Copy file by file so that the modes and owners of existing system
  # directories (/usr, /usr/lib, ...) are left alone.
  local n=0 rel mode
  while IFS= read -r -d '' rel; do
    rel=${rel#./}
    mode=644
    case "$rel" in *.so) mode=755 ;; esac
    as_root install -D -m "$mode" "$STAGE/$rel" "/$rel"
    echo "  /$rel"
    n=$((n + 1))
  done < <(cd "$STAGE" && find . -type f -print0 | sort -z)
  say "installed $n files into / (pkglibdir $pkglibdir, extension dir $sharedir/extension)"
}

if [ "${1:-}" = "--install-staged" ]; then
  install_staged
  exit 0
fi
case "${1:-}" in
  -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) die "unknown option $1 (see --help)" ;;
esac

# ---------------------------------------------------------------------------
# 1. Build dependencies.
# ---------------------------------------------------------------------------
# Citus configure has --without-libcurl (libcurl only serves its anonymous
# usage statistics), so libcurl is not needed.  lz4 and zstd are needed for
# columnar compression; the Kerberos headers are needed because Citus includes
# libpq-int.h, which includes gssapi.h when PostgreSQL was built with GSSAPI
# (Debian's is).
need=()
[ -f "/usr/include/postgresql/15/server/postgres.h" ] || [ -f "$("$PG_CONFIG" --includedir-server 2>/dev/null)/postgres.h" ] ||
  need+=(postgresql-server-dev-15)
for pkg in liblz4-dev libzstd-dev libkrb5-dev make gcc; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    die "missing build dependencies and no apt-get: ${need[*]}"
  fi
  if [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null 2>&1; then
    die "missing build dependencies, and no root or sudo to install them: ${need[*]}"
  fi
  say "installing ${need[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
command -v "$PG_CONFIG" >/dev/null 2>&1 || die "pg_config not found ($PG_CONFIG)"
"$PG_CONFIG" --version | grep -q ' 15\.' || die "$PG_CONFIG is not PostgreSQL 15 ($("$PG_CONFIG" --version))"

# ---------------------------------------------------------------------------
# 2. Source tree.
# ---------------------------------------------------------------------------
# Prints the version a Citus source tree declares in its configure script.
src_version() { sed -n "s/^PACKAGE_VERSION='\(.*\)'$/\1/p" "$1/configure" 2>/dev/null | head -n1; }

# Fills directory $1 (which must not exist) with the Citus source of
# CITUS_REF, trying in turn: git clone, a GitHub tarball, a local git mirror.
fetch_source() {
  local dest=$1 tmp
  tmp=$(mktemp -d "$(dirname "$dest")/.citus-fetch.XXXXXX")
  # (a) A shallow git clone of the tag.
  if command -v git >/dev/null 2>&1 &&
     GIT_TERMINAL_PROMPT=0 timeout 300 git clone -q --depth 1 --branch "$CITUS_REF" "$REPO_URL" "$tmp/src" 2>/dev/null; then
    say "source: git clone --depth 1 --branch $CITUS_REF $REPO_URL"
  # (b) The release tarball GitHub generates for the tag.
  elif command -v curl >/dev/null 2>&1 &&
       curl -fsSL --max-time 300 -o "$tmp/src.tar.gz" "$REPO_URL/archive/refs/tags/$CITUS_REF.tar.gz" 2>/dev/null; then
    mkdir "$tmp/src"
    tar -xzf "$tmp/src.tar.gz" -C "$tmp/src" --strip-components=1
    say "source: $REPO_URL/archive/refs/tags/$CITUS_REF.tar.gz"
  else
    # (c) A local git directory that has the tag (e.g. an offline mirror).
    local gitdir=${CITUS_GIT_DIR:-}
    if [ -z "$gitdir" ]; then
      for cand in /work/.mirror/citusdata+citus/repo "$ROOT/tmp/citus.git"; do
        if [ -d "$cand" ]; then gitdir=$cand; break; fi
      done
    fi
    if [ -n "$gitdir" ] && git -C "$gitdir" rev-parse -q --verify "$CITUS_REF^{commit}" >/dev/null 2>&1; then
      mkdir "$tmp/src"
      git -C "$gitdir" archive --format=tar "$CITUS_REF" | tar -x -C "$tmp/src"
      say "source: git archive $CITUS_REF from $gitdir (github.com not reachable)"
    else
      rm -rf "$tmp"
      die "cannot get Citus $CITUS_REF: github.com is not reachable and no local git directory has it (set CITUS_GIT_DIR, or pass SRC_DIR)"
    fi
  fi
  mv "$tmp/src" "$dest"
  rm -rf "$tmp"
}

if [ $# -ge 1 ]; then
  SRC=$(cd "$1" && pwd) || die "no such directory: $1"
else
  SRC="$ROOT/tmp/citus-src"
  mkdir -p "$ROOT/tmp"
  want=${CITUS_REF#v}
  if [ -f "$SRC/configure" ] && [ "$(src_version "$SRC")" = "$want" ]; then
    say "source: reusing $SRC"
  else
    rm -rf "$SRC"
    fetch_source "$SRC"
  fi
fi
[ -f "$SRC/configure" ] || die "$SRC does not look like a Citus source tree (no configure)"
version=$(src_version "$SRC")
case "$version" in
  13.*) say "Citus $version in $SRC" ;;
  *) die "Citus $version in $SRC: only the 13.x line supports PostgreSQL 15" ;;
esac

# ---------------------------------------------------------------------------
# 3. Local fix: have_createdb_privilege.
# ---------------------------------------------------------------------------
# For PostgreSQL < 16 Citus defines its own static have_createdb_privilege()
# in pg_version_compat.h.  Recent PostgreSQL 15 minor releases (15.20 here)
# export that function from commands/dbcommands.h, and the static copy then
# collides with it.  Remove the copy when the server headers declare the
# function; its one caller includes commands/dbcommands.h.  Running this again
# finds nothing left to remove.
compat="$SRC/src/include/pg_version_compat.h"
if grep -q 'have_createdb_privilege' "$("$PG_CONFIG" --includedir-server)/commands/dbcommands.h" &&
   grep -q '^have_createdb_privilege(void)' "$compat"; then
  perl -0pi -e 's/static inline bool\nhave_createdb_privilege\(void\)\n\{.*?\n\}\n/\/* have_createdb_privilege(): removed by citus_build.sh, PostgreSQL exports it (commands\/dbcommands.h) *\/\n/s' "$compat"
  grep -q '^have_createdb_privilege(void)' "$compat" && die "could not remove the have_createdb_privilege shim from $compat"
  say "fix: removed the static have_createdb_privilege() from src/include/pg_version_compat.h"
else
  say "fix: have_createdb_privilege shim already removed or not needed"
fi

# ---------------------------------------------------------------------------
# 4. Configure, build, stage.
# ---------------------------------------------------------------------------
cd "$SRC"
conf_args=(--without-libcurl "PG_CONFIG=$PG_CONFIG")
# Configure again only when the options or the target PostgreSQL changed, so a
# second run rebuilds nothing.
conf_stamp="config.citus_build"
conf_key="${conf_args[*]} $("$PG_CONFIG" --version)"
if [ ! -f Makefile.global ] || [ ! -f config.status ] || [ "$(cat "$conf_stamp" 2>/dev/null)" != "$conf_key" ]; then
  say "configure ${conf_args[*]}"
  ./configure "${conf_args[@]}" >config.citus_build.log 2>&1 || { tail -n 30 config.citus_build.log >&2; die "configure failed (see $SRC/config.citus_build.log)"; }
  echo "$conf_key" >"$conf_stamp"
fi

make_vars=()
# PostgreSQL's PGXS builds LLVM bitcode when the server was built with LLVM;
# with_llvm=no skips it (it roughly doubles the build time).
[ "$CITUS_BITCODE" = 1 ] || make_vars+=(with_llvm=no)

say "make -j$JOBS ${make_vars[*]}"
start=$(date +%s)
make -j"$JOBS" "${make_vars[@]}" >make.citus_build.log 2>&1 || { tail -n 40 make.citus_build.log >&2; die "build failed (see $SRC/make.citus_build.log)"; }
end=$(date +%s)
say "build took $((end - start)) s"

rm -rf "$STAGE"
mkdir -p "$STAGE"
make install "${make_vars[@]}" DESTDIR="$STAGE" >make_install.citus_build.log 2>&1 || { tail -n 40 make_install.citus_build.log >&2; die "make install failed (see $SRC/make_install.citus_build.log)"; }
echo "Citus $version for $("$PG_CONFIG" --version), source $SRC" >"$STAGE_TOP/BUILD_INFO"

# ---------------------------------------------------------------------------
# 5. Report what was staged.
# ---------------------------------------------------------------------------
pkglibdir=$("$PG_CONFIG" --pkglibdir)
extdir=$("$PG_CONFIG" --sharedir)/extension
say "staged into $STAGE ($(du -sh "$STAGE" | cut -f1)):"
echo "libraries:"
find "$STAGE$pkglibdir" -maxdepth 1 -name '*.so' | sort | sed 's/^/  /'
echo "control files:"
find "$STAGE$extdir" -name 'citus*.control' | sort | sed 's/^/  /'
echo "SQL files ($(find "$STAGE$extdir" -name '*.sql' | wc -l)):"
find "$STAGE$extdir" -name '*.sql' | sort -V | sed 's/^/  /'
echo "headers: $(find "$STAGE" -name '*.h' | wc -l) under $STAGE$("$PG_CONFIG" --includedir-server)"
say "to install them into this PostgreSQL: scripts/citus_build.sh --install-staged"
