"""The browser client: `omerta/web/` served as static files under /web/, and its
entry page at `GET /`. The client is plain ES modules, HTML and CSS, so
there is no build step: what is in `omerta/web/` is what the browser gets."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from .wire import ApiError

WEB_DIR = Path(__file__).resolve().parents[1] / "web"
ENTRY_PAGE = WEB_DIR / "index.html"
# Modules import each other by URL: a browser must revalidate them so that
# after an upgrade it never mixes old and new files (ETags keep it cheap).
REVALIDATE = {"Cache-Control": "no-cache"}


def setup_web(app: web.Application) -> None:
    app.router.add_get("/", _entry_page)
    app.router.add_get("/web/{path:.+}", _client_file)


async def _entry_page(request: web.Request) -> web.FileResponse:
    return web.FileResponse(ENTRY_PAGE, headers=REVALIDATE)


async def _client_file(request: web.Request) -> web.FileResponse:
    wanted = request.match_info["path"]
    path = None if "\x00" in wanted else (WEB_DIR / wanted).resolve()
    if path is None or WEB_DIR not in path.parents or not path.is_file():
        raise ApiError(404, f"no file {wanted[:80]!r} in the web client")
    return web.FileResponse(path, headers=REVALIDATE)
