"""Make docs/images/sticky-block.png: the blocking sticky golden as GitHub shows it.

    python scripts/sticky_picture.py          # (re)make the picture and its recorded hash
    python scripts/sticky_picture.py --check  # exit 1 if the golden changed since (no Chromium)

The golden (tests/golden/render/blocking.sticky.md) is turned into HTML by cmark-gfm (GitHub's
own CommonMark fork, with its table, autolink, strikethrough and tagfilter extensions and the
hard line breaks of a comment), styled
with github-markdown-css (the stylesheet of GitHub's Markdown body, light theme) inside a frame
like a PR comment's, and photographed by headless Chromium: once to measure the page, once at
its height. The tools come from the Debian and npm registries; the script installs what is
missing (apt-get as root; npm into .cache/sticky-picture). The golden's SHA-256 is recorded in
docs/images/sticky-block.png.sha256, which tests/test_docs_picture.py compares with the golden:
regenerate the goldens, then this picture.
"""

from __future__ import annotations

import hashlib
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests/golden/render/blocking.sticky.md"
PICTURE = ROOT / "docs/images/sticky-block.png"
RECORDED = PICTURE.with_name(PICTURE.name + ".sha256")
CACHE = ROOT / ".cache/sticky-picture"
CSS = CACHE / "node_modules/github-markdown-css/github-markdown-light.css"
DEBIAN = {"chromium": "chromium", "cmark-gfm": "cmark-gfm"}
FONTS = ("fonts-noto-color-emoji", "fonts-dejavu-core")
WIDTH = 900

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><style>{css}</style>
<style>
body {{ margin: 0; background: #ffffff; }}
.frame {{ width: {width}px; margin: 16px; border: 1px solid #d0d7de; border-radius: 6px; }}
.header {{ background: #f6f8fa; border-bottom: 1px solid #d0d7de; padding: 8px 16px;
  font: 14px -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif;
  color: #59636e; border-radius: 6px 6px 0 0; }}
.header b {{ color: #1f2328; }}
.markdown-body {{ padding: 16px; }}
</style></head>
<body><div class="frame"><div class="header"><b>github-actions</b> <span>bot</span>
commented</div><article class="markdown-body">{body}</article></div>
<script>document.body.setAttribute("data-height",
  String(Math.ceil(document.querySelector(".frame").getBoundingClientRect().bottom)));</script></body></html>
"""


def golden_hash() -> str:
    return hashlib.sha256(GOLDEN.read_bytes()).hexdigest()


def recorded_hash() -> str:
    return RECORDED.read_text(encoding="utf-8").split()[0] if RECORDED.exists() else ""


def _apt_install(packages: list[str]) -> None:
    if not packages:
        return
    if os.geteuid() != 0:
        sys.exit(f"missing Debian packages {', '.join(packages)}: apt-get install them (as root)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-q"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-q", *packages], check=True, env=env)


def ensure_tools() -> None:
    """chromium and cmark-gfm (Debian), the emoji font, github-markdown-css (npm)."""
    missing = [pkg for tool, pkg in DEBIAN.items() if shutil.which(tool) is None]
    fonts = subprocess.run(["fc-list"], capture_output=True, text=True, check=False).stdout
    if "Noto Color Emoji" not in fonts:
        missing += list(FONTS)
    _apt_install(missing)
    if not CSS.exists():
        if shutil.which("npm") is None:
            _apt_install(["npm"])
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                "npm",
                "install",
                "--no-save",
                "--no-audit",
                "--no-fund",
                "--prefix",
                str(CACHE),
                "github-markdown-css",
            ],
            check=True,
        )


def markdown_html(markdown: str) -> str:
    """GitHub's rendering of a comment: cmark-gfm, a line break kept as one (comments, unlike
    files, render soft breaks as breaks), raw HTML kept (GitHub keeps <details>, <sub>,
    <code>; the hidden HTML comments stay invisible)."""
    done = subprocess.run(
        [
            "cmark-gfm",
            "--unsafe",
            "--hardbreaks",
            "-e",
            "table",
            "-e",
            "strikethrough",
            "-e",
            "autolink",
            "-e",
            "tagfilter",
        ],
        input=markdown,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def chromium(page: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            *args,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )


def make() -> None:
    ensure_tools()
    body = markdown_html(GOLDEN.read_text(encoding="utf-8"))
    css = CSS.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "sticky.html"
        page.write_text(PAGE.format(css=css, body=body, width=WIDTH), encoding="utf-8")
        dom = chromium(page, f"--window-size={WIDTH + 34},4000", "--dump-dom").stdout
        found = re.search(r'data-height="(\d+)"', dom)
        height = int(found.group(1)) + 16 if found else 2400
        PICTURE.parent.mkdir(parents=True, exist_ok=True)
        chromium(page, f"--window-size={WIDTH + 34},{height}", f"--screenshot={PICTURE}")
    RECORDED.write_text(f"{golden_hash()}  {GOLDEN.relative_to(ROOT).as_posix()}\n")
    print(
        f"wrote {PICTURE.relative_to(ROOT)} ({WIDTH + 34}x{height}) from {html.escape(GOLDEN.name)}"
    )


def main(argv: list[str]) -> int:
    if argv[1:] == ["--check"]:
        if recorded_hash() != golden_hash():
            print(f"{PICTURE.relative_to(ROOT)} is stale: run python scripts/sticky_picture.py")
            return 1
        return 0
    make()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
