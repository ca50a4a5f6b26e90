"""MemAB-FC facts -> (relation, subject, object): the supersession key.

The benchmark states each fact in one of a few dozen English templates
("The capital of X is Y.", "X is a citizen of Y.") and leaves it to the system
to decide which facts are about the same thing.  Two facts share a
supersession key iff they share (relation, subject); the later one (larger
serial number) supersedes the earlier.

The patterns below were written from the streams themselves (all four lengths
use the same templates, typos included: "origianl", "univeristy").  Each is a
full-sentence regular expression with groups ``s`` (subject) and ``o``
(object).  Prefix templates ("The author of S is O.") split at the first
" is " after the prefix; infix templates ("S was born in the city of O.") at
their verb phrase.  Order matters where one template is a prefix of another
("was founded in the city of" before "was founded by").  A sentence no
template matches falls back to its last " is " (relation ``is``), and failing
that raises ``FactParseError`` naming the fact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# (relation, template).  ``{s}`` and ``{o}`` mark subject and object.
TEMPLATES: tuple[tuple[str, str], ...] = (
    ("author", "The author of {s} is {o}."),
    ("music_genre", "The type of music that {s} plays is {o}."),
    ("headquarters", "The headquarters of {s} is located in the city of {o}."),
    ("educated_at", "The univeristy where {s} was educated is {o}."),
    ("manufacturer", "The company that produced {s} is {o}."),
    ("broadcaster", "The origianl broadcaster of {s} is {o}."),
    ("head_of_government", "The name of the current head of the {s} government is {o}."),
    ("head_of_state", "The name of the current head of state in {s} is {o}."),
    ("official_language", "The official language of {s} is {o}."),
    ("capital", "The capital of {s} is {o}."),
    ("chairperson", "The chairperson of {s} is {o}."),
    ("head_coach", "The head coach of {s} is {o}."),
    ("ceo", "The chief executive officer of {s} is {o}."),
    ("director", "The director of {s} is {o}."),
    ("original_language", "The original language of {s} is {o}."),
    ("president", "The president of {s} is {o}."),
    ("child", "{s}'s child is {o}."),
    ("citizenship", "{s} is a citizen of {o}."),
    ("religion", "{s} is affiliated with the religion of {o}."),
    ("sport", "{s} is associated with the sport of {o}."),
    ("language_spoken", "{s} speaks the language of {o}."),
    ("country_of_origin", "{s} was created in the country of {o}."),
    ("creator", "{s} was created by {o}."),
    ("spouse", "{s} is married to {o}."),
    ("birthplace", "{s} was born in the city of {o}."),
    ("place_of_death", "{s} died in the city of {o}."),
    ("founded_in", "{s} was founded in the city of {o}."),
    ("founder", "{s} was founded by {o}."),
    ("developer", "{s} was developed by {o}."),
    ("employer", "{s} is employed by {o}."),
    ("performer", "{s} was performed by {o}."),
    ("work_location", "{s} worked in the city of {o}."),
    ("continent", "{s} is located in the continent of {o}."),
    ("famous_for", "{s} is famous for {o}."),
    ("language_of_work", "{s} was written in the language of {o}."),
    ("position", "{s} plays the position of {o}."),
    ("field_of_work", "{s} works in the field of {o}."),
)

FALLBACK = "is"


class FactParseError(ValueError):
    """A fact no template (and not the last-"is" fallback) can split."""


@dataclass(frozen=True, slots=True)
class Fact:
    serial: int
    text: str
    relation: str
    subject: str
    object: str

    @property
    def key(self) -> tuple[str, str]:
        """The supersession key: a later fact with the same key replaces this one."""
        return (self.relation, normalise(self.subject))


def _compile(template: str) -> re.Pattern[str]:
    # Subjects are matched lazily: the split is at the template's first
    # connective after the subject, the same split for every restatement.
    body = re.escape(template).replace(r"\{s\}", "(?P<s>.+?)").replace(r"\{o\}", "(?P<o>.+)")
    return re.compile(f"^{body}$")


PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((rel, _compile(t)) for rel, t in TEMPLATES)
_LAST_IS = re.compile(r"^(?P<s>.+) is (?P<o>.+?)\.?$")
_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    """Case- and space-insensitive form of a name, for keys and answer matching."""
    return _SPACE.sub(" ", text).strip().casefold()


def parse_fact(text: str, serial: int = 0) -> Fact:
    """Split one fact sentence into relation, subject and object."""
    sentence = _SPACE.sub(" ", text).strip()
    for relation, pattern in PATTERNS:
        m = pattern.match(sentence)
        if m:
            return Fact(serial, text, relation, m["s"].strip(), m["o"].strip())
    m = _LAST_IS.match(sentence)
    if m:
        return Fact(serial, text, FALLBACK, m["s"].strip(), m["o"].strip())
    raise FactParseError(f"fact {serial}: no relation template matches {text!r}")
