#!/usr/bin/env bash
# Make sure a Docker daemon answers: install docker.io (+ debootstrap, for the local base image) when
# the docker CLI is missing, start dockerd in the background when `docker info` fails, wait for it.
#
#   scripts/ensure-docker.sh        exit 0 when `docker info` works, else a message and exit 1
#
# Env: ENSURE_DOCKER_TIMEOUT (seconds to wait for the daemon, default 60),
#      DOCKERD_LOG (default /tmp/dockerd.log).
set -euo pipefail

TIMEOUT="${ENSURE_DOCKER_TIMEOUT:-60}"
DOCKERD_LOG="${DOCKERD_LOG:-/tmp/dockerd.log}"
log() { printf '[ensure-docker] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

if docker info >/dev/null 2>&1; then
  exit 0
fi

if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1 \
   || ! command -v debootstrap >/dev/null 2>&1; then
  [[ $(id -u) -eq 0 ]] || die "docker/dockerd/debootstrap missing and not root: install docker.io and debootstrap"
  command -v apt-get >/dev/null 2>&1 || die "docker is missing and apt-get is not available"
  log "installing docker.io and debootstrap with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 || die "apt-get update failed"
  apt-get install -y -qq docker.io debootstrap >&2 || die "apt-get install docker.io debootstrap failed"
fi

if ! docker info >/dev/null 2>&1; then
  if pgrep -x dockerd >/dev/null 2>&1; then
    log "dockerd is running but not answering yet; waiting"
  else
    [[ $(id -u) -eq 0 ]] || die "the Docker daemon is not running and starting it needs root"
    log "starting dockerd (log: $DOCKERD_LOG)"
    nohup dockerd >"$DOCKERD_LOG" 2>&1 &
    log "dockerd pid $!"
  fi
  for ((i = 0; i < TIMEOUT; i++)); do
    docker info >/dev/null 2>&1 && break
    sleep 1
  done
fi

if ! docker info >/dev/null 2>&1; then
  log "last lines of $DOCKERD_LOG:"
  tail -n 20 "$DOCKERD_LOG" >&2 2>/dev/null || true
  die "no Docker daemon after ${TIMEOUT}s (docker info fails)"
fi
log "docker daemon ready: $(docker info -f '{{.ServerVersion}}' 2>/dev/null)"
