"""The HTTP side of Omerta: accounts, lobby, and (soon) the table WebSocket."""

from .app import create_app
from .config import Config
from .keys import CONFIG, DB, TABLES
from .ratelimit import Limit

__all__ = ["CONFIG", "DB", "TABLES", "Config", "Limit", "create_app"]
