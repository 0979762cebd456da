"""TRL end to end: GRPOTrainer on a tiny random Qwen3, prompts chosen by BOTS through the adapter,
rewards from Winnow's `math` reward through the server, every rollout kept in the buffer.

With WINNOW_TRL_LOG set, the steps (selections and the rewards fed back) are written there as
JSON: tests/python/python-package.test.ts replays them through an in-process BOTS selector with
the same seed and checks that it makes the same selections.
"""

from __future__ import annotations

import json
import os
import tempfile
import unittest
from typing import Any, Dict, List

from serve_harness import REPO, Server

try:
    import torch  # noqa: F401
    import trl  # noqa: F401
    from datasets import Dataset
    from trl import GRPOConfig
except ImportError as e:  # pragma: no cover - where trl cannot be installed
    MISSING = str(e)
else:
    MISSING = ""

GSM8K = os.path.join(REPO, "datasets", "gsm8k", "test.jsonl")
TASKS, STEPS, PROMPTS_PER_STEP, GENERATIONS = 16, 10, 2, 4
BOTS = {"m": 8, "lambda": 0.1, "rho": 0, "target": 0.5}


def gsm8k_tasks(folder: str) -> List[Dict[str, Any]]:
    rows = []
    with open(GSM8K) as f:
        for i, line in enumerate(f):
            if i == TASKS:
                break
            r = json.loads(line)
            rows.append({"id": f"gsm8k-{i:03d}", "question": r["question"], "answer": r["answer"]})
    with open(os.path.join(folder, "gsm8k.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    return rows


def gsm8k_config(folder: str) -> str:
    config = {
        "name": "trl-e2e",
        "kind": "rft",
        "seed": 11,
        "db": "./db",
        "runsDir": "./runs",
        "tasks": {"path": "./gsm8k.jsonl", "mapping": {"taskset": "gsm8k", "id": "id", "prompt": "question", "answer": "answer"}},
        "selector": {"type": "bots", "params": BOTS},
        "explorer": {
            "model": {"type": "openai", "params": {"model": "none", "baseUrl": "http://127.0.0.1:9/v1"}},
            "repeat": GENERATIONS,
            "batchTasks": PROMPTS_PER_STEP,
        },
        "experienceOps": [{"op": "grpo"}],
        "lifecycle": {"mode": "explore"},
        "monitors": [],
    }
    path = os.path.join(folder, "serve.yaml")
    with open(path, "w") as f:
        json.dump(config, f)
    return path


@unittest.skipIf(MISSING != "", f"trl/torch not importable ({MISSING}): the TRL end-to-end test is skipped")
class TrlEndToEndTest(unittest.TestCase):
    def test_grpo_trainer_with_bots_prompts_and_math_rewards(self) -> None:
        from trl_tiny import tiny_model_and_tokenizer
        from winnow_client import WinnowClient
        from winnow_client.trl import WinnowGRPOTrainer, WinnowReward

        folder = tempfile.mkdtemp(prefix="winnow-py-trl-")
        tasks = gsm8k_tasks(folder)
        server = Server(gsm8k_config(folder)).start()
        try:
            client = WinnowClient(server.url)
            model, tokenizer = tiny_model_and_tokenizer()
            dataset = Dataset.from_list([{"prompt": f"Question: {t['question']}\nAnswer:", "task_id": t["id"]} for t in tasks])
            reward = WinnowReward(client, "math")
            args = GRPOConfig(
                output_dir=os.path.join(folder, "out"),
                per_device_train_batch_size=PROMPTS_PER_STEP * GENERATIONS,
                num_generations=GENERATIONS,
                max_completion_length=8,
                max_steps=STEPS,
                learning_rate=1e-3,
                beta=0.0,
                logging_steps=1,
                report_to=[],
                save_strategy="no",
                use_cpu=True,
                bf16=False,
                seed=0,
                dataloader_num_workers=0,
            )
            trainer = WinnowGRPOTrainer(
                model=model, args=args, train_dataset=dataset, processing_class=tokenizer,
                reward_funcs=[reward], winnow=client,
            )
            trainer.train()

            sampler = trainer.winnow_sampler
            assert sampler is not None
            self.assertEqual([s["step"] for s in sampler.selections], list(range(1, STEPS + 1)))
            self.assertEqual([h["step"] for h in reward.history], list(range(1, STEPS + 1)))
            for sel, h in zip(sampler.selections, reward.history):
                self.assertEqual(list(h["rewards"]), sel["taskIds"])  # each task's group, in selection order
                self.assertTrue(all(len(r) == GENERATIONS for r in h["rewards"].values()))
            m = client.metrics()
            self.assertEqual((m["selectSteps"], m["feedbackSteps"]), (STEPS, STEPS))

            # the buffer holds every rollout with the reward the trainer was given
            batch = client.sample(n=1000)
            by_id = {e["id"]: e["reward"] for e in batch["experiences"]}
            expected = {
                f"s{h['step']}:{tid}#{k}": r
                for h in reward.history for tid, rs in h["rewards"].items() for k, r in enumerate(rs)
            }
            self.assertEqual(len(by_id), STEPS * PROMPTS_PER_STEP * GENERATIONS)
            self.assertEqual(by_id, expected)

            out = os.environ.get("WINNOW_TRL_LOG")
            if out:
                with open(out, "w") as f:
                    json.dump({"tasks": tasks, "seed": 11, "bots": BOTS, "steps": [
                        {"step": s["step"], "taskIds": s["taskIds"], "rewards": h["rewards"]}
                        for s, h in zip(sampler.selections, reward.history)
                    ]}, f)
        finally:
            server.stop()


if __name__ == "__main__":
    unittest.main()
