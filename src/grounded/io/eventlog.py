"""The event log: JSON Lines, append-only, one utterance per line after a header.

Four modules make it: ``format.py`` (what a header line and an utterance
line contain) with ``origin.py`` (the models of the rules version and
extensions a log records, imported from there: they need pydantic),
``reader.py`` (reading a log back: bounded, strict, a torn final line
recognised) and ``writer.py`` (appending: durably per the fsync policy, under
an advisory lock, all or nothing per line).  Everything else imports them
from here.  What a log guarantees is in docs/reliability.md.
"""

from __future__ import annotations

from grounded.io.format import (
    FORMAT_VERSION,
    ORIGIN_KEYS,
    describe_validation_error,
    encode_line,
    header_json,
    split_header,
    utterance_json,
)
from grounded.io.reader import LogLines, LogReader, LogStatus, read_log
from grounded.io.writer import FSYNC_POLICIES, EventLogWriter, FsyncPolicy, write_json_line

__all__ = [
    "FORMAT_VERSION", "FSYNC_POLICIES", "ORIGIN_KEYS", "EventLogWriter", "FsyncPolicy", "LogLines", "LogReader",
    "LogStatus", "describe_validation_error", "encode_line", "header_json", "read_log", "split_header",
    "utterance_json", "write_json_line",
]
