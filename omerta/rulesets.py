"""The rulesets a table can play, by name (docs/scripts.md `ruleset`)."""

from __future__ import annotations

from .city_mode import CITY
from .table import CLASSIC, Ruleset
from .table.errors import BadSettings

RULESETS: dict[str, Ruleset] = {ruleset.name: ruleset for ruleset in (CLASSIC, CITY)}


def get(name: object) -> Ruleset:
    """The ruleset called `name`: any value a client sent, refused unless it names one."""
    found = RULESETS.get(name) if isinstance(name, str) else None
    if found is None:
        known = ", ".join(sorted(RULESETS))
        raise BadSettings(f"unknown ruleset {name!r}; known: {known}")
    return found
