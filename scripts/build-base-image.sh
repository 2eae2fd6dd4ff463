#!/usr/bin/env bash
# Build a local stand-in for the official python:3.11-slim image, for machines that cannot pull
# from Docker Hub: Debian bookworm (debootstrap, minbase) + Debian's python3 (3.11) + python3-venv
# + ca-certificates, imported as an image, slimmed the way the official images are (see below).
#
#   scripts/build-base-image.sh [--force] [--tag IMAGE] [--print-tag]
#
# Cached by tag: does nothing when the image already exists, unless --force. The default tag carries
# a revision (BASE_REVISION): bump it whenever this script changes what goes into the image, so that
# machines holding an older base build the new one instead of silently reusing the old.
# The Debian mirror is read from the host's apt sources (/etc/apt/sources.list, .list and .sources
# files under /etc/apt/sources.list.d), or from $DEBIAN_MIRROR if set; no host name is written here.
# Needs root, debootstrap and a running Docker daemon (see scripts/ensure-docker.sh).
set -euo pipefail

BASE_REVISION=2
TAG="${REVIEWCOORD_BASE_IMAGE:-reviewcoord-base:local-v$BASE_REVISION}"
SUITE="${DEBIAN_SUITE:-bookworm}"
FORCE=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --force) FORCE=1; shift ;;
    --tag) TAG="$2"; shift 2 ;;
    --print-tag) echo "$TAG"; exit 0 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "build-base-image.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done

log() { printf '[build-base-image] %s\n' "$*" >&2; }

if [[ $FORCE -eq 0 ]] && docker image inspect "$TAG" >/dev/null 2>&1; then
  log "$TAG already exists (use --force to rebuild)"
  exit 0
fi

command -v debootstrap >/dev/null || { log "debootstrap is missing: apt-get install -y debootstrap"; exit 1; }
[[ $(id -u) -eq 0 ]] || { log "debootstrap needs root"; exit 1; }

# First http(s) URI of the host's apt sources that serves $SUITE (not the -security archive).
host_debian_mirror() {
  local f
  {
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [[ -f $f ]] || continue
      # one-line format: deb [options] URI suite components
      awk -v suite="$SUITE" '$1=="deb" {
          i=2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
          if ($(i+1)==suite) print $i }' "$f"
    done
    for f in /etc/apt/sources.list.d/*.sources; do
      [[ -f $f ]] || continue
      # deb822 format: stanzas separated by blank lines
      awk -v suite="$SUITE" 'BEGIN{RS=""; FS="\n"} {
          uris=""; ok=0; deb=0
          for (j=1;j<=NF;j++) {
            if ($j ~ /^#/) continue
            if ($j ~ /^Types:/ && $j ~ /[ \t]deb([ \t]|$)/) deb=1
            if ($j ~ /^URIs:/) { uris=$j; sub(/^URIs:[ \t]*/, "", uris) }
            if ($j ~ /^Suites:/) { n=split($j, s, /[ \t]+/); for (k=2;k<=n;k++) if (s[k]==suite) ok=1 }
            if ($j ~ /^Enabled:[ \t]*no/) { ok=0 }
          }
          if (deb && ok) { split(uris, u, /[ \t]+/); print u[1] } }' "$f"
    done
  } | grep -E '^https?://' | grep -v -- '-security' | head -n1
}

MIRROR="${DEBIAN_MIRROR:-$(host_debian_mirror || true)}"
[[ -n $MIRROR ]] || { log "no $SUITE mirror found in the host's apt sources; set DEBIAN_MIRROR"; exit 1; }
log "suite $SUITE, mirror $MIRROR"

start=$(date +%s)
ROOT=$(mktemp -d /var/tmp/reviewcoord-rootfs.XXXXXX)
cleanup() { rm -rf --one-file-system "$ROOT"; }
trap cleanup EXIT

# python3-venv brings ensurepip (python3.11-venv + python3-pip-whl + python3-setuptools-whl),
# which the Dockerfile uses to create /opt/venv (Debian's python3 is PEP 668 "externally managed").
debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
  "$SUITE" "$ROOT" "$MIRROR" >&2
log "debootstrap done in $(( $(date +%s) - start )) s"

# Slim it down like the official images (a faithful stand-in, not a smaller one):
# * debian:bookworm-slim (debuerreotype --slimify) drops docs (keeping */copyright), man and info
#   pages, locales (keeping locale.alias), groff and lintian data, and keeps dpkg from installing
#   them again through /etc/dpkg/dpkg.cfg.d/docker; plus no apt lists or downloaded .debs.
# * python:3.11-slim removes the test suites (test, tests, idle_test) and every .pyc/.pyo from its
#   Python: the official image ships no standard-library bytecode. Debian's postinst compiled ours
#   (py3compile), so remove it too; the action's Dockerfile compiles what the action imports.
rm -rf "$ROOT"/var/lib/apt/lists/* "$ROOT"/var/cache/apt/*.bin "$ROOT"/var/cache/apt/archives/*.deb \
       "$ROOT"/usr/share/man/* "$ROOT"/usr/share/info/* "$ROOT"/usr/share/groff/* \
       "$ROOT"/usr/share/lintian/* "$ROOT"/usr/share/linda/* \
       "$ROOT"/var/log/*.log "$ROOT"/var/log/apt/* "$ROOT"/tmp/* 2>/dev/null || true
find "$ROOT"/usr/share/doc -mindepth 1 -not -type d -not -name copyright -delete 2>/dev/null || true
find "$ROOT"/usr/share/doc -mindepth 1 -type d -empty -delete 2>/dev/null || true
find "$ROOT"/usr/share/locale -mindepth 1 -maxdepth 1 -not -name locale.alias \
  -exec rm -rf {} + 2>/dev/null || true
mkdir -p "$ROOT"/etc/dpkg/dpkg.cfg.d
cat >"$ROOT"/etc/dpkg/dpkg.cfg.d/docker <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/man/*
CFG
find "$ROOT"/usr/lib/python3* -depth \
  \( \( -type d \( -name test -o -name tests -o -name idle_test -o -name __pycache__ \) \) \
     -o \( -type f \( -name '*.pyc' -o -name '*.pyo' \) \) \) -exec rm -rf {} +

tar --numeric-owner -C "$ROOT" -c . | docker import \
  --change 'ENV LANG=C.UTF-8' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["python3"]' \
  --change "LABEL io.reviewcoord.base-revision=$BASE_REVISION" \
  --message "debootstrap --variant=minbase $SUITE + python3, python3-venv, ca-certificates (revision $BASE_REVISION)" \
  - "$TAG" >/dev/null

size=$(docker image inspect -f '{{.Size}}' "$TAG")
log "built $TAG: $(( size / 1000000 )) MB in $(( $(date +%s) - start )) s"
