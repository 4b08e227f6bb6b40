"""Typed errors. Every refusal names the rule it enforces so a player (or a
script author) learns why, and the state it was applied to stays unchanged."""


class IllegalAction(Exception):
    """The action is well formed but the rules forbid it right now."""

    def __init__(self, rule: str, message: str):
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message


class BadAction(IllegalAction):
    """The action is malformed: unknown name, missing or mistyped argument."""

    def __init__(self, message: str):
        super().__init__("protocol", message)


class BadSettings(ValueError):
    """A table setting is unknown or out of range (RULES.md §3)."""
