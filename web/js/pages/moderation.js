// Moderator pages (docs/moderation.md): the review queue, one case, the
// audit log. The server refuses the moderation API to anyone else; the
// pages say so before asking it.

import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { renderAudit } from "../moderation/audit.js";
import { renderCase } from "../moderation/case.js";
import { renderQueue } from "../moderation/queue.js";
import { me } from "../session.js";

function tabs(page) {
  return h("nav.tabs", {},
    h("a", { href: "#/mod", class: page === "audit" ? "" : "active" }, t("mod.queue")),
    h("a", { href: "#/mod/audit", class: page === "audit" ? "active" : "" }, t("mod.audit")));
}

export function renderModeration(root, page, id) {
  const user = me();
  if (!user || !user.is_moderator) {
    mount(root, h("div.card", {}, h("p", {}, t("mod.only_moderators"))));
    return;
  }
  const content = h("div.mod-content");
  mount(root, h("section.moderation", {}, tabs(page), content));
  if (page === "case" && id) renderCase(content, id);
  else if (page === "audit") renderAudit(content);
  else renderQueue(content);
}
