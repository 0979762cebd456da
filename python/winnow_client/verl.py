"""A verl curriculum sampler whose batches are Winnow's selections (verl is imported only here).

In verl's config (`data.sampler`, verl/experimental/dataset/sampler.py):

    data.sampler.class_path=pkg://winnow_client.verl
    data.sampler.class_name=WinnowCurriculumSampler
    data.dataloader_num_workers=0          # verl requires it for curriculum samplers
    +data.winnow.url=http://127.0.0.1:8470

verl builds the sampler as `cls(data_source=dataset, data_config=config.data)`, draws
`train_batch_size` indices per step from `__iter__`, and after each training step calls
`update(batch)` with the step's DataProto: `non_tensor_batch["index"]` (each row's
`extra_info.index`, repeated `rollout.n` times) and `batch["token_level_scores"]` (the reward at
the response's last token). `update` sums each rollout's scores and sends them, grouped by task,
as the feedback of the step's selection.
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional

from .client import WinnowClient
from .dataset_ids import TaskIndex, field_of, rows_of


def _get(cfg: Any, key: str, default: Any = None) -> Any:
    if cfg is None:
        return default
    if isinstance(cfg, dict):
        return cfg.get(key, default)
    getter = getattr(cfg, "get", None)
    if callable(getter):
        return getter(key, default)
    return getattr(cfg, key, default)


class _WinnowSamplerLogic:
    """The sampler without its base class: verl's when it imports, else torch's `Sampler`."""

    def __init__(self, data_source: Any, data_config: Any, client: Optional[WinnowClient] = None):
        opts = _get(data_config, "winnow", {}) or {}
        self.batch_size = int(
            _get(opts, "batch_size", None)
            or _get(data_config, "gen_batch_size", None)
            or _get(data_config, "train_batch_size")
        )
        self.client = client or WinnowClient(
            _get(opts, "url", "http://127.0.0.1:8470"),
            token=_get(opts, "token", None),
            retries=int(_get(opts, "retries", 8)),
        )
        self.data_source = data_source
        self.ids = TaskIndex(data_source, _get(opts, "id_field", "extra_info.task_id"), "extra_info.index")
        # verl's `index` (extra_info.index) → task id, for update(): the batch carries `index`.
        self.task_by_index: Dict[str, str] = {}
        for pos, row in enumerate(rows_of(data_source)):
            index = field_of(row, "extra_info.index")
            if index is not None:
                self.task_by_index.setdefault(str(index), self.ids.task_ids[pos])
        steps = _get(opts, "steps_per_epoch", None)
        self.steps_per_epoch = int(steps) if steps else max(1, len(self.ids.task_ids) // self.batch_size)
        self.current_step: Optional[int] = None
        self.current_task_ids: List[str] = []

    def __len__(self) -> int:
        return self.steps_per_epoch * self.batch_size

    def __iter__(self) -> Iterator[int]:
        # A restarted trainer first finishes the selection it was given before it stopped.
        recovered = self.client.recover()
        steps = 0
        if recovered is not None:
            steps += 1
            yield from self._take(recovered)
        while steps < self.steps_per_epoch:
            steps += 1
            yield from self._take(self.client.select(self.batch_size))

    def _take(self, sel: Dict[str, Any]) -> Iterator[int]:
        self.current_step = int(sel["step"])
        self.current_task_ids = list(sel["taskIds"])
        yield from self.ids.positions(self.current_task_ids)

    def update(self, batch: Any) -> None:
        """verl's hook after each step: the batch's sequence scores, grouped by task, as feedback."""
        rewards = _sequence_scores(batch)
        index = batch.non_tensor_batch["index"]
        by_task: Dict[str, List[Optional[float]]] = {}
        for k, value in enumerate(index):
            tid = self.task_by_index.get(str(value))
            if tid is None:
                raise ValueError(f"verl batch row {k} has index {value!r}, which no dataset row carries")
            by_task.setdefault(tid, []).append(rewards[k])
        if by_task:
            self.client.feedback(
                [{"taskId": t, "rewards": r} for t, r in by_task.items()], step=self.current_step
            )


def _sequence_scores(batch: Any) -> List[Optional[float]]:
    """One score per rollout: verl puts the reward on the response's last token, so the row sum."""
    tensors = batch.batch
    key = "token_level_scores" if "token_level_scores" in tensors.keys() else "token_level_rewards"
    return [float(x) for x in tensors[key].sum(-1).tolist()]


def _base() -> type:
    try:
        from verl.experimental.dataset.sampler import AbstractCurriculumSampler

        base: type = AbstractCurriculumSampler
        return base
    except ImportError:
        pass
    try:
        from torch.utils.data import Sampler

        return Sampler
    except ImportError:
        return object


_cache: Dict[str, type] = {}


def __getattr__(name: str) -> Any:
    # Built on first use, so importing this module does not import verl (or torch).
    if name != "WinnowCurriculumSampler":
        raise AttributeError(name)
    if name not in _cache:
        base = _base()

        class WinnowCurriculumSampler(_WinnowSamplerLogic, base):  # type: ignore[misc, valid-type]
            """verl's AbstractCurriculumSampler backed by `winnow serve` (see the module's doc)."""

            def __init__(self, data_source: Any, data_config: Any, client: Optional[WinnowClient] = None):
                _WinnowSamplerLogic.__init__(self, data_source, data_config, client)

        _cache[name] = WinnowCurriculumSampler
    return _cache[name]
