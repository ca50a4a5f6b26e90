"""Comments and docstrings in src/, prolog/ and asp/ say why in the code's own terms: none cites an issue of
the project's tracker ("issue 23", "issue 23, item 5", "(#23)"), which a reader of the code cannot follow and
which says nothing once the issue is closed."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREES = [ROOT / "src" / "grounded", ROOT / "prolog", ROOT / "asp"]
SUFFIXES = {".py", ".pl", ".lp", ".plt", ".css", ".js", ".html", ".yaml", ".md"}

ISSUE = re.compile(r"\bissues?\s*#?\s*\d", re.IGNORECASE)
"""An issue named by its number, anywhere in the file."""
NUMBER = re.compile(r"(?<![\w/.-])(?:#|gh-)\d+\b", re.IGNORECASE)
"""A bare ``#23`` or ``GH-23``, looked for in comments only (strings hold ``#1``, a new-claim reference);
``owner/project#203`` names another project's issue, a source for a reason, and is not this."""



def _comments(path: Path, text: str) -> list[tuple[int, str]]:
    """The comment lines of ``text`` with their numbers: Python's ``#`` comments, Prolog's and ASP's ``%``."""
    if path.suffix == ".py":
        tokens = tokenize.generate_tokens(io.StringIO(text).readline)
        return [(t.start[0], t.string) for t in tokens if t.type == tokenize.COMMENT]
    if path.suffix in {".pl", ".lp", ".plt"}:
        return [(n, line[line.index("%"):]) for n, line in enumerate(text.splitlines(), 1) if "%" in line]
    return []


def citations(path: Path) -> list[str]:
    """Each place ``path`` cites an issue by number, as ``line: text``."""
    text = path.read_text(encoding="utf-8")
    found = [f"{n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1) if ISSUE.search(line)]
    found += [f"{n}: {comment.strip()}" for n, comment in _comments(path, text) if NUMBER.search(comment)]
    return found


def test_no_comment_or_docstring_cites_an_issue_number():
    cited = {}
    for tree in TREES:
        for path in sorted(tree.rglob("*")):
            name = str(path.relative_to(ROOT))
            if path.suffix in SUFFIXES and "__pycache__" not in path.parts:
                if found := citations(path):
                    cited[name] = found
    assert cited == {}


def test_the_check_finds_each_form_of_citation(tmp_path):
    source = tmp_path / "m.py"
    source.write_text('"""Built so (issue 23, item 5)."""\nx = "#1"  # a new-claim reference\n'
                      "y = 1  # kept apart (#23)\nz = 2  # see potassco/clingo#203\n# Issues 4 and 5 both\n")
    assert citations(source) == ['1: """Built so (issue 23, item 5)."""', "5: # Issues 4 and 5 both",
                                 "3: # kept apart (#23)"]
    rules = tmp_path / "r.pl"
    rules.write_text("a :- b.  % as it was (#7)\n%  resident memory (issue 23)\n")
    assert citations(rules) == ["2: %  resident memory (issue 23)", "1: % as it was (#7)"]
