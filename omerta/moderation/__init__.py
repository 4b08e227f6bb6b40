"""Moderation: technical-vote records (T5), player reports, the review
queue, decisions, sanctions and the append-only audit log.

Only a moderator's decision changes anything for a player: nothing here
sanctions anyone by itself, whatever the number of votes or reports
(see docs/moderation.md)."""

import unicodedata


class Refused(Exception):
    """A moderation request that cannot be done, with a sentence saying why.
    The subclass says what kind of refusal it is, for the HTTP layer."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class NotFound(Refused):
    pass


class NotAllowed(Refused):
    pass


class Conflict(Refused):
    pass


class Invalid(Refused):
    pass


def reason_text(raw: object, what: str = "reason") -> str:
    """A reason as stored: 1-500 characters once surrounding spaces are cut."""
    if not isinstance(raw, str) or not 1 <= len(raw.strip()) <= REASON_MAX:
        raise Invalid(f"a {what} is required: 1 to {REASON_MAX} characters")
    if any(unicodedata.category(c) in ("Cc", "Cs") and c not in "\n\t" for c in raw):
        raise Invalid(f"a {what} is text: no control characters or lone surrogates")
    return raw.strip()


REASON_MAX = 500
