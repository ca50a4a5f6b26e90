"""The user's OpenAI-compatible endpoint, read from the environment one way everywhere.

``GROUNDED_MODEL`` names the model, ``OPENAI_BASE_URL`` points at any
OpenAI-compatible server (OpenAI, vLLM, llama.cpp, a local test server) and
``OPENAI_API_KEY`` authenticates.  A local server often needs no key, but the
openai client insists on one, so a placeholder is passed.  Both the
Interpreter and the benchmarks' LLM reader start from here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from grounded.core.extras import require

ENV_BASE_URL, ENV_API_KEY, ENV_MODEL = "OPENAI_BASE_URL", "OPENAI_API_KEY", "GROUNDED_MODEL"


@dataclass(frozen=True)
class Endpoint:
    model: str | None
    base_url: str | None
    api_key: str | None

    @classmethod
    def from_env(cls, model: str | None = None, base_url: str | None = None,
                 api_key: str | None = None) -> Endpoint:
        """The environment's endpoint, each value overridden when given."""
        return cls(model or os.environ.get(ENV_MODEL) or None,
                   base_url or os.environ.get(ENV_BASE_URL) or None,
                   api_key or os.environ.get(ENV_API_KEY) or None)

    @property
    def reachable(self) -> bool:
        """A server is named (a base URL, or a key for the default OpenAI endpoint)."""
        return bool(self.base_url or self.api_key)

    @property
    def configured(self) -> bool:
        """Reachable, and a model is named."""
        return self.reachable and bool(self.model)

    def client(self, *, timeout: float, max_retries: int):
        openai = require("interpreter", "openai")

        return openai.OpenAI(base_url=self.base_url, api_key=self.api_key or "unused",
                             timeout=timeout, max_retries=max_retries)

    def async_client(self, *, timeout: float, max_retries: int):
        """The asyncio client: a request on it can be cancelled at a total deadline, and an answer
        larger than ``bounded.MAX_RESPONSE_BYTES`` once decoded raises ``bounded.ResponseTooLarge``."""
        openai = require("interpreter", "openai")

        from grounded.interpreter.bounded import bounded_async_client

        return openai.AsyncOpenAI(base_url=self.base_url, api_key=self.api_key or "unused",
                                  timeout=timeout, max_retries=max_retries, http_client=bounded_async_client())

    def describe(self) -> str:
        return f"{self.model} at {self.base_url or 'the default OpenAI endpoint'}"


NOT_CONFIGURED = f"no endpoint configured (set {ENV_MODEL}, and {ENV_BASE_URL} and/or {ENV_API_KEY})"
