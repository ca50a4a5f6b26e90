"""WordNet 3.0, the lexical database the coverage check reads words with.

The data is Debian's (``wordnet-base``: the database files in ``/usr/share/wordnet``;
``wordnet-sense-index``: ``index.sense``), read by NLTK's ``WordNetCorpusReader``.
Two things stand between the Debian files and that reader, and ``install()`` does both:

* the reader wants a ``lexnames`` file (lexicographer file numbers and names),
  which Debian ships only as the manual page ``lexnames(5WN)``: its table is
  parsed into the file;
* NLTK finds corpora under its data path (``nltk.data.path``); the files are
  *copied* (not linked) into ``<venv>/share/nltk_data/corpora/wordnet``, one of
  the directories NLTK searches by default, so nothing is fetched at run time.

NLTK's reader takes 3 s of CPU to load its lemma index, three times the budget of a
whole ``grounded verify --text`` call.  So the relations the text reader uses
(lemmas per synset, hypernyms, antonyms, derivations, the irregular forms) are read
through NLTK once, at install, into ``relations.sqlite`` beside the corpus;
``Lexicon`` opens that file read-only and looks words up one by one (milliseconds).

``python -m grounded.interpreter.setup_wordnet`` installs both (``make setup`` runs it); a
reader that cannot find them raises ``WordNetMissing`` naming what to run.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import sqlite3
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from grounded.core.errors import GroundedError

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

DEBIAN_DIR = Path("/usr/share/wordnet")
LEXNAMES_MAN = Path("/usr/share/man/man5/lexnames.5WN.gz")
FILES = ("adj.exc", "adv.exc", "noun.exc", "verb.exc", "data.adj", "data.adv", "data.noun", "data.verb",
         "index.adj", "index.adv", "index.noun", "index.verb", "index.sense", "cntlist.rev")
_LEXNAME_ROW = re.compile(r"^(\d\d)\t([a-z]+\.[A-Za-z]+)\s*\t")
_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
RELATIONS = "relations.sqlite"
POS = ("n", "v", "a", "r")
# NLTK's morphy suffix rules (WordNetCorpusReader.MORPHOLOGICAL_SUBSTITUTIONS), the exception lists in the table.
SUFFIXES = {"n": (("s", ""), ("ses", "s"), ("ves", "f"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
                  ("shes", "sh"), ("men", "man"), ("ies", "y")),
            "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"),
                  ("ing", "")),
            "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")), "r": ()}
HYPERNYM_DEPTH = 2
"""A word covers the words whose synsets are at most this many hypernym steps below one of its own."""
HOW_TO_INSTALL = ("apt-get install wordnet-base wordnet-sense-index, then python -m grounded.interpreter.setup_wordnet "
                  "(make setup does both)")


class WordNetMissing(GroundedError):
    """WordNet 3.0 is not where NLTK looks: the text reader cannot read words without it (the CLI prints this
    as one line, like SWI-Prolog missing)."""


def target_dir() -> Path:
    """Where ``install`` puts the corpus: under this interpreter's prefix, on NLTK's default data path."""
    return Path(sys.prefix) / "share" / "nltk_data" / "corpora" / "wordnet"


def lexnames(man_page: Path = LEXNAMES_MAN) -> str:
    """The ``lexnames`` file (``NN<TAB>name<TAB>category``) from the table of the manual page lexnames(5WN)."""
    with gzip.open(man_page, "rt", encoding="utf-8") as f:
        rows = [m.groups() for line in f if (m := _LEXNAME_ROW.match(line))]
    if len(rows) != 45:
        raise WordNetMissing(f"{man_page}: expected the 45 lexicographer files of WordNet 3.0, found {len(rows)}")
    return "".join(f"{num}\t{name}\t{_CATEGORY[name.split('.')[0]]}\n" for num, name in rows)


def install(source: Path = DEBIAN_DIR, man_page: Path = LEXNAMES_MAN, target: Path | None = None) -> Path:
    """Copy Debian's WordNet 3.0 under NLTK's data path and write its ``lexnames``; returns the directory."""
    target = target or target_dir()
    missing = [name for name in FILES if not (source / name).is_file()]
    if missing or not man_page.is_file():
        raise WordNetMissing(f"Debian's WordNet files are missing ({', '.join(missing) or man_page}): "
                             "apt-get install wordnet-base wordnet-sense-index")
    target.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        shutil.copyfile(source / name, target / name)
    (target / "lexnames").write_text(lexnames(man_page), encoding="utf-8")
    reader.cache_clear()
    build_relations(_nltk_reader(target), target / RELATIONS)
    return target


def build_relations(wn: WordNetCorpusReader, path: Path) -> None:
    """The relations the coverage check reads, from NLTK's reader into one SQLite file (written whole, then
    renamed, so a failed build leaves no half a table)."""
    tmp = path.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    db = sqlite3.connect(tmp)
    db.executescript("""
        CREATE TABLE lemma(word TEXT, pos TEXT, synset TEXT);
        CREATE TABLE hyper(synset TEXT, parent TEXT);
        CREATE TABLE antonym(word TEXT, other TEXT);
        CREATE TABLE deriv(word TEXT, other TEXT);
        CREATE TABLE exc(form TEXT, pos TEXT, base TEXT);""")
    for ss in wn.all_synsets():
        name, pos = ss.name(), ss.pos()
        pos = "a" if pos == "s" else pos
        parents = ss.hypernyms() + ss.instance_hypernyms() + (ss.similar_tos() if pos == "a" else [])
        db.executemany("INSERT INTO hyper VALUES (?, ?)", [(name, p.name()) for p in parents])
        for lem in ss.lemmas():
            word = lem.name().lower()
            db.execute("INSERT INTO lemma VALUES (?, ?, ?)", (word, pos, name))
            db.executemany("INSERT INTO antonym VALUES (?, ?)", [(word, a.name().lower()) for a in lem.antonyms()])
            db.executemany("INSERT INTO deriv VALUES (?, ?)",
                           [(word, d.name().lower()) for d in lem.derivationally_related_forms()])
    for pos in POS:
        for form, bases in wn._exception_map[pos].items():
            db.executemany("INSERT INTO exc VALUES (?, ?, ?)", [(form, pos, b) for b in bases])
    db.executescript("""
        CREATE INDEX lemma_word ON lemma(word); CREATE INDEX lemma_synset ON lemma(synset);
        CREATE INDEX hyper_synset ON hyper(synset); CREATE INDEX antonym_word ON antonym(word);
        CREATE INDEX deriv_word ON deriv(word); CREATE INDEX exc_form ON exc(form);""")
    db.commit()
    db.close()
    tmp.replace(path)


def data_path() -> list[Path]:
    """NLTK's data path as ``nltk.data.path`` builds it by default ($NLTK_DATA, the home directory, this
    interpreter's prefix, the system's), without importing nltk: that import pulls in scipy, seconds of a
    ``grounded verify --text`` call."""
    env = [Path(p) for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p]
    prefix = Path(sys.prefix)
    return [*env, Path.home() / "nltk_data", prefix / "nltk_data", prefix / "share" / "nltk_data",
            prefix / "lib" / "nltk_data", Path("/usr/share/nltk_data"), Path("/usr/local/share/nltk_data"),
            Path("/usr/lib/nltk_data"), Path("/usr/local/lib/nltk_data")]


def _corpus_root() -> Path:
    for base in data_path():
        if (base / "corpora" / "wordnet" / "lexnames").is_file():
            return base / "corpora" / "wordnet"
    raise WordNetMissing("WordNet 3.0 is not on NLTK's data path "
                         f"({', '.join(str(p) for p in data_path())}): {HOW_TO_INSTALL}")


def _nltk_reader(root: Path) -> WordNetCorpusReader:
    import warnings

    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    try:
        with warnings.catch_warnings():  # "multilingual functions are not available": none is used
            warnings.simplefilter("ignore")
            return WordNetCorpusReader(str(root), None)
    except (OSError, ValueError) as exc:
        raise WordNetMissing(f"WordNet 3.0 under {root} cannot be read ({exc}): {HOW_TO_INSTALL}") from None


@cache
def reader() -> WordNetCorpusReader:
    """NLTK's WordNet reader over the installed corpus (3 s to load: the coverage check reads ``lexicon()``)."""
    return _nltk_reader(_corpus_root())


class Lexicon:
    """Word lookups in ``relations.sqlite``: base forms, synonyms and hypernyms, antonyms, derivations."""

    def __init__(self, path: Path):
        if not path.is_file():
            raise WordNetMissing(f"{path} is missing (WordNet's relations for the text reader): {HOW_TO_INSTALL}")
        self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        self._memo: dict[tuple[str, str], frozenset[str]] = {}
        """Each lookup once per process (the lexicon is one per process: ``lexicon()``)."""

    def _column(self, sql: str, *args: str) -> frozenset[str]:
        return frozenset(r[0] for r in self.db.execute(sql, args))

    def _once(self, kind: str, word: str, look: Callable[[str], frozenset[str]]) -> frozenset[str]:
        key = (kind, word)
        if key not in self._memo:
            self._memo[key] = look(word)
        return self._memo[key]

    def bases(self, word: str) -> frozenset[str]:
        """The word and its WordNet base forms in any part of speech ("fell" -> fall, fell; "weakened" -> weaken)."""
        return self._once("bases", word.lower(), self._bases)

    def _bases(self, word: str) -> frozenset[str]:
        found = set(self._column("SELECT base FROM exc WHERE form = ?", word))
        candidates = {word} | {word[: -len(old)] + new for pos in POS for old, new in SUFFIXES[pos]
                               if word.endswith(old) and len(word) > len(old) + 1}
        for c in candidates:
            if self.db.execute("SELECT 1 FROM lemma WHERE word = ? LIMIT 1", (c,)).fetchone():
                found.add(c)
        return frozenset(found | {word})

    def synsets(self, base: str) -> frozenset[str]:
        return self._once("synsets", base, lambda b: self._column("SELECT synset FROM lemma WHERE word = ?", b))

    def below(self, base: str) -> frozenset[str]:
        """The synsets of ``base`` and those up to HYPERNYM_DEPTH hypernym steps above them."""
        return self._once("below", base, self._below)

    def _below(self, base: str) -> frozenset[str]:
        seen = set(self.synsets(base))
        frontier = set(seen)
        for _ in range(HYPERNYM_DEPTH):
            frontier = {p for s in frontier for p in self._column("SELECT parent FROM hyper WHERE synset = ?", s)}
            seen |= frontier
        return frozenset(seen)

    def antonyms(self, base: str) -> frozenset[str]:
        return self._once("antonyms", base, lambda b: self._column("SELECT other FROM antonym WHERE word = ?", b))

    def derivations(self, base: str) -> frozenset[str]:
        return self._once("deriv", base, lambda b: self._column("SELECT other FROM deriv WHERE word = ?", b))


@cache
def lexicon() -> Lexicon:
    """The installed relations, opened once per process; ``WordNetMissing`` when they are not installed."""
    return Lexicon(_corpus_root() / RELATIONS)


def main() -> int:
    """``python -m grounded.interpreter.setup_wordnet``: install, or say what is missing (exit 2)."""
    try:
        path = install()
    except WordNetMissing as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"WordNet 3.0 installed in {path}")
    return 0
