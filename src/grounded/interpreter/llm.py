"""The LLM Interpreter: one chat-completion call per utterance, on the official ``openai`` client.

Any OpenAI-compatible server works (OpenAI, vLLM, llama.cpp, Ollama, ...):
the endpoint, key and model come from ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``
and ``GROUNDED_MODEL`` or from the arguments.  For each utterance:

1. the prompt of the chosen condition (``prompts.py``) and the utterance go
   out; the answer is parsed against the response models (``schema.py``) and
   new claims get their ids (``proposal.py``);
2. an answer that is not valid JSON or not the schema is re-asked, saying
   what is wrong; operations the engine rejects are re-prompted with every
   failing condition; both count against ``max_attempts`` answers;
3. 429s, 5xx, timeouts and answers that are not a chat completion (an HTML
   page, truncated JSON, a wrong envelope, JSON nested past the parser's
   depth, a body larger than ``bounded.MAX_RESPONSE_BYTES`` once decoded, as
   a gzip bomb is: cut off as it is read) are retried with exponential
   backoff (honouring ``Retry-After``) up to ``max_retries`` times per
   request; the client's own retries are off so that every request is seen
   and logged here;
4. when the attempts run out the utterance is recorded unclassified.

Nothing an endpoint sends can abort a run: every utterance lands, unclassified
at worst.  ``timeout`` is a total deadline per request (connection, headers
and body together), enforced by cancelling the request on the asyncio client:
a server trickling a byte a second is cut off at the deadline like a silent
one.  Text that is not valid Unicode (a lone surrogate) is replaced before it
is sent back to the model.

Every request is a line in the call log (``calllog.py``).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from grounded.core.errors import InputError, Violation
from grounded.core.extras import require
from grounded.engine import Engine, Update
from grounded.interpreter import prompts
from grounded.interpreter.base import Exchange, Interpreter
from grounded.interpreter.bounded import ResponseTooLarge
from grounded.interpreter.calllog import CallLog
from grounded.interpreter.endpoint import ENV_API_KEY, ENV_BASE_URL, ENV_MODEL, Endpoint
from grounded.interpreter.proposal import Proposal, assign_ids
from grounded.interpreter.schema import InterpreterError, parse_response
from grounded.interpreter.transcript import Said

openai = require("interpreter", "openai")


@dataclass(frozen=True)
class LLMConfig:
    model: str
    base_url: str | None = None
    api_key: str | None = None
    condition: str = "definitions"
    temperature: float = 0.0
    timeout: float = 60.0
    """Seconds per request, all of it (connect, headers, body), before it counts as a timeout."""
    max_retries: int = 4
    """Retries per request on 429, 5xx, timeouts and connection errors."""
    backoff: float = 1.0
    """Seconds before the first retry; doubled for each further one."""
    max_backoff: float = 30.0
    max_attempts: int = 3
    """Model answers per utterance (malformed ones and rejected ones included)."""
    json_mode: bool = True
    """Ask for ``response_format={"type": "json_object"}`` (turn off for servers without it)."""
    history: int = 4
    """Previous utterances shown with each one."""
    state_budget: int = 1500
    """Token budget of the rendered state (State-augmented condition)."""
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.condition not in prompts.PROMPTS:
            raise InputError(f"unknown condition {self.condition!r} (one of {', '.join(prompts.CONDITIONS)})")

    @classmethod
    def from_env(cls, **overrides: Any) -> LLMConfig:
        """Endpoint, key and model from the environment, overridden by non-None arguments."""
        given = {k: v for k, v in overrides.items() if v is not None}
        endpoint = Endpoint.from_env(given.pop("model", None), given.pop("base_url", None),
                                     given.pop("api_key", None))
        if not endpoint.model:
            raise InputError(f"no model: set {ENV_MODEL} or pass --model")
        if not endpoint.reachable:
            raise InputError(f"no endpoint: set {ENV_BASE_URL} (any OpenAI-compatible server) or {ENV_API_KEY}")
        return cls(model=endpoint.model, base_url=endpoint.base_url, api_key=endpoint.api_key, **given)


def endpoint_configured() -> bool:
    """Whether the environment names an endpoint (else the rule-based interpreter is the default)."""
    return Endpoint.from_env().reachable


_RETRYABLE = {openai.RateLimitError: "rate_limited", openai.InternalServerError: "server_error",
              openai.APITimeoutError: "timeout", openai.APIConnectionError: "connection_error",
              openai.APIResponseValidationError: "bad_response"}

T = TypeVar("T")


class BadResponse(Exception):
    """A 200 that is not a chat completion: not JSON, another envelope, unreadable."""


class Deadline(Exception):
    """The request did not complete within the total deadline."""


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def scrub(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (it cannot be encoded to be sent back)."""
    return _SURROGATE.sub("\ufffd", text)


def _content_of(response: Any) -> tuple[str | None, dict[str, int] | None]:
    """The first choice's message content and the token usage, checking the envelope on the way.

    The client builds its response objects without validating them, so a
    server's ``{"choices": "abc"}`` arrives as it is: every step is checked here.
    """
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list):
        raise BadResponse(f"not a chat completion (choices: {type(choices).__name__}, body "
                          f"{scrub(str(response))[:200]!r})")
    content = None
    if choices:
        message = getattr(choices[0], "message", None)
        content = getattr(message, "content", None)
        if message is None or not (content is None or isinstance(content, str)):
            raise BadResponse("the first choice holds no message with text content")
    usage = getattr(response, "usage", None)
    counts = {k: getattr(usage, k, None) for k in ("prompt_tokens", "completion_tokens", "total_tokens")}
    if usage is None or not all(isinstance(v, int) for v in counts.values()):
        return content, None  # no usage, or not counts: the answer is still usable
    return content, {k: int(v) for k, v in counts.items() if isinstance(v, int)}


class LLMInterpreter(Interpreter):
    name = "llm"

    def __init__(self, config: LLMConfig, call_log: CallLog | None = None,
                 sleep: Callable[[float], None] = time.sleep):
        self.config = config
        self.condition = prompts.PROMPTS[config.condition]
        self.call_log = call_log
        self.sleep = sleep
        self.client = Endpoint(config.model, config.base_url, config.api_key).async_client(
            timeout=config.timeout, max_retries=0)
        self._loop = asyncio.new_event_loop()
        self._history: list[Said] = []
        self.last_failure: str | None = None
        """The error of the last request whose every try failed (as the call log records it)."""

    def begin(self, engine: Engine, said: Said) -> Exchange:
        history = self._history[-self.config.history:] if self.config.history else []
        self._history.append(said)
        system = self.condition.system(engine.registry)
        user = prompts.user_message_v1(self.condition, engine, said, history, self.config.state_budget)
        return _LLMExchange(self, engine, said, [{"role": "system", "content": system},
                                                 {"role": "user", "content": user}])

    def skip(self, said: Said) -> None:
        """An utterance an earlier run interpreted (``--resume``): remembered as recent history."""
        self._history.append(said)

    def close(self) -> None:
        try:
            if not self._loop.is_closed():
                self._run(self.client.close())
                self._loop.close()
        finally:
            if self.call_log is not None:
                self.call_log.close()

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on this interpreter's own event loop (on a helper thread if the caller runs one)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return self._loop.run_until_complete(coro)
        with ThreadPoolExecutor(1) as pool:  # called from async code (a notebook): not on its loop
            return pool.submit(self._loop.run_until_complete, coro).result()

    async def _request(self, kwargs: dict[str, Any]) -> Any:
        try:
            return await asyncio.wait_for(self.client.chat.completions.create(**kwargs), self.config.timeout)
        except asyncio.TimeoutError:
            raise Deadline(f"no complete answer within {self.config.timeout:g} s") from None

    # -- one request, with retries -------------------------------------------------

    def complete(self, messages: list[dict], base: dict[str, Any]) -> tuple[str | None, dict[str, Any] | None]:
        """The content of one answer and its (not yet written) log record; (None, None) if every try failed."""
        cfg = self.config
        kwargs: dict[str, Any] = {"model": cfg.model, "messages": messages, "temperature": cfg.temperature,
                                  **cfg.extra}
        if cfg.json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        for retry in range(cfg.max_retries + 1):
            # the caller's fields last: another task through this transport (the LLM anchor) names its own
            record = {"request": retry + 1, "model": cfg.model, "condition": cfg.condition,
                      "prompt_version": self.condition.version, "messages": list(messages), **base}
            start = time.monotonic()
            try:
                content, usage = _content_of(self._run(self._request(kwargs)))
            except (openai.APIError, Deadline, BadResponse, ResponseTooLarge, ValueError, TypeError, AttributeError,
                    LookupError, RecursionError, UnicodeError) as exc:
                # anything else a hostile endpoint can make the client raise is a bad response too
                record["latency_ms"] = round((time.monotonic() - start) * 1000, 1)
                outcome = _outcome(exc)
                record.update(outcome=outcome, error=scrub(f"{type(exc).__name__}: {exc}")[:1000],
                              status=getattr(exc, "status_code", None))
                retry_now = outcome != "http_error" and retry < cfg.max_retries
                if retry_now:
                    record["retry_in_s"] = self._delay(retry, exc)
                self._log(record)
                if not retry_now:
                    self.last_failure = record["error"]
                    return None, None
                self.sleep(record["retry_in_s"])
                continue
            record["latency_ms"] = round((time.monotonic() - start) * 1000, 1)
            record["usage"] = usage
            record["response"] = content
            return content, record
        return None, None  # pragma: no cover - the loop always returns

    def _delay(self, retry: int, exc: Exception) -> float:
        delay = min(self.config.backoff * 2 ** retry, self.config.max_backoff)
        response = getattr(exc, "response", None)
        header = response.headers.get("retry-after") if response is not None else None
        if header:
            try:
                delay = min(max(delay, float(header)), self.config.max_backoff)
            except ValueError:
                pass
        return delay

    def _log(self, record: dict[str, Any]) -> None:
        if self.call_log is not None:
            self.call_log.write(record)


def _outcome(exc: Exception) -> str:
    if isinstance(exc, Deadline):
        return "timeout"
    if isinstance(exc, openai.APIError):
        return next((name for cls, name in _RETRYABLE.items() if isinstance(exc, cls)), "http_error")
    return "bad_response"


class _LLMExchange(Exchange):
    def __init__(self, interp: LLMInterpreter, engine: Engine, said: Said, messages: list[dict]):
        self.interp = interp
        self.engine = engine
        self.said = said
        self.messages = messages
        self.answers = 0
        self.pending: dict[str, Any] | None = None  # the record of the answer the engine is judging

    def _base(self) -> dict[str, Any]:
        return {"turn": self.said.turn, "speaker": self.said.speaker, "attempt": self.answers + 1}

    def propose(self, feedback: list[Violation] | None) -> Proposal | None:
        if feedback is not None:
            self._settle("rejected", violations=[v.to_json() for v in feedback])
            self.messages.append({"role": "user", "content": prompts.rejection_message_v1(
                [str(v) for v in feedback])})
        while self.answers < self.interp.config.max_attempts:
            content, record = self.interp.complete(self.messages, self._base())
            if record is None:
                self.failure = self.interp.last_failure
                return None
            self.answers += 1
            self.messages.append({"role": "assistant", "content": scrub(content or "")})
            try:
                proposal = assign_ids(self.engine, parse_response(self.engine.registry, content))
            except InterpreterError as exc:
                self.interp._log({**record, "outcome": "malformed", "error": str(exc)})
                self.messages.append({"role": "user", "content": prompts.malformed_message_v1(str(exc))})
                continue
            record["proposal"] = proposal.ops
            self.pending = record
            return proposal
        return None

    def accepted(self, update: Update) -> None:
        self._settle("accepted")

    def unclassified(self, reason: str) -> None:
        self._settle("rejected")
        self.interp._log({"turn": self.said.turn, "speaker": self.said.speaker, "outcome": "unclassified",
                          "attempts": self.answers, "reason": reason, "text": self.said.text})

    def _settle(self, outcome: str, **extra: Any) -> None:
        if self.pending is not None:
            self.interp._log({**self.pending, "outcome": outcome, **extra})
            self.pending = None


__all__ = ["LLMConfig", "LLMInterpreter", "endpoint_configured"]
