"""The call log: one JSON line per request to the model, appended as it happens.

Each line says which utterance and attempt the request served, what was sent
(the messages, the model, the prompt version), what came back (the content,
token usage), how long it took, and its outcome:

* ``accepted``: the engine applied the proposed operations;
* ``rejected``: the engine refused them (``violations``), the model is re-prompted;
* ``malformed``: not JSON, or not the schema (``error``), the model is re-asked;
* ``rate_limited``, ``server_error``, ``timeout``, ``connection_error``: the
  request failed and is retried with backoff; ``http_error``: it failed and is not;
* ``unclassified``: not a request but the marker that the utterance was given up
  and recorded without operations (``reason``).

Lines are flushed and fsynced one by one, like the event log, so a crash loses
at most the line being written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from grounded.io.eventlog import write_json_line


class CallLog:
    """The call log at ``path``: continued, or started afresh when ``overwrite`` (as its event log is)."""

    def __init__(self, path: str | Path, overwrite: bool = False):
        self.path = Path(path)
        self._file = open(self.path, "w" if overwrite else "a", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        write_json_line(self._file, record)

    def close(self) -> None:
        self._file.close()


def read_call_log(path: str | Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
