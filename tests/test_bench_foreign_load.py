"""``python -m bench.foreign_load`` (bench/foreign_load.py): a foreign log's load, split into the rules and the rest."""

from __future__ import annotations

import pytest

from bench import foreign_load

pytestmark = pytest.mark.bench  # a benchmark's parts


def test_a_small_load_is_split_into_the_rules_and_python(tmp_path, capsys):
    path = tmp_path / "foreign.jsonl"
    n = foreign_load.write_foreign(path, 600)
    found = foreign_load.measure(path, n)  # raises if any line was applied from a record, not judged
    assert found["utterances"] == n > 500 and found["batches"] == -(-n // 256)  # 256 lines per request
    assert 0 < found["rules_us"] < found["cpu_us"] and found["python_us"] > 0
    assert found["rules_us"] + found["python_us"] == pytest.approx(found["cpu_us"])
    assert 300 < found["inferences"] < 1_000  # the rules' work per utterance of this stream, as counted
    assert len(found["tenths"]) == 10 and found["last_over_first"] is not None


def test_the_command_names_its_arguments_when_they_are_wrong(capsys):
    assert foreign_load.main(["ten"]) == 2
    assert "usage: python -m bench.foreign_load K [ROUNDS]" in capsys.readouterr().err
