"""One reading of a log everywhere: strict by default, a torn final line ignored, --partial says so.

The cases issue 10 found: a log with a bad line 3 answered from lines 1-2 with
exit 0; a hand-written log whose line 6 the rules reject answered "no anchor"
for a claim of turn 11 while `check` went past the line and said "all agree";
a log written with an extension and replayed without it answered stale.
Each is now exit 2 naming file:line (or, with --partial, an answer that says
it is partial), the same for the API and every command.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from grounded import Engine, InputError, LogError
from grounded.crosscheck.check import check

from .inprocess import run_cli

HEADER = {"grounded": 1, "agents": {"alice": {}, "bob": {}}}


def utterance(turn: int, *ops: dict, speaker: str = "alice") -> dict:
    return {"turn": turn, "speaker": speaker, "ops": list(ops)}


def observe(claim: str) -> dict:
    return {"op": "observe", "claim": claim}


def write(path: Path, lines: list, tail: str = "\n") -> Path:
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + tail)
    return path


def hand_written(tmp_path: Path) -> Path:
    """Eleven turns; line 6 (turn 5) supports a claim nobody made: the rules reject it."""
    lines: list = [HEADER]
    for t in range(1, 12):
        lines.append(utterance(t, {"op": "support", "target": "h404", "by": "o1"}) if t == 5 else
                     utterance(t, observe(f"o{t}")))
    return write(tmp_path / "talk.jsonl", lines)


def grounded(*args) -> SimpleNamespace:
    """The command line, in this process (test_a_log_replayed_without_its_extension runs a real one)."""
    code, out, err = run_cli(*args)
    return SimpleNamespace(returncode=code, stdout=out, stderr=err)


def process(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grounded", *map(str, args)], capture_output=True, text=True,
                          timeout=120)


BAD_LINE_3 = {
    "unknown operation": json.dumps(utterance(2, {"op": "teleport", "claim": "o9"})),
    "truncated JSON": '{"turn": 2, "speaker": "alice", "ops": [{"op": "obs',
    "schema": json.dumps(utterance(2, {"op": "support", "by": "o1"})),
}


@pytest.mark.parametrize("case", sorted(BAD_LINE_3))
def test_a_bad_line_is_an_error_naming_file_and_line_for_the_api(tmp_path, case):
    log = write(tmp_path / "talk.jsonl", [HEADER, utterance(1, observe("o1")), BAD_LINE_3[case],
                                          utterance(3, observe("o3"))])
    with pytest.raises(LogError) as info:
        Engine.load(log)
    assert info.value.line == 3 and str(info.value).startswith(f"{log}:3: ")
    partial = Engine.load(log, strict=False)
    assert partial.turn == 1 and not partial.log_status.complete and partial.log_status.stopped_at == 3
    assert partial.log_status.to_json()["complete"] is False


@pytest.mark.parametrize("case", sorted(BAD_LINE_3))
def test_verify_on_a_bad_line_exits_2_and_partial_says_so(tmp_path, case):
    log = write(tmp_path / "talk.jsonl", [HEADER, utterance(1, observe("o1")), BAD_LINE_3[case],
                                          utterance(3, observe("o3"))])
    strict = grounded("verify", log, "o1")
    assert strict.returncode == 2 and strict.stdout == ""  # no answer
    assert f"{log}:3:" in strict.stderr and len(strict.stderr.strip().splitlines()) == 1
    partial = grounded("verify", log, "o1", "--partial", "--json")
    assert partial.returncode == 0
    answer = json.loads(partial.stdout)
    assert answer["grounded"] and answer["complete"] is False and answer["stopped_at"] == 3
    text = grounded("verify", log, "o1", "--partial")
    assert "PARTIAL: answered from the 1 utterances before line 3" in text.stdout


def test_the_named_field_and_rule_code_are_in_the_error(tmp_path):
    log = write(tmp_path / "talk.jsonl", [HEADER, utterance(1, observe("o1")), BAD_LINE_3["schema"]])
    with pytest.raises(LogError, match=r"talk.jsonl:3: ops\[0\].target: Field required"):
        Engine.load(log)
    with pytest.raises(LogError, match=r"talk.jsonl:6: rejected by the rules: .*\[support_target_unknown\]"):
        Engine.load(hand_written(tmp_path))


@pytest.mark.slow
def test_a_line_the_rules_reject_stops_every_command_the_same_way(tmp_path):
    log = hand_written(tmp_path)
    for command in (["verify", log, "o11"], ["affected", log, "o1"], ["state", log], ["extensions", log],
                    ["run", log], ["check", log]):
        result = grounded(*command)
        assert result.returncode == 2, command
        assert f"{log}:6: rejected by the rules" in result.stderr and "support_target_unknown" in result.stderr
        # no answer (`run` streams the turns it replays, but never its summary)
        assert result.stdout == "" if command[0] != "run" else "turns" not in result.stdout
    # --partial: every command stops at line 6 (the rule for all, check included) and says so
    verify = json.loads(grounded("verify", log, "o11", "--partial", "--json").stdout)
    assert verify["status"] == "no_anchor" and verify["complete"] is False and verify["stopped_at"] == 6
    report = json.loads(grounded("check", log, "--partial", "--json").stdout)
    assert report["ok"] and report["utterances"] == 4 and report["accepted"] == 4
    assert report["complete"] is False and report["stopped_at"] == 6
    assert "support_target_unknown" in report["stop_reason"]
    extensions = json.loads(grounded("extensions", log, "--partial", "--json").stdout)
    assert extensions["complete"] is False and extensions["extensions"] == [["o1", "o2", "o3", "o4"]]


def test_check_reads_through_the_same_reader(tmp_path):
    log = hand_written(tmp_path)
    with pytest.raises(LogError, match="talk.jsonl:6"):
        check(log)
    report = check(log, partial=True)
    assert report.utterances == 4 and not report.log_status.complete


def test_a_torn_final_line_is_ignored_and_reported_everywhere(tmp_path):
    log = write(tmp_path / "talk.jsonl", [HEADER, utterance(1, observe("o1")), '{"turn": 2, "speaker": "al'],
                tail="")
    engine = Engine.load(log)
    assert engine.turn == 1 and engine.log_status.complete and engine.log_status.torn_line == 3
    report = check(log)
    assert report.ok and report.utterances == 1 and report.log_status.torn_line == 3
    result = grounded("affected", log, "o1", "--json")
    assert result.returncode == 0 and json.loads(result.stdout)["torn_line"] == 3
    assert "talk.jsonl:3: torn final line ignored" in result.stderr


def test_a_bad_line_before_the_end_is_never_torn(tmp_path):
    """Only the last line can be torn: a line with its newline that does not parse is an error."""
    log = write(tmp_path / "talk.jsonl", [HEADER, '{"turn": 1, "speaker": "al', utterance(2, observe("o2"))])
    with pytest.raises(LogError, match="talk.jsonl:2: invalid JSON"):
        Engine.load(log)


def test_a_whole_last_line_without_its_newline_is_read(tmp_path):
    log = write(tmp_path / "talk.jsonl", [HEADER, utterance(1, observe("o1")), utterance(2, observe("o2"))],
                tail="")
    engine = Engine.load(log)
    assert engine.turn == 2 and engine.log_status.torn_line is None


def test_a_header_cut_short_is_an_error(tmp_path):
    log = tmp_path / "talk.jsonl"
    log.write_text('{"grounded": 1, "agen')
    with pytest.raises(InputError, match="talk.jsonl:1: the header line is cut short"):
        Engine.load(log)


# -- the header records the rules and the extensions ---------------------------------------

NOTE = 'operation(note, "a remark that changes nothing", [field(target, literal, required)]).\n'


@pytest.fixture
def note(tmp_path) -> Path:
    path = tmp_path / "note.pl"
    path.write_text(NOTE)
    return path


def test_the_header_records_the_rules_version_and_the_extensions(tmp_path, note):
    from grounded.solvers.ruleset import file_sha256, rules_version

    log = tmp_path / "talk.jsonl"
    with Engine({"agents": {"alice": {}}}, log=log, extensions=[note]) as engine:
        engine.apply({"speaker": "alice", "ops": [observe("o1")]})
        engine.apply({"speaker": "alice", "ops": [{"op": "note", "target": "o1"}]})
    header = json.loads(log.read_text().splitlines()[0])
    assert header["rules"] == rules_version() and header["rules"].startswith("0.")
    assert header["extensions"] == [{"name": "note.pl", "sha256": file_sha256(note)}]
    assert Engine.load(log, extensions=[note]).turn == 2


@pytest.mark.slow
def test_a_log_replayed_without_its_extension_exits_2_naming_it(tmp_path, note):
    log = tmp_path / "talk.jsonl"
    with Engine({"agents": {"alice": {}}}, log=log, extensions=[note]) as engine:
        engine.apply({"speaker": "alice", "ops": [observe("o1")]})
    # even with no line using it: the log was written under it, and it may change any operation
    with pytest.raises(InputError, match=r"talk.jsonl:1: header: written with the extension note.pl \(sha256"):
        Engine.load(log)
    result = process("verify", log, "o1")
    assert result.returncode == 2 and "written with the extension note.pl" in result.stderr
    assert process("verify", log, "o1", "-x", note).returncode == 0


def test_a_changed_or_added_extension_is_named(tmp_path, note):
    log = tmp_path / "talk.jsonl"
    with Engine({"agents": {"alice": {}}}, log=log, extensions=[note]) as engine:
        engine.apply({"speaker": "alice", "ops": [observe("o1")]})
    note.write_text(NOTE + "% edited\n")
    with pytest.raises(InputError, match="extension note.pl changed since the log was written"):
        Engine.load(log, extensions=[note])
    plain = tmp_path / "plain.jsonl"
    Engine({"agents": {"alice": {}}}, log=plain).close()
    with pytest.raises(InputError, match="the extension note.pl was not used to write this log"):
        Engine.load(plain, extensions=[note])


def test_another_rules_version_is_refused_unless_allowed(tmp_path):
    log = tmp_path / "talk.jsonl"
    with Engine({"agents": {"alice": {}}}, log=log) as engine:
        engine.apply({"speaker": "alice", "ops": [observe("o1")]})
    lines = log.read_text().splitlines()
    header = json.loads(lines[0])
    header["rules"] = "0.0.1+rules.000000000000"
    log.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    with pytest.raises(InputError, match=r"talk.jsonl:1: header: written by rules 0.0.1\+rules.000000000000"):
        Engine.load(log)
    assert Engine.load(log, allow_rules_change=True).turn == 1
    result = grounded("verify", log, "o1")
    assert result.returncode == 2 and "written by rules 0.0.1" in result.stderr
    assert grounded("verify", log, "o1", "--allow-rules-change").returncode == 0


def test_a_hand_written_header_without_origin_replays_under_any_rules(tmp_path):
    log = write(tmp_path / "talk.jsonl", [HEADER, utterance(1, observe("o1"))])
    assert Engine.load(log).verify("o1").grounded


@pytest.mark.slow
@pytest.mark.parametrize("turn,kind", [("22", "str"), (True, "bool")])
def test_a_turn_written_as_text_or_bool_is_refused_naming_its_line(tmp_path, turn, kind):
    """The published schema says integer: `"turn": "22"` and `"turn": true` were read as 22 and 1."""
    log = write(tmp_path / "talk.jsonl", [HEADER, utterance(1, observe("o1")), utterance(turn, observe("o2"))])
    message = f"talk.jsonl:3: turn: Input should be a valid integer, not {kind}"
    with pytest.raises(LogError, match=message):
        Engine.load(log)
    for command in (["verify", log, "o1"], ["check", log, "--at", "1"], ["state", log]):
        code, _, err = run_cli(*command)
        assert code == 2 and message in err, (command, err)
    assert Engine.load(log, strict=False).turn == 1  # the lines before it stand


def test_the_header_takes_json_booleans_and_its_version_as_an_integer_only(tmp_path):
    for header, field in [({**HEADER, "acyclic": "false"}, "acyclic"), ({**HEADER, "grounded": True}, "grounded"),
                          ({"grounded": 1, "agents": {"alice": {"authority": 1}}}, "agents.alice.authority"),
                          ({**HEADER, "props": [{"id": "p", "aware": "no"}]}, r"props\[0\].aware")]:
        with pytest.raises(InputError, match=rf"talk.jsonl:1: header: {field}: Input should be a valid"):
            Engine.load(write(tmp_path / "talk.jsonl", [header]))
    assert Engine.load(write(tmp_path / "talk.jsonl", [{**HEADER, "grounded": 1.0}])).turn is None  # 1.0 is 1


# -- the header records the ASP twin of an extension too ------------------------------------

TWIN = "#program note(s).\n"


def test_the_header_records_the_twin_and_a_changed_twin_is_named(tmp_path, note):
    from grounded.solvers.ruleset import file_sha256

    twin = note.with_suffix(".lp")
    twin.write_text(TWIN)
    log = tmp_path / "talk.jsonl"
    with Engine({"agents": {"alice": {}}}, log=log, extensions=[note]) as engine:
        engine.apply({"speaker": "alice", "ops": [observe("o1")]})
    header = json.loads(log.read_text().splitlines()[0])
    assert header["extensions"] == [{"name": "note.pl", "sha256": file_sha256(note),
                                     "twin_sha256": file_sha256(twin)}]
    assert Engine.load(log, extensions=[note]).turn == 1
    twin.write_text(TWIN + "% edited\n")
    with pytest.raises(InputError, match=r"talk.jsonl:1: header: the ASP twin note.lp of extension note.pl changed "
                                         r"since the log was written \(sha256 [0-9a-f]{12} then, [0-9a-f]{12} now\)"):
        Engine.load(log, extensions=[note])
    result = process("verify", log, "o1", "-x", note)
    assert result.returncode == 2 and "the ASP twin note.lp of extension note.pl changed" in result.stderr
    twin.unlink()
    with pytest.raises(InputError, match=r"the ASP twin note.lp of extension note.pl changed .* then, none now\)"):
        Engine.load(log, extensions=[note])


def test_a_log_written_before_twins_were_recorded_still_reads(tmp_path, note):
    """An older header names the .pl and its sha256 only: it reads whatever twin lies beside it now."""
    log = tmp_path / "talk.jsonl"
    with Engine({"agents": {"alice": {}}}, log=log, extensions=[note]) as engine:
        engine.apply({"speaker": "alice", "ops": [observe("o1")]})
    lines = log.read_text().splitlines(keepends=True)
    assert "twin_sha256" not in lines[0]  # no twin when written
    note.with_suffix(".lp").write_text(TWIN)
    assert Engine.load(log, extensions=[note]).turn == 1
    assert process("verify", log, "o1", "-x", note).returncode == 0
