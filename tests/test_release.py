"""The release path without GitHub: the workflow's shape and pins, and the action.yml rewrite
(actionlint over every workflow: tests/test_recipes.py).

.github/workflows/release.yml builds and pushes the image, verifies it, and only then rewrites
action.yml (scripts/set_action_image.py) and moves the tags; bench/image.py runs the parts this
machine can run against a loopback registry.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = REPO_ROOT / ".github" / "workflows"
sys.path.insert(0, str(REPO_ROOT / "scripts"))

from set_action_image import rewrite  # noqa: E402

DIGEST = "sha256:" + "0123456789abcdef" * 4
REF = f"ghcr.io/octo/review-coordinator@{DIGEST}"
USES = re.compile(r"^\s*(?:-\s+)?uses:\s*(\S+)(.*)$", re.M)


def _workflow(name: str) -> dict[Any, Any]:
    data = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_release_workflow_shape() -> None:
    wf = _workflow("release.yml")
    on = wf[True]  # YAML 1.1 reads the key `on` as True
    assert on == {"push": {"tags": ["v*.*.*"]}}
    assert wf["permissions"] == {}
    jobs = wf["jobs"]
    assert set(jobs) == {"image", "verify", "publish"}
    assert jobs["image"]["permissions"] == {"contents": "read", "packages": "write"}
    assert jobs["verify"]["permissions"] == {"packages": "read"}
    assert jobs["publish"]["permissions"] == {"contents": "write", "packages": "read"}
    # The tags move only after the image was pushed and verified.
    assert jobs["verify"]["needs"] == "image"
    assert set(jobs["publish"]["needs"]) == {"image", "verify"}
    build = next(s for s in jobs["image"]["steps"] if s.get("id") == "build")
    assert build["with"]["platforms"] == "linux/amd64,linux/arm64"
    assert build["with"]["push"] is True
    assert build["with"]["provenance"] is True and build["with"]["sbom"] is True
    for arg in ("VERSION=", "REVISION=", "SOURCE="):
        assert arg in build["with"]["build-args"]
    script = "\n".join(s.get("run", "") for s in jobs["publish"]["steps"])
    inspect, rewrite_at = script.index("imagetools inspect"), script.index("set_action_image.py")
    assert inspect < rewrite_at < script.index("git push")


@pytest.mark.parametrize("name", ["release.yml", "ci.yml"])
def test_actions_pinned_by_full_sha_with_version_comment(name: str) -> None:
    text = (WORKFLOWS / name).read_text(encoding="utf-8")
    uses = USES.findall(text)
    assert uses
    for ref, rest in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", ref), ref
        assert re.fullmatch(r"\s*# v\d+\.\d+\.\d+", rest), f"{ref}: no `# vX.Y.Z` comment"


def test_rewrite_changes_only_the_image_line() -> None:
    text = (REPO_ROOT / "action.yml").read_text(encoding="utf-8")
    new = rewrite(text, REF, "v1.2.3")
    action = yaml.safe_load(new)
    assert action["runs"] == {"using": "docker", "image": f"docker://{REF}"}
    old_lines, new_lines = text.splitlines(), new.splitlines()
    changed = [(a, b) for a, b in zip(old_lines, new_lines, strict=True) if a != b]
    assert changed == [("  image: Dockerfile", f"  image: docker://{REF} # v1.2.3")]
    # A second release over a released action.yml: the same single line, the new digest.
    other = REF.replace("0123", "4567")
    assert yaml.safe_load(rewrite(new, other))["runs"]["image"] == f"docker://{other}"


@pytest.mark.parametrize(
    "ref",
    [
        "ghcr.io/Octo/review-coordinator@" + DIGEST,  # upper case
        "ghcr.io/octo/review-coordinator:1.2.3",  # a tag, not a digest
        "ghcr.io/octo/review-coordinator@sha256:abc",  # short digest
        "review-coordinator@" + DIGEST,  # no registry
    ],
)
def test_rewrite_rejects(ref: str) -> None:
    with pytest.raises(ValueError):
        rewrite((REPO_ROOT / "action.yml").read_text(encoding="utf-8"), ref)


def test_rewrite_needs_exactly_one_image_line() -> None:
    with pytest.raises(ValueError, match="one `image:`"):
        rewrite("runs:\n  using: docker\n", REF)
    with pytest.raises(ValueError, match="runs:"):
        rewrite("name: x\n", REF)
    # An `image:` elsewhere (another top-level key after runs) is not touched.
    text = "runs:\n  using: docker\n  image: Dockerfile\nx:\n  image: keep\n"
    assert rewrite(text, REF).endswith("x:\n  image: keep\n")


def test_main_runs_the_dockerfile() -> None:
    """Unreleased code (`@main`, SHAs on main) builds the Dockerfile; only release tags pin."""
    action = yaml.safe_load((REPO_ROOT / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["image"] == "Dockerfile"
