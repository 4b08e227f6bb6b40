"""The browser client: `web/` served as static files under /web/, and its
entry page at `GET /`. The client is plain ES modules, HTML and CSS, so
there is no build step: what is in `web/` is what the browser gets."""
from __future__ import annotations

from pathlib import Path

from aiohttp import web

WEB_DIR = Path(__file__).resolve().parents[2] / "web"
ENTRY_PAGE = WEB_DIR / "index.html"
PREFIX = "/web/"


def setup_web(app: web.Application) -> None:
    app.router.add_get("/", _entry_page)
    app.router.add_static(PREFIX, WEB_DIR, name="web")
    app.on_response_prepare.append(_revalidate)


async def _entry_page(request: web.Request) -> web.FileResponse:
    return web.FileResponse(ENTRY_PAGE, headers={"Cache-Control": "no-cache"})


async def _revalidate(request: web.Request, response: web.StreamResponse) -> None:
    """Modules import each other by URL: a browser must revalidate them so
    that after an upgrade it never mixes old and new files."""
    if request.path.startswith(PREFIX):
        response.headers["Cache-Control"] = "no-cache"
