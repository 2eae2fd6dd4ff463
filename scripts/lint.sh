#!/usr/bin/env bash
# Lint and type checks only (fast): ruff check, ruff format --check, mypy --strict, actionlint
# (scripts/actionlint.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(reviewcoord tests bench scripts entrypoint.py)
.venv/bin/ruff check "${paths[@]}"
.venv/bin/ruff format --check "${paths[@]}"
.venv/bin/mypy reviewcoord
bash scripts/actionlint.sh
