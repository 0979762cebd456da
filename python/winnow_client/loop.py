"""Winnow's selections in a plain training loop: an iterator of steps, and feedback per step."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Sequence

from .client import JsonDict, Reward, WinnowClient


@dataclass
class Selection:
    """One select step: the task ids in the selector's order and the task rows."""

    step: int
    task_ids: List[str]
    tasks: List[JsonDict]
    #: True when this is a step recovered from an interrupted run (selected before the restart).
    recovered: bool = False
    _client: Optional[WinnowClient] = field(default=None, repr=False)

    @property
    def prompts(self) -> List[Any]:
        """Each task's prompt (or its chat `messages`)."""
        return [t.get("prompt", t.get("messages")) for t in self.tasks]

    @property
    def answers(self) -> List[Optional[str]]:
        return [t.get("answer") for t in self.tasks]

    def feedback(self, rewards_by_task: Dict[str, Sequence[Reward]]) -> JsonDict:
        """Send this step's rewards (task id → its rollouts' rewards); a repeat is not counted twice."""
        if self._client is None:
            raise RuntimeError("this selection is not bound to a client")
        return self._client.feedback(
            [{"taskId": t, "rewards": list(r)} for t, r in rewards_by_task.items()], step=self.step
        )


def selection_of(client: WinnowClient, sel: JsonDict, recovered: bool = False) -> Selection:
    return Selection(int(sel["step"]), list(sel["taskIds"]), list(sel["tasks"]), recovered, client)


class TaskStream:
    """`for sel in TaskStream(client, batch_tasks=8, steps=100): …; sel.feedback(rewards)`.

    `steps` counts the run's select steps, not this process's: a loop restarted after a crash first
    gets the interrupted step back (`sel.recovered`), then continues until the run has `steps`
    selections, so an interrupted and an uninterrupted run make the same selections.
    """

    def __init__(
        self,
        client: WinnowClient,
        batch_tasks: Optional[int] = None,
        steps: Optional[int] = None,
        recover: bool = True,
    ):
        self.client = client
        self.batch_tasks = batch_tasks
        self.steps = steps
        self.recover = recover

    def __iter__(self) -> Iterator[Selection]:
        state = self.client.pending()
        done = int(state["selectSteps"])
        if self.recover:
            waiting = self.client.recover()
            if waiting is not None:
                yield selection_of(self.client, waiting, recovered=True)
        while self.steps is None or done < self.steps:
            sel = self.client.select(self.batch_tasks)
            done = int(sel["step"])
            yield selection_of(self.client, sel)
