"""Dealing the roles: the card draw or a deal at once (K1–K4)."""

from __future__ import annotations

import random

from .actions import Pick
from .events import EVERYONE, RECORD, Phase, Picked, RoleDealt, Seated, to_seat
from .state import State, put
from .step import Next, Step, require

DRAW_SECONDS = 15  # K1


def rng(state: State, purpose: str) -> random.Random:
    """A generator derived only from the table's seed, one per purpose, so a
    replay draws exactly the same numbers."""
    return random.Random(f"{state.seed}/{purpose}")


def begin(ctx: Step, deal: dict[int, str] | None) -> Next | None:
    """Shuffle the deck. With a deal (fixed or auto_deal, K2) roles are dealt
    at once and the meeting follows; otherwise the draw starts (K1)."""
    s = ctx.state
    deck = s.ruleset.deck(s.settings)
    if deal is not None or s.settings.auto_deal:
        fixed = deal or {}
        rest = list(deck)
        for role in fixed.values():
            rest.remove(role)
        rng(s, "deal").shuffle(rest)
        free = [seat for seat in s.seats if seat not in fixed]
        for seat in s.seats:
            s.roles = put(s.roles, seat, fixed[seat] if seat in fixed else rest[free.index(seat)])
            ctx.emit(RoleDealt(t=ctx.now, audience=to_seat(seat), seat=seat, role=s.role(seat)))
        return _dealt(ctx)
    rng(s, "deck").shuffle(deck)
    s.deck = list(deck)
    s.stage, s.day, s.deadline = "draw", 0, ctx.after(DRAW_SECONDS)
    ctx.emit(Phase(t=ctx.now, phase="draw", day=0, seconds=DRAW_SECONDS))
    return None


def on_pick(ctx: Step, action: Pick) -> Next | None:
    s = ctx.state
    require(s.stage == "draw", "K1", "not_draw")
    assert s.deck is not None
    require(s.roles[action.seat] is None, "K1", "already_holding_card")
    require(0 <= action.card < s.n, "K1", "no_such_card", card=action.card, cards=s.n)
    require(s.deck[action.card] is not None, "K1", "card_taken", card=action.card)
    _take(ctx, action.seat, action.card)
    ctx.emit(Picked(t=ctx.now, audience=EVERYONE, seat=action.seat, card=action.card))
    if all(s.roles[seat] for seat in s.seats):
        return _dealt(ctx)  # K4: ends once all have picked
    return None


def timeout(ctx: Step) -> Next:
    """K1: whoever has not picked gets a random remaining card."""
    s = ctx.state
    deck = s.deck
    assert deck is not None
    chooser = rng(s, "late-picks")
    # The cards left in deck order, as every seat's turn finds them: the
    # same choices as looking afresh each time, without a new deck a card.
    left = [i for i, card in enumerate(deck) if card is not None]
    roles = list(s.roles)
    for seat in s.seats:
        if roles[seat] is None:
            card = chooser.choice(left)
            left.remove(card)
            role = deck[card]
            assert role is not None  # only cards still in the deck are left
            roles[seat] = role
            ctx.emit(RoleDealt(ctx.now, seat, role, audience=to_seat(seat)))
    s.roles = tuple(roles)
    return _dealt(ctx)


def _take(ctx: Step, seat: int, card: int) -> None:
    s = ctx.state
    assert s.deck is not None
    s.roles = put(s.roles, seat, s.deck[card])
    s.deck = [None if i == card else c for i, c in enumerate(s.deck)]
    ctx.emit(RoleDealt(t=ctx.now, audience=to_seat(seat), seat=seat, role=s.role(seat)))


def _dealt(ctx: Step) -> Next:
    s = ctx.state
    s.deck = None
    ctx.emit(Seated(t=ctx.now, audience=RECORD, roles={seat: s.role(seat) for seat in s.seats}))
    return "meeting"
