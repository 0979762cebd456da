"""TRL's GRPOTrainer with Winnow choosing the prompts and judging the answers (trl imported on use).

    from winnow_client import WinnowClient
    from winnow_client.trl import WinnowGRPOTrainer, WinnowReward

    client = WinnowClient("http://127.0.0.1:8470")
    trainer = WinnowGRPOTrainer(
        model=model, args=GRPOConfig(...), train_dataset=dataset,   # rows carry `task_id`
        reward_funcs=[WinnowReward(client, "math")], winnow=client,
    )

`WinnowGRPOSampler` replaces TRL's `RepeatSampler`: each generation batch is one Winnow
selection, each prompt repeated `num_generations` times in a row, the whole batch repeated
`num_iterations × steps_per_generation` times (what `RepeatSampler` does with a shuffled
dataset). `WinnowReward` scores completions with a Winnow reward through the server, sends each
group's rewards as the step's feedback and writes every rollout with its reward to the buffer.
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

from .client import JsonDict, Reward, WinnowClient
from .dataset_ids import TaskIndex


class WinnowGRPOSampler:
    """Indices for GRPOTrainer's dataloader, drawn from Winnow one selection per generation batch.

    A selection is made only when the loader asks for the first index of a batch, so with a
    loader that does not read ahead (WinnowGRPOTrainer's) each selection follows the previous
    step's feedback, as in Winnow's own run loop.
    """

    def __init__(
        self,
        client: WinnowClient,
        data_source: Any,
        mini_repeat_count: int,
        batch_size: int,
        repeat_count: int = 1,
        id_column: str = "task_id",
        steps: Optional[int] = None,
    ):
        self.client = client
        self.mini_repeat_count = int(mini_repeat_count)
        self.batch_size = int(batch_size)
        self.repeat_count = int(repeat_count)
        self.ids = TaskIndex(data_source, id_column)
        self.steps = steps if steps is not None else max(1, len(self.ids.task_ids) // self.batch_size)
        #: The select steps this sampler handed out, with their task ids (for logs and tests).
        self.selections: List[JsonDict] = []

    def __len__(self) -> int:
        return self.steps * self.batch_size * self.mini_repeat_count * self.repeat_count

    def __iter__(self) -> Iterator[int]:
        recovered = self.client.recover()
        for k in range(self.steps):
            sel = recovered if (k == 0 and recovered is not None) else self.client.select(self.batch_size)
            self.selections.append({"step": sel["step"], "taskIds": list(sel["taskIds"])})
            positions = self.ids.positions(list(sel["taskIds"]))
            for _ in range(self.repeat_count):
                for pos in positions:
                    for _ in range(self.mini_repeat_count):
                        yield pos


def _text(completion: Any) -> str:
    """A completion as text: a string, or the content of a conversational completion's messages."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list):
        return "".join(str(m.get("content", "")) for m in completion if isinstance(m, dict))
    return str(completion)


class WinnowReward:
    """A TRL reward function: Winnow's reward by name, scored by the server; rewards become feedback.

    `feedback=True` sends each task's group of rewards as the feedback of the current selection
    (the client's `last_step`); `write_experiences=True` stores every rollout with its reward in
    the run's buffer (ids are deterministic, so a retried write adds nothing).
    """

    def __init__(
        self,
        client: WinnowClient,
        reward: Union[str, JsonDict] = "math",
        id_column: str = "task_id",
        feedback: bool = True,
        write_experiences: bool = True,
    ):
        self.client = client
        self.reward = reward
        self.id_column = id_column
        self.send_feedback = feedback
        self.write_experiences = write_experiences
        name = reward if isinstance(reward, str) else str(reward.get("type", "reward"))
        self.__name__ = f"winnow_{name}"  # TRL names the reward's metrics after __name__
        #: (step, task id → rewards) per call, for logs and tests.
        self.history: List[Dict[str, Any]] = []

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any) -> List[Reward]:
        task_ids = [str(t) for t in kwargs[self.id_column]]
        texts = [_text(c) for c in completions]
        rewards = self.client.rewards(
            self.reward, [{"taskId": t, "response": r} for t, r in zip(task_ids, texts)]
        )
        groups: Dict[str, List[Reward]] = {}
        for tid, r in zip(task_ids, rewards):
            groups.setdefault(tid, []).append(r)
        step = self.client.last_step
        if self.write_experiences:
            state = kwargs.get("trainer_state")
            version = int(getattr(state, "global_step", 0) or 0)
            rows = [
                {"taskId": t, "response": r, "reward": x, "modelVersion": version}
                for t, r, x in zip(task_ids, texts, rewards)
            ]
            if step is not None:
                for row in rows:
                    row["exploreStep"] = step
            self.client.write_experiences(_whole_groups(rows))
        if self.send_feedback:
            self.client.feedback([{"taskId": t, "rewards": r} for t, r in groups.items()], step=step)
        self.history.append({"step": step, "rewards": groups})
        return rewards


def _whole_groups(rows: List[JsonDict]) -> List[JsonDict]:
    """Rows ordered by task (stable), so each group's rollouts are numbered 0, 1, … in one request."""
    order: Dict[str, int] = {}
    for r in rows:
        order.setdefault(r["taskId"], len(order))
    return sorted(rows, key=lambda r: order[r["taskId"]])


_cache: Dict[str, type] = {}


def _trainer_class() -> type:
    from torch.utils.data import DataLoader
    from trl.trainer.grpo_trainer import GRPOTrainer

    class WinnowGRPOTrainer(GRPOTrainer):
        """GRPOTrainer whose prompts are Winnow's selections (single process)."""

        def __init__(self, *args: Any, winnow: WinnowClient, id_column: str = "task_id", **kwargs: Any):
            self.winnow = winnow
            self.winnow_id_column = id_column
            self.winnow_sampler: Optional[WinnowGRPOSampler] = None
            super().__init__(*args, **kwargs)

        def _get_train_sampler(self, dataset: Any = None) -> Any:
            args: Any = self.args
            steps = args.max_steps if args.max_steps and args.max_steps > 0 else None
            self.winnow_sampler = WinnowGRPOSampler(
                self.winnow,
                dataset if dataset is not None else self.train_dataset,
                mini_repeat_count=int(self.num_generations or 1),
                batch_size=args.generation_batch_size // self.num_generations,
                repeat_count=self.num_iterations * args.steps_per_generation,
                id_column=self.winnow_id_column,
                steps=steps,
            )
            return self.winnow_sampler

        def get_train_dataloader(self) -> Any:
            # A plain loader: accelerate's reads one batch ahead, which would select step k+1
            # before step k's rewards are in.
            args: Any = self.args
            dataset: Any = self.train_dataset
            return DataLoader(
                dataset,
                batch_size=self._train_batch_size * args.steps_per_generation,
                sampler=self._get_train_sampler(),
                collate_fn=self.data_collator,
                num_workers=0,
            )

    return WinnowGRPOTrainer


def __getattr__(name: str) -> Any:
    if name != "WinnowGRPOTrainer":
        raise AttributeError(name)
    if name not in _cache:
        _cache[name] = _trainer_class()
    return _cache[name]
