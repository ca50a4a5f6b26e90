"""fields_of reads each effect class's values after its index, in declaration order (readers kept per class)."""

from __future__ import annotations

import dataclasses
from dataclasses import fields

import pytest

from grounded.dmap.effects import CLASSES, SHAPES, effect, fields_of
from grounded.solvers.flat import SEPARATOR, Accepted, accepted_text, read_flat


def test_every_effect_class_gives_its_values_in_order():
    for round_ in range(2):  # the second round reads through the readers the first one kept
        for name, cls in CLASSES.items():
            values = tuple(f"{name}-{f.name}-{round_}" for f in fields(cls) if f.name != "index")
            e = effect(3, (name, *values))
            assert fields_of(e) == values, name
            assert type(fields_of(e)) is tuple


def test_an_effect_read_from_flat_text_is_the_one_its_class_makes():
    """Every effect kind, spelled as the rules' flat reply spells it (``accepted_text``) and read back by
    ``read_flat`` (whose makers set the frozen slots directly), equals, hashes and stays frozen as the
    instance its class's constructor makes."""
    values = {"int": 7, "text": "some text", "literal": "-p1", "cause": None}
    made = [cls(i, *(values[kind] for kind in SHAPES[name])) for i, (name, cls) in enumerate(CLASSES.items())]
    made += [cls(0, *("p2" if kind == "cause" else values[kind] for kind in SHAPES[name]))
             for name, cls in CLASSES.items() if "cause" in SHAPES[name]]
    text = accepted_text(Accepted(made, ["q1"]))
    assert text is not None
    (back,) = read_flat(text, text.count(SEPARATOR))
    assert back.effects == made and [hash(e) for e in back.effects] == [hash(e) for e in made]
    assert [type(e) for e in back.effects] == [type(e) for e in made] and back.left == ["q1"]
    for e in back.effects:
        with pytest.raises(dataclasses.FrozenInstanceError):
            e.index = 1  # type: ignore[misc]
