#!/usr/bin/env bash
# Build the action image locally: reviewcoord:local from ./Dockerfile on the local debootstrap base
# (scripts/build-base-image.sh), since Docker Hub (python:3.11-slim) may be unreachable.
#
#   scripts/build-image.sh [--tag IMAGE] [--base IMAGE] [--no-ca] [-- extra docker build args]
#
# Env: REVIEWCOORD_IMAGE (default reviewcoord:local), REVIEWCOORD_BASE_IMAGE (default: the local
# debootstrap base, `scripts/build-base-image.sh --print-tag`, built when missing; set it to
# python:3.11-slim to build exactly what GitHub builds). VERSION (default: pyproject.toml's) and
# REVISION (default: `git rev-parse HEAD`) go in as build args for the OCI labels.
#
# Registry access from inside the build: the host's pip settings (PIP_* env vars, else `pip config`)
# for index-url, extra-index-url (http/https only), trusted-host and timeout are passed as build
# args; the CA bundle pip trusts on the host ($PIP_CERT, else pip's `cert`, else
# $REQUESTS_CA_BUNDLE / $SSL_CERT_FILE) is copied to tmp/docker-build-ca.pem in the build context for
# the builder stages only and deleted when the build ends. Nothing of it reaches the final stage.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TAG="${REVIEWCOORD_IMAGE:-reviewcoord:local}"
LOCAL_BASE=$(bash "$ROOT/scripts/build-base-image.sh" --print-tag)
BASE="${REVIEWCOORD_BASE_IMAGE:-$LOCAL_BASE}"
USE_CA=1
EXTRA=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tag) TAG="$2"; shift 2 ;;
    --base) BASE="$2"; shift 2 ;;
    --no-ca) USE_CA=0; shift ;;
    --) shift; EXTRA=("$@"); break ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "build-image.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
log() { printf '[build-image] %s\n' "$*" >&2; }

"$ROOT/scripts/ensure-docker.sh"

if [[ $BASE == "$LOCAL_BASE" ]]; then
  "$ROOT/scripts/build-base-image.sh" --tag "$BASE"
fi

# --- the host's pip settings -------------------------------------------------------------------
PIP_CMD=()
for p in "$ROOT/.venv/bin/python" python3; do
  if "$p" -m pip --version >/dev/null 2>&1; then PIP_CMD=("$p" -m pip); break; fi
done
pip_setting() {  # $1 = pip option name (index-url, ...); env var wins, then `pip config list`
  local env_name="PIP_$(tr 'a-z-' 'A-Z_' <<<"$1")"
  if [[ -n ${!env_name:-} ]]; then printf '%s\n' "${!env_name}"; return; fi
  [[ ${#PIP_CMD[@]} -gt 0 ]] || return 0
  "${PIP_CMD[@]}" config list 2>/dev/null \
    | sed -n -E "s/^[a-z:]+\.$1='(.*)'\$/\\1/p" | tail -n1
}

BUILD_ARGS=(--build-arg "BASE_IMAGE=$BASE")
# --- OCI label values -----------------------------------------------------------------------------
version="${VERSION:-$(sed -n -E 's/^version = "([^"]+)"$/\1/p' "$ROOT/pyproject.toml" | head -n1)}"
revision="${REVISION:-$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)}"
BUILD_ARGS+=(--build-arg "VERSION=$version" --build-arg "REVISION=$revision")
index_url=$(pip_setting index-url)
extra_urls=$(pip_setting extra-index-url | tr ' ' '\n' | grep -E '^https?://' | paste -sd' ' - || true)
trusted=$(pip_setting trusted-host)
timeout=$(pip_setting timeout); [[ -n $timeout ]] || timeout=$(pip_setting default-timeout)
if [[ -n $index_url ]]; then BUILD_ARGS+=(--build-arg "PIP_INDEX_URL=$index_url"); fi
if [[ -n $extra_urls ]]; then BUILD_ARGS+=(--build-arg "PIP_EXTRA_INDEX_URL=$extra_urls"); fi
if [[ -n $trusted ]]; then BUILD_ARGS+=(--build-arg "PIP_TRUSTED_HOST=$trusted"); fi
if [[ -n $timeout ]]; then BUILD_ARGS+=(--build-arg "PIP_DEFAULT_TIMEOUT=$timeout"); fi
# Docker's predefined proxy args (kept out of the image history by Docker itself).
for v in HTTP_PROXY HTTPS_PROXY NO_PROXY http_proxy https_proxy no_proxy; do
  if [[ -n ${!v:-} ]]; then BUILD_ARGS+=(--build-arg "$v=${!v}"); fi
done
log "pip: index-url=${index_url:-<pip default>} extra-index-url=${extra_urls:-<none>}"

# --- the CA bundle, for the builder stages only ---------------------------------------------------
CA_DST="$ROOT/tmp/docker-build-ca.pem"
made_tmp=0
cleanup() {
  rm -f "$CA_DST"
  if [[ $made_tmp -eq 1 ]]; then rmdir "$ROOT/tmp" 2>/dev/null || true; fi
}
trap cleanup EXIT
if [[ $USE_CA -eq 1 ]]; then
  ca_src="${PIP_CERT:-}"
  [[ -n $ca_src ]] || ca_src=$(pip_setting cert)
  [[ -n $ca_src ]] || ca_src="${REQUESTS_CA_BUNDLE:-${SSL_CERT_FILE:-}}"
  if [[ -n $ca_src && -f $ca_src ]]; then
    [[ -d $ROOT/tmp ]] || { mkdir -p "$ROOT/tmp"; made_tmp=1; }
    cp "$ca_src" "$CA_DST"
    log "CA bundle for the builder stages: $ca_src"
  else
    log "no CA bundle configured for pip; the build uses the base image's CAs"
  fi
fi

# --- build ---------------------------------------------------------------------------------------
# The Dockerfile avoids BuildKit-only syntax. A docker CLI >= 23 without buildx refuses
# DOCKER_BUILDKIT=1, so use the classic builder there unless the caller chose.
if [[ -z ${DOCKER_BUILDKIT:-} ]] && ! docker buildx version >/dev/null 2>&1; then
  export DOCKER_BUILDKIT=0
fi

start=$(date +%s%N)
docker build "${BUILD_ARGS[@]}" "${EXTRA[@]}" -t "$TAG" "$ROOT" >&2
end=$(date +%s%N)

size=$(docker image inspect -f '{{.Size}}' "$TAG")
log "built $TAG on $BASE in $(( (end - start) / 1000000 )) ms"
log "image size: $size bytes ($(( size / 1000000 )) MB)"
echo "$TAG size=$size"
