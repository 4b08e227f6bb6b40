// Media health on the seat tiles. The server says, for every seat, whether
// the player's media connection is up and whether their camera and mic reach
// it ({"type": "media", "op": "status", "seats": [...]}, omerta/media/status.py);
// the whole table sees it, as a club would see a dark screen. The player's own
// tile also warns when their uplink is too weak (MediaPeer's onUplink).

import { h } from "../dom.js";
import { t } from "../i18n.js";

function badge(tile) {
  if (!tile.media) {
    tile.media = h("div.tile-media", { hidden: true });
    tile.root.append(tile.media);
  }
  return tile.media;
}

function render(tile) {
  const { link, camera, mic } = tile.mediaStatus || {};
  const problems = [];
  if (link && link !== "connected") problems.push(t(`media.${link}`));
  else if (link) {
    if (!camera) problems.push(t("media.no_camera"));
    if (!mic) problems.push(t("media.no_mic"));
  }
  if (tile.weakUplink) problems.push(t("media.weak_uplink"));
  const el = badge(tile);
  el.textContent = problems.join(" · ");
  el.hidden = problems.length === 0;
  tile.root.dataset.media = link || "";
  tile.root.classList.toggle("no-camera", link === "connected" && !camera);
}

/** `seats`: the server's status list; `tiles`: the page's SeatTiles. */
export function showMediaStatus(tiles, seats) {
  for (const status of seats) {
    const tile = tiles.tiles.get(status.seat);
    if (!tile) continue;
    tile.mediaStatus = status;
    render(tile);
  }
}

/** Our own uplink is (or no longer is) too weak for others to see and hear us well. */
export function showUplink(tiles, seat, weak) {
  const tile = tiles.tiles.get(seat);
  if (!tile) return;
  tile.weakUplink = weak;
  render(tile);
}
