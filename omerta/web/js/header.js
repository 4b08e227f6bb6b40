// The bar across the top: the name, the pages, the language switch, the account.

import { h, mount } from "./dom.js";
import { LANGUAGES, chooseLanguage, currentLanguage, t } from "./i18n.js";
import { showError } from "./notice.js";
import { go } from "./router.js";
import { me, signOut } from "./session.js";

export function renderHeader() {
  const user = me();
  const languages = h("select.language", {
    "aria-label": t("header.language"),
    onchange: (e) => { chooseLanguage(e.target.value); location.reload(); },
  }, LANGUAGES.map((code) => h("option", { value: code, selected: code === currentLanguage() },
    t(`language.${code}`))));
  const account = user
    ? [h("a.who", { href: "#/profile", title: t("header.profile") }, t("header.signed_in_as", { name: user.username })),
       h("button.link", { type: "button", onclick: () => signOut().then(() => go("#/"), showError) },
         t("header.sign_out"))]
    : [h("a.button", { href: "#/signin" }, t("header.sign_in"))];
  mount(document.getElementById("header"),
    h("a.brand", { href: "#/" }, t("app.name")),
    h("nav", {},
      h("a", { href: "#/" }, t("header.lobby")),
      h("a", { href: "#/leaderboard" }, t("header.leaderboard")),
      h("a", { href: "#/tournaments" }, t("header.tournaments")),
      user ? h("a", { href: "#/profile" }, t("header.profile")) : null,
      user && user.is_moderator ? h("a", { href: "#/mod" }, t("header.moderation")) : null),
    h("div.spacer"),
    languages,
    ...account);
}
