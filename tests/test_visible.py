"""Texts from a log are printed as characters, never as commands to the terminal (grounded.present.visible): an
ESC, a CSI or a BEL in an utterance's text, an operation's text or an error message shows as a visible sign."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from grounded import Engine
from grounded.present.visible import visible

from .inprocess import grounded

HOSTILE = "hi \x1b[2J\x1b]0;pwned\x07 there \x9b31m \x7f\r"


def controls(text: str) -> list[str]:
    return [c for c in text if (ord(c) < 0x20 and c not in "\t\n") or 0x7F <= ord(c) < 0xA0]


@given(st.text())
def test_visible_leaves_no_control_character_and_keeps_the_length(text):
    shown = visible(text)
    assert not controls(shown) and len(shown) == len(text)
    assert [c for c in text if not controls(c)] == [c for c, s in zip(text, shown, strict=True) if c == s]


def test_run_state_and_errors_print_a_logs_texts_as_characters(tmp_path):
    log = tmp_path / "talk.jsonl"
    with Engine({"agents": {"ann": {}}}, log=log) as engine:
        engine.apply({"speaker": "ann", "text": HOSTILE,
                      "ops": [{"op": "observe", "claim": "o1", "text": HOSTILE}]})
    for args in (("run", log), ("run", log, "--state"), ("state", log), ("verify", log, "o1"),
                 ("summary", log)):  # the printers of text (show writes a picture)
        result = grounded(*args)
        assert not controls(result.stdout) and not controls(result.stderr), (args, result.stdout[-300:])
    result = grounded("run", log)
    assert "hi ␛[2J␛]0;pwned" in result.stdout
    missing = tmp_path / "gone\x1b[2J.yaml"  # an error quoting a name as given
    result = grounded("run", missing)
    assert result.returncode == 2 and not controls(result.stderr) and "gone␛[2J" in result.stderr, result.stderr
