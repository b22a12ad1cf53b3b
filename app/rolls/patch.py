"""Sheet changes held back by a hidden roll, as a patch applied when the roll is revealed. Pure.

A hidden roll must not change what others can read before the reveal (a pending scar, a tally, a
remembered result all tell success from failure), so the rules service keeps the change as a patch in the
entry's hashed body and applies it at the reveal, on top of whatever happened to the sheet meanwhile:
numbers as differences (Fate spent meanwhile stays spent), lists that only grew as appended items, anything
else as its new value.
"""

from __future__ import annotations

import copy
from typing import Any

Op = dict[str, Any]


def diff(before: Any, after: Any, path: tuple[str, ...] = ()) -> list[Op]:
    """The operations that turn `before` into `after`."""
    if isinstance(before, dict) and isinstance(after, dict):
        ops: list[Op] = []
        for key in after:
            if key in before:
                ops.extend(diff(before[key], after[key], (*path, str(key))))
            else:
                ops.append({"op": "set", "path": [*path, str(key)], "value": after[key]})
        ops.extend({"op": "remove", "path": [*path, str(key)]} for key in before if key not in after)
        return ops
    if before == after and type(before) is type(after):
        return []
    if _is_number(before) and _is_number(after):
        return [{"op": "add", "path": list(path), "value": after - before}]
    if isinstance(before, list) and isinstance(after, list) and after[: len(before)] == before:
        return [{"op": "append", "path": list(path), "value": after[len(before) :]}]
    return [{"op": "set", "path": list(path), "value": after}]


def apply(sheet: dict[str, Any], ops: list[Op]) -> dict[str, Any]:
    """`sheet` with the operations applied (a new dict; the argument is not changed)."""
    out = copy.deepcopy(sheet)
    for op in ops:
        path = [str(p) for p in op["path"]]
        if not path:
            raise ValueError("a held change must name a field")
        parent = out
        for key in path[:-1]:
            nxt = parent.get(key)
            if not isinstance(nxt, dict):
                nxt = parent[key] = {}
            parent = nxt
        key, current = path[-1], parent.get(path[-1])
        if op["op"] == "remove":
            parent.pop(key, None)
        elif op["op"] == "add" and _is_number(current):
            parent[key] = current + op["value"]
        elif op["op"] == "append" and isinstance(current, list):
            parent[key] = current + list(op["value"])
        elif op["op"] in ("set", "add", "append"):
            parent[key] = copy.deepcopy(op["value"])
        else:
            raise ValueError(f"unknown held change {op['op']!r}")
    return out


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def hold(
    before: dict[int, dict[str, Any]], after: dict[int, dict[str, Any]], actor_id: int | None
) -> dict[str, list[Op]]:
    """A hidden action's sheet changes as patches by character id, kept in the entry's hashed body and applied at
    the reveal: until then no sheet anyone can read tells a hidden success from a failure. `before` holds the
    acting character's sheet under 0 and the others' under their ids; `after`, the changed sheets by id."""
    held: dict[str, list[Op]] = {}
    for character_id, sheet in after.items():
        ops = diff(before[0 if character_id == actor_id else character_id], sheet)
        if ops:
            held[str(character_id)] = ops
    return held
