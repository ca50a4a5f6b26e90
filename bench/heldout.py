"""The held-out corpus (``bench/corpus``) as benchmark input: its split, frozen test files, items, engines.

Eight conversations written apart from the text reader and the rules
interpreter (``bench/corpus/README.md``), split by conversation.  The split
is read from ``corpus/split.yaml``, which also records the sha256 of each test
conversation's scenario and items file: a run that includes a test
conversation first checks both, and is refused (``InputError``, exit 2)
naming the file that changed, so a held-out conversation cannot drift while
the reader is tuned on the dev ones.

The rules interpreter's F1 on the test split is recorded by
``python -m bench interpret --split test --record FILE`` (``baseline.py``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml

from bench.verifier import CATEGORIES, ItemBase, parse_items
from grounded.core.errors import InputError
from grounded.engine import Engine
from grounded.scenario import Scenario, run

CorpusCategory = Literal["actual", "stale", "cross_conversation", "counterfactual", "negated_stale", "paraphrase",
                         "new_fact"]
CORPUS_CATEGORIES: tuple[str, ...] = (*CATEGORIES, "new_fact")
SPLITS: tuple[str, ...] = ("dev", "test", "all")


class CorpusItem(ItemBase):
    """An item of ``corpus/items/<conversation>.yaml``: a continuation of that conversation."""

    conversation: str
    category: CorpusCategory


@dataclass(frozen=True)
class Conversation:
    name: str
    split: Literal["dev", "test"]
    scenario_sha256: str | None = None
    items_sha256: str | None = None


def corpus_dir() -> Path:
    """The held-out corpus beside this module (``bench/corpus``)."""
    return Path(__file__).resolve().parent / "corpus"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_split(root: Path) -> dict[str, Conversation]:
    """``split.yaml``: conversation -> its split and, for a test one, the recorded sha256 of its two files."""
    path = root / "split.yaml"
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise InputError(f"cannot read the corpus split: {exc}", path=str(path)) from exc
    entries = raw.get("conversations") if isinstance(raw, dict) else None
    if not isinstance(entries, dict) or not entries:
        raise InputError("expected a mapping `conversations: {name: {split: dev|test, ...}}`", path=str(path))
    out = {}
    for name, entry in entries.items():
        split = entry.get("split") if isinstance(entry, dict) else None
        if split not in ("dev", "test"):
            raise InputError(f"conversations.{name}.split: expected dev or test, got {split!r}", path=str(path))
        hashes = (entry.get("scenario_sha256"), entry.get("items_sha256"))
        if split == "test" and not all(isinstance(h, str) and len(h) == 64 for h in hashes):
            raise InputError(f"conversations.{name}: a test conversation needs scenario_sha256 and items_sha256",
                             path=str(path))
        out[str(name)] = Conversation(str(name), split, *hashes)
    return out


def conversations(root: Path, split: str) -> list[str]:
    """The conversations of ``split`` (dev, test or all), sorted; test ones checked against their sha256 first."""
    if split not in SPLITS:
        raise InputError(f"--split: unknown {split!r} (expected {', '.join(SPLITS)})")
    table = load_split(root)
    names = sorted(n for n, c in table.items() if split in ("all", c.split))
    check_frozen(root, [table[n] for n in names])
    return names


def check_frozen(root: Path, chosen: list[Conversation]) -> None:
    """Refuse a test conversation whose scenario or items file differs from its recorded sha256."""
    for c in chosen:
        if c.split != "test":
            continue
        for path, recorded in ((root / f"{c.name}.yaml", c.scenario_sha256),
                               (root / "items" / f"{c.name}.yaml", c.items_sha256)):
            try:
                actual = sha256(path)
            except OSError as exc:
                raise InputError(f"test conversation {c.name}: cannot read {path}: {exc}", path=str(path)) from exc
            if actual != recorded:
                raise InputError(f"test conversation {c.name}: {path} has sha256 {actual}, not the recorded "
                                 f"{recorded} (split.yaml): a held-out file changed; refusing to run on it",
                                 path=str(path))


def load_items(root: Path, name: str) -> list[CorpusItem]:
    path = root / "items" / f"{name}.yaml"
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise InputError(f"cannot read the corpus items: {exc}", path=str(path)) from exc
    items = parse_items(raw, CorpusItem, path)
    if stray := [i.id for i in items if i.conversation != name]:
        raise InputError(f"items of another conversation than {name}: {stray}", path=str(path))
    return items


def scenario(root: Path, name: str) -> Scenario:
    return Scenario.load(root / f"{name}.yaml")


def gold_engine(root: Path, name: str) -> Engine:
    """An engine holding the conversation's whole gold run (turns expecting a rejection leave it as it was)."""
    sc = scenario(root, name)
    engine = Engine(sc.header)
    for _ in run(sc, engine):
        pass
    return engine
