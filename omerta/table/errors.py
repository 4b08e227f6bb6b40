"""Typed errors. Every refusal names the rule it enforces so a player (or a
script author) learns why, and the state it was applied to stays unchanged.

A refusal carries a stable machine `code` and the `params` a client needs to
word it in the player's language (docs/errors.md lists them); `message` is
the English wording of the same, built from the code's template below."""

from __future__ import annotations

from typing import Any

#: code -> English wording, formatted with the refusal's params (and
#: `card_number`: a `card` counted from 1, as players see the cards)
MESSAGES: dict[str, str] = {
    # any time
    "game_over": "the game is over",
    "no_such_seat": "there is no seat {seat} at this table (1-{seats})",
    "technical_vote_running": "a technical vote is running: only its ballots count now"
    " (one technical vote at a time)",
    "not_alive": "seat {seat} is not alive",
    # the draw
    "not_draw": "cards are picked only during the draw",
    "already_holding_card": "you already hold a card",
    "no_such_card": "the cards are numbered 1-{cards}",
    "card_taken": "card {card_number} is already taken",
    # speeches and nominations
    "nobody_speaking": "nobody is speaking now",
    "only_speaker_ends": "only the speaker (seat {speaker}) may end the speech",
    "no_nominations_now": "nominations are made only during a day speech",
    "only_speaker_nominates": "only the speaker (seat {speaker}) may nominate",
    "nominations_cancelled": "a removal has cancelled today's vote: no more nominations today",
    "one_nomination_per_speech": "one nomination per speech, and it is final",
    "already_nominated": "seat {seat} is already nominated today",
    "no_interjection_now": "interjections are allowed only during a day speech",
    "dead_cannot_interject": "only living players interject",
    "own_speech": "the speaker cannot interject in their own speech",
    "no_interjections_left": "all {count} interjections of this game are used",
    "someone_interjecting": "seat {seat} is interjecting; one at a time",
    # votes
    "no_vote_now": "there is no vote now",
    "no_lift_vote_now": "there is no lift vote now",
    "dead_cannot_vote": "only living players vote",
    "vote_is_final": "your first vote is final",
    "not_a_candidate": "vote only for the candidates: {candidates}",
    "not_called": "open voting is calling seat {seat} now",
    # technical votes
    "not_day": "technical votes are called by day only (not in the draw or at night)",
    "dead_cannot_call": "only living players call a technical vote",
    "no_technical_vote_now": "there is no technical vote now",
    "humans_only": "technical votes are for human players",
    "ballot_is_final": "your technical ballot is final",
    # the night
    "not_night": "{action} is a night action",
    "wrong_turn": "{action} is made in the turn of: {turns}; now it is the {turn} turn",
    "not_in_ruleset": "{action} is not an action of the {ruleset} game",
    "not_your_turn": "only the living {title} may act now",
    "choice_is_final": "one choice a night, and it is final",
    "check_yourself": "you cannot check yourself",
    "already_checked": "you have already checked seat {seat}",
    "visit_yourself": "the Putana cannot visit herself",
    "kill_yourself": "the Maniac cannot kill himself",
    "heal_yourself_twice": "the Doctor heals himself at most once per game",
    "same_target_twice": "the {title} never chooses the same player two nights in a row",
    # best move (B1)
    "best_move_off": "best move is not played at this table",
    "not_first_shot": "only the first player shot at night names a best move",
    "not_last_word": "a best move is named during your last word",
    "best_move_final": "your best move is named, and it is final",
    "best_move_count": "name one to three seats for your best move, not {count}",
    "best_move_self": "name other seats than your own for your best move",
    "best_move_repeated": "seat {seat} is named twice",
    # malformed actions and set-ups (rule "protocol")
    "not_an_object": "an action must be a JSON object",
    "unknown_action": "unknown action {got}; known actions: {known}",
    "bad_integer": "{action} needs an integer '{key}', got {got}",
    "bad_boolean": "{action} needs '{key}': true or false, got {got}",
    "bad_seat_list": "{action} needs '{key}': a list of seat numbers, got {got}",
    "bad_tech_kind": "tech_call needs 'kind': one of {kinds}, got {got}",
    "bad_bot_seat": "bot seat {seat} is not a seat of this table (1-{seats})",
    "stand_in_not_bot": "seat {seat} stands in for an absentee but is not a bot seat",
    "bad_deal_seat": "deal names seat {seat}; seats are 1-{seats}",
    "bad_deal_role": "deal gives seat {seat} the role {role!r}, which the deck has no more of"
    " (the deck: {deck})",
}


def describe(code: str, params: dict[str, Any]) -> str:
    """The English wording of a refusal."""
    shown: dict[str, Any] = {
        k: ", ".join(map(str, v)) if isinstance(v, list) else v for k, v in params.items()
    }
    if isinstance(params.get("card"), int):
        shown["card_number"] = params["card"] + 1
    return MESSAGES[code].format(**shown)


class IllegalAction(Exception):
    """The action is well formed but the rules forbid it right now.

    `code` is a key of MESSAGES; `params` are JSON values (numbers, strings,
    lists) naming what the refusal is about, in protocol terms (a `card`
    counts from 0 as on the wire)."""

    def __init__(self, rule: str, code: str, **params: Any) -> None:
        if code not in MESSAGES:
            raise KeyError(f"refusal code {code!r} has no message")
        super().__init__(rule, code, params)
        self.rule = rule
        self.code = code
        self.params = params

    @property
    def message(self) -> str:
        return describe(self.code, self.params)

    def __str__(self) -> str:
        return f"{self.rule}: {self.message}"


class BadAction(IllegalAction):
    """The action is malformed: unknown name, missing or mistyped argument."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__("protocol", code, **params)


class BadSettings(ValueError):
    """A table setting is unknown or out of range (docs/rules.md §3)."""


def shown(value: Any) -> str:
    """A client's value as a refusal quotes it: short, whatever was sent."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
