"""Winnow inside the trainers you already run: a client for `winnow serve` and adapters.

- `WinnowClient`: select, feedback, experiences, sample (JSON or Arrow), ack, rewards, recover.
- `TaskStream`: an iterator of select steps for a plain PyTorch loop.
- `winnow_client.verl.WinnowCurriculumSampler`: verl's `data.sampler` (imports verl when used).
- `winnow_client.trl`: a `GRPOTrainer` sampler and reward wrapper (imports trl when used).
"""

from .cli import run_cli
from .client import ARROW_STREAM, WinnowClient, WinnowError, WinnowServeError, WinnowUnavailable
from .loop import Selection, TaskStream

__all__ = [
    "ARROW_STREAM",
    "Selection",
    "TaskStream",
    "WinnowClient",
    "WinnowError",
    "WinnowServeError",
    "WinnowUnavailable",
    "run_cli",
]
__version__ = "0.1.0"
