"""`parse_action`'s compiled parsers read what the readers read and refuse
what they refuse, for every registered action (city mode's included)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

import pytest

from omerta import rulesets  # noqa: F401  (registers city mode's actions)
from omerta.table.actions import (
    ACTIONS,
    Action,
    BestMove,
    Lift,
    TechCall,
    Vote,
    parse_action,
    register,
)
from omerta.table.errors import BadAction

#: a valid value of each argument type, by its annotation
_VALID: dict[str, Any] = {"int": 4, "bool": True, "TechKind": "foul", "tuple[int, ...]": [2, 3]}


class _Seat(int):
    """An int subclass: not an int by type, an integer all the same."""


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_every_action_reads_back_from_its_dict(name: str) -> None:
    cls = ACTIONS[name]
    args = [_VALID[str(f.type)] for f in fields(cls) if f.name != "seat"]
    action = cls(3, *[tuple(a) if isinstance(a, list) else a for a in args])
    assert parse_action(action.to_dict()) == action
    assert parse_action({**action.to_dict(), "seat": 9}, seat=5).seat == 5


@pytest.mark.parametrize(
    ("raw", "code", "key"),
    [
        ({"do": "vote", "seat": True, "target": 2}, "bad_integer", "seat"),
        ({"do": "vote", "seat": 1, "target": 2.0}, "bad_integer", "target"),
        ({"do": "vote", "seat": 1}, "bad_integer", "target"),
        ({"do": "lift", "seat": 1, "yes": 1}, "bad_boolean", "yes"),
        ({"do": "best_move", "seat": 1, "targets": [2, False]}, "bad_seat_list", "targets"),
        ({"do": "tech_call", "seat": 1, "kind": "nap", "target": 2}, "bad_tech_kind", None),
    ],
)
def test_a_value_of_the_wrong_type_is_refused_naming_its_key(
    raw: dict[str, Any], code: str, key: str | None
) -> None:
    with pytest.raises(BadAction) as refused:
        parse_action(raw)
    assert refused.value.code == code
    assert refused.value.params.get("key") == key


def test_values_of_subtypes_pass_as_the_readers_let_them() -> None:
    assert parse_action({"do": "vote", "seat": _Seat(1), "target": _Seat(2)}) == Vote(1, 2)
    assert parse_action({"do": "lift", "seat": 1, "yes": False}) == Lift(1, False)
    assert parse_action({"do": "best_move", "seat": 1, "targets": [2]}) == BestMove(1, (2,))
    assert parse_action({"do": "tech_call", "seat": 1, "kind": "defeat", "target": 2}) == (
        TechCall(1, "defeat", 2)
    )


def test_an_action_whose_fields_are_not_slots_is_refused_when_registered() -> None:
    @dataclass(frozen=True)  # no slots: its parser could not set them one by one
    class Wave(Action):
        towards: int
        name: ClassVar[str] = "wave"

    with pytest.raises(ValueError, match="'wave': field 'towards' is not a slot"):
        register(Wave)
    assert "wave" not in ACTIONS
