# review-coordinator: Docker container action image.
#
# Built two ways from this one file:
# * released: .github/workflows/release.yml builds it for linux/amd64 and linux/arm64, pushes it to
#   GHCR, and the release tag's action.yml runs that image (`image: docker://…@sha256:…`): users pull,
#   nothing is built on their runners;
# * unreleased (`uses: …@main` or a SHA on main): action.yml says `image: Dockerfile`, so the runner
#   builds this file on every job, with the default base.
# Local builds without Docker Hub access use `--build-arg BASE_IMAGE=<the debootstrap base>`
# (scripts/build-image.sh, scripts/build-base-image.sh): Debian's python3 at /usr/bin/python3 instead
# of /usr/local/bin/python3. Both work because everything goes into a virtualenv at /opt/venv
# (Debian's python3 is PEP 668 "externally managed").
#
# Works with the classic builder and with BuildKit (no RUN --mount, no heredocs, no COPY --chmod).
# Actions rules (docs/github-platform.md §3.3): no WORKDIR (the runner sets /github/workspace),
# absolute exec-form ENTRYPOINT. USER is 1001, not the documented root: see the final stage.
ARG BASE_IMAGE=python:3.11-slim
# The container's uid (see the final stage). A build arg only for forks and self-hosted runners whose
# user has another uid; the released image is always 1001.
ARG ACTION_UID=1001

# ---------------------------------------------------------------------------------------------------
# requirements: the runtime dependency list extracted from pyproject.toml. The deps stage copies only
# this file, so editing other parts of pyproject.toml (tool settings, version) keeps the cached
# dependency layer (COPY --from is cached by content).
FROM ${BASE_IMAGE} AS requirements
COPY pyproject.toml /src/pyproject.toml
RUN python3 -c 'import tomllib; d = tomllib.load(open("/src/pyproject.toml", "rb")); print("\n".join(d["project"]["dependencies"]))' > /requirements.txt

# ---------------------------------------------------------------------------------------------------
# deps: /opt/venv with the dependencies (wheels only: nothing is compiled, no build tools), and the
# venv's own pip and setuptools for the build stage.
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
# --no-compile: the bytecode stage compiles only what the action imports.
RUN set -eu; \
    for v in PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_TRUSTED_HOST PIP_DEFAULT_TIMEOUT; do \
      eval "[ -n \"\${$v:-}\" ] || unset $v"; \
    done; \
    if [ -f /tmp/build-ca/docker-build-ca.pem ]; then export PIP_CERT=/tmp/build-ca/docker-build-ca.pem; fi; \
    /opt/venv/bin/pip install --no-compile --only-binary=:all: -r /tmp/requirements.txt

# ---------------------------------------------------------------------------------------------------
# strip-tools: binutils, for `strip` only. Its own stage, so it is cached apart from the dependencies
# and never near the final image (no compilers or binutils there).
FROM ${BASE_IMAGE} AS strip-tools
RUN apt-get update -qq \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends binutils >/dev/null \
    && rm -rf /var/lib/apt/lists/*

# ---------------------------------------------------------------------------------------------------
# venv: the dependency venv as the image carries it: without pip and setuptools (about 25 MB with
# their bytecode; nothing installs anything at run time); without cryptography (12.6 MB: PyJWT's
# optional backend, which PyGithub needs only to sign a GitHub App's JWT: the action authenticates
# with a token, never signs one, and PyJWT imports fine without it); without any bytecode, type
# stubs and C sources/headers (for type checkers and compilers: nothing imports them); and with the
# wheels' native extensions stripped of their symbol tables and debug info (PyYAML and PyNaCl ship
# theirs unstripped; `strip --strip-unneeded` is what Debian does to every packaged library). The
# imports check the stripped extensions still load, and that PyJWT runs without cryptography.
FROM strip-tools AS venv
ENV PYTHONDONTWRITEBYTECODE=1
COPY --from=deps /opt/venv /opt/venv
RUN /opt/venv/bin/python3 -m pip uninstall -y -q cryptography pip setuptools \
    && find /opt/venv -depth -name __pycache__ -exec rm -rf {} + \
    && find /opt/venv -type f \( -name '*.pyi' -o -name '*.h' -o -name '*.c' -o -name '*.pyx' \
         -o -name '*.pxd' \) -delete \
    && find /opt/venv -type f -name '*.so' -exec strip --strip-unneeded {} + \
    && /opt/venv/bin/python3 -c 'import github, pydantic, pydantic_core, yaml._yaml, jinja2, nacl.bindings, _cffi_backend, charset_normalizer.md, jwt.algorithms; assert not jwt.algorithms.has_crypto'

# ---------------------------------------------------------------------------------------------------
# build: the reviewcoord package (pure Python) as a tree to lay over /opt/venv: /pkg/opt/venv/lib/
# python3.X/site-packages/… Setuptools comes from the index in pip's isolated build environment and
# stays in this stage.
FROM deps AS build
COPY pyproject.toml README.m[d] LICENS[E] /src/
COPY reviewcoord /src/reviewcoord
RUN set -eu; \
    for v in PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_TRUSTED_HOST PIP_DEFAULT_TIMEOUT; do \
      eval "[ -n \"\${$v:-}\" ] || unset $v"; \
    done; \
    if [ -f /tmp/build-ca/docker-build-ca.pem ]; then export PIP_CERT=/tmp/build-ca/docker-build-ca.pem; fi; \
    /opt/venv/bin/pip wheel --no-deps --wheel-dir /wheels /src; \
    site=$(/opt/venv/bin/python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'); \
    /opt/venv/bin/pip install --no-index --no-deps --no-compile --target "/pkg$site" /wheels/*.whl; \
    rm -rf "/pkg$site/bin" "/pkg$site"/*.dist-info/direct_url.json

# ---------------------------------------------------------------------------------------------------
# runtime: base + the action's user + the dependency venv (its own layer, unchanged while the
# dependencies are) + the package + the entrypoint.
FROM ${BASE_IMAGE} AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# uid/gid 1001 = the `runner` user of GitHub-hosted runners (and of actions-runner-controller's
# runner image), who owns the workspace and the file-command files the runner mounts. --no-log-init:
# no sparse lastlog/faillog entries. HOME is /github/home, as the runner sets it.
ARG ACTION_UID
# (A fork may set another uid; one that exists already, 0 for instance, is used as it is.)
RUN { getent group "${ACTION_UID}" >/dev/null || groupadd --gid "${ACTION_UID}" reviewcoord; } \
    && { getent passwd "${ACTION_UID}" >/dev/null \
         || useradd --uid "${ACTION_UID}" --gid "${ACTION_UID}" --no-create-home --no-log-init \
              --home-dir /github/home --shell /usr/sbin/nologin reviewcoord; }
COPY --from=venv /opt/venv /opt/venv
COPY --from=build /pkg/ /
COPY entrypoint.py /app/entrypoint.py

# ---------------------------------------------------------------------------------------------------
# bytecode: .pyc files (checked-hash) for exactly the modules the action imports, as a tree to lay
# over the image (scripts/image_bytecode.py).
FROM runtime AS bytecode
COPY scripts/image_bytecode.py /tmp/image_bytecode.py
RUN /opt/venv/bin/python3 /tmp/image_bytecode.py /out

# ---------------------------------------------------------------------------------------------------
# final
FROM runtime
ARG ACTION_UID
COPY --from=bytecode /out/ /
# OCI labels. The release workflow passes VERSION (the tag), REVISION (the commit) and SOURCE (its
# repository); scripts/build-image.sh passes pyproject.toml's version and `git rev-parse HEAD`.
# Last, so a new commit rebuilds no layer.
ARG VERSION=dev
ARG REVISION=unknown
ARG SOURCE=https://github.com/octo/review-coordinator
LABEL org.opencontainers.image.title="review-coordinator" \
      org.opencontainers.image.description="The judge over the AI pull-request reviewers: one verdict, one merge gate (GitHub Action)." \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.url="${SOURCE}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="MIT"
# Not root, unlike GitHub's advice for Docker actions ("run as the default user (root)", because the
# runner's mounts belong to the runner user): the container runs as that user's uid instead, 1001 on
# GitHub-hosted runners, so it can write GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and /github/home. On a
# runner whose user has another uid, the entrypoint stops at once with a message saying so
# (reviewcoord/preflight.py; docs/troubleshooting.md § Runners whose user is not uid 1001).
USER ${ACTION_UID}:${ACTION_UID}
ENTRYPOINT ["/opt/venv/bin/python3", "/app/entrypoint.py"]
