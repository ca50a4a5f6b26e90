"""MemAB-FC questions -> what the symbolic reader looks up.

Single-hop questions are fixed English templates, one or two per relation
("Which sport is S associated with?"); ``parse_single_hop`` maps one to its
(relation, subject) key.

Multi-hop questions are free paraphrases of a relation chain ("What is the
country of citizenship of the spouse of the author of Our Mutual Friend?").
No template covers them, so ``relation_cues`` only spots which relations a
question mentions (by cue words per relation, each occurrence counted), and the
reader searches the store for a chain that uses exactly those relations,
starting from an entity named in the question (reader.py).
"""

from __future__ import annotations

import re
from collections import Counter

NOTE = re.compile(r"^\[Note:[^\]]*\]\s*")

# (relation, question template); ``{s}`` is the subject.
SINGLE_HOP: tuple[tuple[str, str], ...] = (
    ("sport", "Which sport is {s} associated with?"),
    ("religion", "Which religion is {s} affiliated with?"),
    ("country_of_origin", "Which country was {s} created in?"),
    ("continent", "Which continent is {s} located in?"),
    ("headquarters", "Which city is the headquarter of {s} located in?"),
    ("birthplace", "Which city was {s} born in?"),
    ("place_of_death", "Which city did {s} die in?"),
    ("work_location", "Which city did {s} work in?"),
    ("manufacturer", "Which company is {s} produced by?"),
    ("language_of_work", "Which language was {s} written in?"),
    ("educated_at", "Which university was {s} educated at?"),
    ("founded_in", "Where was {s} founded?"),
    ("founder", "Who founded {s}?"),
    ("performer", "Who performed {s}?"),
    ("creator", "Who was {s} created by?"),
    ("spouse", "Who is {s} married to?"),
    ("child", "Who is {s}'s child?"),
    ("author", "Who is the author of {s}?"),
    ("chairperson", "Who is the chairperson of {s}?"),
    ("ceo", "Who is the chief executive officer of {s}?"),
    ("developer", "Who is the developer of {s}?"),
    ("director", "Who is the director of {s}?"),
    ("employer", "Who is the employer of {s}?"),
    ("head_coach", "Who is the head coach of {s}?"),
    ("broadcaster", "Who is the original broadcaster of {s}?"),
    ("famous_for", "What is {s} famous for?"),
    ("capital", "What is the capital of {s}?"),
    ("citizenship", "What is the country of citizenship of {s}?"),
    ("head_of_government", "What is the name of the current head of the {s} government?"),
    ("head_of_state", "What is the name of the current head of state in {s}?"),
    ("official_language", "What is the official language of {s}?"),
    ("original_language", "What is the original language of {s}?"),
    ("language_spoken", "What language does {s} speak?"),
    ("position", "What position does {s} play?"),
    ("music_genre", "What type of music does {s} play?"),
    ("field_of_work", "What kind of work does {s} do?"),
    ("is", "Who is {s}?"),  # office holders: "Who is the Prime Minister of Albania?"
)


def _compile(template: str) -> re.Pattern[str]:
    return re.compile("^" + re.escape(template).replace(r"\{s\}", "(?P<s>.+)") + "$")


_SINGLE = tuple((rel, _compile(t)) for rel, t in SINGLE_HOP)


def strip_note(question: str) -> str:
    """The question without the benchmark's "[Note: facts may have been updated ...]" prefix."""
    return NOTE.sub("", question).strip()


def parse_single_hop(question: str) -> tuple[str, str] | None:
    """(relation, subject) of a single-hop question, or None if no template matches."""
    q = strip_note(question)
    for relation, pattern in _SINGLE:
        m = pattern.match(q)
        if m:
            return relation, m["s"].strip()
    return None


# Cue words per relation for multi-hop questions.  A cue is a regular
# expression over the lower-cased question; each match counts once, so "the
# spouse of the spouse of X" asks for the spouse relation twice.
CUES: dict[str, str] = {
    "author": r"\bauthor|\bwr(?:ote|itten by|iter of)\b",
    "music_genre": r"\b(?:type|genre|kind|style) of music\b|\bmusic(?:al)? (?:genre|style)\b|\bgenre\b",
    "headquarters": r"\bheadquarter|\bhead office\b",
    "educated_at": r"\beducat|\buniversity\b|\bstud(?:y|ied)\b|\balma mater\b|\bschool\b",
    "manufacturer": r"\bproduc|\bmanufactur",
    "broadcaster": r"\bbroadcast|\bnetwork\b|\bchannel\b|\baired\b",
    "head_of_government": r"\bhead of (?:the )?(?:\w+ )*?government\b|\bprime minister\b|\bmayor\b"
                          r"|\b(?:political )?leader\b|\bchief executive of the (?:country|nation|city)\b",
    "head_of_state": r"\bhead of state\b|\bchief of state\b|\bhighest-ranking official\b"
                     r"|\bchief public representative\b",
    "official_language": r"\bofficial(?:ly)?\b",
    "capital": r"\bcapital\b|\b(?:seat|cent(?:er|re)) of government\b",
    "chairperson": r"\bchair(?:person|man|woman)?\b",
    "head_coach": r"\bcoach",
    "ceo": r"\bchief executive officer\b|\bceo\b",
    "director": r"\bdirect(?:or|ed)\b|\bmanag(?:er|ed|es)\b|\bin charge\b",
    "original_language": r"\boriginal language\b",
    "child": r"\bchild|\bson\b|\bdaughter\b|\boffspring\b",
    "citizenship": r"\bcitizen|\bnationality\b",
    "religion": r"\breligio|\bfaith\b",
    "sport": r"\bsport",
    "language_spoken": r"\bspeak|\bspoken\b",
    "country_of_origin": r"\b(?:originat\w*|come from|comes from|came from|hails? from|emerged|invented)\b"
                         r"|\borigin\b|\bbirthplace of the (?:sport|genre|music)|\bfirst (?:developed|practi[cs]ed)\b",
    "creator": r"\bcreat(?:or|ed)\b",
    "spouse": r"\bspouse|\bmarried\b|\bwife\b|\bhusband\b|\bpartner\b",
    "birthplace": r"\bborn\b|\bbirth",
    "place_of_death": r"\bd(?:ie|ied|eath|emise)\b|\bpass(?:ed)? away\b|\b(?:breathed?|took) (?:\w+ )?last\b",
    "founded_in": r"\bfounded in\b|\bfounding (?:city|location)\b|\bfirst established\b|\bcome into existence\b",
    "founder": r"\bfound(?:er|ed|ing)\b|\bestablish",
    "developer": r"\bdevelop",
    "employer": r"\bemploy|\bwork(?:s|ed)? for\b",
    "performer": r"\bperform|\bartist\b",
    "work_location": r"\bwork(?:ed|s)? in\b|\bworkplace\b|\b(?:location|place) of (?:the )?work\b|\bwork location\b",
    "continent": r"\bcontinent\b",
    "famous_for": r"\bfamous\b|\bknown for\b|\bnotable work\b|\bbest known\b|\bsignificant creation\b",
    "language_of_work": r"\bwritten in\b|\blanguage of the work\b",
    "position": r"\bposition\b",
    "field_of_work": r"\bfield\b|\bkind of work\b|\boccupation\b|\bprofession|\bjob\b",
}
_CUES = {rel: re.compile(rx) for rel, rx in CUES.items()}


def relation_cues(question: str) -> Counter[str]:
    """Relations a (multi-hop) question mentions, with multiplicity."""
    q = strip_note(question).lower()
    return Counter({rel: n for rel, rx in _CUES.items() if (n := len(rx.findall(q)))})
