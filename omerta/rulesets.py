"""The rulesets a table can play, by name (SCRIPTS.md `ruleset`)."""
from __future__ import annotations

from .city_mode import CITY
from .table import CLASSIC, Ruleset
from .table.errors import BadSettings

RULESETS: dict[str, Ruleset] = {ruleset.name: ruleset for ruleset in (CLASSIC, CITY)}


def get(name: str) -> Ruleset:
    try:
        return RULESETS[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(RULESETS))
        raise BadSettings(f"unknown ruleset {name!r}; known: {known}") from None
