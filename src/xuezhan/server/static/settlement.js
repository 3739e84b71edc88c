// The end of a hand and of a match: the settlement and standings dialogs, leaving, sharing the table.

import { $, confirmBox, el, num, signed, tileImg, toast } from "./dom.js";
import { t, term } from "./i18n.js";
import { S } from "./state.js";

export function closeDialogs() {
  for (const id of ["settlement", "match-end"]) if ($(id).open) $(id).close();
}

export function renderDialogs() {
  const he = S.handEnd;
  const dlg = $("settlement");
  if (he && !S.lookAtTable && !S.replay) {
    fillSettlement(he);
    if (!dlg.open) dlg.showModal();
  } else if (dlg.open) {
    dlg.close();
  }
  const end = $("match-end");
  if (!S.replay && S.matchEnd && S.room && S.room.status === "finished" && (S.lookAtTable || !he)) {
    $("standings").replaceChildren(...S.matchEnd.standings.map((p) => el("li", null,
      el("b", { text: p.bot ? `${p.name} · ${t("seat.bot")}` : p.name }), " ",
      el("span", { class: p.points >= 0 ? "pos" : "neg", text: t("common.points", { count: p.points }) }))));
    if (!end.open) end.showModal();
  } else if (end.open) {
    end.close();
  }
}

export function lineText(x) { return x.text || x.words || ""; }

export function fillSettlement(he) {
  let title = t("settle.title", { n: he.hand_no });
  if (he.exhausted) title += " · " + term("event", "wall_empty");
  if (he.escaped && he.escaped.length) title += " · " + term("reason", "escape");
  $("settle-title").textContent = title;
  $("settle-winners").replaceChildren(...(he.winners.length ? he.winners.map((w) => el("div", { class: "winner" },
    tileImg(w.tile), el("div", null, el("div", { text: lineText(w) || he.names[w.seat] }),
      el("div", { class: "fan", text: t("settle.fan", { fan: w.fan, multiple: w.multiple }) }))))
    : [el("p", { class: "muted", text: t("settle.no_winner") })]));
  const explain = he.explain || [];
  $("settle-explain").hidden = explain.length === 0;
  $("settle-explain").replaceChildren(...explain.map((s) => el("li", { text: s })));
  $("settle-rows").replaceChildren(...he.names.map((name, i) => {
    const coins = he.coins ? he.coins[i] : null;
    const bal = he.balances ? he.balances[i] : null;
    const bot = he.bots && he.bots[i];
    return el("tr", { class: i === S.seat ? "me" : "" },
      el("td", { text: name + (i === S.seat ? ` (${t("seat.you")})` : "") }),
      el("td", { class: "num " + (he.points[i] > 0 ? "pos" : he.points[i] < 0 ? "neg" : ""), text: signed(he.points[i]) }),
      el("td", { class: "num " + (coins > 0 ? "pos" : coins < 0 ? "neg" : ""), text: coins === null ? "–" : signed(coins) }),
      el("td", { class: "num", text: bot ? t("seat.house") : num(bal) }));
  }));
  $("settle-ledger").replaceChildren(...(he.ledger.length ? he.ledger.map((e) => el("li", { text: lineText(e) }))
    : [el("li", { class: "muted", text: t("settle.no_payments") })]));
  const room = S.room;
  const next = $("settle-next");
  next.hidden = S.seat === null || !room || room.status !== "between";
  const meReady = room && S.seat !== null && room.seats[S.seat] && room.seats[S.seat].ready;
  next.disabled = !!meReady;
  next.textContent = meReady ? t("settle.waiting") : t("settle.next");
}

export async function leaveTable() {
  if (S.replay) { location.hash = "#/"; return; }
  const room = S.room;
  const v = S.view;
  const active = room && room.status === "playing" && S.seat !== null && v && !v.seats[S.seat].escaped && v.phase !== "over";
  if (active && !(await confirmBox(t("leave.title"), t("leave.escape_warning", { escape: term("reason", "escape") }), "leave.confirm"))) return;
  const ws = S.ws;
  const seated = S.seat !== null;
  // the socket is dropped at once: whatever it still says (a hand_end of the escape) is never shown
  S.ws = null;
  S.wsWanted = false;
  S.code = null;
  S.handEnd = null;
  S.matchEnd = null;
  closeDialogs();
  if (ws) {
    if (seated && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "leave" }));
    setTimeout(() => ws.close(), 400);
  }
  location.hash = "#/";
}

export async function shareLink() {
  if (!S.code) return;
  const link = `${location.origin}/?watch=${S.code}`;
  try {
    await navigator.clipboard.writeText(link);
    toast(t("table.link_copied", { link }), "info");
  } catch (e) {
    toast(t("table.watch_link", { link }), "info");
  }
}
