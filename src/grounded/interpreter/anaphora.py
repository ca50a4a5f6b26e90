"""Pronouns that point back: a sentence read with the name its pronoun stands for.

"Yjs can only run peer-to-peer; it cannot use a central server": the second
clause, read alone, is about any "it" and anchors to whatever claim mentions
a central server (OT's).  Its pronoun stands for the name the sentence before
it is about, so it is read as "Yjs cannot use a central server", which
contradicts alpha7.  The same holds for "Restart Redis; once it is back...",
"Page the Redis on-call: the auth outage is theirs".

The antecedent is the last *name* of the sentence before: a word the
conversation writes with a capital inside its sentences (Redis, Yjs,
ShareDB), an acronym, or a CamelCase word.  A sentence without a name gives no
antecedent and the pronoun stays (an expletive "it is unclear whether" is
never resolved in the first sentence, which has no sentence before it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

PRONOUNS = {"it": "", "they": "", "them": "", "its": "'s", "their": "'s", "theirs": "'s"}
"""Pronouns resolved, with the ending the antecedent takes in their place."""

_PRONOUN = re.compile(r"\b(" + "|".join(PRONOUNS) + r")\b(?!')", re.I)
_CAPITAL = re.compile(r"\b[A-Z][A-Za-z0-9]*(?:[-][A-Za-z0-9]+)*\b")
_NAME = re.compile(r"\b(?:[A-Z]{2,}[a-z0-9]*s?|[A-Z][a-z]+[A-Z]\w*)\b")


def known_names(texts: Iterable[str]) -> frozenset[str]:
    """Names the texts use: capitalised words inside a sentence (not the first word), acronyms, CamelCase;
    never a word the texts also write in lower case."""
    names: set[str] = set()
    texts = list(texts)
    lower = {w for t in texts for w in re.findall(r"(?<![\w-])[a-z][a-z0-9]*(?![\w-])", t)}
    for text in texts:
        for sentence in re.split(r"(?<=[.!?;:])\s+", text):
            for m in _CAPITAL.finditer(sentence):
                if m.start() > 0 and sentence[: m.start()].strip() and not m.group().isdigit():
                    names.add(m.group())
            names.update(m.group() for m in _NAME.finditer(sentence))
    # "Those", "Auth": a word also written in lower case is a common word capitalised, not a name
    return frozenset(n for n in names if len(n) > 1 and n.lower() not in lower)


def antecedent(sentence: str, names: frozenset[str]) -> str | None:
    """The last name of ``sentence`` (its possessive "'s" dropped), or None."""
    found = [m.group() for m in _CAPITAL.finditer(sentence) if m.group() in names]
    found += [m.group() for m in _NAME.finditer(sentence)]
    if not found:
        return None
    last = max(found, key=sentence.rfind)
    return last


def resolve(sentences: list[str], names: frozenset[str]) -> list[str]:
    """Each sentence with its pronouns replaced by the previous sentence's last name, where it has one."""
    out = list(sentences)
    for k in range(1, len(out)):
        name = antecedent(sentences[k - 1], names)
        if name is None or name in out[k]:
            continue
        out[k] = _PRONOUN.sub(_replacement(name), out[k])
    return out


def _replacement(name: str) -> Callable[[re.Match[str]], str]:
    def replace(m: re.Match[str]) -> str:
        return name + PRONOUNS[m.group(1).lower()]
    return replace


__all__ = ["PRONOUNS", "antecedent", "known_names", "resolve"]
