"""fields_of reads each effect class's values after its index, in declaration order (readers kept per class)."""

from __future__ import annotations

from dataclasses import fields

from grounded.dmap.effects import CLASSES, effect, fields_of


def test_every_effect_class_gives_its_values_in_order():
    for round_ in range(2):  # the second round reads through the readers the first one kept
        for name, cls in CLASSES.items():
            values = tuple(f"{name}-{f.name}-{round_}" for f in fields(cls) if f.name != "index")
            e = effect(3, (name, *values))
            assert fields_of(e) == values, name
            assert type(fields_of(e)) is tuple
