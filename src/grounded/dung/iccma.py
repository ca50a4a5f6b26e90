"""The ICCMA file formats: a framework read from, or written to, .apx and .tgf.

The International Competition on Computational Models of Argumentation
distributes its instances in two formats, so standard benchmarks run here
directly:

* ASPARTIX (.apx): one fact a line, ``arg(a).`` for each argument and
  ``att(a,b).`` for each attack (``%`` starts a comment);
* Trivial Graph Format (.tgf): one argument name a line, then a line ``#``,
  then one attack a line, ``a b`` (anything after the first token of a node
  line, or the first two of an edge line, is a label and ignored).

Arguments are named by strings there and by integers in ``Framework``:
``NamedFramework`` keeps the names, argument i being ``names[i - 1]`` in the
order the file declares them.  Every error names the file and the line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from grounded.core.errors import InputError
from grounded.dung.framework import Framework

FORMATS = ("apx", "tgf")
SUFFIXES = tuple(f".{f}" for f in FORMATS)

_NAME = r"[^\s(),%#]+"
_STATEMENT = re.compile(rf"\s*(arg|att)\(\s*({_NAME})\s*(?:,\s*({_NAME})\s*)?\)\s*\.")
_ONE_FACT = re.compile(_STATEMENT.pattern + r"\s*")  # a whole line holding one fact: the usual case
_VALID_NAME = re.compile(rf"{_NAME}\Z")


@dataclass(frozen=True)
class NamedFramework:
    """A framework whose arguments 1..n carry the names a file gave them."""

    af: Framework
    names: tuple[str, ...]

    def name(self, arg: int) -> str:
        return self.names[arg - 1]


class _Builder:
    """Names to integers, in the order first declared; attacks checked against the declarations."""

    def __init__(self, path: str):
        self.path = path
        self.ids: dict[str, int] = {}
        self.attacks: list[tuple[int, int]] = []

    def argument(self, name: str) -> None:
        if name not in self.ids:
            self.ids[name] = len(self.ids) + 1

    def attack(self, a: str, b: str, line: int) -> None:
        ids = self.ids
        for x in (a, b):
            if x not in ids:
                raise InputError(f"attack {a} -> {b}: argument {x} is not declared", path=self.path, line=line)
        self.attacks.append((ids[a], ids[b]))

    def done(self) -> NamedFramework:
        return NamedFramework(Framework(frozenset(self.ids.values()), frozenset(self.attacks)), tuple(self.ids))


def read(path: Path) -> NamedFramework:
    """The framework in an .apx or .tgf file (by its suffix)."""
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise InputError(f"not an ICCMA framework file (expected {' or '.join(SUFFIXES)})", path=str(path))
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", path=str(path)) from None
    return parse(text, fmt, str(path))


def parse(text: str, fmt: str, source: str = "<text>") -> NamedFramework:
    return (_parse_apx if fmt == "apx" else _parse_tgf)(text, source)


def _parse_apx(text: str, source: str) -> NamedFramework:
    built = _Builder(source)
    attacks: list[tuple[str, str, int]] = []  # checked once every arg/1 is known: the order of facts is free
    for number, line in enumerate(text.splitlines(), 1):
        m = _ONE_FACT.fullmatch(line)
        if m is not None:
            kind, a, b = m.groups()
            if kind == "arg" and b is None:
                built.argument(a)
                continue
            if kind == "att" and b is not None:
                attacks.append((a, b, number))
                continue
        body = line.split("%", 1)[0]
        pos = 0
        while pos < len(body):
            if body[pos:].isspace():
                break
            m = _STATEMENT.match(body, pos)
            if m is None:
                raise InputError(f"expected arg(a). or att(a,b). but found {body[pos:].strip()[:60]!r}",
                                 path=source, line=number)
            kind, a, b = m.groups()
            if kind == "arg":
                if b is not None:
                    raise InputError(f"arg/1 takes one name: arg({a},{b})", path=source, line=number)
                built.argument(a)
            else:
                if b is None:
                    raise InputError(f"att/2 takes two names: att({a})", path=source, line=number)
                attacks.append((a, b, number))
            pos = m.end()
    ids = built.ids
    try:
        built.attacks = [(ids[a], ids[b]) for a, b, _ in attacks]
    except KeyError:  # find the first attack naming an undeclared argument, to name its line
        for a, b, number in attacks:
            built.attack(a, b, number)
    return built.done()


def _parse_tgf(text: str, source: str) -> NamedFramework:
    built = _Builder(source)
    edges = False
    for number, line in enumerate(text.splitlines(), 1):
        tokens = line.split()
        if not tokens:
            continue
        if tokens[0] == "#":
            if edges:
                raise InputError("a second '#' line: a .tgf file has one, between nodes and edges",
                                 path=source, line=number)
            edges = True
        elif not edges:
            built.argument(tokens[0])
        elif len(tokens) < 2:
            raise InputError(f"an edge needs two node names, found {line.strip()!r}", path=source, line=number)
        else:
            built.attack(tokens[0], tokens[1], number)
    return built.done()


def write(af: Framework, fmt: str, name: Callable[[int], str] = str,
          label: Callable[[int], str] | None = None) -> str:
    """``af`` in the named format, arguments in increasing order, named by ``name``.

    ``label`` (a conversation's claim of each argument) travels in the file where
    the format lets it without changing what a reader takes: a ``%`` comment line
    per argument at the top of an .apx, the rest of each node line of a .tgf.
    """
    if fmt not in FORMATS:
        raise InputError(f"--to {fmt}: expected one of {', '.join(FORMATS)}")
    args = sorted(af.arguments)
    names = {a: name(a) for a in args}
    bad = [n for n in names.values() if not _VALID_NAME.match(n)]
    if bad:
        raise InputError(f"argument name {bad[0]!r} cannot be written as {fmt}: names are one token "
                         "without spaces, parentheses, commas, % or #")
    labels = {a: " ".join(label(a).split()) for a in args} if label is not None else {}
    attacks = sorted(af.attacks)
    if fmt == "apx":
        header = ["% argument: claim", *(f"% {names[a]}: {labels[a]}" for a in args)] if labels else []
        lines: Iterable[str] = [*header, *(f"arg({names[a]})." for a in args),
                                *(f"att({names[a]},{names[b]})." for a, b in attacks)]
    else:
        lines = [*(f"{names[a]} {labels[a]}" if labels else names[a] for a in args), "#",
                 *(f"{names[a]} {names[b]}" for a, b in attacks)]
    return "".join(f"{line}\n" for line in lines)
