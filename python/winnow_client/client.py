"""A client for `winnow serve` (docs/serve.md): standard library only.

Every call is retried a bounded number of times, with exponential backoff, while the server
cannot be reached or answers 502/503/504 (a server restarting with `--resume` comes back on the
same port). Select and feedback carry a request id that stays the same across the retries of
one call, so a request the server answered but whose answer was lost is not applied twice.
Refused requests (4xx) are not retried: they raise `WinnowServeError`.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import time
import urllib.error
import urllib.request
import uuid
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

ARROW_STREAM = "application/vnd.apache.arrow.stream"

JsonDict = Dict[str, Any]
Reward = Optional[float]


class WinnowError(Exception):
    """Anything the client could not do; its message is one line that says what and what next."""


class WinnowUnavailable(WinnowError):
    """The server could not be reached (or kept answering 5xx) after every retry."""


class WinnowServeError(WinnowError):
    """A request the server refused: its HTTP status, error code, the failing field and a hint."""

    def __init__(self, status: int, body: Any):
        err = body.get("error", {}) if isinstance(body, dict) else {}
        self.status: int = status
        self.code: str = str(err.get("code", "unknown"))
        self.field: Optional[str] = err.get("field")
        self.hint: Optional[str] = err.get("hint")
        message = err.get("message", str(body))
        where = f" at {self.field}" if self.field else ""
        hint = f" ({self.hint})" if self.hint else ""
        super().__init__(f"{status} {self.code}{where}: {message}{hint}")


_RETRY_STATUS = {502, 503, 504}
_NETWORK_ERRORS = (
    urllib.error.URLError,
    ConnectionError,
    socket.timeout,
    TimeoutError,
    http.client.HTTPException,
    OSError,
)


class WinnowClient:
    """One server, one run: the routes of `winnow serve` API v1 as methods.

    `retries` is how many times a call is tried again after the first attempt fails to reach the
    server; the waits are `backoff`, `2·backoff`, `4·backoff`, … capped at `max_backoff` seconds.
    """

    def __init__(
        self,
        url: str = "http://127.0.0.1:8470",
        token: Optional[str] = None,
        timeout: float = 60.0,
        retries: int = 8,
        backoff: float = 0.25,
        max_backoff: float = 8.0,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.url = url.rstrip("/")
        self.token = token if token is not None else os.environ.get("WINNOW_SERVE_TOKEN")
        self.timeout = timeout
        self.retries = max(0, int(retries))
        self.backoff = backoff
        self.max_backoff = max_backoff
        self._sleep = sleep
        #: The step of the newest selection this client made or recovered (what feedback answers).
        self.last_step: Optional[int] = None
        #: Attempts that failed and were retried, over the client's life (for logs and tests).
        self.retried = 0

    # -- transport ---------------------------------------------------------------------------

    def _once(self, method: str, path: str, body: Any, accept: str) -> Tuple[Dict[str, str], bytes]:
        data = None
        headers = {"Accept": accept}
        if method == "POST":
            # Always declared as JSON: the server refuses anything else.
            data = json.dumps({} if body is None else body, allow_nan=False).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
        with urllib.request.urlopen(req, timeout=self.timeout) as resp:
            return dict(resp.headers), resp.read()

    def request(
        self, method: str, path: str, body: Any = None, accept: str = "application/json"
    ) -> Tuple[Dict[str, str], bytes]:
        """One call with bounded retries; raises WinnowServeError (refused) or WinnowUnavailable."""
        last = ""
        for attempt in range(self.retries + 1):
            if attempt > 0:
                self.retried += 1
                self._sleep(min(self.max_backoff, self.backoff * (2 ** (attempt - 1))))
            try:
                return self._once(method, path, body, accept)
            except urllib.error.HTTPError as e:
                parsed = _error_body(e)
                if e.code not in _RETRY_STATUS:
                    raise WinnowServeError(e.code, parsed) from None
                last = str(WinnowServeError(e.code, parsed))
            except _NETWORK_ERRORS as e:
                last = _reason(e)
        tries = self.retries + 1
        raise WinnowUnavailable(
            f"winnow serve at {self.url} did not answer {method} {path} after {tries} attempt(s): {last}"
            " (is it running? restart it with `winnow serve CONFIG --resume`)"
        )

    def _json(self, method: str, path: str, body: Any = None) -> JsonDict:
        _headers, raw = self.request(method, path, body)
        answer: JsonDict = json.loads(raw)
        return answer

    # -- reads -------------------------------------------------------------------------------

    def health(self) -> JsonDict:
        return self._json("GET", "/v1/health")

    def version(self) -> JsonDict:
        return self._json("GET", "/v1/version")

    def metrics(self) -> JsonDict:
        return self._json("GET", "/v1/metrics")

    def pending(self) -> JsonDict:
        """`{selectSteps, feedbackSteps, pending: [selection…]}`: selections still waiting for feedback."""
        return self._json("GET", "/v1/pending")

    def recover(self) -> Optional[JsonDict]:
        """The newest selection that has had no feedback yet (an interrupted step), or None.

        A trainer that restarts calls this first: when it returns a selection, roll that one out
        and send its feedback (which names its step) instead of selecting anew.
        """
        waiting = self.pending()["pending"]
        if not waiting:
            return None
        sel: JsonDict = waiting[-1]
        self.last_step = int(sel["step"])
        return sel

    # -- selection ---------------------------------------------------------------------------

    def select(self, n: Optional[int] = None, request_id: Optional[str] = None) -> JsonDict:
        """The next tasks: `{step, taskIds, tasks}` (a retried call gets the same answer)."""
        body: JsonDict = {"requestId": request_id or _new_id("select")}
        if n is not None:
            body["n"] = int(n)
        sel: JsonDict = self._json("POST", "/v1/select", body)
        self.last_step = int(sel["step"])
        return sel

    def feedback(
        self,
        results: Sequence[JsonDict],
        step: Optional[int] = None,
        request_id: Optional[str] = None,
    ) -> JsonDict:
        """Per-task outcomes (`{taskId, rewards}` or `{taskId, passRate, count}`) for a select step.

        `step` defaults to the newest selection this client made or recovered; feedback for a step
        that was already fed is recognised by the server (`repeated: true`) and not counted again.
        """
        body: JsonDict = {"results": [_clean_result(r) for r in results]}
        body["requestId"] = request_id or _new_id("feedback")
        use_step = step if step is not None else self.last_step
        if use_step is not None:
            body["step"] = int(use_step)
        return self._json("POST", "/v1/feedback", body)

    def feedback_rewards(self, rewards_by_task: Dict[str, List[Reward]], step: Optional[int] = None) -> JsonDict:
        """`feedback` from a mapping task id → rewards (NaN and None are invalid rewards)."""
        return self.feedback([{"taskId": t, "rewards": list(r)} for t, r in rewards_by_task.items()], step)

    # -- buffer ------------------------------------------------------------------------------

    def write_experiences(self, experiences: Sequence[JsonDict]) -> JsonDict:
        """Store rollouts (idempotent on id, so retries add nothing); whole groups per call."""
        rows = [dict(e, reward=_json_reward(e.get("reward"))) for e in experiences]
        return self._json("POST", "/v1/experiences", {"experiences": rows})

    def sample(self, n: Optional[int] = None, model_version: Optional[int] = None) -> JsonDict:
        """A leased batch as JSON: `{lease, experiences, weights, skipped, blocked?}`."""
        return self._json("POST", "/v1/sample", _sample_body(n, model_version))

    def sample_arrow(self, n: Optional[int] = None, model_version: Optional[int] = None) -> Tuple[int, bytes]:
        """A leased batch as Arrow IPC stream bytes (open with `pyarrow.ipc.open_stream`)."""
        headers, raw = self.request("POST", "/v1/sample", _sample_body(n, model_version), accept=ARROW_STREAM)
        lease = {k.lower(): v for k, v in headers.items()}.get("winnow-lease", "0")
        return int(lease), raw

    def sample_table(self, n: Optional[int] = None, model_version: Optional[int] = None) -> Tuple[int, Any]:
        """A leased batch as a `pyarrow.Table` (needs pyarrow: `pip install pyarrow`)."""
        try:
            import pyarrow.ipc as ipc  # optional dependency
        except ImportError:
            raise WinnowError("sample_table needs pyarrow: pip install pyarrow (or use sample())") from None
        lease, raw = self.sample_arrow(n, model_version)
        return lease, ipc.open_stream(raw).read_all()

    def ack(self, lease: int) -> JsonDict:
        """Acknowledge every lease up to `lease` (its training is durable); repeating it is harmless."""
        return self._json("POST", "/v1/ack", {"lease": int(lease)})

    # -- rewards -----------------------------------------------------------------------------

    def rewards(self, reward: Union[str, JsonDict], items: Sequence[JsonDict]) -> List[Reward]:
        """Score responses with a built-in reward (`math`, `format`, `countdown`…).

        Each item is `{response, answer}` or `{response, taskId}`; a response that cannot be
        judged scores None.
        """
        out = self._json("POST", "/v1/rewards", {"reward": reward, "items": list(items)})
        return list(out["rewards"])


def _new_id(kind: str) -> str:
    return f"{kind}-{uuid.uuid4().hex}"


def _json_reward(value: Any) -> Reward:
    """NaN and None are invalid rewards; JSON has no NaN, so they travel as null."""
    if value is None:
        return None
    f = float(value)
    return None if f != f or f in (float("inf"), float("-inf")) else f


def _clean_result(r: JsonDict) -> JsonDict:
    if "rewards" not in r:
        return dict(r)
    return dict(r, rewards=[_json_reward(x) for x in r["rewards"]])


def _sample_body(n: Optional[int], model_version: Optional[int]) -> JsonDict:
    body: JsonDict = {}
    if n is not None:
        body["n"] = int(n)
    if model_version is not None:
        body["modelVersion"] = int(model_version)
    return body


def _error_body(e: urllib.error.HTTPError) -> Any:
    raw = e.read()
    try:
        return json.loads(raw)
    except ValueError:
        return {"error": {"message": raw.decode("utf-8", "replace")[:200]}}


def _reason(e: BaseException) -> str:
    reason = getattr(e, "reason", None)
    text = str(reason if reason is not None else e) or type(e).__name__
    return text.splitlines()[0] if text else type(e).__name__
