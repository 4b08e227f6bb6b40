// A table that is not full yet: who sits there, until it starts by itself (C3).

import { get } from "../api.js";
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { showError } from "../notice.js";

const POLL_MS = 2000;

export function waitForStart(root, table, started) {
  let timer = null;
  let stopped = false;
  let cleanup = null;

  function show(current) {
    mount(root, h("section.card.waiting", {},
      h("h1", {}, t("lobby.table_title", { id: current.id })),
      h("p", {}, t("table.waiting", { taken: current.seats_taken, total: current.seats_total })),
      h("p.players", {}, current.seats.map((seat) => (seat.bot ? t("lobby.bot") : seat.user)).join(", ")),
      h("a.button", { href: "#/" }, t("table.back_to_lobby"))));
  }

  async function poll() {
    try {
      const { table: current } = await get(`/api/tables/${table.id}`);
      if (stopped) return;
      if (current.status !== "open") {
        cleanup = await started();
        return;
      }
      show(current);
    } catch (error) {
      showError(error);
    }
    if (!stopped) timer = setTimeout(poll, POLL_MS);
  }

  show(table);
  timer = setTimeout(poll, POLL_MS);
  return () => {
    stopped = true;
    clearTimeout(timer);
    if (typeof cleanup === "function") cleanup();
  };
}
