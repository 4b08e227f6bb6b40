"""`omerta serve --debug-stats`: the runtime's measurements, for the load
benchmark. Never on by default: it tells anyone how busy the server is."""

from __future__ import annotations

from aiohttp import web

from .keys import KEEPALIVE, TABLES

routes = web.RouteTableDef()


@routes.get("/api/debug/stats")
async def stats(request: web.Request) -> web.Response:
    """`?reset=1` starts a new measurement window after this snapshot."""
    reset = request.query.get("reset") == "1"
    keepalive = request.app[KEEPALIVE]
    return web.json_response(
        {
            **request.app[TABLES].snapshot(reset),
            "sockets": len(keepalive),
            "keepalive": {"pings": keepalive.pings, "cuts": keepalive.cuts},
        }
    )
