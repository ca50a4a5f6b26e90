"""The QA prompt every MemAB-FC arm sends (run.py counts its tokens).

One template for all arms, so the arms differ only in which facts they show:
the verifier arm its top-50 of the active set, transcript-RAG its top-50 of
the whole stream, full context the whole stream (tail-truncated to the
paper's 480k-character budget, newest facts kept).  Facts are listed in
serial order with their serial numbers, as the benchmark presents them.
"""

from __future__ import annotations

from collections.abc import Iterable

from bench.memab.facts import Fact

INSTRUCTION = (
    "Answer the question from the numbered facts below. Facts may have been updated: "
    "when two facts conflict, the one with the larger serial number holds. "
    "Answer with the name or value only, no explanation."
)
FULL_CONTEXT_CHARS = 480_000


def fact_block(facts: Iterable[Fact]) -> str:
    return "\n".join(f"{f.serial}. {f.text}" for f in sorted(facts, key=lambda f: f.serial))


def question_block(question: str) -> str:
    return f"\nQuestion: {question}\nAnswer:"


def prompt(facts: Iterable[Fact], question: str) -> str:
    return f"{INSTRUCTION}\n\nFacts:\n{fact_block(facts)}\n{question_block(question)}"


def full_context_block(facts: list[Fact]) -> str:
    """The whole stream, keeping the newest facts when over the character budget."""
    block = fact_block(facts)
    if len(block) > FULL_CONTEXT_CHARS:
        block = block[-FULL_CONTEXT_CHARS:]
        block = block[block.index("\n") + 1:]  # do not start mid-fact
    return f"{INSTRUCTION}\n\nFacts:\n{block}\n"
