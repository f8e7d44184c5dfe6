"""The one registry behind the figure families and the report sections: named entries of one
kind, each made by a decorator from its ``data`` function, listed in their ``order``.

An entry is a dataclass with ``name``, ``order``, ``applies_to`` and ``data``, and one more
field its module fills in afterwards (a family's ``draw``, a section's ``render``). A name
registered twice is an error (two modules would write over each other's files), and so is an
entry listed while that field is still empty (its module forgot the second decorator).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

E = TypeVar("E")


def _always(_: Any) -> bool:
    return True


class Registry(dict[str, E], Generic[E]):
    """Entries of one kind by name.

    Parameters
    ----------
    kind : str
        What an entry is, for the errors ("figure family").
    plural : str
        The same in the plural ("figure families").
    output : str
        The field its module fills in after registering it ("draw").
    missing : str
        What an entry without it lacks, for the error ("a drawing").
    """

    def __init__(self, kind: str, plural: str, output: str, missing: str) -> None:
        super().__init__()
        self.kind, self.plural, self.output, self.missing = kind, plural, output, missing

    def decorator(self, make: Callable[..., E]) -> Callable[..., Callable[[Callable], E]]:
        """``decorator(name, *, order, applies_to=always)``: registers the decorated function
        as the ``data`` of a new entry ``make(name, order, applies_to, data)``."""
        def named(name: str, *, order: int, applies_to: Callable[[Any], bool] = _always
                  ) -> Callable[[Callable], E]:
            def register(data: Callable) -> E:
                if name in self:
                    raise ValueError(f"{self.kind} {name!r} is registered twice")
                entry = self[name] = make(name, order, applies_to, data)
                return entry
            return register
        return named

    def ordered(self) -> list[E]:
        """Every entry, in ``order`` (then registration order)."""
        lacking = [e.name for e in self.values() if getattr(e, self.output) is None]
        if lacking:
            raise ValueError(f"{self.plural} without {self.missing}: {', '.join(lacking)}")
        return sorted(self.values(), key=lambda e: e.order)
