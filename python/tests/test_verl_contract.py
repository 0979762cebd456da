"""The verl sampler driven exactly as verl's trainer drives a curriculum sampler, without verl.

verl (trainer/main_ppo.py create_rl_sampler, trainer/ppo/ray_trainer.py fit) builds the sampler
as `cls(data_source=dataset, data_config=config.data)`, wraps it in a dataloader with
`batch_size=data.train_batch_size` and `num_workers=0`, and after each step calls
`sampler.update(batch=batch)` with a DataProto whose `non_tensor_batch["index"]` holds each
row's `extra_info.index` repeated `rollout.n` times (interleaved) and whose
`batch["token_level_scores"]` holds the reward at the response's last token.
"""

from __future__ import annotations

import json
import tempfile
import unittest
from typing import Any, Dict, List

from serve_harness import ARITHMETIC, Server, arithmetic_config, fake_reward
from winnow_client import WinnowClient

try:
    import numpy as np
    import torch
    from torch.utils.data import DataLoader
except ImportError:  # pragma: no cover - the CI box installs torch where it can
    torch = None

BATCH, N, STEPS, RESPONSE_LEN = 4, 3, 5, 6


class RLHFLikeDataset:
    """What verl's RLHFDataset exposes: rows in `.dataframe`, a tokenised dict per __getitem__."""

    def __init__(self, rows: List[Dict[str, Any]]):
        self.dataframe = rows

    def __len__(self) -> int:
        return len(self.dataframe)

    def __getitem__(self, i: int) -> Dict[str, Any]:
        row = dict(self.dataframe[i])
        row["index"] = row["extra_info"]["index"]
        return row


class FakeDataProto:
    def __init__(self, tensors: Dict[str, Any], non_tensors: Dict[str, Any]):
        self.batch = tensors
        self.non_tensor_batch = non_tensors


def arithmetic_rows() -> List[Dict[str, Any]]:
    rows = []
    with open(ARITHMETIC) as f:
        for i, line in enumerate(f):
            if i == 100:
                break
            r = json.loads(line)
            # verl's parquet layout: the Winnow task id travels in extra_info next to verl's index
            rows.append({"data_source": "arithmetic", "prompt": [{"role": "user", "content": r["prompt"]}],
                         "extra_info": {"index": 1000 + i, "task_id": r["id"]}})
    return rows


@unittest.skipIf(torch is None, "torch is not installed: the verl sampler contract test is skipped")
class VerlContractTest(unittest.TestCase):
    def test_driven_as_verl_drives_it(self) -> None:
        from winnow_client.verl import WinnowCurriculumSampler

        folder = tempfile.mkdtemp(prefix="winnow-py-verl-")
        server = Server(arithmetic_config(folder, batch_tasks=BATCH)).start()
        try:
            dataset = RLHFLikeDataset(arithmetic_rows())
            data_config = {"train_batch_size": BATCH, "dataloader_num_workers": 0,
                           "winnow": {"url": server.url, "steps_per_epoch": STEPS}}
            sampler = WinnowCurriculumSampler(data_source=dataset, data_config=data_config)
            self.assertIsInstance(sampler, torch.utils.data.Sampler)
            self.assertEqual(len(sampler), STEPS * BATCH)
            loader = DataLoader(dataset, batch_size=BATCH, sampler=sampler, num_workers=0,
                                drop_last=True, collate_fn=lambda rows: rows)
            self.assertEqual(len(loader), STEPS)
            client = WinnowClient(server.url)
            seen = []
            for step, rows in enumerate(loader, start=1):
                ids = [r["extra_info"]["task_id"] for r in rows]
                seen.append(ids)
                waiting = client.pending()["pending"]
                self.assertEqual([(p["step"], p["taskIds"]) for p in waiting], [(step, ids)])
                # the trainer: uid per prompt, repeat n interleaved, score each response
                index = np.array([r["index"] for r in rows for _ in range(N)], dtype=object)
                scores = torch.zeros(BATCH * N, RESPONSE_LEN)
                for k, r in enumerate(x for x in rows for _ in range(N)):
                    scores[k, RESPONSE_LEN - 2] = fake_reward(r["extra_info"]["task_id"], step, k % N)
                sampler.update(batch=FakeDataProto({"token_level_scores": scores}, {"index": index}))
                self.assertEqual(client.pending()["pending"], [])
            m = client.metrics()
            self.assertEqual((m["selectSteps"], m["feedbackSteps"], m["selector"]["rewards"]), (STEPS, STEPS, STEPS * BATCH * N))
            self.assertEqual(len(seen), STEPS)
        finally:
            server.stop()

    def test_against_the_real_verl_class(self) -> None:
        try:
            from verl.experimental.dataset.sampler import AbstractCurriculumSampler
        except ImportError:
            self.skipTest("verl is not installed: the check against verl's own AbstractCurriculumSampler is skipped")
        from winnow_client.verl import WinnowCurriculumSampler

        self.assertTrue(issubclass(WinnowCurriculumSampler, AbstractCurriculumSampler))


if __name__ == "__main__":
    unittest.main()
