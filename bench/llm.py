"""The optional LLM reader: the configured OpenAI-compatible endpoint, via the openai client.

Configured by the environment, as the rest of grounded is:
``GROUNDED_MODEL`` names the model; ``OPENAI_BASE_URL`` points at any
OpenAI-compatible server (vLLM, a local server, the OpenAI API) and
``OPENAI_API_KEY`` authenticates (a local server without keys may leave it
unset when the base URL is given).  With no model configured the LLM arms are
skipped and the benchmark says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from grounded.interpreter.endpoint import NOT_CONFIGURED as _NONE
from grounded.interpreter.endpoint import Endpoint


def configured() -> Endpoint | None:
    """The endpoint from the environment, or None when none is configured."""
    endpoint = Endpoint.from_env()
    return endpoint if endpoint.configured else None


NOT_CONFIGURED = f"LLM reader skipped: {_NONE}"


class Reader:
    """Sends prompts to the endpoint at temperature 0 and returns the answers' text."""

    def __init__(self, config: Endpoint, workers: int = 4, max_tokens: int = 64):
        self.config = config
        self.client = config.client(timeout=120, max_retries=3)
        self.workers = workers
        self.max_tokens = max_tokens

    def answer(self, prompt: str) -> str:
        response = self.client.chat.completions.create(
            model=self.config.model,
            messages=[{"role": "user", "content": prompt}],
            temperature=0,
            max_tokens=self.max_tokens,
        )
        return (response.choices[0].message.content or "").strip()

    def answer_all(self, prompts: Sequence[str], advance: Callable[[], None] | None = None) -> list[str]:
        """Answers in the order of ``prompts`` (requests run concurrently)."""
        def one(p: str) -> str:
            text = self.answer(p)
            if advance is not None:
                advance()
            return text

        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            return list(pool.map(one, prompts))
