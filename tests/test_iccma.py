"""The ICCMA formats (.apx, .tgf): round trips, errors with file and line, and the CLI on real files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounded.core.errors import InputError
from grounded.dung import Framework, extensions, iccma
from tests.inprocess import grounded

from .test_dung import frameworks
from .test_properties import budget

ROOT = Path(__file__).resolve().parent.parent



def as_names(named: iccma.NamedFramework) -> tuple[set[str], set[tuple[str, str]]]:
    return ({named.name(a) for a in named.af.arguments},
            {(named.name(a), named.name(b)) for a, b in named.af.attacks})


@budget(100)
@given(af=frameworks(max_size=12), fmt=st.sampled_from(iccma.FORMATS), prefix=st.sampled_from(["a", "arg_", "x."]))
def test_a_framework_survives_writing_and_reading(af, fmt, prefix):
    text = iccma.write(af, fmt, name=lambda a: f"{prefix}{a}")
    back = iccma.parse(text, fmt)
    assert as_names(back) == ({f"{prefix}{a}" for a in af.arguments},
                              {(f"{prefix}{a}", f"{prefix}{b}") for a, b in af.attacks})
    assert iccma.write(back.af, fmt, name=back.name) == text  # names kept, order kept


def test_apx_allows_comments_several_facts_a_line_and_attacks_before_arguments():
    named = iccma.parse("att(b,c). % b attacks c\n\narg(a). arg(b).arg( c ) .\natt(a, b).\n", "apx")
    assert as_names(named) == ({"a", "b", "c"}, {("b", "c"), ("a", "b")})
    (ext,) = extensions(named.af, "grounded")
    assert {named.name(a) for a in ext} == {"a", "c"}


def test_tgf_ignores_labels():
    named = iccma.parse("1 first\n2\n3 third one\n#\n1 2 label\n2 3\n", "tgf")
    assert as_names(named) == ({"1", "2", "3"}, {("1", "2"), ("2", "3")})


@pytest.mark.parametrize(("fmt", "text", "line", "words"), [
    ("apx", "arg(a).\natt(a,b).\n", 2, "argument b is not declared"),
    ("apx", "arg(a).\nargument(b).\n", 2, "expected arg(a). or att(a,b)"),
    ("apx", "arg(a).\narg(b) att(a,b).\n", 2, "expected arg(a). or att(a,b)"),
    ("apx", "arg(a,b).\n", 1, "arg/1 takes one name"),
    ("apx", "att(a).\n", 1, "att/2 takes two names"),
    ("tgf", "a\nb\n#\na\n", 4, "an edge needs two node names"),
    ("tgf", "a\n#\n#\n", 3, "a second '#' line"),
    ("tgf", "a\n#\na c\n", 3, "argument c is not declared"),
])
def test_bad_files_are_named_by_file_and_line(tmp_path, fmt, text, line, words):
    path = tmp_path / f"af.{fmt}"
    path.write_text(text)
    with pytest.raises(InputError, match=re.escape(words)) as info:
        iccma.read(path)
    assert str(info.value).startswith(f"{path}:{line}: ")


def test_names_that_cannot_be_written_are_refused():
    with pytest.raises(InputError, match="cannot be written as apx"):
        iccma.write(Framework.of([1], []), "apx", name=lambda a: "a b")


def test_the_cli_runs_iccma_files_and_writes_the_conversations_framework(tmp_path):
    apx = tmp_path / "talk.apx"
    written = grounded("extensions", ROOT / "scenarios" / "phase2.yaml", "--to", "apx")
    assert written.returncode == 0, written.stderr
    apx.write_text(written.stdout)
    by_claim = json.loads(grounded("extensions", ROOT / "scenarios" / "phase2.yaml", "-s", "grounded",
                                   "--json").stdout)
    by_id = json.loads(grounded("extensions", apx, "-s", "grounded", "--json").stdout)
    assert len(by_id) == len(by_claim) == 1 and len(by_id[0]) == len(by_claim[0])
    assert all(name.startswith("a") for name in by_id[0])
    cycle = tmp_path / "cycle.tgf"
    cycle.write_text("a\nb\nc\n#\na b\nb a\nb c\n")
    text = grounded("extensions", cycle, "-s", "preferred")
    assert text.returncode == 0 and "2 preferred extension(s)" in text.stdout
    assert "1. b\n2. a, c\n" in text.stdout  # sorted by size, then members
    bad = grounded("extensions", cycle, "--at", "3")
    assert bad.returncode == 2 and bad.stderr.startswith("error: --at applies to a conversation")


PHASE2 = ROOT / "scenarios" / "phase2.yaml"


@pytest.mark.parametrize("fmt", ["apx", "tgf"])
def test_a_retraction_exports_af_restricted_with_its_claims(tmp_path, fmt):
    """--retract P --to FMT writes AF|X; the claims travel as comments (apx) or node labels (tgf), and the
    file reads back to the same extensions."""
    written = grounded("extensions", PHASE2, "--retract", "o5", "--to", fmt)
    assert written.returncode == 0, written.stderr
    path = tmp_path / f"af.{fmt}"
    path.write_text(written.stdout)
    removed = json.loads(grounded("extensions", PHASE2, "--retract", "o5", "--json").stdout)
    back = iccma.read(path)
    assert len(back.af) == 15 - len(removed["affected"])
    assert ("% a5: o5\n" if fmt == "apx" else "a5 o5\n") in written.stdout
    assert "a11" not in back.names and "h1" in removed["affected"]  # h1 (#11) rests on o5: it is not in AF|X
    by_file = json.loads(grounded("extensions", path, "--json").stdout)
    assert [[f"a{a}" for a in ids] for ids in _ids(removed["extensions"], PHASE2)] == by_file


def _ids(extensions: list[list[str]], scenario: Path) -> list[list[int]]:
    state = json.loads(grounded("state", scenario, "--json").stdout)
    by_claim = {a["claim"]: a["id"] for a in state["arguments"]}
    return [sorted(by_claim[c] for c in ext) for ext in extensions]


def test_the_iccma_acceptance_tasks_answer_with_a_witness_or_counterexample(tmp_path):
    cycle = tmp_path / "cycle.tgf"
    cycle.write_text("a\nb\nc\n#\na b\nb a\nb c\n")  # preferred: {b} and {a, c}
    assert grounded("extensions", cycle, "--credulous", "c").stdout == "YES\nw a c\n"
    assert grounded("extensions", cycle, "--sceptical", "c").stdout == "NO\nw b\n"
    assert grounded("extensions", cycle, "--sceptical", "c", "-s", "grounded").stdout == "NO\nw \n"
    loop = tmp_path / "loop.apx"
    loop.write_text("arg(a). arg(b). att(b,b).\n")
    assert grounded("extensions", loop, "--sceptical", "a").stdout == "YES\n"
    assert grounded("extensions", loop, "--credulous", "b").stdout == "NO\n"
    answer = json.loads(grounded("extensions", cycle, "--credulous", "c", "--json").stdout)
    assert answer == {"task": "DC-preferred", "argument": "c", "answer": "YES", "extensions": 2, "witness": ["a", "c"]}
    # a conversation: the argument by a<id> or by its claim, the witness with its claims
    h2 = grounded("extensions", PHASE2, "--credulous", "h2", "--at", "6")
    assert h2.returncode == 0 and h2.stdout.startswith("YES\nw a1 ") and "h2 #12" in h2.stdout
    assert grounded("extensions", PHASE2, "--credulous", "a12", "--at", "6").stdout == h2.stdout
    late = json.loads(grounded("extensions", PHASE2, "--sceptical", "h2", "--json").stdout)
    assert late["answer"] == "NO" and "h2" not in late["claims"] and len(late["claims"]) == len(late["counterexample"])
    bad = grounded("extensions", PHASE2, "--credulous", "nothing_here")
    assert bad.returncode == 2 and "--credulous nothing_here: no such argument" in bad.stderr
    both = grounded("extensions", cycle, "--credulous", "a", "--to", "apx")
    assert both.returncode == 2 and "--to and --credulous: give one of them" in both.stderr


def test_state_json_holds_what_state_prints():
    state = json.loads(grounded("state", PHASE2, "--json", "--at", "7").stdout)
    assert state["at"] == 7
    h2 = next(a for a in state["arguments"] if a["claim"] == "h2")
    assert h2["standing"] == "weakened" and h2["grounded"] is False and h2["deps"]
    assert set(state) == {"at", "arguments", "open_problems", "commitments", "dissent", "reinstatable"}
    text = grounded("state", PHASE2, "--at", "7").stdout
    assert all(a["claim"] in text for a in state["arguments"])
