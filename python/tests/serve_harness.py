"""Start and stop `winnow serve` for the Python tests: a real server on 127.0.0.1, a real database."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List, Optional

REPO = os.environ.get("WINNOW_REPO") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NODE = os.environ.get("WINNOW_NODE") or os.path.join(REPO, "node_modules", ".bin", "node")
WINNOW = os.path.join(REPO, "bin", "winnow.js")
ARITHMETIC = os.path.join(REPO, "datasets", "arithmetic", "train.jsonl")
BOTS = {"m": 8, "lambda": 0.1, "rho": 0, "target": 0.5}
START_TIMEOUT = 180.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def arithmetic_config(folder: str, name: str = "py-serve", batch_tasks: int = 4, repeat: int = 4) -> str:
    """An explore-mode serve config on the first 100 arithmetic tasks, BOTS, seed 7 (JSON is YAML)."""
    config: Dict[str, Any] = {
        "name": name,
        "kind": "rft",
        "seed": 7,
        "db": "./db",
        "runsDir": "./runs",
        "tasks": {
            "path": ARITHMETIC,
            "mapping": {
                "taskset": "arithmetic",
                "id": "id",
                "prompt": "prompt",
                "answer": "answer",
                "features": {"difficulty": "features.difficulty"},
            },
            "limit": 100,
        },
        "selector": {"type": "bots", "params": BOTS},
        "explorer": {
            "model": {"type": "openai", "params": {"model": "none", "baseUrl": "http://127.0.0.1:9/v1"}},
            "repeat": repeat,
            "batchTasks": batch_tasks,
        },
        "experienceOps": [{"op": "invalid_reward"}],
        "lifecycle": {"mode": "explore"},
        "monitors": [],
    }
    path = os.path.join(folder, "serve.yaml")
    with open(path, "w") as f:
        json.dump(config, f)
    return path


class Server:
    """One `winnow serve` process; `restart()` continues the run (`--resume`) on the same port."""

    def __init__(self, config: str, port: Optional[int] = None):
        self.config = config
        self.port = port if port is not None else free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: Optional[subprocess.Popen] = None
        self.log = tempfile.NamedTemporaryFile("w+", suffix=".log", delete=False)

    def start(self, resume: bool = False) -> "Server":
        args = [NODE, WINNOW, "serve", self.config, "--port", str(self.port)] + (["--resume"] if resume else [])
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log, text=True, cwd=REPO)
        deadline = time.monotonic() + START_TIMEOUT
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if line.startswith("listening on "):
                return self
            if line == "" and self.proc.poll() is not None:
                break
        self.kill()
        self.log.seek(0)
        raise RuntimeError(f"winnow serve did not start: {self.log.read()[-2000:]}")

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(sig)
                self.proc.wait(timeout=60)
            if self.proc.stdout is not None:
                self.proc.stdout.close()
        self.proc = None

    def stop(self) -> None:
        self.kill(signal.SIGTERM)
        self.log.close()

    def restart(self) -> "Server":
        self.kill()
        return self.start(resume=True)


def run_python(args: List[str], env: Optional[Dict[str, str]] = None, timeout: float = 600) -> subprocess.CompletedProcess:
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = os.path.join(REPO, "python") + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.update(env or {})
    return subprocess.run([sys.executable] + args, env=full_env, capture_output=True, text=True, timeout=timeout)


def fake_reward(task_id: str, step: int, k: int) -> float:
    """The deterministic stand-in verifier of examples/serve_client.py."""
    return 1.0 if (sum(task_id.encode("utf-8")) * 31 + step * 7 + k) % 5 < 2 else 0.0
