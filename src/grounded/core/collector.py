"""What a process froze of Python's cyclic garbage collector's objects, known without counting them.

The command line freezes what its start-up made (``gc.freeze``: grounded.cli.app.StartupCollector), and
reading a log hands what it kept to the oldest generation unless something is frozen already
(grounded.engine.loading.paused_gc).  ``gc.get_freeze_count`` answers that by walking every frozen object,
tens of thousands after the command line's start-up, twice per log read: a large part of what a query
answered from a snapshot costs beyond ``grounded --version`` (docs/benchmarks.md, start-up).  Freezing and
unfreezing through here remembers it; a freeze made with ``gc.freeze`` directly is still found, by counting.
"""

from __future__ import annotations

import gc

_frozen = False
"""Whether ``freeze`` froze objects that ``unfreeze`` has not released since."""


def freeze() -> None:
    """``gc.freeze()``, remembered: ``frozen`` is then known without counting."""
    global _frozen
    gc.freeze()
    _frozen = True


def unfreeze() -> None:
    """``gc.unfreeze()``, remembered."""
    global _frozen
    gc.unfreeze()
    _frozen = False


def frozen() -> bool:
    """Whether any object is frozen.  Known at once after ``freeze``; otherwise counted (someone may have called
    ``gc.freeze`` directly).  A ``gc.unfreeze`` called directly after ``freeze`` leaves this True: a reading then
    leaves what it kept to the young generations, which costs a collection, never a frozen object unfrozen."""
    return _frozen or gc.get_freeze_count() > 0
