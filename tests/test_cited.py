"""A continuation that cites what it rests on: verified by claim, its text read against the citation."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest

from grounded.core.bounds import MAX_ARGUMENT_FILE_BYTES, MAX_CITED_CLAIMS
from grounded.core.errors import InputError
from grounded.interpreter.anchor import AnchorIndex
from grounded.interpreter.cited import CitedContinuation, read_cited, verify_cited
from grounded.interpreter.verdict import ABSTAIN, ACCEPT, REJECT

from .inprocess import run_cli
from .test_cli_contract import PHASE2

ACTUAL = "The retry storm from the token bug is exhausting the Redis connection pool."
REVERSED = "The Redis connection pool exhaustion caused the token bug."
STALE = "Redis failure caused the auth failures."


@pytest.fixture(scope="module")
def reader(p2):
    return AnchorIndex(p2, 13, "tfidf")


def cited(text: str, asserts=(), denies=()) -> CitedContinuation:
    return CitedContinuation(text=text, asserts=list(asserts), denies=list(denies))


def test_a_grounded_citation_the_text_keeps_to_is_accepted(p2, reader):
    v = verify_cited(p2, cited(ACTUAL, ["h4"]), 13, reader=reader)
    assert v.verdict == ACCEPT and v.exit_code == 0
    assert v.reason == "asserts h4 (grounded); the text says nothing beyond its citation"
    assert [f.literal for f in v.findings] == ["h4"] and v.contradicts == () and v.uncited == ()
    assert v.method == "cited; text read by coverage (WordNet 3.0)"


def test_by_claim_first_a_stale_asserted_claim_rejects(p2, reader):
    v = verify_cited(p2, cited(STALE, ["h2"]), 13, reader=reader)
    assert v.verdict == REJECT and v.reason.startswith("asserts h2, which is not grounded: h2 abandoned at T9")
    assert v.claims.verdict == REJECT


def test_a_grounded_claim_cited_as_denied_rejects(p2, reader):
    v = verify_cited(p2, cited("It was not the token bug.", denies=["h4"]), 13, reader=reader)
    assert v.verdict == REJECT and "contradicts h4, which is grounded" in v.reason


def test_a_cited_id_no_argument_claims_rejects_naming_it(p2, reader):
    v = verify_cited(p2, cited(ACTUAL, ["h4"], ["x9"]), 13, reader=reader)
    assert v.verdict == REJECT and v.unknown == ("x9",)
    assert v.reason == "cites x9, which no argument claims as of turn 13"
    # mis_monitor is declared from the start but first claimed at turn 7
    early = verify_cited(p2, cited("The alert is really about Redis.", ["mis_monitor"]), 3)
    assert early.verdict == REJECT and "cites mis_monitor, which no argument claims as of turn 3" in early.reason


def test_the_text_contradicting_its_own_citation_rejects(p2, reader):
    """The citation says h4 (grounded), the text reverses h4's causal direction: by claim alone it would pass."""
    v = verify_cited(p2, cited(REVERSED, ["h4"]), 13, reader=reader)
    assert v.claims.verdict == ACCEPT
    assert v.verdict == REJECT and v.reason == "the text denies h4 (reversed causation), which it cites as asserted"
    assert [f.literal for f in v.contradicts] == ["h4"]


def test_another_amount_than_the_cited_claim_rejects_naming_both(p2, reader):
    v = verify_cited(p2, cited("Auth request volume about 10x normal at 2am.", ["o6"]), 13, reader=reader)
    assert v.claims.verdict == ACCEPT  # by claim alone it would pass
    assert v.verdict == REJECT
    assert v.reason == "the text denies o6 (text says 10x, o6 says 3x), which it cites as asserted"
    same = verify_cited(p2, cited("Auth request volume was about 3x normal at 2am.", ["o6"]), 13, reader=reader)
    assert same.verdict == ACCEPT


def test_a_clause_no_claim_covers_abstains_with_the_readers_reason(p2, reader):
    text = ACTUAL + " The CDN certificate expired last night on every edge node."
    v = verify_cited(p2, cited(text, ["h4"]), 13, reader=reader)
    assert v.claims.verdict == ACCEPT
    assert v.verdict == ABSTAIN and "the cited claims do not cover 'The CDN certificate expired" in v.reason
    assert "'cdn'" in v.reason and "'certificate'" in v.reason  # the words they do not cover, named


def test_an_uncited_claim_the_text_asserts_goes_beyond_the_citation(p2, reader):
    text = ACTUAL + " Auth request volume is about 3x normal at 2am."
    v = verify_cited(p2, cited(text, ["h4"]), 13, reader=reader)
    assert v.verdict == ABSTAIN and "the cited claims do not cover 'Auth request volume" in v.reason
    assert verify_cited(p2, cited(text, ["h4", "o6"]), 13, reader=reader).verdict == ACCEPT


def test_a_stale_claim_in_the_text_under_a_clean_citation_is_not_accepted(p2, reader):
    """The citation is clean (o1), the text says what h2 said: the cited claim does not cover it."""
    v = verify_cited(p2, cited(STALE, ["o1"]), 13, reader=reader)
    assert v.verdict == ABSTAIN and "the cited claims do not cover 'Redis failure caused the auth failures'" \
        in v.reason


def test_citing_nothing_abstains(p2, reader):
    v = verify_cited(p2, cited("Let us look at it tomorrow."), 13, reader=reader)
    assert v.verdict == ABSTAIN and v.reason == "cites no claim: nothing to verify"


def test_a_reader_of_another_turn_is_refused(p2, reader):
    with pytest.raises(ValueError, match="another turn"):
        verify_cited(p2, cited(ACTUAL, ["h4"]), 12, reader=reader)


@pytest.mark.parametrize("raw,message", [
    ('{"text": ', "cited: not valid JSON (Expecting value at line 1 column 10)"),
    ("[1]", "cited: expected a JSON object with text, asserts and denies, got list"),
    ('{"asserts": ["h4"]}', "cited: text: Field required"),
    ('{"text": ""}', "cited: text: String should have at least 1 character"),
    ('{"text": "x", "asserts": ["h4", "a b"]}', "cited: asserts[1]: Value error, 'a b' is not a literal"),
    ('{"text": "x", "asserts": ["h4"], "denies": ["h4"]}', "cited: denies: Value error, h4 both asserted and denied"),
    ('{"text": "x", "why": 1}', "cited: why: Extra inputs are not permitted"),
    (json.dumps({"text": "x", "denies": ["o1"] * (MAX_CITED_CLAIMS + 1)}),
     f"cited: denies: List should have at most {MAX_CITED_CLAIMS} items"),
    ('{"text": "\\ud800"}', "cited: text: Input should be a valid string"),  # a lone surrogate
])
def test_bad_cited_input_names_the_field(raw, message):
    with pytest.raises(InputError, match="^" + re.escape(message)):
        read_cited(raw)


def test_the_published_schema_validates_what_the_model_accepts():
    status, out, _ = run_cli("schema", "--cited")
    assert status == 0
    schema = json.loads(out)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["required"] == ["text"] and schema["additionalProperties"] is False
    jsonschema.validate({"text": ACTUAL, "asserts": ["h4"], "denies": ["-a3"]}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"text": ACTUAL, "asserts": ["not an id"]}, schema)


def test_cli_verify_cited(tmp_path):
    status, out, err = run_cli("verify", PHASE2, "--cited", json.dumps({"text": ACTUAL, "asserts": ["h4"]}),
                               "--at", "13", "--anchor", "tfidf")
    assert status == 0, err
    assert "verdict: ACCEPT" in out and "asserts h4 (given): h4: GROUNDED" in out
    path = tmp_path / "cited.json"
    path.write_text(json.dumps({"text": REVERSED, "asserts": ["h4"]}))
    status, out, err = run_cli("verify", PHASE2, "--cited", f"@{path}", "--json", "--anchor", "tfidf")
    assert status == 1, err
    data = json.loads(out)
    text = json.loads(run_cli("verify", PHASE2, "--text", REVERSED, "--json", "--anchor", "tfidf")[1])
    assert set(text) <= set(data)  # the --text answer's shape, and more
    assert data["verdict"] == "reject" and data["cited"] == {"asserts": ["h4"], "denies": []}
    assert data["contradicts"][0]["literal"] == "h4" and data["reading"]["verdict"] == "reject"


@pytest.mark.parametrize("args,message", [
    (["--cited", '{"text": "x", "asserts": ["a b"]}'], "--cited: asserts[0]: Value error, 'a b' is not a literal"),
    (["--cited", "{"], "--cited: not valid JSON"),
    (["--cited", "@/nonexistent/cited.json"], "--cited: cannot read /nonexistent/cited.json"),
    (["--cited", "@/dev/zero"], f"--cited: /dev/zero holds more than {MAX_ARGUMENT_FILE_BYTES} bytes"),  # read whole
    (["h4", "--cited", '{"text": "x"}'], "give one of a CLAIM, --text or --cited, not a CLAIM and --cited"),
    (["--cited", '{"text": "x"}', "--anchor", "llm"], "--anchor with --cited: offline or tfidf"),
])
def test_cli_bad_cited_is_exit_2_naming_the_field(args, message):
    status, _, err = run_cli("verify", PHASE2, *args)
    assert status == 2 and message in err, err
