"""Turning the ways a user names samples and variants into one flag per item (internal)."""

import os
from typing import Any, Sequence

import numpy as np

from ._panoramix import InputError


def flags(choice: Any, count: int, ids: Sequence[str] | None, what: str,
          pairs: Sequence[tuple[str, str]] | None = None) -> np.ndarray:
    """One uint8 flag per item: ``choice`` is None (all), a slice, a boolean mask, integer
    indices, or IDs (``ids``; for samples also (FID, IID) pairs)."""
    keep = np.zeros(count, dtype=np.uint8)
    if choice is None:
        keep[:] = 1
        return keep
    if isinstance(choice, slice):
        keep[np.arange(count)[choice]] = 1
        return keep
    if isinstance(choice, (str, bytes, os.PathLike)):
        raise InputError(f"{what}: a file is taken by Genotypes.open(keep=/extract=); here give a slice, a mask, "
                         "indices or IDs")
    items = list(choice)
    if not items:
        raise InputError(f"{what}: the selection is empty")
    first = items[0]
    if isinstance(first, (bool, np.bool_)):
        mask = np.asarray(items, dtype=bool)
        if mask.shape != (count,):
            raise InputError(f"{what}: a mask needs {count} flags (got {mask.size})")
        return mask.astype(np.uint8)
    if isinstance(first, (int, np.integer)):
        index = np.asarray(items, dtype=np.int64)
        bad = (index < -count) | (index >= count)
        if bad.any():
            raise InputError(f"{what}: index {int(index[bad][0])} is out of range for {count} items")
        keep[index] = 1
        return keep
    if isinstance(first, tuple) and pairs is not None:
        where = {tuple(p): i for i, p in enumerate(pairs)}
        missing = [p for p in items if tuple(p) not in where]
        if missing:
            raise InputError(f"{what}: ({missing[0][0]}, {missing[0][1]}) is not a kept sample "
                             f"({len(missing)} of {len(items)} not found)")
        keep[[where[tuple(p)] for p in items]] = 1
        return keep
    if isinstance(first, str) and ids is not None:
        where_id: dict[str, list[int]] = {}
        for i, name in enumerate(ids):
            where_id.setdefault(name, []).append(i)
        missing_ids = [s for s in items if s not in where_id]
        if missing_ids:
            raise InputError(f"{what}: '{missing_ids[0]}' is not a kept ID ({len(missing_ids)} of {len(items)} "
                             "not found)")
        for s in items:
            keep[where_id[s]] = 1
        return keep
    raise InputError(f"{what}: give None, a slice, a boolean mask, integer indices or IDs (got {type(first).__name__})")
