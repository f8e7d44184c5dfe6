"""Checks of single config values, each raising :class:`UserError` with one sentence that names
the key, the value and what is allowed."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from ordauc.errors import UserError

_UNITS = {"": 1, "B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}


def only_keys(raw: dict[str, Any], allowed: tuple[str, ...], where: str) -> None:
    unknown = [k for k in raw if k not in allowed]
    if unknown:
        raise UserError(f"unknown key {unknown[0]!r} in {where}; allowed keys are: "
                        f"{', '.join(allowed)}")


def mapping(value: Any, key: str, example: str = "") -> dict[str, Any]:
    if not isinstance(value, dict):
        like = f" such as {example}" if example else " of names to values"
        raise UserError(f"{key} must be a mapping{like}, got {value!r}")
    return {str(k): v for k, v in value.items()}


def listed(value: Any, key: str) -> list[Any]:
    items = value if isinstance(value, list) else [value]
    if not items:
        raise UserError(f"{key} must not be an empty list")
    return items


def budgets(value: Any, key: str, minimum: int) -> tuple[int | None, ...]:
    """Distinct sizes; ``all`` (or null) = every available row, given as None."""
    items = listed([None] if value is None else value, key)
    sizes = tuple(None if v is None or v == "all" else integer(v, key, minimum, listed=True)
                  for v in items)
    for size in sizes:
        if sizes.count(size) > 1:
            raise UserError(f"{key} lists {'all' if size is None else size} twice")
    return sizes


def integer(value: Any, key: str, minimum: int, listed: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        kind = "a list of integers" if listed else "an integer"
        raise UserError(f"{key} must be {kind} >= {minimum}, got {value!r}")
    return value


def fraction(value: Any, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise UserError(f"{key} must be a number strictly between 0 and 1, got {value!r}")
    return float(value)


def choice(value: Any, key: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise UserError(f"{key} must be one of {', '.join(allowed)}, got {value!r}")
    return str(value)


def timeout(value: Any) -> float | None:
    if value is None:
        return None
    if (isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0
            or not math.isfinite(value)):
        raise UserError(f"timeout must be a positive number of seconds or null, got {value!r}")
    return float(value)


def memory_bytes(value: Any, key: str) -> int | None:
    """A memory size: a number of GB, or text such as ``512MB`` or ``12 GB``; None stays None."""
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number, unit = float(value), "GB"
    else:
        match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([KMGT]?B?)\s*", str(value).upper())
        if not match:
            raise UserError(f"{key} must be a size such as 12GB, 512MB or a number of GB, got "
                            f"{value!r}")
        number, unit = float(match.group(1)), match.group(2)
        unit = unit if unit.endswith("B") or not unit else unit + "B"
    if not math.isfinite(number) or number <= 0:
        raise UserError(f"{key} must be a positive size, got {value!r}")
    return int(number * _UNITS[unit])


def dataset_label(name: str, params: Mapping[str, Any]) -> str:
    """The ``dataset`` column: the registry name, with its parameters sorted when there are
    any (``synthetic_binary[d=10,n=2000]``)."""
    if not params:
        return name
    return f"{name}[{','.join(f'{k}={v}' for k, v in sorted(params.items()))}]"


def parse_dataset_label(label: str) -> tuple[str, dict[str, Any]]:
    """(name, parameters) of a label written by :func:`dataset_label`; a whole number reads
    back as an int, any other value as its text (the label does not say more)."""
    name, _, rest = label.partition("[")
    params: dict[str, Any] = {}
    for item in filter(None, rest.rstrip("]").split(",")):
        key, _, value = item.partition("=")
        params[key] = int(value) if value.lstrip("-").isdigit() else value
    return name, params
