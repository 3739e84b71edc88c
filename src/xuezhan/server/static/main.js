// 血战到底: the browser client. Plain JavaScript, no build step, no third-party code.
// The server is authoritative: this page shows the view it is sent and offers only the legal
// actions listed in it. Every sentence comes from the message catalogs (GET /api/i18n), every
// game term from the vocabulary (GET /api/vocab); text from players is always set as text.
// This module wires the page up; the others each hold one concern (see index.html, docs/web.md). Their imports
// run one way, down the layers: a module calls one above it through a hook (hooks.js) that this module provides,
// and the table's socket hands each message on to the modules that listen for its type (socket.js).

import { logout, signIn } from "./account.js";
import { renderClocks } from "./clocks.js";
import { $ } from "./dom.js";
import { initEffects } from "./effects.js";
import { trackReceived } from "./hand.js";
import { askHint } from "./hint.js";
import { provide } from "./hooks.js";
import { loadMessages, loadVocab, setLang } from "./i18n.js";
import { initItems, onItemsMessage } from "./items.js";
import { onJiaoMa } from "./jiaoma.js";
import { createRoom, initQueue, joinByCode, loadLobby, quickstart } from "./lobby.js";
import { rerender, route } from "./router.js";
import { closeDialogs, leaveTable, shareLink } from "./settlement.js";
import { disconnect, listen, send } from "./socket.js";
import { S } from "./state.js";
import { renderAll } from "./table.js";
import { setPassword, takeRelief } from "./wallet.js";

// What the modules below call by name (hooks.js), and what listens for which of the table's messages (socket.js).
provide("render", renderAll);
provide("route", route);
provide("disconnect", disconnect);
provide("closeDialogs", closeDialogs);
for (const type of ["state", "seek", "ok"]) listen(type, onItemsMessage);
listen("state", trackReceived);
listen("jiao_ma", onJiaoMa);

function init() {
  $("login-form").addEventListener("submit", (ev) => { ev.preventDefault(); signIn("login"); });
  $("register-btn").addEventListener("click", () => signIn("register"));
  $("guest-btn").addEventListener("click", () => signIn("guest"));
  $("logout-btn").addEventListener("click", logout);
  $("quickstart").addEventListener("click", quickstart);
  initQueue();
  $("create-form").addEventListener("submit", createRoom);
  $("join-form").addEventListener("submit", (ev) => joinByCode(ev, false));
  $("watch-btn").addEventListener("click", () => joinByCode(null, true));
  $("rooms-refresh").addEventListener("click", loadLobby);
  $("relief-btn").addEventListener("click", takeRelief);
  $("password-form").addEventListener("submit", setPassword);
  $("leave-btn").addEventListener("click", leaveTable);
  $("trustee-btn").addEventListener("click", () => send({ type: "trustee", on: !S.trustee }));
  $("trustee-off").addEventListener("click", () => send({ type: "trustee", on: false }));
  $("hint-btn").addEventListener("click", askHint);
  $("log-btn").addEventListener("click", () => { S.logOpen = !S.logOpen; renderAll(); });
  $("share-btn").addEventListener("click", shareLink);
  $("settle-next").addEventListener("click", () => send({ type: "ready" }));
  $("settle-look").addEventListener("click", () => { S.lookAtTable = true; renderAll(); });
  $("settle-leave").addEventListener("click", leaveTable);
  $("settlement").addEventListener("cancel", (ev) => { ev.preventDefault(); S.lookAtTable = true; renderAll(); });
  $("match-again").addEventListener("click", () => { S.handEnd = null; S.matchEnd = null; closeDialogs(); send({ type: "start" }); });
  $("match-lobby").addEventListener("click", () => { closeDialogs(); leaveTable(); });
  $("match-tournament").addEventListener("click", () => {
    const cup = S.room && S.room.tournament;
    S.handEnd = null;
    S.matchEnd = null;
    closeDialogs();
    if (cup) location.hash = `#/tournament/${encodeURIComponent(cup)}`;
  });
  for (const sel of document.querySelectorAll("select.lang-select")) {
    sel.addEventListener("change", async () => { if (await setLang(sel.value)) rerender(); });
  }
  window.addEventListener("hashchange", route);
  initEffects();
  initItems();
  setInterval(() => { if (!$("table-view").hidden) renderClocks(); }, 250);
  setInterval(() => { if (!$("lobby-view").hidden) loadLobby(); }, 15000);
  // a spectator's link: /?watch=CODE opens that table to watch
  const watch = new URLSearchParams(location.search).get("watch");
  if (watch && /^[A-Za-z0-9]{1,12}$/.test(watch)) history.replaceState(null, "", `/#/t/${watch.toUpperCase()}/watch`);
  Promise.all([loadVocab(), loadMessages(null)]).then(route);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
else init();
