"""Interpreters turn an utterance into operations (``grounded.interpreter``).

The engine core replays the gold operations that scenario files and event logs
carry; the LLM and offline rule-based interpreters of the paper's section 3
live here.
"""
