"""The Engine: one conversation's dependency map, updated per utterance by the rules.

engine.py holds ``Engine``, the front end (apply, queries, whatif, show);
update.py ``Update``, what one utterance changed; recorder.py the engine's side
of an utterance while the rules decide it; loading.py reads a log into an
engine (``Engine.load``) and snapshots.py the snapshot beside it;
applied_lines.py gives the lines a load applied (for ``grounded check``);
world.py carries the world model M along with the rules' decisions; whatif.py
answers hypothetical utterances; view.py is a read-only view for readers.
"""

from grounded.engine.engine import Engine
from grounded.engine.update import Update
from grounded.engine.whatif import WhatIf

__all__ = ["Engine", "Update", "WhatIf"]
