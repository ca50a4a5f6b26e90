"""The Engine: one conversation's dependency map, updated per utterance by the rules.

engine.py holds ``Engine``, the front end (apply, queries, whatif, show);
update.py ``Update``, what one utterance changed; recorder.py the engine's side
of an utterance while the rules decide it; loading.py reads a log into an
engine (``Engine.load``) and snapshots.py the snapshot beside it;
applied_lines.py gives the lines a load applied (for ``grounded check``);
world.py carries the world model M along with the rules' decisions; whatif.py
answers hypothetical utterances; view.py is a read-only view for readers;
group.py decides several engines' utterances in one request to the rules (the service's group of writes).
"""

from typing import TYPE_CHECKING, Any

from grounded.engine.engine import Engine
from grounded.engine.update import Update

if TYPE_CHECKING:
    from grounded.engine.whatif import WhatIf


def __getattr__(name: str) -> Any:
    """``WhatIf``, imported when first asked for (a query answered from a snapshot makes none)."""
    if name == "WhatIf":
        from grounded.engine.whatif import WhatIf

        return WhatIf
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["Engine", "Update", "WhatIf"]
