// Moderator pages (docs/moderation.md): the review queue, one case, the
// audit log, how well the ratings predict. The server refuses the
// moderation API to anyone else; the pages say so before asking it.

import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { renderAudit } from "../moderation/audit.js";
import { renderCase } from "../moderation/case.js";
import { renderQueue } from "../moderation/queue.js";
import { renderRatings } from "../moderation/ratings.js";
import { me } from "../session.js";

function tabs(page) {
  const tab = (href, name, key) =>
    h("a", { href, class: (page === "audit" || page === "ratings" ? page : "queue") === name ? "active" : "" }, t(key));
  return h("nav.tabs", {},
    tab("#/mod", "queue", "mod.queue"),
    tab("#/mod/audit", "audit", "mod.audit"),
    tab("#/mod/ratings", "ratings", "mod.ratings"));
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
  else if (page === "ratings") renderRatings(content);
  else renderQueue(content);
}
