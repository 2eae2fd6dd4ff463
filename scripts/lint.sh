#!/usr/bin/env bash
# Lint and type checks only (fast): ruff check, ruff format --check, mypy --strict, actionlint.
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(reviewcoord tests bench scripts entrypoint.py)
.venv/bin/ruff check "${paths[@]}"
.venv/bin/ruff format --check "${paths[@]}"
.venv/bin/mypy reviewcoord
.venv/bin/actionlint .github/workflows/*.yml examples/workflows/*.yml  # recipes in docs: tests/test_recipes.py
