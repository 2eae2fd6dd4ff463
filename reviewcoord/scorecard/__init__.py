"""`reviewcoord scorecard`: which AI reviewer earns its cost, from the repository's own history.

figures.py   the pure core: each PR's last record → per-reviewer and per-repository figures
render.py    the figures as JSON (the contract), a table, CSV and an SVG chart
live.py      the edge: which PRs (the window), their stickies (≤ 2 reads a PR), the cache
"""
