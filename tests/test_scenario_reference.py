"""docs/scenarios.md describes exactly the keys and checks the loader knows, and its examples run clean.

The page is a lecturer's only reference for writing a course scenario, so it
must not drift from ``grounded.scenario.file``: every key and check the
loader accepts has a `### \\`name\\`` heading in the section for it, nothing
else does, and each complete example on the page passes ``grounded run``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest

from grounded.core.vocabulary import PropKind
from grounded.dmap.model import Agent, Proposition
from grounded.epistemic.declaration import WorldAgent, WorldDeclaration
from grounded.scenario.checks import CHECKS
from grounded.scenario.file import HEADER_KEYS, TOP_KEYS, TURN_KEYS
from grounded.scenario.questions import QUERIES
from tests.inprocess import grounded

PAGE = Path(__file__).parents[1] / "docs" / "scenarios.md"
TEXT = PAGE.read_text(encoding="utf-8")


def _section(title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", TEXT, re.S | re.M)
    assert match, f"docs/scenarios.md has no section '## {title}'"
    return match.group(1)


def _headings(title: str) -> set[str]:
    return set(re.findall(r"^### `([a-z_]+)`$", _section(title), re.M))


@pytest.mark.parametrize("title,keys", [
    ("The header", set(HEADER_KEYS)),
    ("The other top-level keys", set(TOP_KEYS)),
    ("A turn", set(TURN_KEYS)),
    ("Checks", set(CHECKS)),
])
def test_every_key_the_loader_knows_is_described_and_nothing_else(title, keys):
    assert _headings(title) == keys


@pytest.mark.parametrize("heading,fields", [
    ("agents", Agent.model_fields),
    ("props", Proposition.model_fields),
    ("world", {**WorldDeclaration.model_fields, **WorldAgent.model_fields}),
])
def test_every_field_of_a_header_key_is_named(heading, fields):
    body = re.search(rf"^### `{heading}`\n(.*?)(?=^### |^## )", TEXT, re.S | re.M).group(1)
    assert [f for f in fields if not re.search(rf"`[^`]*\b{f}\b[^`]*`", body)] == []


def test_every_proposition_kind_is_listed():
    body = re.search(r"^### `props`\n(.*?)(?=^### )", TEXT, re.S | re.M).group(1)
    assert [k for k in get_args(PropKind) if f"`{k}`" not in body] == []


EXAMPLES = re.findall(r"```yaml\n(grounded: 1\n.*?)```", TEXT, re.S)


def test_the_examples_use_every_check_kind():
    used = {kind for example in EXAMPLES for kind in re.findall(r"^\s+- ([a-z_]+):", example, re.M)}
    assert set(CHECKS) - used == set()


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_each_complete_example_passes_grounded_run(tmp_path, index):
    path = tmp_path / f"example{index}.yaml"
    path.write_text(EXAMPLES[index], encoding="utf-8")
    result = grounded("run", path, "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r": \d+ passed, 0 failed", result.stdout), result.stdout


def test_there_are_two_examples():
    assert len(EXAMPLES) == 2


def test_every_query_kind_a_question_may_ask_is_described():
    body = re.search(r"^### `questions`\n(.*?)(?=^### |^## )", TEXT, re.S | re.M).group(1)
    assert [k for k in QUERIES if f"- `{k} " not in body] == []
