# review-coordinator: Docker container action image.
#
# GitHub builds this file on every job that uses the action (action.yml: `image: Dockerfile`), with
# the default base. Local builds without Docker Hub access use the same file with
# `--build-arg BASE_IMAGE=reviewcoord-base:local` (scripts/build-image.sh): a debootstrap Debian with
# Debian's python3 at /usr/bin/python3 instead of /usr/local/bin/python3. Both work because
# everything goes into a virtualenv at /opt/venv (Debian's python3 is PEP 668 "externally managed").
#
# Works with the classic builder and with BuildKit (no RUN --mount, no heredocs).
# Actions rules: no USER (the runner needs root for /github/workspace), no WORKDIR (the runner sets
# /github/workspace), absolute exec-form ENTRYPOINT.
ARG BASE_IMAGE=python:3.11-slim

# ---------------------------------------------------------------------------------------------------
# requirements: the runtime dependency list extracted from pyproject.toml. The deps stage copies only
# this file, so editing other parts of pyproject.toml (tool settings, version) keeps the cached
# dependency layer (COPY --from is cached by content).
FROM ${BASE_IMAGE} AS requirements
COPY pyproject.toml /src/pyproject.toml
RUN python3 -c 'import tomllib; d = tomllib.load(open("/src/pyproject.toml", "rb")); print("\n".join(d["project"]["dependencies"]))' > /requirements.txt

# ---------------------------------------------------------------------------------------------------
# deps: /opt/venv with the dependencies only (wheels only: nothing is compiled, no build tools).
FROM ${BASE_IMAGE} AS deps
ENV PYTHONDONTWRITEBYTECODE=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# Registry settings for local builds behind a proxy/mirror: scripts/build-image.sh passes the host's
# pip settings as build args (nothing is hard-coded here). They exist only in the builder stages,
# never in the final image's environment or history.
ARG PIP_INDEX_URL
ARG PIP_EXTRA_INDEX_URL
ARG PIP_TRUSTED_HOST
ARG PIP_DEFAULT_TIMEOUT
# Proxy CA: present only when scripts/build-image.sh put it into the context (tmp/ is git-ignored and
# absent on GitHub). `Dockerfile` is listed so the COPY always has a source; the globs may match
# nothing (both builders accept that; a plain tmp/ would make BuildKit fail when tmp/ is missing).
# The final stage copies /opt/venv only, so the CA never reaches the final image.
COPY Dockerfile tm[p]/docker-build-ca.pe[m] /tmp/build-ca/
RUN python3 -m venv /opt/venv
COPY --from=requirements /requirements.txt /tmp/requirements.txt
RUN set -eu; \
    for v in PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_TRUSTED_HOST PIP_DEFAULT_TIMEOUT; do \
      eval "[ -n \"\${$v:-}\" ] || unset $v"; \
    done; \
    if [ -f /tmp/build-ca/docker-build-ca.pem ]; then export PIP_CERT=/tmp/build-ca/docker-build-ca.pem; fi; \
    /opt/venv/bin/pip install --only-binary=:all: -r /tmp/requirements.txt

# ---------------------------------------------------------------------------------------------------
# build: the reviewcoord wheel (pure Python). Setuptools comes from the index in pip's isolated build
# environment and stays in this stage.
FROM deps AS build
COPY pyproject.toml README.m[d] LICENS[E] /src/
COPY reviewcoord /src/reviewcoord
RUN set -eu; \
    for v in PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_TRUSTED_HOST PIP_DEFAULT_TIMEOUT; do \
      eval "[ -n \"\${$v:-}\" ] || unset $v"; \
    done; \
    if [ -f /tmp/build-ca/docker-build-ca.pem ]; then export PIP_CERT=/tmp/build-ca/docker-build-ca.pem; fi; \
    /opt/venv/bin/pip wheel --no-deps --wheel-dir /wheels /src

# ---------------------------------------------------------------------------------------------------
# final: base + the dependency venv (its own layer, unchanged while the dependencies are) + the
# package installed offline without dependencies + the entrypoint.
FROM ${BASE_IMAGE}
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
COPY --from=deps /opt/venv /opt/venv
COPY --from=build /wheels /tmp/wheels
RUN /opt/venv/bin/pip install --no-index --no-deps --no-cache-dir /tmp/wheels/*.whl \
    && rm -rf /tmp/wheels \
    && /opt/venv/bin/python -c 'import reviewcoord'
COPY entrypoint.py /app/entrypoint.py
ENTRYPOINT ["/opt/venv/bin/python3", "/app/entrypoint.py"]
