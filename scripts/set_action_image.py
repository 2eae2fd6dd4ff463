"""Point action.yml at a prebuilt image: the release step between "image pushed" and "tag moved".

    python3 scripts/set_action_image.py ACTION_YML IMAGE@sha256:DIGEST [--version vX.Y.Z]

Rewrites the one `image:` line under `runs:` (on main it is `image: Dockerfile`) to
`image: docker://IMAGE@sha256:DIGEST`, with a comment naming the version, and checks the result:
exactly one such line, a digest of 64 hex digits, a lower-case registry path (GHCR and Docker refuse
upper case). Standard library only: the release job runs it with the runner's python3 before
anything is installed, and scripts/registry-dry-run.sh runs it on a copy of action.yml.

A digest, not a tag: the release tag's action.yml then names bytes that cannot change, even if
someone re-pushes the image tag; the version tag stays on the image for people who pull it by hand.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

IMAGE_LINE = re.compile(r"^(?P<indent>[ ]+)image:[ ]*(?P<value>\S.*?)[ ]*$", re.M)
# <registry>/<path>@sha256:<64 hex>, lower case as the registries require.
REFERENCE = re.compile(
    r"^(?:docker://)?(?P<name>[a-z0-9.-]+(?::\d+)?(?:/[a-z0-9._-]+)+)@sha256:[0-9a-f]{64}$"
)
VERSION = re.compile(r"^v\d+\.\d+\.\d+$")


def rewrite(text: str, reference: str, version: str | None = None) -> str:
    """action.yml text with its runs.image set to docker://<reference>."""
    if not REFERENCE.match(reference):
        raise ValueError(f"not a lower-case image reference with a sha256 digest: {reference!r}")
    if version is not None and not VERSION.match(version):
        raise ValueError(f"not a release version vX.Y.Z: {version!r}")
    runs = re.search(r"^runs:[ ]*$", text, re.M)
    if runs is None:
        raise ValueError("no top-level `runs:` in action.yml")
    head, body = text[: runs.end()], text[runs.end() :]
    # runs: is the last mapping or is followed by another top-level key: stop there.
    nxt = re.search(r"^\S", body, re.M)
    block, tail = (body[: nxt.start()], body[nxt.start() :]) if nxt else (body, "")
    lines = IMAGE_LINE.findall(block)
    if len(lines) != 1:
        raise ValueError(f"expected one `image:` line under `runs:`, found {len(lines)}")
    value = reference if reference.startswith("docker://") else f"docker://{reference}"
    comment = f" # {version}" if version else ""

    def sub(m: re.Match[str]) -> str:
        return f"{m['indent']}image: {value}{comment}"

    block = IMAGE_LINE.sub(sub, block, count=1)
    return head + block + tail


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("action_yml", type=Path)
    ap.add_argument("reference", help="IMAGE@sha256:DIGEST (docker:// optional)")
    ap.add_argument("--version", help="the release, vX.Y.Z, written as a comment")
    args = ap.parse_args(argv)
    text = args.action_yml.read_text(encoding="utf-8")
    try:
        new = rewrite(text, args.reference, args.version)
    except ValueError as exc:
        print(f"set_action_image: {exc}", file=sys.stderr)
        return 1
    args.action_yml.write_text(new, encoding="utf-8")
    for line in new.splitlines():
        if line.strip().startswith("image:"):
            print(f"set_action_image: {args.action_yml}: {line.strip()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
