// Boot: the language, who is signed in, the header, then the page the hash names.

import { renderHeader } from "./header.js";
import { loadLanguage, t } from "./i18n.js";
import { hide as hideNotice } from "./notice.js";
import { renderAuth } from "./pages/auth.js";
import { renderLobby } from "./pages/lobby.js";
import { renderModeration } from "./pages/moderation.js";
import { renderLeaderboard, renderPlayer, renderProfile } from "./pages/players.js";
import { renderGamePage } from "./table/end.js";
import { renderTable } from "./table/page.js";
import { renderTournaments } from "./tournament/list.js";
import { renderTournament } from "./tournament/page.js";
import { renderReplay } from "./replay/page.js";
import { renderOverlay, renderStream } from "./watch/stream.js";
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
route(/^#\/games\/(\d+)$/, renderGamePage);
route(/^#\/games\/(\d+)\/replay(?:\?(.*))?$/, renderReplay);
route(/^#\/stream\/(\d+)$/, renderStream);
route(/^#\/stream\/(\d+)\/overlay$/, renderOverlay);
route(/^#\/profile$/, renderProfile);
route(/^#\/players\/([^/]+)(?:\/(\d+))?$/, renderPlayer);
route(/^#\/leaderboard(?:\/(\d+))?$/, renderLeaderboard);
route(/^#\/tournaments$/, renderTournaments);
route(/^#\/tournaments\/(\d+)$/, renderTournament);
route(/^#\/mod(?:\/(case|audit|ratings)(?:\/(\d+))?)?$/, renderModeration);
window.addEventListener("hashchange", hideNotice);
start();
