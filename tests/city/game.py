"""A city test table: `tests.table.game.Table` playing city mode, with the
city night actions, on the standard city deal below."""

from __future__ import annotations

from typing import Self

from omerta.city_mode import CITY, Heal, Kill, Visit
from omerta.table.random_play import random_game

from ..table.game import Table

# Don 1, Mafia 2 and 3, Commissar 4, Doctor 5, Putana 6, Maniac 7,
# Civilians 8-10: easy to read in tests.
DEAL = {
    1: "don",
    2: "mafia",
    3: "mafia",
    4: "commissar",
    5: "doctor",
    6: "putana",
    7: "maniac",
    8: "civilian",
    9: "civilian",
    10: "civilian",
}
DON, COMMISSAR, DOCTOR, PUTANA, MANIAC = 1, 4, 5, 6, 7
BLACK = (1, 2, 3)
TURNS = ("putana", "mafia", "maniac", "doctor", "commissar", "don")


class CityTable(Table):
    def __init__(self, deal=DEAL, settings=None, seed=1, bots=()):
        super().__init__(deal=deal, settings=settings, seed=seed, bots=bots, ruleset=CITY)

    def visit(self, seat, target):
        return self.do(Visit(seat, target))

    def kill(self, seat, target):
        return self.do(Kill(seat, target))

    def heal(self, seat, target):
        return self.do(Heal(seat, target))

    def to_turn(self, name: str) -> Self:
        """Run to turn `name` of this night, or of the next one."""
        return self.run_until(lambda t: t.state.stage == "night" and t.phase == name)

    def remove(self, *seats: int) -> Self:
        """Remove each seat by a technical vote that just passes (T3), by day."""
        for seat in seats:
            humans = self.state.living_humans()
            self.tech_call(next(q for q in humans if q != seat), "removal", seat)
            for voter in humans[: len(humans) // 2 + 1]:
                self.tech_vote(voter, True)
            self.wait()
        return self

    def shot(self, target: int) -> Self:
        """Every living black player shoots `target` in the mafia turn."""
        self.to_turn("mafia")
        for seat in self.state.black_seats():
            if self.state.alive[seat]:
                self.shoot(seat, target)
        return self

    def night(self, *, visit=None, shot=None, kill=None, heal=None, check=None, don=None):
        """Play one whole night from here: each given role acts in its turn,
        then dawn. Runs to the next night first if it is day."""
        if visit is not None:
            self.to_turn("putana").visit(PUTANA, visit)
        if shot is not None:
            self.shot(shot)
        if kill is not None:
            self.to_turn("maniac").kill(MANIAC, kill)
        if heal is not None:
            self.to_turn("doctor").heal(DOCTOR, heal)
        if check is not None:
            self.to_turn("commissar").check(COMMISSAR, check)
        if don is not None:
            self.to_turn("don").check(DON, don)
        night = self.state.night if self.state.stage == "night" else self.state.day + 1
        return self.run_until(
            lambda t: t.state.over or (t.state.day == night and t.state.stage != "night")
        )


def random_city_game(seed, settings=None, **options):
    """A random legal city game (omerta/table/random_play.py), every seat in turn
    offered each moment so the night roles act in most of their turns."""
    return random_game(seed, settings, ruleset=CITY, every_seat=True, **options)
