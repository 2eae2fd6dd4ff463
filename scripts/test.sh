#!/usr/bin/env bash
# The whole test suite: lint, types, unit + end-to-end + container tests.
# Used by README.md, .ci/run and the GitHub workflow alike.
#   QUICK=1 scripts/test.sh   skips the Docker image tests (REVIEWCOORD_SKIP_DOCKER=1)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ "${QUICK:-0}" = "1" ]; then
  export REVIEWCOORD_SKIP_DOCKER=1
elif [ "${REVIEWCOORD_SKIP_DOCKER:-0}" != "1" ]; then
  bash scripts/ensure-docker.sh
fi
echo "== ruff, mypy --strict"
bash scripts/lint.sh
echo "== pytest"
.venv/bin/python -m pytest -p no:cacheprovider "$@"
