"""action.yml, docs/configure.md's tables, the example config, the Settings model and the
Action's input reader agree with docs/interface.md §3-§4 and §7, and the reusable workflow's
`workflow_call` interface with §10 — one list of inputs and keys, one default each, every one
documented."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from reviewcoord.action import SETTING_INPUTS
from reviewcoord.config import RUN_ONLY_KEYS, Settings

ROOT = Path(__file__).resolve().parents[1]

# docs/interface.md §3: input → default as documented.
INTERFACE = {
    "github-token": "${{ github.token }}",
    "pr": "from the event",
    "repo": "GITHUB_REPOSITORY",
    "cycle": "from history, else 1",
    "settle": "fast",
    "fast-timeout": "180",
    "full-timeout": "480",
    "poll-interval": "15",
    "finishing-grace": "60",
    "confirm-delay": "5",
    "expected-bots": "auto",
    "require-bots": "(none)",
    "merge-patience": "true",
    "format": "both",
    "config": ".github/review-coordinator.yml",
    "check-name": "review-coordinator",
    "status-context": "review-coordinator",
    "dry-run": "false",
    "fail-on-block": "false",
    "rerequest": "false",
    "wait": "poll",
    "sweep-budget": "5",
    "sweep-workflow": "review-coordinator.yml",
}
OUTPUTS = [
    "gate",
    "gate-reason",
    "critical-count",
    "advisory-count",
    "settled-on",
    "pending",
    "unreviewed",
    "comment-url",
    "next-step",
    "verdict",
    "verdict-file",
]
PER_RUN = {"github-token", "pr", "repo", "config", "wait", "sweep-budget", "sweep-workflow"}


def docs_table(heading: str) -> dict[str, str]:
    """docs/configure.md's table under `## heading`: first cell → the default (or meaning)."""
    text = (ROOT / "docs/configure.md").read_text(encoding="utf-8")
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].startswith("`"):
            value = cells[2] if len(cells) >= 4 else cells[1]
            for key in re.findall(r"`([a-z-]+)`", cells[0]):
                rows[key] = value.strip("`")
    return rows


def file_keys() -> set[str]:
    return {f.alias or k for k, f in Settings.model_fields.items()} - RUN_ONLY_KEYS


def action() -> dict[str, object]:
    data = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_inputs_are_the_same_everywhere() -> None:
    inputs = action()["inputs"]
    assert isinstance(inputs, dict)
    assert list(inputs) == list(INTERFACE)
    assert set(INTERFACE) <= set(docs_table("Every key"))
    assert set(SETTING_INPUTS) == set(INTERFACE) - PER_RUN


def test_documented_defaults_agree() -> None:
    documented = docs_table("Every key")
    assert {k: documented[k] for k in INTERFACE} == INTERFACE
    inputs = action()["inputs"]
    assert isinstance(inputs, dict)
    settings = Settings()
    for name, default in INTERFACE.items():
        spec = inputs[name]
        if name in SETTING_INPUTS and name != "cycle":
            # Empty in action.yml (so the config file can win); the description names the default,
            # and the model's default is that value.
            assert spec["default"] == "", name
            assert f"Default: {default}." in " ".join(spec["description"].split()), name
            attribute = next(k for k, f in Settings.model_fields.items() if (f.alias or k) == name)
            value = getattr(settings, attribute)
            if isinstance(value, bool):
                shown = str(value).lower()
            elif isinstance(value, list):
                shown = ",".join(value) or "(none)"
            else:
                shown = str(value)
            assert shown == default, (name, shown, default)
    assert inputs["github-token"]["default"] == "${{ github.token }}"
    assert inputs["config"]["default"] == INTERFACE["config"]


def test_expected_bots_names_every_built_in_reviewer_key() -> None:
    """action.yml's `expected-bots` lists the registry's reviewer keys, in its order: a new
    profile fails here until its key is named."""
    from reviewcoord.bots import reviewer_keys

    inputs = action()["inputs"]
    assert isinstance(inputs, dict)
    text = " ".join(inputs["expected-bots"]["description"].split())
    listed = text[text.index("(") + 1 : text.index(", or a reviewer")].split(", ")
    assert listed == list(reviewer_keys())


def test_config_file_keys_are_input_names_plus_section_7() -> None:
    aliases = {f.alias or k for k, f in Settings.model_fields.items()}
    assert aliases == (set(INTERFACE) - PER_RUN) | {
        "group-window",
        "severity",
        "fast-pack",
        "slow-pack",
        "convergence-after",
        "code-scanning",
        "reviewers",
    }
    assert {*PER_RUN, "cycle"} == set(RUN_ONLY_KEYS)


def test_outputs_are_the_same_everywhere() -> None:
    outputs = action()["outputs"]
    assert isinstance(outputs, dict)
    assert list(outputs) == OUTPUTS
    assert list(docs_table("Outputs")) == OUTPUTS
    source = (ROOT / "reviewcoord/action.py").read_text(encoding="utf-8")
    assert re.findall(r'^        "([a-z-]+)":', source, flags=re.M) == OUTPUTS


def test_every_declared_reviewer_key_is_documented_in_section_7_and_the_example() -> None:
    """Every key of a declared reviewer (and of its `check:`), read from the models, is in
    §7's example and, commented, in examples/review-coordinator.yml."""
    from reviewcoord.bots.declared import DeclaredCheck, DeclaredReviewer

    doc = (ROOT / "docs/interface.md").read_text(encoding="utf-8")
    section = doc.split("## 7. Config file", 1)[1].split("\n## 8.", 1)[0]
    example = (ROOT / "examples/review-coordinator.yml").read_text(encoding="utf-8")
    for model, indent in ((DeclaredReviewer, "    "), (DeclaredCheck, "      ")):
        for name, field in model.model_fields.items():
            key = field.alias or name
            assert f"\n{indent}{key}:" in section, f"docs/interface.md §7 lacks {key}"
            assert f"\n# {indent}{key}:" in example, f"example config lacks {key}"


def test_every_key_and_input_is_documented_in_the_contract_and_the_example_config() -> None:
    """Every config key in interface §3 or §7, and in examples/review-coordinator.yml (as a key
    or, for the ones best left at their default, a commented key); every input in §3."""
    interface = (ROOT / "docs/interface.md").read_text(encoding="utf-8")
    contract = interface.split("## 3. Inputs", 1)[1].split("## 8. ", 1)[0]
    example = (ROOT / "examples/review-coordinator.yml").read_text(encoding="utf-8")
    for key in sorted(file_keys()):
        assert f"`{key}`" in contract, f"docs/interface.md §3/§7 lacks `{key}`"
        assert re.search(rf"^(# )?{key}:", example, flags=re.M), f"example config lacks {key}"
    inputs = action()["inputs"]
    assert isinstance(inputs, dict)
    section_3 = interface.split("## 3. Inputs", 1)[1].split("\n## ", 1)[0]
    for name in inputs:
        assert f"| `{name}` |" in section_3, name
    assert set(docs_table("Every key")) == file_keys() | set(INTERFACE)


def test_the_reusable_workflows_interface_is_documented_in_section_10() -> None:
    """Every `workflow_call` input, secret and output of judge.yml has its row in
    docs/interface.md §10, with the default the workflow declares; no row names one it lacks."""
    from tests.workflow_support import reusable

    call = reusable()["on"]["workflow_call"]
    EMPTY = "''"  # how the docs write an empty default
    doc = (ROOT / "docs/interface.md").read_text(encoding="utf-8")
    section = doc.split("## 10. The reusable workflow", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and re.fullmatch(r"`[a-z-]+`", cells[0]):
            rows[cells[0].strip("`")] = cells[1]
    declared = {**call["inputs"], **call["secrets"], **call["outputs"]}
    assert set(rows) == set(declared)
    for name, spec in call["inputs"].items():
        assert rows[name] == f"`{spec['default'] or EMPTY}`", name
    assert rows["token"] == "`GITHUB_TOKEN`" and call["secrets"]["token"]["required"] is False
    for name in call["outputs"]:
        assert f"`{name}`" in rows[name] and name in OUTPUTS, name
