"""ICE for real deployments: where players' browsers reach the server's
media, which STUN and TURN servers they use, which addresses the server
will ever send to, and how much a camera may send (docs/deploy.md).

Read once from the environment (`IceSettings.from_env`):

    OMERTA_ICE_PUBLIC_IP       the address players reach this host at, for a
                               1:1 NAT (a cloud VM): host candidates are offered
                               at this address with their own port
    OMERTA_ICE_PORTS           UDP ports for media, "40000-40999" (default: any)
    OMERTA_ICE_STUN            STUN URLs for browsers, comma-separated
                               ("stun:stun.example.org:3478"); the server asks
                               the first for its own address when it has no
                               OMERTA_ICE_PUBLIC_IP
    OMERTA_ICE_TURN            TURN URLs for browsers, comma-separated
                               ("turn:turn.example.org:3478?transport=udp,
                               turns:turn.example.org:5349?transport=tcp")
    OMERTA_ICE_TURN_SECRET     the TURN server's shared secret (coturn's
                               static-auth-secret); or OMERTA_ICE_TURN_SECRET_FILE
    OMERTA_ICE_TURN_TTL        seconds a TURN credential lasts (default 86400)
    OMERTA_MEDIA_MAX_VIDEO_KBPS  the most a camera is asked to send (default
                               1200): the server sends each camera to up to
                               nine players, so this sets its egress
    OMERTA_ICE_ALLOW_PRIVATE   "1": players may name, and the server offers,
                               loopback, link-local and private addresses (a
                               LAN, development, tests). Off by default: a player
                               could otherwise make the server send STUN checks
                               into its own network, and offers would show it.

TURN credentials follow the TURN REST API scheme coturn implements
(`use-auth-secret`): username `<expiry unix time>:<user>`, password
base64(HMAC-SHA1(secret, username)); the TURN server needs only the secret.

No aiortc here: this module only reads settings and rewrites SDP text."""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PREFIX = "OMERTA_ICE_"
MAX_VIDEO_ENV = "OMERTA_MEDIA_MAX_VIDEO_KBPS"
DEFAULT_TTL = 86400
DEFAULT_MAX_VIDEO_KBPS = 1200  # congestion.MAX_VIDEO
_URL = re.compile(
    r"^(stun|turns?):(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?"
    r"(\?transport=(udp|tcp))?$"
)


class IceSettingError(ValueError):
    """A setting that cannot be used; the message names the variable."""


def internal(address: str) -> bool:
    """True for every address that is not a global unicast one: loopback,
    link-local, private (RFC 1918, fc00::/7), shared (100.64/10), reserved,
    documentation ranges, multicast and unspecified; also for anything that
    is not an IP literal (a name could resolve to any of those)."""
    try:
        ip = ipaddress.ip_address(address.strip("[]"))
    except ValueError:
        return True
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not ip.is_global or ip.is_multicast


@dataclass
class Candidate:
    """The parts of an SDP candidate attribute the server looks at."""

    parts: list[str]

    @classmethod
    def parse(cls, line: str) -> Candidate | None:
        parts = line.removeprefix("a=").removeprefix("candidate:").split()
        if len(parts) < 8 or parts[6] != "typ" or not parts[5].isdigit():
            return None
        return cls(parts)

    @property
    def address(self) -> str:
        return self.parts[4]

    @property
    def type(self) -> str:
        return self.parts[7]

    def line(self) -> str:
        return "a=candidate:" + " ".join(self.parts)


@dataclass(frozen=True)
class IceSettings:
    public_ip: str | None = None
    ports: tuple[int, int] | None = None
    stun: tuple[str, ...] = ()
    turn: tuple[str, ...] = ()
    turn_secret: str | None = field(default=None, repr=False)
    turn_ttl: int = DEFAULT_TTL
    allow_private: bool = False
    max_video_kbps: int = DEFAULT_MAX_VIDEO_KBPS

    def __post_init__(self) -> None:
        if self.public_ip is not None:
            try:
                ipaddress.ip_address(self.public_ip)
            except ValueError:
                raise IceSettingError(
                    f"{PREFIX}PUBLIC_IP must be an IP address, got {self.public_ip!r}"
                ) from None
        if self.ports is not None:
            low, high = self.ports
            if not 1024 <= low <= high <= 65535:
                raise IceSettingError(
                    f"{PREFIX}PORTS must be LOW-HIGH within 1024-65535, got {low}-{high}"
                )
        for name, urls, schemes in (
            ("STUN", self.stun, ("stun",)),
            ("TURN", self.turn, ("turn", "turns")),
        ):
            for url in urls:
                found = _URL.match(url)
                if found is None or found.group(1) not in schemes:
                    raise IceSettingError(
                        f"{PREFIX}{name}: {url!r} is not a"
                        f" {' or '.join(s + ':' for s in schemes)} URL"
                        " (scheme:host[:port][?transport=udp|tcp])"
                    )
        if self.turn and not self.turn_secret:
            raise IceSettingError(
                f"{PREFIX}TURN needs {PREFIX}TURN_SECRET (the TURN server's static-auth-secret)"
            )
        if not 100 <= self.max_video_kbps <= 10_000:
            raise IceSettingError(f"{MAX_VIDEO_ENV} must be 100-10000, got {self.max_video_kbps}")
        if not 60 <= self.turn_ttl <= 7 * 86400:
            raise IceSettingError(
                f"{PREFIX}TURN_TTL must be 60-604800 seconds, got {self.turn_ttl}"
            )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> IceSettings:
        """The settings in `env` (the process environment by default);
        IceSettingError names the variable that is wrong."""
        env = os.environ if env is None else env

        def get(name: str) -> str:
            return env.get(PREFIX + name, "").strip()

        def urls(name: str) -> tuple[str, ...]:
            return tuple(u.strip() for u in get(name).split(",") if u.strip())

        ports = None
        if get("PORTS"):
            found = re.fullmatch(r"(\d{1,5})-(\d{1,5})", get("PORTS"))
            if found is None:
                raise IceSettingError(
                    f"{PREFIX}PORTS must be LOW-HIGH, e.g. 40000-40999, got {get('PORTS')!r}"
                )
            ports = (int(found.group(1)), int(found.group(2)))
        secret = get("TURN_SECRET") or None
        if secret is None and get("TURN_SECRET_FILE"):
            try:
                secret = Path(get("TURN_SECRET_FILE")).read_text().strip() or None
            except OSError as e:
                raise IceSettingError(f"{PREFIX}TURN_SECRET_FILE: {e}") from None
        ttl = get("TURN_TTL") or str(DEFAULT_TTL)
        if not ttl.isdigit():
            raise IceSettingError(f"{PREFIX}TURN_TTL must be a number of seconds, got {ttl!r}")
        max_video = env.get(MAX_VIDEO_ENV, "").strip() or str(DEFAULT_MAX_VIDEO_KBPS)
        if not max_video.isdigit():
            raise IceSettingError(f"{MAX_VIDEO_ENV} must be a number of kbit/s, got {max_video!r}")
        allow = get("ALLOW_PRIVATE").lower()
        if allow not in ("", "0", "1", "false", "true", "no", "yes"):
            raise IceSettingError(f"{PREFIX}ALLOW_PRIVATE must be 1 or 0, got {allow!r}")
        return cls(
            public_ip=get("PUBLIC_IP") or None,
            ports=ports,
            stun=urls("STUN"),
            turn=urls("TURN"),
            turn_secret=secret,
            turn_ttl=int(ttl),
            allow_private=allow in ("1", "true", "yes"),
            max_video_kbps=int(max_video),
        )

    # --- what browsers are told -------------------------------------------

    def ice_servers(self, user: str, now: float) -> list[dict[str, Any]]:
        """RTCPeerConnection's `iceServers` for a player, with TURN
        credentials valid for `turn_ttl` seconds from `now` (unix time)."""
        servers: list[dict[str, Any]] = []
        if self.stun:
            servers.append({"urls": list(self.stun)})
        if self.turn and self.turn_secret:
            username, password = turn_credential(self.turn_secret, user, now + self.turn_ttl)
            servers.append({"urls": list(self.turn), "username": username, "credential": password})
        return servers

    def public_offer(self, sdp: str) -> str:
        """The server's offer as players may see it: an internal host
        candidate is offered at the public address (same port) when there is
        one, and kept only where private addresses are allowed; reflexive
        candidates name no base address; each m-line's default address is
        its first remaining candidate."""
        lines = sdp.split("\r\n")
        out: list[str] = []
        section: list[str] = []

        def flush() -> None:
            out.extend(_default_address(section))
            section.clear()

        for line in lines:
            if line.startswith("m="):
                flush()
            if line.startswith("a=candidate:"):
                section.extend(self._offered(line))
            else:
                section.append(line)
        flush()
        return "\r\n".join(out)

    def _offered(self, line: str) -> list[str]:
        c = Candidate.parse(line)
        if c is None:
            return []
        if "raddr" in c.parts:  # never show what is behind a NAT
            i = c.parts.index("raddr")
            c.parts[i + 1 : i + 4] = ["0.0.0.0", "rport", "0"]
        if not internal(c.address):
            return [c.line()]
        out = []
        if (
            self.public_ip is not None
            and c.type == "host"
            and ipaddress.ip_address(c.address).version
            == ipaddress.ip_address(self.public_ip).version
        ):
            mapped = Candidate(list(c.parts))
            mapped.parts[0] = hashlib.sha256(
                f"host {self.public_ip} {c.parts[5]}".encode()
            ).hexdigest()[:32]
            mapped.parts[4] = self.public_ip
            out.append(mapped.line())
        if self.allow_private:
            out.append(c.line())
        return out

    # --- what players may name --------------------------------------------

    def refuses(self, candidate: str) -> bool:
        """True for a remote candidate (an SDP candidate attribute, with or
        without `a=`) naming an address the server may not send checks to.
        A malformed one is not refused here: aiortc says what is wrong."""
        c = Candidate.parse(candidate)
        return c is not None and not self.allow_private and internal(c.address)

    def usable_answer(self, sdp: str) -> str:
        """A player's answer without the candidates the server refuses."""
        return "\r\n".join(
            line
            for line in sdp.split("\r\n")
            if not (line.startswith("a=candidate:") and self.refuses(line))
        )


def turn_credential(secret: str, user: str, expires: float) -> tuple[str, str]:
    """TURN REST API credentials (coturn's use-auth-secret): valid until `expires`."""
    username = f"{int(expires)}:{user}"
    digest = hmac.new(secret.encode(), username.encode(), hashlib.sha1).digest()
    return username, base64.b64encode(digest).decode()


def _default_address(section: list[str]) -> list[str]:
    """An m-section whose `c=` line and `m=` port name its first candidate,
    or nothing (0.0.0.0, port 9) when it has none."""
    first = next(
        (Candidate.parse(line) for line in section if line.startswith("a=candidate:")), None
    )
    address, port = (first.address, first.parts[5]) if first else ("0.0.0.0", "9")
    family = "IP6" if ":" in address else "IP4"
    out = []
    for line in section:
        if line.startswith("m="):
            parts = line.split(" ")
            parts[1] = port
            line = " ".join(parts)
        elif line.startswith("c=IN "):
            line = f"c=IN {family} {address}"
        out.append(line)
    return out
