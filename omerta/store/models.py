"""The database schema, as plain SQLAlchemy 2 models.

Portable on purpose: every column type works on Postgres (asyncpg) and
SQLite (aiosqlite), so one set of migrations serves both. Constraint names
come from NAMING so migrations can refer to them on either database."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
    func,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.types import TypeDecorator

#: A table's life: players gather, the game is played, then it ended or was given up.
TableStatus = Literal["open", "playing", "finished", "abandoned"]
#: A tournament takes players, then has its schedule, is under way, is over.
TournamentStatus = Literal["registration", "scheduled", "running", "finished"]
#: A moderation case waits, or a moderator decided it.
CaseStatus = Literal["open", "upheld", "overturned", "dismissed"]
SanctionKind = Literal["warning", "suspension", "ban"]

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator[datetime]):
    """An aware UTC datetime on both databases. SQLite keeps no zone, so
    values are stored as UTC and given their zone back when read; without
    this, comparisons between stored and current times break on SQLite."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the store; use an aware UTC time")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(32))
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    is_moderator: Mapped[bool] = mapped_column(default=False, server_default=false())
    #: may create and run tournaments (granted like the moderator role)
    is_director: Mapped[bool] = mapped_column(default=False, server_default=false())


# Unique ignoring case, so "Alice" cannot pose as "alice".
Index("uq_users_username_lower", func.lower(User.username), unique=True)


class LoginSession(Base):
    """A signed-in browser. Only a hash of the token is kept, so a leaked
    database does not hand out live sessions."""

    __tablename__ = "sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)


class AccountAddress(Base):
    """An address an account registered or signed in from, and when it was
    last seen: a login from a known address is not held to the per-account
    limit, and a banned account's recent addresses may not register new
    accounts (docs/security.md)."""

    __tablename__ = "account_addresses"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    address: Mapped[str] = mapped_column(String(64), primary_key=True, index=True)
    first_seen: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_seen: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class GameTable(Base):
    """A table from the lobby to the end of its game. `seed` drives the
    engine's RNG (the deal) and must never reach a client while the game
    is on."""

    __tablename__ = "tables"
    __table_args__ = (
        CheckConstraint("status IN ('open', 'playing', 'finished', 'abandoned')", name="status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    creator_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    ruleset: Mapped[str] = mapped_column(String(32))
    settings: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[TableStatus] = mapped_column(String(16), default="open", index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    seed: Mapped[int] = mapped_column(BigInteger)

    creator: Mapped[User] = relationship(lazy="raise")
    seats: Mapped[list[Seat]] = relationship(
        order_by="Seat.seat", lazy="raise", cascade="all, delete-orphan"
    )


class Seat(Base):
    """One taken seat. Before the start the number is only a place at the
    table; it is drawn at random when the table fills (C1).

    `stands_in`: a bot playing for an absent tournament player (A1: it
    leaves the table ranked; docs/tournaments.md).

    `live`: the table is open or playing. The database keeps one live seat
    per account (the partial unique index below), so concurrent requests
    cannot seat a player at two tables at once; a finished or abandoned
    table's seats stop counting when it ends (store.tables.end_table)."""

    __tablename__ = "seats"
    __table_args__ = (
        CheckConstraint("(user_id IS NULL) = is_bot", name="user_or_bot"),
        UniqueConstraint("table_id", "user_id"),
    )

    table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    is_bot: Mapped[bool] = mapped_column(default=False)
    stands_in: Mapped[bool] = mapped_column(default=False, server_default=false())
    live: Mapped[bool] = mapped_column(default=True, server_default=true())

    user: Mapped[User | None] = relationship(lazy="raise")


# One live seat per account; bots (user_id NULL) are never equal to each other.
Index(
    "uq_seats_user_id_live",
    Seat.user_id,
    unique=True,
    sqlite_where=Seat.live,
    postgresql_where=Seat.live,
)


class TableRecord(Base):
    """The table's script (docs/scripts.md), one JSON line per row: the header
    at line 0, then every applied action and timeout. Append-only: the
    text is kept exactly as written so an export replays byte for byte."""

    __tablename__ = "table_records"

    table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    line: Mapped[int] = mapped_column(Integer, primary_key=True)
    text: Mapped[str] = mapped_column(Text)
    #: the client message id of the action on this line (WebSocket `id`), so
    #: a repeated message is still recognised after a restart; kept beside
    #: the text because the text's format is docs/scripts.md's
    client_id: Mapped[str | None] = mapped_column(String(64))


class Game(Base):
    __tablename__ = "games"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), unique=True)
    winner: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(String(64))
    ended_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    ranked: Mapped[bool] = mapped_column()

    players: Mapped[list[GamePlayer]] = relationship(
        order_by="GamePlayer.seat", lazy="raise", cascade="all, delete-orphan"
    )


class GamePlayer(Base):
    __tablename__ = "game_players"

    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)  # None: a bot
    role: Mapped[str] = mapped_column(String(16))
    result: Mapped[str] = mapped_column(String(8))  # win / loss / draw
    #: removed by the table (T3) or handed the technical defeat (T4): no awards
    forfeit: Mapped[bool] = mapped_column(default=False, server_default=false())
    #: the player's team as the ruleset assigned it (red, black, maniac), so
    #: rating the game needs no ruleset (omerta/league.py)
    team: Mapped[str] = mapped_column(String(16))


class PlayerRating(Base):
    """A ranked player's skill belief (omerta.ratings.model) and wallet.
    `inflated_at`: inactivity before this moment is already in sigma."""

    __tablename__ = "player_ratings"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    coins: Mapped[int] = mapped_column(Integer, default=0)
    experience: Mapped[int] = mapped_column(Integer, default=0)
    last_game_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    inflated_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class RatingSide(Base):
    """The league's learned red-vs-black advantage: a single row, id 1."""

    __tablename__ = "rating_side"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)


class RatedGame(Base):
    """The ledger that makes awards exactly-once: a game's awards are applied
    in the transaction that inserts its row, and never while a row exists."""

    __tablename__ = "rated_games"

    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    applied_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    voided_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    #: what this game moved the league's side term by, to revert it exactly
    side_mu_change: Mapped[float] = mapped_column(Float, default=0.0)
    side_variance_change: Mapped[float] = mapped_column(Float, default=0.0)


class RatingParams(Base):
    """The rating model's fitted parameters (`omerta ratings fit`), one row
    per fit; the highest version is the one games are rated with."""

    __tablename__ = "rating_params"

    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    sigma0: Mapped[float] = mapped_column(Float)
    tau: Mapped[float] = mapped_column(Float)
    side_sigma0: Mapped[float] = mapped_column(Float)
    side_tau: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)  # games the fit learned from
    log_loss: Mapped[float] = mapped_column(Float)  # their prequential log-loss
    source: Mapped[str] = mapped_column(String(16))  # "database", "file" or "job"


class RatingRecompute(Base):
    """One player's rating before and after all ranked games were replayed
    with a new parameter version (`omerta ratings recompute`): why a number
    moved when no game was played. The per-game awards then hold the
    replayed changes; these rows keep what stood before."""

    __tablename__ = "rating_recomputes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    version: Mapped[int] = mapped_column(Integer)  # rating_params.version replayed with
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    display_before: Mapped[int] = mapped_column(Integer)
    display_after: Mapped[int] = mapped_column(Integer)


class GameAward(Base):
    """What one game changed for one player, so it can be shown and, if a
    moderator voids the game, reverted exactly."""

    __tablename__ = "game_awards"

    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    display_before: Mapped[int] = mapped_column(Integer)
    display_after: Mapped[int] = mapped_column(Integer)
    coins: Mapped[int] = mapped_column(Integer)
    experience: Mapped[int] = mapped_column(Integer)


class LeaderboardRow(Base):
    """The leaderboard snapshot, rebuilt whole by a periodic job."""

    __tablename__ = "leaderboard"

    rank: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    username: Mapped[str] = mapped_column(String(32))
    rating: Mapped[int] = mapped_column(Integer)
    games: Mapped[int] = mapped_column(Integer)
    provisional: Mapped[bool] = mapped_column()
    refreshed_at: Mapped[datetime] = mapped_column(UTCDateTime)


# --- Moderation (omerta/moderation, issue 6) ----------------------------------


class TechVoteRecord(Base):
    """T5: one technical vote as the table decided it. `record_line` is the
    table_records line that ended it, so the record up to that line replays
    the game to that moment. Seats and users are both kept: seats for the
    replay, users for the history across games."""

    __tablename__ = "tech_votes"
    __table_args__ = (
        UniqueConstraint("table_id", "record_line"),
        CheckConstraint("kind IN ('foul', 'defeat', 'removal')", name="kind"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"))
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"), index=True)
    record_line: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    phase: Mapped[str] = mapped_column(String(16))
    day: Mapped[int] = mapped_column(Integer)
    called_at: Mapped[float] = mapped_column(Float)  # game seconds
    ended_at: Mapped[float] = mapped_column(Float)  # game seconds
    caller_seat: Mapped[int] = mapped_column(Integer)
    caller_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    target_seat: Mapped[int] = mapped_column(Integer)
    target_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    yes: Mapped[int] = mapped_column(Integer)
    voters: Mapped[int] = mapped_column(Integer)
    passed: Mapped[bool] = mapped_column()
    recorded_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    ballots: Mapped[list[TechBallotRecord]] = relationship(
        order_by="TechBallotRecord.seat", lazy="raise", cascade="all, delete-orphan"
    )


class TechBallotRecord(Base):
    """One living human's technical ballot; a non-voter is recorded as no (T2)."""

    __tablename__ = "tech_ballots"

    vote_id: Mapped[int] = mapped_column(
        ForeignKey("tech_votes.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    yes: Mapped[bool] = mapped_column()


class Report(Base):
    """A player's report of a finished game they played in: one per player per game."""

    __tablename__ = "reports"
    __table_args__ = (UniqueConstraint("game_id", "reporter_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"))
    reporter_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    reason: Mapped[str] = mapped_column(String(500))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ModerationCase(Base):
    """What waits for a moderator: a passed technical vote or a report.
    `flagged`: the vote fits the abuse pattern (omerta.moderation.pattern)."""

    __tablename__ = "moderation_cases"
    __table_args__ = (
        CheckConstraint("(vote_id IS NULL) <> (report_id IS NULL)", name="one_subject"),
        CheckConstraint("status IN ('open', 'upheld', 'overturned', 'dismissed')", name="status"),
        Index("ix_moderation_cases_status_opened_at", "status", "opened_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    vote_id: Mapped[int | None] = mapped_column(ForeignKey("tech_votes.id"), unique=True)
    report_id: Mapped[int | None] = mapped_column(ForeignKey("reports.id"), unique=True)
    opened_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    flagged: Mapped[bool] = mapped_column(default=False)
    status: Mapped[CaseStatus] = mapped_column(String(16), default="open")
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    decided_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))


class Sanction(Base):
    """A warning, a suspension (until `ends_at`) or a ban (no end), given
    by a moderator; `lifted_at` ends it early."""

    __tablename__ = "sanctions"
    __table_args__ = (
        CheckConstraint("kind IN ('warning', 'suspension', 'ban')", name="kind"),
        CheckConstraint("(kind = 'suspension') = (ends_at IS NOT NULL)", name="ends"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    kind: Mapped[SanctionKind] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(String(500))
    starts_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    ends_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    moderator_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    case_id: Mapped[int | None] = mapped_column(ForeignKey("moderation_cases.id"))
    lifted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    lifted_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))


class AuditEntry(Base):
    """One moderator action. Append-only: the application has no way to
    change or remove a row, and database triggers (migration 0004) make
    UPDATE and DELETE fail. `moderator_id` None: the server operator, at
    the command line (`omerta admin ...`)."""

    __tablename__ = "moderation_audit"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    moderator_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    action: Mapped[str] = mapped_column(String(32))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    case_id: Mapped[int | None] = mapped_column(ForeignKey("moderation_cases.id"), index=True)
    reason: Mapped[str] = mapped_column(String(500))
    details: Mapped[dict[str, Any]] = mapped_column(JSON)


# --- Tournaments (omerta/tournament, omerta/server/tournaments.py, issue 18) ---


class Tournament(Base):
    """A series of rounds whose tables start together. `settings` are the
    tables' rule settings (the engine's), `scoring` the director's points
    (omerta.tournament.scoring), `schedule` the seating schedule by player
    number (omerta.tournament.seating.Schedule.to_json), swaps included."""

    __tablename__ = "tournaments"
    __table_args__ = (
        CheckConstraint(
            "status IN ('registration', 'scheduled', 'running', 'finished')", name="status"
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    director_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    ruleset: Mapped[str] = mapped_column(String(32))
    settings: Mapped[dict[str, Any]] = mapped_column(JSON)
    scoring: Mapped[dict[str, Any]] = mapped_column(JSON)
    rounds: Mapped[int] = mapped_column(Integer)
    tables_per_round: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[TournamentStatus] = mapped_column(String(16), index=True)
    schedule: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class TournamentPlayer(Base):
    """A registered (or invited: `invited_by`) player; `number` is their
    index in the schedule, given when the schedule is generated;
    `checked_in_at`: the player said they are here (an absentee has not)."""

    __tablename__ = "tournament_players"
    __table_args__ = (UniqueConstraint("tournament_id", "number"),)

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True, index=True)
    number: Mapped[int | None] = mapped_column(Integer)
    invited_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    checked_in_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class TournamentRound(Base):
    """A round's start time; `started_at` is set once, when its tables start."""

    __tablename__ = "tournament_rounds"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    number: Mapped[int] = mapped_column(Integer, primary_key=True)  # 1-based
    starts_at: Mapped[datetime] = mapped_column(UTCDateTime)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class TournamentTable(Base):
    """One table of one round: `seats[i]` is the user id in seat i + 1
    (None: a bot, when a director put one there), `absent` the seats a bot
    played because their player did not come, `table_id` the table started."""

    __tablename__ = "tournament_tables"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    round: Mapped[int] = mapped_column(Integer, primary_key=True)  # 1-based
    number: Mapped[int] = mapped_column(Integer, primary_key=True)  # 1-based
    seats: Mapped[list[int | None]] = mapped_column(JSON)
    absent: Mapped[list[int]] = mapped_column(JSON, default=list)
    table_id: Mapped[int | None] = mapped_column(ForeignKey("tables.id"), unique=True)
