// The tournaments: the list, and a director's form to create one.

import { get, post } from "../api.js";
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { showError } from "../notice.js";
import { go } from "../router.js";

function row(tournament) {
  return h("li.tournament-row", {},
    h("a", { href: `#/tournaments/${tournament.id}` }, tournament.name),
    h("small.hint", {}, t(`tournament.status.${tournament.status}`), " · ",
      t("tournament.size", { rounds: tournament.rounds, tables: tournament.tables })));
}

function localInput(date) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function field(name, label, props) {
  return h("label.field", {}, h("span", {}, label), h("input", { name, required: true, ...props }));
}

/** The director's form: name, rounds, tables, first start, minutes between rounds. */
function createForm() {
  const inHour = new Date(Date.now() + 3600 * 1000);
  const form = h("form.tournament-create", {
    onsubmit: async (e) => {
      e.preventDefault();
      const data = new FormData(form);
      const body = {
        name: data.get("name"),
        rounds: Number(data.get("rounds")),
        tables: Number(data.get("tables")),
        start: new Date(data.get("start")).toISOString(),
        every_minutes: Number(data.get("every_minutes")),
        settings: { best_move: data.has("best_move") },
      };
      try {
        const { tournament } = await post("/api/tournaments", body);
        go(`#/tournaments/${tournament.id}`);
      } catch (error) {
        showError(error);
      }
    },
  },
  h("h2", {}, t("tournament.create")),
  field("name", t("tournament.name"), { type: "text", maxlength: "80" }),
  field("rounds", t("tournament.rounds"), { type: "number", min: "1", max: "30", value: "10" }),
  field("tables", t("tournament.tables"), { type: "number", min: "1", max: "40", value: "2" }),
  field("start", t("tournament.start"), { type: "datetime-local", value: localInput(inHour) }),
  field("every_minutes", t("tournament.every_minutes"), { type: "number", min: "1", max: "1440", value: "60" }),
  h("label.switch-row", {}, h("input", { type: "checkbox", name: "best_move", checked: true }),
    h("span", {}, t("tournament.best_move"))),
  h("button.primary", { type: "submit", dataset: { do: "create-tournament" } }, t("tournament.create")));
  return form;
}

export async function renderTournaments(root) {
  mount(root, h("p", {}, t("common.loading")));
  try {
    const { tournaments, can_direct: canDirect } = await get("/api/tournaments");
    mount(root,
      h("h1", {}, t("tournament.title")),
      tournaments.length
        ? h("ul.tournament-list", {}, tournaments.map(row))
        : h("p.hint", {}, t("tournament.none")),
      canDirect ? createForm() : null);
  } catch (error) {
    showError(error);
  }
}
