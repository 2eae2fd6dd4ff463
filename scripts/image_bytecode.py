"""Compile the bytecode of exactly the modules the action imports (run inside the image build).

    /opt/venv/bin/python3 scripts/image_bytecode.py OUT_DIR

Imports the modules a run of the Action uses (`ACTION_MODULES`, which pull in, at module level,
what it uses of the standard library and of the dependencies), then writes a .pyc for each imported
pure-Python module under OUT_DIR, at the path the interpreter looks for it (OUT_DIR + the module's
__pycache__ path). The Dockerfile copies OUT_DIR over the final image.

Why: the image runs with PYTHONDONTWRITEBYTECODE=1 as a non-root user in a container that lives
for one step, so nothing is ever cached at run time. The official python:3.11-slim ships no
standard-library bytecode and pip would compile every installed module (most never imported):
compiling only what is imported keeps start-up fast at a fraction of the size (docs/performance.md).

`checked-hash` pycs stay valid whatever the files' modification times (COPY between build stages,
either builder) and make the layer reproducible. A module imported later at run time without a pyc
here is simply compiled in memory, as before.
"""

from __future__ import annotations

import importlib
import importlib.util
import py_compile
import sys
from pathlib import Path

# What a run of the Action imports: the entrypoint's modules and the ones it imports inside
# functions (the PyGithub adapter, the merge-queue path, rendering). The terminal-only modules
# (`status`, the plain-text renderer, `live`, snapshots) get no bytecode: the image never runs them
# (they still work, compiled in memory).
ACTION_MODULES = (
    "reviewcoord.preflight",
    "reviewcoord.cli",
    "reviewcoord.action",
    "reviewcoord.runner",
    "reviewcoord.merge_queue",
    "reviewcoord.render",
    "reviewcoord.github.pygithub_gateway",
)


def imported_sources() -> list[Path]:
    for name in ACTION_MODULES:
        importlib.import_module(name)
    sources = set()
    for name, module in list(sys.modules.items()):
        if name == "__main__":  # this script
            continue
        origin = getattr(module, "__file__", None)
        if origin and origin.endswith(".py") and Path(origin).is_file():
            sources.add(Path(origin))
    return sorted(sources)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    out = Path(argv[0])
    total = 0
    sources = imported_sources()
    for source in sources:
        cache = Path(importlib.util.cache_from_source(str(source)))
        target = out / cache.relative_to(cache.anchor)
        target.parent.mkdir(parents=True, exist_ok=True)
        py_compile.compile(
            str(source),
            cfile=str(target),
            dfile=str(source),
            doraise=True,
            invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH,
        )
        total += target.stat().st_size
    print(f"image_bytecode: {len(sources)} modules, {total / 1e6:.1f} MB of bytecode in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
