// The views and the address: #/ (lobby), #/wallet, #/t/CODE[/watch], #/history/ID, #/tournament/ID; and /r/CODE,
// a friends' room's link, which becomes #/t/CODE (or the lobby, saying no room has that code).

import { refreshMe } from "./account.js";
import { api } from "./api.js";
import { $ } from "./dom.js";
import { t } from "./i18n.js";
import { leftLobby, loadLobby, resumeQueue } from "./lobby.js";
import { openReplay } from "./replay.js";
import { closeDialogs } from "./settlement.js";
import { disconnect, openTable, reconnect } from "./socket.js";
import { S } from "./state.js";
import { renderAll } from "./table.js";
import { closeTournament, openTournament } from "./tournaments.js";
import { loadWallet } from "./wallet.js";

export const VIEWS = ["login-view", "lobby-view", "wallet-view", "table-view", "tournament-view"];

export function showView(name) {
  for (const v of VIEWS) $(v).hidden = v !== name;
  document.body.dataset.view = name;
  if (name !== "table-view") closeDialogs();
}

// /r/CODE: the room's table if it is open, else the lobby with a word why
async function roomLink() {
  const link = location.pathname.match(/^\/r\/([A-Za-z0-9]{1,12})\/?$/);
  if (!link) return;
  const code = link[1].toUpperCase();
  const r = await api("GET", `/api/rooms/${encodeURIComponent(code)}`);
  history.replaceState(null, "", r.ok ? `/#/t/${code}` : "/#/");
  if (!r.ok) S.notice = t("room.unknown_code", { code });
}

export async function route() {
  await roomLink();
  const hash = location.hash || "#/";
  if (!S.me) await refreshMe();
  if (!S.me) {
    disconnect();
    S.replay = null;
    if (hash !== "#/" && hash !== "#/login") S.after = hash;
    showView("login-view");
    return;
  }
  const table = hash.match(/^#\/t\/([A-Za-z0-9]{1,12})(\/watch)?$/);
  if (hash !== "#/" && hash !== "") leftLobby();
  const replay = hash.match(/^#\/history\/([A-Za-z0-9_-]{1,64})$/);
  const tournament = hash.match(/^#\/tournament\/([a-z0-9_-]{1,80})$/);
  if (!tournament) closeTournament();
  if (tournament) {
    disconnect();
    S.replay = null;
    showView("tournament-view");
    openTournament(tournament[1]);
  } else if (table) {
    S.replay = null;
    showView("table-view");
    openTable(table[1].toUpperCase(), !!table[2]);
  } else if (replay) {
    disconnect();
    showView("table-view");
    openReplay(replay[1]);
  } else if (hash === "#/wallet") {
    disconnect();
    S.replay = null;
    showView("wallet-view");
    loadWallet();
  } else {
    disconnect();
    S.replay = null;
    showView("lobby-view");
    loadLobby();
    resumeQueue();
    if (S.notice) { $("join-error").textContent = S.notice; S.notice = null; }
  }
}

export function rerender() {
  if (!$("lobby-view").hidden) loadLobby();
  if (!$("wallet-view").hidden) loadWallet();
  if (!$("tournament-view").hidden) { const id = (location.hash.match(/^#\/tournament\/([a-z0-9_-]{1,80})$/) || [])[1]; if (id) openTournament(id); }
  if (!$("table-view").hidden) {
    // the server words the log in the connection's language: connect again for the hand in the new one
    if (S.code && !S.replay) reconnect();
    renderAll();
  }
}
