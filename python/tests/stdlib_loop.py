"""A plain training loop on TaskStream (what a PyTorch loop does around its model), for the tests.

    python3 stdlib_loop.py URL STEPS [--hang-after-select K] [--retries N]

Prints one JSON line per step ({step, taskIds, recovered}); with --hang-after-select K it stops
after printing step K's selection and waits (the test kills it there, between select and
feedback); with --pause-after-select K it waits 2 s there (the test kills the server). Errors end the script with one line (run_cli).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from serve_harness import fake_reward
from winnow_client import TaskStream, WinnowClient, run_cli

REPEAT = 4


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("url")
    p.add_argument("steps", type=int)
    p.add_argument("--hang-after-select", type=int, default=0)
    p.add_argument("--pause-after-select", type=int, default=0)
    p.add_argument("--retries", type=int, default=8)
    p.add_argument("--backoff", type=float, default=0.25)
    a = p.parse_args()
    client = WinnowClient(a.url, retries=a.retries, backoff=a.backoff, max_backoff=2.0)
    for sel in TaskStream(client, steps=a.steps):
        print(json.dumps({"step": sel.step, "taskIds": sel.task_ids, "recovered": sel.recovered}), flush=True)
        if sel.step == a.hang_after_select:
            time.sleep(3600)
        if sel.step == a.pause_after_select:
            time.sleep(2)
        sel.feedback({t: [fake_reward(t, sel.step, k) for k in range(REPEAT)] for t in sel.task_ids})
    return 0


if __name__ == "__main__":
    run_cli(main)
