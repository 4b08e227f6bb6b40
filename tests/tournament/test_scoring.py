"""Tournament scoring and standings (docs/tournaments.md), on hand-made games."""

from __future__ import annotations

import pytest

from omerta.tournament.scoring import (
    BadScoring,
    GameOutcome,
    Scoring,
    SeatOutcome,
    game_points,
    standings,
)

DEFAULT = Scoring()
# Seats 1-3 black (Don and two Mafia), 4-10 red.
BLACK = (1, 2, 3)


def game(
    winner: str,
    players: list[int | None] | None = None,
    *,
    removed: tuple[int, ...] = (),
    defeated: tuple[int, ...] = (),
    absent: tuple[int, ...] = (),
    first_killed: tuple[int, ...] = (),
    best_moves: dict[int, list[int]] | None = None,
    round: int = 1,
) -> GameOutcome:
    players = players if players is not None else [100 + seat for seat in range(1, 11)]
    return GameOutcome(
        winner,
        [
            SeatOutcome(
                seat,
                players[seat - 1],
                "black" if seat in BLACK else "red",
                removed=seat in removed,
                technical_defeat=seat in defeated,
                absent=seat in absent,
            )
            for seat in range(1, 11)
        ],
        frozenset(first_killed),
        best_moves or {},
        round,
    )


def points_of(g: GameOutcome, scoring: Scoring = DEFAULT) -> dict[int, float]:
    return {p.seat: p.total for p in game_points(g, scoring)}


def test_a_red_win_gives_each_red_player_one_point_and_the_blacks_nothing():
    points = points_of(game("red"))
    assert points == {seat: (0.0 if seat in BLACK else 1.0) for seat in range(1, 11)}


def test_a_draw_gives_nobody_a_win():
    assert set(points_of(game("draw")).values()) == {0.0}


def test_B1_the_first_killed_naming_two_blacks_gets_a_quarter_and_three_blacks_a_half():
    two = game("red", first_killed=(7,), best_moves={7: [1, 2, 9]})
    three = game("red", first_killed=(7,), best_moves={7: [1, 2, 3]})
    one = game("red", first_killed=(7,), best_moves={7: [1, 8, 9]})
    assert points_of(two)[7] == 1.25
    assert points_of(three)[7] == 1.5
    assert points_of(one)[7] == 1.0


def test_B1_a_best_move_by_a_seat_not_killed_first_scores_nothing():
    g = game("red", first_killed=(8,), best_moves={7: [1, 2, 3]})
    assert points_of(g)[7] == 1.0


def test_a_first_killed_red_player_is_compensated_when_red_loses():
    g = game("black", first_killed=(7,), best_moves={7: [1, 2, 9]})
    points = points_of(g)
    assert points[7] == 0.25 + 0.25  # the compensation and the best move
    assert points[8] == 0.0
    # When red wins there is nothing to compensate.
    assert points_of(game("red", first_killed=(7,)))[7] == 1.0


def test_a_first_killed_black_player_is_not_compensated():
    assert points_of(game("red", first_killed=(2,)))[2] == 0.0


def test_T3_a_removed_player_loses_half_a_point_even_when_their_team_wins():
    points = points_of(game("red", removed=(5,)))
    assert points[5] == 0.5


def test_T4_the_offender_of_a_technical_defeat_loses_a_point():
    points = points_of(game("red", defeated=(2,)))
    assert points[2] == -1.0
    assert points[1] == 0.0


def test_an_absent_player_gets_the_technical_defeat_and_nothing_for_the_bots_play():
    points = points_of(game("red", absent=(6,), first_killed=(6,)))
    assert points[6] == -1.0
    assert points[5] == 1.0


def test_a_bot_the_director_seated_is_not_scored():
    players: list[int | None] = [100 + seat for seat in range(1, 11)]
    players[3] = None
    assert 4 not in points_of(game("red", players))


def test_the_director_sets_the_points():
    scoring = Scoring.parse({"win": 2, "best_move_three": 1.5, "first_killed": 0})
    g = game("black", first_killed=(7,), best_moves={7: [1, 2, 3]})
    points = points_of(g, scoring)
    assert points[1] == 2.0
    assert points[7] == 1.5


@pytest.mark.parametrize(
    "raw, message",
    [
        ([1], "JSON object"),
        ({"wins": 1}, "unknown scoring field 'wins'"),
        ({"win": "1"}, "must be a number"),
        ({"win": True}, "must be a number"),
        ({"removal": -11}, "between -10 and 10"),
    ],
)
def test_bad_scoring_settings_are_refused_with_the_reason(raw, message):
    with pytest.raises(BadScoring, match=message):
        Scoring.parse(raw)


def test_standings_add_up_each_players_games():
    players: list[int | None] = [201, 202, 203, 101, 102, 103, 104, 105, 106, 107]
    g1 = game("red", players, first_killed=(4,), best_moves={4: [1, 2, 3]})
    moved: list[int | None] = [101, 202, 203, 201, 102, 103, 104, 105, 106, 107]
    g2 = game("black", moved, round=2)
    table = standings([g1, g2], DEFAULT, players=[p for p in players if p], seed=1)
    by_player = {row.player: row for row in table}
    assert (by_player[101].total, by_player[101].wins, by_player[101].best_move) == (2.5, 2, 0.5)
    assert (by_player[201].total, by_player[201].games) == (0.0, 2)
    assert table[0].player == 101
    assert [row.place for row in table] == list(range(1, 11))


def test_standings_break_an_equal_total_by_wins_then_best_move():
    # Player 1: one win (1.0). Player 2: two best moves and compensations
    # (1.0, no win). Player 3: 0.75.
    win = game("red", [None, None, None, 1, None, None, None, None, None, None])
    bonus = game(
        "black",
        [None, None, None, 2, None, None, None, None, None, None],
        first_killed=(4,),
        best_moves={4: [1, 2, 3]},
    )  # 0.5 + 0.25 = 0.75
    bonus2 = game(
        "black",
        [None, None, None, 3, None, None, None, None, None, None],
        first_killed=(4,),
        best_moves={4: [1, 2, 3]},
    )
    small = game("black", [None, None, None, 3, None, None, None, None, None, None])
    extra = game(
        "black",
        [None, None, None, 2, None, None, None, None, None, None],
        first_killed=(4,),
    )  # 2 has 1.0 in no win, best move 0.5
    table = standings([win, bonus, bonus2, small, extra], DEFAULT, [1, 2, 3], seed=7)
    assert [(r.player, r.total, r.wins) for r in table] == [(1, 1.0, 1), (2, 1.0, 0), (3, 0.75, 0)]


def test_standings_with_everything_equal_follow_the_seed_alone():
    players = list(range(1, 21))
    first = standings([], DEFAULT, players, seed=5)
    assert [r.player for r in first] == [r.player for r in standings([], DEFAULT, players, seed=5)]
    others = {tuple(r.player for r in standings([], DEFAULT, players, seed=s)) for s in range(5)}
    assert len(others) > 1


def test_standings_after_a_round_count_only_the_games_up_to_it():
    players: list[int | None] = [100 + seat for seat in range(1, 11)]
    games = [game("red", players, round=1), game("red", players, round=2)]
    assert standings(games, DEFAULT, [104], seed=0, after_round=1)[0].total == 1.0
    assert standings(games, DEFAULT, [104], seed=0)[0].total == 2.0
