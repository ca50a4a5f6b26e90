"""MemAB-FC: fact templates on real lines, the question reader, ingestion, and the command."""

from __future__ import annotations

import json
import os

import pytest

from bench.memab.facts import FactParseError, parse_fact
from bench.memab.prompts import INSTRUCTION
from bench.memab.questions import parse_single_hop, relation_cues
from bench.memab.reader import ActiveStore
from bench.memab.stream import Stream, ingest, larger_serial_wins, load_stream
from grounded.core.errors import InputError

from .bench_helpers import DATA, bench, needs_data
from .openai_server import ScriptedServer, reply

pytestmark = pytest.mark.bench  # the MemAB-FC benchmark's parts

# Real lines of the 262K stream (MemoryAgentBench, MIT license), with the key each must give.
LINES = [
    ("The headquarters of Wärtsilä is located in the city of Helsinki.", "headquarters", "Wärtsilä", "Helsinki"),
    ("The univeristy where William Averell Harriman was educated is Yale University.", "educated_at",
     "William Averell Harriman", "Yale University"),
    ("The origianl broadcaster of Disney's House of Mouse is HBO.", "broadcaster", "Disney's House of Mouse", "HBO"),
    ("Canadair was founded in the city of Montreal.", "founded_in", "Canadair", "Montreal"),
    ("Universal Motown Records was founded by Albert Grossman.", "founder", "Universal Motown Records",
     "Albert Grossman"),
    ("The name of the current head of state in South Korea is Moon Jae-in.", "head_of_state", "South Korea",
     "Moon Jae-in"),
    ("The name of the current head of the Italy government is Giuseppe Conte.", "head_of_government", "Italy",
     "Giuseppe Conte"),
    ("Satyajit Ray's child is Sandip Ray.", "child", "Satyajit Ray", "Sandip Ray"),
    ("The type of music that Cam'ron plays is hip hop music.", "music_genre", "Cam'ron", "hip hop music"),
    ("Albert of Saxony is affiliated with the religion of The Church of Jesus Christ of Latter-day Saints.",
     "religion", "Albert of Saxony", "The Church of Jesus Christ of Latter-day Saints"),
    ("Pedro Pierluisi worked in the city of Washington, D.C..", "work_location", "Pedro Pierluisi", "Washington, D.C."),
    ("HKT48 was created in the country of Turkey.", "country_of_origin", "HKT48", "Turkey"),
    ("Piglet was created by Jules Verne.", "creator", "Piglet", "Jules Verne"),
    ("Bengaluru is located in the continent of Asia.", "continent", "Bengaluru", "Asia"),
    ("The Governor of Wisconsin is Scott Walker.", "is", "The Governor of Wisconsin", "Scott Walker"),
]


@pytest.mark.parametrize(("line", "relation", "subject", "obj"), LINES)
def test_relation_templates_split_real_lines(line, relation, subject, obj):
    fact = parse_fact(line, 7)
    assert (fact.relation, fact.subject, fact.object) == (relation, subject, obj)
    assert fact.key == (relation, subject.casefold())


def test_restatements_share_a_key_and_other_relations_do_not():
    a = parse_fact("The capital of Papal States is Rome.", 1)
    b = parse_fact("The capital of Papal States is Watertown.", 2)
    c = parse_fact("Papal States is located in the continent of Europe.", 3)
    assert a.key == b.key != c.key


def test_a_sentence_no_template_matches_is_an_error_naming_it():
    with pytest.raises(FactParseError, match=r"fact 12: .*Gibberish without a verb"):
        parse_fact("Gibberish without a verb", 12)


def test_single_hop_questions_map_to_keys():
    note = "[Note: facts may have been updated; newer facts have larger serial numbers.] "
    assert parse_single_hop(note + "Which sport is goaltender associated with?") == ("sport", "goaltender")
    assert parse_single_hop("Who is Walter Chrysler's child?") == ("child", "Walter Chrysler")
    assert parse_single_hop("Who is the Prime Minister of Albania?") == ("is", "the Prime Minister of Albania")
    assert parse_single_hop("Why is the sky blue?") is None


def test_relation_cues_count_repeated_relations():
    cues = relation_cues("What is the country of citizenship of the spouse of the spouse of the author of Emma?")
    assert cues["spouse"] == 2 and cues["citizenship"] == 1 and cues["author"] == 1


def _stream(lines: list[str]) -> Stream:
    return Stream("test", [parse_fact(t, i) for i, t in enumerate(lines)], {"sh": [], "mh": []})


def test_ingestion_supersedes_through_the_engine_and_matches_larger_serial_wins():
    stream = _stream([
        "The author of Emma is Jane Austen.",
        "Jane Austen is a citizen of United Kingdom.",
        "The author of Emma is Charles Dickens.",
        "Charles Dickens is a citizen of France.",
        "The author of Emma is Charles Dickens.",  # a restatement also supersedes (larger serial wins)
    ])
    ingested = ingest(stream)
    try:
        assert ingested.superseded == 2
        assert ingested.active_serials() == larger_serial_wins(stream.facts) == {1, 3, 4}
        assert ingested.engine.standing("f0") == "abandoned"
        assert "f0 abandoned at T3 by f2" in ingested.engine.verify("f0").reason
        store = ActiveStore(stream.facts[i] for i in ingested.active_serials())
        assert store.answer_single_hop("Who is the author of Emma?").text == "Charles Dickens"
        answer = store.answer_multi_hop("What is the country of citizenship of the author of Emma?")
        assert answer.text == "France" and [f.serial for f in answer.chain] == [4, 3]
        assert store.supports("mh", "What is the country of citizenship of the author of Emma?", "France")
        assert not store.supports("mh", "What is the country of citizenship of the author of Emma?",
                                  "United Kingdom")
    finally:
        ingested.engine.close()


def _memab_file(root, hop: str, facts: list[str]) -> None:
    record = {"sessions": [{"date": str(i), "turns": [t]} for i, t in enumerate(facts)],
              "probing_queries": {f"{hop}1": {"q": "Who is the author of Emma?", "gold": "Jane Austen"}}}
    (root / "memab-fc").mkdir(exist_ok=True)
    (root / "memab-fc" / f"mab_fc_{hop}_6k.json").write_text(json.dumps([record]))


def test_both_question_files_must_carry_the_same_stream(tmp_path):
    facts = ["The author of Emma is Jane Austen.", "Jane Austen is a citizen of United Kingdom."]
    _memab_file(tmp_path, "sh", facts)
    _memab_file(tmp_path, "mh", facts)
    stream = load_stream(tmp_path, "6k")
    assert [f.object for f in stream.facts] == ["Jane Austen", "United Kingdom"]
    assert [q.qid for q in stream.questions["mh"]] == ["mh1"]
    _memab_file(tmp_path, "mh", [facts[0], "Jane Austen is a citizen of France."])
    with pytest.raises(InputError, match=r"mab_fc_mh_6k\.json: its fact stream differs from the one in "
                                         r"mab_fc_sh_6k\.json"):
        load_stream(tmp_path, "6k")


@needs_data
def test_memab_quick_run_on_the_real_data(tmp_path):
    result = bench("memab", tmp_path, "--no-llm")
    six = result["lengths"]["6k"]
    assert (six["facts"], six["superseded"]) == (455, 161)
    assert six["active_equals_larger_serial_wins"] and six["active_differences"] == 0
    sh, mh = six["hops"]["sh"], six["hops"]["mh"]
    assert sh["questions"] == mh["questions"] == 20
    assert sh["stale_verifier"] == 0 < sh["stale_rag"]
    assert sh["symbolic_accuracy"] >= 0.9 and mh["symbolic_accuracy"] >= 0.6
    assert sh["tokens"]["full"]["median"] > 5 * sh["tokens"]["verifier"]["median"]
    assert result["llm"] is None
    for png in ("memab_tokens.png", "memab_accuracy.png"):
        assert (tmp_path / png).read_bytes()[:4] == b"\x89PNG"


@needs_data
def test_the_llm_reader_talks_to_an_openai_compatible_server(tmp_path):
    server = ScriptedServer()
    server.push(*[reply("Jane Austen")] * (3 * 2 * 2))  # questions x hops x arms
    try:
        env = {**os.environ, "OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "test", "GROUNDED_MODEL": "fake-model"}
        result = bench("memab", tmp_path, "--questions", "3", env=env)
    finally:
        server.close()
    requests = server.requests
    assert len(requests) == 3 * 2 * 2
    assert {r["model"] for r in requests} == {"fake-model"}
    assert all(r["temperature"] == 0 for r in requests)
    sent = [r["messages"][-1]["content"] for r in requests]
    assert all(p.startswith(INSTRUCTION) and p.rstrip().endswith("Answer:") for p in sent)
    assert all(0 < sum(line[:1].isdigit() for line in p.splitlines()) <= 50 for p in sent)  # the top-50 facts
    hop = result["lengths"]["6k"]["hops"]["sh"]
    assert 0 <= hop["llm_verifier"] <= 1 and set(hop["llm_mcnemar"]) == {"wins", "losses", "p"}
    assert all(set(item["llm"]) == {"verifier", "rag"} for item in hop["items"])
    assert "fake-model" in result["llm"]
    assert DATA is not None
