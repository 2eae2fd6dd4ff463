"""The example declared reviewer of docs/interface.md §7 (`reviewers:`), as a config file, for
the tests and bench/declared_match.py."""

from __future__ import annotations

KILO_LOGIN = "kilo-code-bot[bot]"
KILO_CONFIG = r"""
reviewers:
  kilo:
    name: Kilo Code
    logins: ['kilo-code-bot[bot]']
    severity:
      pattern: '^\*\*(Critical|Warning|Info)\*\*'
      levels: {Critical: critical, Warning: medium, Info: low}
    reviewed: ['No issues found', '^## Review complete']
    working: ['Reviewing your changes']
    failed: ['rate limit', 'could not review']
"""
