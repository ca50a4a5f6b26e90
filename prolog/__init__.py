"""SWI-Prolog rules: the runtime semantics of one utterance.

This file only makes the directory importable as ``grounded.prolog`` so that
the ``.pl`` files are found as package data in regular and editable installs.
"""
