"""Crash recovery: the trainer killed between select and feedback; the server killed mid-step."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import unittest
from typing import Any, Dict, List

from serve_harness import REPO, Server, arithmetic_config, run_python
from winnow_client import WinnowClient

LOOP = os.path.join(os.path.dirname(__file__), "stdlib_loop.py")
STEPS = 8
KILL_AT = 4


def _env() -> Dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(REPO, "python"), os.path.dirname(__file__)])
    return env


def _lines(text: str) -> List[Dict[str, Any]]:
    return [json.loads(l) for l in text.splitlines() if l.startswith("{")]


def _uninterrupted() -> List[List[str]]:
    folder = tempfile.mkdtemp(prefix="winnow-py-ref-")
    server = Server(arithmetic_config(folder)).start()
    try:
        r = run_python([LOOP, server.url, str(STEPS)], env=_env())
        assert r.returncode == 0, r.stderr
        return [l["taskIds"] for l in _lines(r.stdout)]
    finally:
        server.stop()


class CrashRecoveryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.reference = _uninterrupted()

    def test_trainer_killed_between_select_and_feedback_recovers_its_step(self) -> None:
        folder = tempfile.mkdtemp(prefix="winnow-py-crash-")
        server = Server(arithmetic_config(folder)).start()
        try:
            proc = subprocess.Popen(
                [sys.executable, LOOP, server.url, str(STEPS), "--hang-after-select", str(KILL_AT)],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
            )
            before: List[Dict[str, Any]] = []
            assert proc.stdout is not None
            for line in proc.stdout:
                before.append(json.loads(line))
                if before[-1]["step"] == KILL_AT:
                    break
            proc.kill()  # SIGKILL: between select and feedback
            proc.wait(timeout=60)
            client = WinnowClient(server.url)
            waiting = client.pending()["pending"]
            self.assertEqual([(p["step"], p["taskIds"]) for p in waiting], [(KILL_AT, before[-1]["taskIds"])])
            self.assertEqual(client.metrics()["feedbackSteps"], KILL_AT - 1)

            r = run_python([LOOP, server.url, str(STEPS)], env=_env())
            self.assertEqual(r.returncode, 0, r.stderr)
            after = _lines(r.stdout)
            self.assertEqual(after[0], {"step": KILL_AT, "taskIds": before[-1]["taskIds"], "recovered": True})
            self.assertEqual([l["taskIds"] for l in before] + [l["taskIds"] for l in after[1:]], self.reference)
            m = client.metrics()
            self.assertEqual((m["selectSteps"], m["feedbackSteps"]), (STEPS, STEPS))
            # every step's feedback counted once: 4 tasks × 4 rewards per step
            self.assertEqual(m["selector"]["rewards"], STEPS * 4 * 4)
        finally:
            server.stop()

    def test_server_killed_mid_step_the_client_retries_and_continues(self) -> None:
        folder = tempfile.mkdtemp(prefix="winnow-py-srvkill-")
        server = Server(arithmetic_config(folder)).start()
        try:
            proc = subprocess.Popen(
                [sys.executable, LOOP, server.url, str(STEPS), "--pause-after-select", str(KILL_AT),
                 "--retries", "60", "--backoff", "0.5"],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
            )
            seen: List[Dict[str, Any]] = []
            assert proc.stdout is not None
            for line in proc.stdout:
                seen.append(json.loads(line))
                if seen[-1]["step"] == KILL_AT:
                    server.restart()  # kill -9 while the trainer holds step KILL_AT, then --resume
            out, err = proc.communicate(timeout=600)
            self.assertEqual(proc.returncode, 0, err)
            self.assertNotIn("Traceback", err)
            self.assertEqual([l["taskIds"] for l in seen], self.reference)
            m = WinnowClient(server.url).metrics()
            self.assertEqual((m["selectSteps"], m["feedbackSteps"], m["selector"]["rewards"]), (STEPS, STEPS, STEPS * 16))
        finally:
            server.stop()

    def test_server_gone_for_good_ends_with_one_line_and_no_traceback(self) -> None:
        folder = tempfile.mkdtemp(prefix="winnow-py-gone-")
        server = Server(arithmetic_config(folder)).start()
        proc = subprocess.Popen(
            [sys.executable, LOOP, server.url, str(STEPS), "--pause-after-select", "2", "--retries", "2",
             "--backoff", "0.1"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            if json.loads(line)["step"] == 2:
                server.kill()
        _out, err = proc.communicate(timeout=120)
        self.assertEqual(proc.returncode, 1)
        lines = err.strip().splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertRegex(lines[0], r"^error: winnow serve at http://127\.0\.0\.1:\d+ did not answer POST /v1/feedback after 3 attempt\(s\)")


if __name__ == "__main__":
    unittest.main()
