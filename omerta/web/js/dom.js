// A tiny DOM helper: h("button.primary", {onclick}, "text") builds an element.

export function h(spec, props = {}, ...children) {
  const [tag, ...classes] = spec.split(".");
  const el = document.createElement(tag || "div");
  if (classes.length) el.className = classes.join(" ");
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.classList.add(...String(value).split(" ").filter(Boolean));
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key in el && typeof value !== "string") el[key] = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** Replace everything inside `el` with `children`. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** Like mount, for parts re-drawn as a game moves: when the new children
 * look exactly like what is there, nothing is replaced (a press on a
 * button is never lost mid-click); otherwise a <details> with the same
 * `data-keep` stays open and the focused one keeps the focus. */
export function remount(el, ...children) {
  const fresh = append(document.createElement(el.tagName), children);
  const open = new Set([...el.querySelectorAll("details[open][data-keep]")].map((d) => d.dataset.keep));
  for (const details of fresh.querySelectorAll("details[data-keep]")) details.open = open.has(details.dataset.keep);
  if (fresh.innerHTML === el.innerHTML) return el;
  const focused = el.contains(document.activeElement) ? document.activeElement.closest("[data-keep]") : null;
  el.replaceChildren(...fresh.childNodes);
  if (focused) el.querySelector(`[data-keep="${CSS.escape(focused.dataset.keep)}"]`)?.focus();
  return el;
}
