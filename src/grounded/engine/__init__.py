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

if TYPE_CHECKING:
    from grounded.engine.engine import Engine
    from grounded.engine.update import Update
    from grounded.engine.whatif import WhatIf


def __getattr__(name: str) -> Any:
    """``Engine``, ``Update`` and ``WhatIf``, each imported when first asked for: a query answered from the
    snapshot's index (indexed.py, a module of this package) makes no engine, and a query answered from the
    snapshot no ``WhatIf``."""
    if name == "Engine":
        from grounded.engine.engine import Engine

        return Engine
    if name == "Update":
        from grounded.engine.update import Update

        return Update
    if name == "WhatIf":
        from grounded.engine.whatif import WhatIf

        return WhatIf
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["Engine", "Update", "WhatIf"]
