"""What a load balancer and a monitor ask a node (docs/deploy.md, "Several
nodes"): `/healthz` (the process answers), `/readyz` (its database answers
and it is not stopping), `/metrics` (Prometheus; not public: from loopback
only, or with `OMERTA_METRICS_TOKEN`), and the hand-over of its tables
when it stops."""

from __future__ import annotations

import asyncio
import hmac
import os
from collections.abc import Iterator

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector
from sqlalchemy import text

from ..runtime.live import LiveTables
from ..runtime.stats import Samples
from .keys import DB, TABLES

#: Seconds the readiness check waits for the database.
READY_SECONDS = 2.0
#: Histogram buckets, in seconds.
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
LOOPBACK = ("127.0.0.1", "::1")

routes = web.RouteTableDef()
REGISTRY = web.AppKey("metrics_registry", CollectorRegistry)
TOKEN = web.AppKey("metrics_token", str)


class Histogram:
    """A cumulative histogram of a runtime's samples, brought up to date
    from the samples added since the last scrape (nothing is counted on
    the tables' hot path)."""

    def __init__(self, samples: Samples):
        self.samples = samples
        self.seen = 0
        self.counts = [0] * (len(BUCKETS) + 1)
        self.sum = 0.0

    def update(self) -> list[tuple[str, float]]:
        if self.samples.count < self.seen:  # cleared (the benchmark's reset)
            self.seen = 0
        for value in self.samples.since(self.seen):
            self.sum += value
            self.counts[next((i for i, le in enumerate(BUCKETS) if value <= le), len(BUCKETS))] += 1
        self.seen = self.samples.count
        cumulative, out = 0, []
        for le, count in zip([*map(str, BUCKETS), "+Inf"], self.counts):
            cumulative += count
            out.append((le, float(cumulative)))
        return out


class RuntimeMetrics(Collector):
    def __init__(self, runtime: LiveTables):
        self.runtime = runtime
        stats = runtime.stats
        self.histograms = [
            (
                "omerta_step_seconds",
                "a step, from its start to its messages sent (its record write included)",
                Histogram(stats.steps),
            ),
            (
                "omerta_timer_lateness_seconds",
                "how late a deadline fired",
                Histogram(stats.lateness),
            ),
            (
                "omerta_record_write_seconds",
                "one group commit of record lines",
                Histogram(stats.commits),
            ),
            (
                "omerta_loop_lag_seconds",
                "how late the event loop ran a callback",
                Histogram(stats.loop_lag),
            ),
        ]

    def collect(self) -> Iterator[Metric]:
        runtime, node = self.runtime, [self.runtime.ownership.node]
        actors = list(runtime.actors())
        gauges = (
            ("omerta_live_tables", "tables this node runs", len(actors)),
            (
                "omerta_table_sockets",
                "table sockets open to this node's tables",
                sum(a.fanout.connections for a in actors),
            ),
            (
                "omerta_draining",
                "1 while this node hands its tables over",
                int(runtime.ownership.draining),
            ),
        )
        for name, doc, value in gauges:
            gauge = GaugeMetricFamily(name, doc, labels=["node"])
            gauge.add_metric(node, value)
            yield gauge
        for name, doc, histogram in self.histograms:
            family = HistogramMetricFamily(name, doc, labels=["node"])
            family.add_metric(node, histogram.update(), sum_value=histogram.sum)
            yield family
        for name, doc, count in (
            ("omerta_refusals", "actions the rules refused", runtime.stats.refusals),
            ("omerta_errors", "errors of ours the tables logged", runtime.stats.errors),
            (
                "omerta_fenced_writes",
                "record writes refused: another node held the table's lease",
                runtime.stats.fenced,
            ),
        ):
            counter = CounterMetricFamily(name, doc, labels=["node"])
            counter.add_metric(node, count)
            yield counter


def _draining(app: web.Application) -> bool:
    runtime = app[TABLES]
    return isinstance(runtime, LiveTables) and runtime.ownership.draining


@routes.get("/healthz")
async def healthz(request: web.Request) -> web.Response:
    return web.json_response({"ok": True})


@routes.get("/readyz")
async def readyz(request: web.Request) -> web.Response:
    if _draining(request.app):
        return web.json_response({"ok": False, "why": "draining"}, status=503)
    try:
        async with asyncio.timeout(READY_SECONDS), request.app[DB].begin() as s:
            await s.execute(text("SELECT 1"))
    except Exception:
        return web.json_response({"ok": False, "why": "database unreachable"}, status=503)
    return web.json_response({"ok": True})


@routes.get("/metrics")
async def metrics(request: web.Request) -> web.Response:
    token = request.app.get(TOKEN)
    if token:
        sent = request.headers.get("Authorization", "")
        if not hmac.compare_digest(sent.encode(), f"Bearer {token}".encode()):
            raise web.HTTPNotFound()
    elif request.remote not in LOOPBACK or "X-Forwarded-For" in request.headers:
        raise web.HTTPNotFound()  # not public: nothing here for anyone else
    return web.Response(
        body=generate_latest(request.app[REGISTRY]), headers={"Content-Type": CONTENT_TYPE_LATEST}
    )


async def _drain(app: web.Application) -> None:
    """The server is stopping (SIGTERM): before it waits for the open
    sockets to end, hand every table over; their sockets close, and their
    players reconnect to the nodes that adopt them."""
    runtime = app[TABLES]
    if isinstance(runtime, LiveTables):
        await runtime.drain()


async def _measure(app: web.Application) -> None:
    """Once the runtime exists (after the app's lifecycle started it)."""
    runtime = app[TABLES]
    if isinstance(runtime, LiveTables):
        app[REGISTRY].register(RuntimeMetrics(runtime))


def setup(app: web.Application) -> None:
    token = os.environ.get("OMERTA_METRICS_TOKEN")
    if token:
        app[TOKEN] = token
    app[REGISTRY] = CollectorRegistry(auto_describe=False)
    app.router.add_routes(routes)
    app.on_startup.append(_measure)
    app.on_shutdown.append(_drain)
