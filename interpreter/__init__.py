"""Interpreters turn utterances into operations (grounded.interpreter)."""
