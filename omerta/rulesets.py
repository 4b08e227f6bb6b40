"""The rulesets a table can play, by name (SCRIPTS.md `ruleset`)."""
from __future__ import annotations

from .table import CLASSIC, Ruleset
from .table.errors import BadSettings

RULESETS: dict[str, Ruleset] = {CLASSIC.name: CLASSIC}


def get(name: str) -> Ruleset:
    try:
        return RULESETS[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(RULESETS))
        raise BadSettings(f"unknown ruleset {name!r}; known: {known}") from None
