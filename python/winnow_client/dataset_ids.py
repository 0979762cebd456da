"""Which dataset row holds which Winnow task: the trainers index rows, Winnow names tasks by id."""

from __future__ import annotations

from typing import Any, Dict, List, Optional


def field_of(row: Any, path: str) -> Any:
    """`row["a"]["b"]` for the dotted path `a.b` (None when a part is missing)."""
    value = row
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return None
    return value


def rows_of(dataset: Any) -> List[Any]:
    """The rows of a dataset without running its transforms when it exposes them (verl's RLHFDataset
    keeps them in `.dataframe`; a Hugging Face dataset is indexable as it is)."""
    source = getattr(dataset, "dataframe", dataset)
    return [source[i] for i in range(len(source))]


class TaskIndex:
    """Task id ↔ dataset position, read once from each row's `id_field` (a dotted path).

    A row without it falls back to `fallback_field` (as a string), so a Winnow task set mapped with
    `id: extra_info.index` lines up with verl's own `index`.
    """

    def __init__(self, dataset: Any, id_field: str, fallback_field: Optional[str] = None):
        self.position: Dict[str, int] = {}
        self.task_ids: List[str] = []
        for pos, row in enumerate(rows_of(dataset)):
            value = field_of(row, id_field)
            if value is None and fallback_field is not None:
                value = field_of(row, fallback_field)
            if value is None:
                raise ValueError(f"dataset row {pos} has no '{id_field}': it cannot be matched to a Winnow task")
            tid = str(value)
            self.task_ids.append(tid)
            self.position.setdefault(tid, pos)

    def positions(self, task_ids: List[str]) -> List[int]:
        missing = [t for t in task_ids if t not in self.position]
        if missing:
            raise ValueError(
                f"Winnow selected task '{missing[0]}', which is not in the trainer's dataset"
                " (serve the same task set the trainer reads)"
            )
        return [self.position[t] for t in task_ids]
