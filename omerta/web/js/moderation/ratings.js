// How well the ratings predict (GET /api/moderation/ratings, docs/ratings.md):
// the newest fitted parameters replayed over the stored ranked games, each
// game predicted before its result. Calibration as a table with bars
// (predicted against observed red score per bin of 0.1) and the log-loss of
// each run of 100 games as a small line drawing; no chart library.

import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { load, when } from "./common.js";

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  return el;
}

const percent = (x) => `${(100 * x).toFixed(1)} %`;
const fixed = (x, digits = 4) => (x == null ? "—" : Number(x).toFixed(digits));

function bar(kind, value) {
  return h("div.rating-bar", { class: kind, title: percent(value) },
    h("span", { style: `width: ${Math.max(0, Math.min(100, 100 * value))}%` }));
}

function calibrationTable(bins) {
  return h("table.grid.calibration", {},
    h("thead", {}, h("tr", {},
      ["mod.ratings_bin", "mod.ratings_games", "mod.ratings_predicted", "mod.ratings_observed"]
        .map((key) => h("th", {}, t(key))))),
    h("tbody", {}, bins.map((b) => h("tr.calibration-bin", {},
      h("td", {}, `${b.bin[0].toFixed(1)}–${b.bin[1].toFixed(1)}`),
      h("td.num", {}, b.games),
      h("td", {}, fixed(b.predicted, 3), bar("predicted", b.predicted)),
      h("td", {}, fixed(b.observed, 3), bar("observed", b.observed))))));
}

/** Log-loss per run of games as a polyline; the dashed line is a coin toss (ln 2). */
function overTime(points) {
  const width = 320, height = 120, pad = 4;
  const values = points.map((p) => p.log_loss).concat([Math.LN2]);
  const lo = Math.min(...values), hi = Math.max(...values);
  const span = hi - lo || 1;
  const x = (i) => pad + (points.length > 1 ? (i * (width - 2 * pad)) / (points.length - 1) : (width - 2 * pad) / 2);
  const y = (v) => pad + ((hi - v) * (height - 2 * pad)) / span;
  const drawing = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "loss-over-time", role: "img" });
  drawing.setAttribute("aria-label", t("mod.ratings_over_time"));
  drawing.append(svg("line", { x1: pad, x2: width - pad, y1: y(Math.LN2), y2: y(Math.LN2), class: "coin" }));
  drawing.append(svg("polyline", { points: points.map((p, i) => `${x(i)},${y(p.log_loss)}`).join(" "), class: "loss" }));
  points.forEach((p, i) => {
    const dot = svg("circle", { cx: x(i), cy: y(p.log_loss), r: 2.5, class: "loss" });
    const label = svg("title", {});
    label.textContent = t("mod.ratings_point", { games: p.games, loss: fixed(p.log_loss) });
    dot.append(label);
    drawing.append(dot);
  });
  return h("figure.over-time", {}, drawing,
    h("figcaption.muted", {}, t("mod.ratings_over_time_note", { low: fixed(lo), high: fixed(hi) })));
}

function fitsTable(fits) {
  return h("table.grid.fits", {},
    h("thead", {}, h("tr", {},
      ["mod.ratings_version", "mod.when", "mod.ratings_games", "mod.ratings_log_loss", "mod.ratings_source"]
        .map((key) => h("th", {}, t(key))))),
    h("tbody", {}, fits.slice().reverse().map((f) => h("tr", {},
      h("td.num", {}, f.version), h("td", {}, when(f.created_at)), h("td.num", {}, f.games),
      h("td.num", {}, fixed(f.log_loss)), h("td", {}, f.source)))));
}

function show(root, r) {
  const p = r.params;
  mount(root,
    h("p.ratings-summary", {}, r.version
      ? t("mod.ratings_fitted", { version: r.version })
      : t("mod.ratings_defaults")),
    h("p.muted", {}, t("mod.ratings_params", {
      sigma0: fixed(p.sigma0, 1), tau: fixed(p.tau, 3), side_sigma0: fixed(p.side_sigma0, 1), side_tau: fixed(p.side_tau, 3),
    })),
    r.games
      ? [
        h("p", {}, t("mod.ratings_scores", { games: r.games, loss: fixed(r.log_loss), brier: fixed(r.brier) })),
        h("h3", {}, t("mod.ratings_calibration")),
        h("p.muted", {}, t("mod.ratings_calibration_note")),
        h("div.table-scroll", {}, calibrationTable(r.calibration)),
        h("h3", {}, t("mod.ratings_over_time")),
        overTime(r.log_loss_over_time),
      ]
      : h("p.muted.ratings-empty", {}, t("mod.ratings_no_games")),
    r.fits.length ? [h("h3", {}, t("mod.ratings_fits")), h("div.table-scroll", {}, fitsTable(r.fits))] : null);
}

export function renderRatings(root) {
  load(root, "/api/moderation/ratings", (answer) => show(root, answer));
}
