"""Profiles, game histories and the leaderboard (read-only)."""

from __future__ import annotations

from aiohttp import web

from ..store import rating_params, ratings
from .auth import USERNAME
from .keys import DB
from .params import page as _page
from .wire import ApiError

routes = web.RouteTableDef()


async def _profile(request: web.Request) -> ratings.Profile:
    name = request.match_info["username"]
    if not USERNAME.fullmatch(name):  # no account can have this name
        raise ApiError(404, f"no player named {name[:40]!r}")
    async with request.app[DB].begin() as s:
        found = await ratings.profile(s, name)
    if found is None:
        raise ApiError(404, f"no player named {name!r}")
    return found


@routes.get("/api/players/{username}")
async def player(request: web.Request) -> web.Response:
    p = await _profile(request)
    roles = {
        role: {**counts, "win_rate": round(counts["wins"] / counts["games"], 3)}
        for role, counts in sorted(p.roles.items())
    }
    return web.json_response(
        {
            "player": {
                "username": p.username,
                "rating": p.rating,
                "mu": round(p.mu, 1),
                "sigma": round(p.sigma, 1),
                "games": p.games,
                "provisional": p.provisional,
                "coins": p.coins,
                "experience": p.experience,
                "roles": roles,
            }
        }
    )


@routes.get("/api/players/{username}/games")
async def player_games(request: web.Request) -> web.Response:
    page, per_page = _page(request)
    p = await _profile(request)
    async with request.app[DB].begin() as s:
        lines = await ratings.games(s, p.user_id, page, per_page)
    return web.json_response(
        {
            "page": page,
            "per_page": per_page,
            "games": [
                {
                    "game": g.game_id,
                    "ended_at": g.ended_at.isoformat(),
                    "ranked": g.ranked,
                    "seat": g.seat,
                    "role": g.role,
                    "result": g.result,
                    "rating_change": g.rating_change,
                    "coins": g.coins,
                    "experience": g.experience,
                    "voided": g.voided,
                }
                for g in lines
            ],
        }
    )


@routes.get("/api/players/{username}/recomputes")
async def player_recomputes(request: web.Request) -> web.Response:
    """Each time the ratings were replayed with new parameters (docs/ratings.md)."""
    p = await _profile(request)
    async with request.app[DB].begin() as s:
        entries = await rating_params.recomputes(s, p.user_id)
    return web.json_response({"recomputes": entries})


@routes.get("/api/leaderboard")
async def leaderboard(request: web.Request) -> web.Response:
    page, per_page = _page(request, per_page=50)
    async with request.app[DB].begin() as s:
        rows, total = await ratings.leaderboard(s, page, per_page)
    return web.json_response(
        {
            "page": page,
            "per_page": per_page,
            "total": total,
            "refreshed_at": rows[0].refreshed_at.isoformat() if rows else None,
            "players": [
                {
                    "rank": r.rank,
                    "username": r.username,
                    "rating": r.rating,
                    "games": r.games,
                    "provisional": r.provisional,
                }
                for r in rows
            ],
        }
    )
