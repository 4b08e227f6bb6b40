// Boot: the language, who is signed in, the header, then the page the hash names.

import { renderHeader } from "./header.js";
import { loadLanguage, t } from "./i18n.js";
import { hide as hideNotice } from "./notice.js";
import { renderAuth } from "./pages/auth.js";
import { renderLobby } from "./pages/lobby.js";
import { renderModeration } from "./pages/moderation.js";
import { renderTable } from "./table/page.js";
import { route, start } from "./router.js";
import { loadSession, onSessionChange } from "./session.js";

await loadLanguage();
document.title = t("app.name");
document.getElementById("api-link").textContent = t("footer.api");
await loadSession();
renderHeader();
onSessionChange(renderHeader);

route(/^#\/?$/, renderLobby);
route(/^#\/(signin|signup)$/, renderAuth);
route(/^#\/table\/(\d+)$/, renderTable);
route(/^#\/mod(?:\/(case|audit)(?:\/(\d+))?)?$/, renderModeration);
window.addEventListener("hashchange", hideNotice);
start();
