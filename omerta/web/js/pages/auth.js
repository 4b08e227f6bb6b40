// Sign in and sign up: one form, two modes.

import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { showError } from "../notice.js";
import { go } from "../router.js";
import { signIn, signUp } from "../session.js";

export function renderAuth(root, mode) {
  const signingUp = mode === "signup";
  const username = h("input", { name: "username", autocomplete: "username", required: true,
    minlength: "3", maxlength: "24", pattern: "[A-Za-z0-9_]+", autofocus: true });
  const password = h("input", { name: "password", type: "password", required: true, minlength: "8",
    maxlength: "256", autocomplete: signingUp ? "new-password" : "current-password" });
  const submit = h("button.primary", { type: "submit" }, t(signingUp ? "auth.sign_up" : "auth.sign_in"));
  const form = h("form.card.auth", {
    onsubmit: async (e) => {
      e.preventDefault();
      submit.disabled = true;
      try {
        await (signingUp ? signUp : signIn)(username.value.trim(), password.value);
        go("#/");
      } catch (error) {
        showError(error);
      } finally {
        submit.disabled = false;
      }
    },
  },
    h("h1", {}, t(signingUp ? "auth.sign_up_title" : "auth.sign_in_title")),
    h("label", {}, h("span", {}, t("auth.username")), username,
      signingUp ? h("small.hint", {}, t("auth.username_hint")) : null),
    h("label", {}, h("span", {}, t("auth.password")), password,
      signingUp ? h("small.hint", {}, t("auth.password_hint")) : null),
    submit,
    h("p.switch", {}, signingUp
      ? h("a", { href: "#/signin" }, t("auth.have_account"))
      : h("a", { href: "#/signup" }, t("auth.no_account"))));
  mount(root, h("section.auth-page", {}, form));
}
