"""Media: players' mics and cameras, forwarded only where the gate allows.

`MediaPlane` is what the table actor talks to; `Sfu` is the default,
in-process implementation on aiortc (docs/media.md)."""

from .plane import MediaError, MediaPlane, Signal
from .sfu import Sfu

__all__ = ["MediaError", "MediaPlane", "Sfu", "Signal"]
