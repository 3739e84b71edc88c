// The end of a hand and of a match: the settlement and standings dialogs, leaving, sharing the table.

import { $, confirmBox, el, num, parseTiles, tileImg, toast } from "./dom.js";
import { t, term } from "./i18n.js";
import { fillBystanders } from "./jiaoma.js";
import { S } from "./state.js";

export function closeDialogs() {
  for (const id of ["settlement", "match-end"]) if ($(id).open) $(id).close();
}

export function renderDialogs() {
  const he = S.handEnd;
  const dlg = $("settlement");
  if (he && !S.lookAtTable && !S.replay) {
    fillSettlement(he);
    if (!dlg.open) {
      dlg.showModal();
      // it opens at its top, title first, whatever the browser chose to focus
      $("settle-title").focus({ preventScroll: true });
      dlg.scrollTop = 0;
    }
  } else if (dlg.open) {
    dlg.close();
  }
  const end = $("match-end");
  if (!S.replay && S.matchEnd && S.room && S.room.status === "finished" && (S.lookAtTable || !he)) {
    $("standings").replaceChildren(...standingRows(S.matchEnd));
    // a tournament's table plays one match: no 再来一场, the way back to its standings instead
    const cup = S.room.tournament;
    $("match-again").hidden = !!cup;
    $("match-tournament").hidden = !cup;
    if (!end.open) end.showModal();
  } else if (end.open) {
    end.close();
  }
}

export function lineText(x) { return x.text || x.words || ""; }

// An amount with its sign and unit, in an element of its own (never run into a name): +6 分, -6 分, 0 分.
export function signedText(n) { return n > 0 ? "+" + num(n) : n < 0 ? "-" + num(-n) : num(0); }

function amount(n, key) {
  return el("span", { class: "amt " + (n > 0 ? "pos" : n < 0 ? "neg" : "zero"), dataset: { amount: String(n) },
    text: t(key, { n: signedText(n), count: Math.abs(n) }) });
}

function who(name, seat) {
  return el("span", { class: "who" + (seat !== undefined && seat === S.seat ? " me" : ""), text: name });
}

// A win: who, how (self-drawn or whose discard), the points it brought; the hand laid down (concealed tiles,
// melds, the winning tile apart and marked); the pattern with its fan and roots.
function winnerBlock(he, w) {
  const how = w.from === null || w.from === undefined ? term("reason", "zimo")
    : t("settle.won_from", { name: he.names[w.from] });
  const hand = el("div", { class: "win-hand" },
    el("span", { class: "concealed" }, parseTiles(w.concealed || "").map((x) => tileImg(x))),
    ...(w.melds || []).map((m) => el("span", { class: "meld " + m.kind }, parseTiles(m.tiles).map((x) => tileImg(x)))),
    el("span", { class: "won-tile", title: term("action", "hu") }, tileImg(w.tile)));
  return el("div", { class: "winner", dataset: { seat: String(w.seat) } },
    el("div", { class: "win-top" }, who(he.names[w.seat], w.seat), el("span", { class: "how", text: how }),
      el("span", { class: "win-pattern", text: w.pattern || t("settle.fan", { fan: w.fan, multiple: w.multiple }) }),
      typeof w.won === "number" ? amount(w.won, "settle.amount_points") : null),
    hand);
}

// The payments other than wins, a line per kind (kongs, the wall's end checks, tax refunds ...): each seat's net points.
function kindLine(he, k) {
  return el("li", { class: "kind", dataset: { kind: k.kind } }, el("span", { class: "kind-name", text: k.name }),
    el("span", { class: "kind-seats" }, ...k.points.map((p, seat) => (p === 0 ? null
      : el("span", { class: "pair" }, who(he.names[seat], seat), amount(p, "settle.amount_points"))))));
}

// A payment under 明细: who paid whom, why, how much; the amount never next to a name.
function paymentLine(he, e) {
  return el("li", { class: "payment" }, who(he.names[e.from], e.from), el("span", { class: "how", text: t("settle.paid") }),
    who(he.names[e.to], e.to), el("span", { class: "how", text: term("reason", e.reason) }),
    el("span", { class: "amt", dataset: { amount: String(e.points) }, text: t("settle.amount_points", { n: num(e.points), count: e.points }) }));
}

function standingRows(end) {
  return end.standings.map((p, i) => el("li", { class: "standing" },
    el("span", { class: "rank", text: String(i + 1) }),
    el("span", { class: "who", text: p.name }, p.bot ? el("small", { class: "muted", text: " " + t("seat.bot_mark") }) : null),
    amount(p.points, "settle.amount_points"),
    typeof p.coins === "number" ? amount(p.coins, "settle.amount_coins") : el("span", { class: "amt zero", text: "–" })));
}

export function fillSettlement(he) {
  let title = t("settle.title", { n: he.hand_no });
  // 流局 is a hand nobody won; a wall run out after wins is no 流局
  if (he.exhausted && !he.winners.length) title += " · " + term("event", "wall_empty");
  if (he.escaped && he.escaped.length) title += " · " + term("reason", "escape");
  $("settle-title").textContent = title;
  $("settle-winners").replaceChildren(...(he.winners.length ? he.winners.map((w) => winnerBlock(he, w))
    : [el("p", { class: "muted", text: t("settle.no_winner") })]));
  const kinds = he.kinds || [];
  $("settle-kinds").hidden = kinds.length === 0;
  $("settle-kinds").replaceChildren(...kinds.map((k) => kindLine(he, k)));
  $("settle-rate").textContent = t("settle.rate", { n: he.coefficient }) + " · " + t("settle.fee", { fee: he.fee });
  $("settle-rows").replaceChildren(...he.names.map((name, i) => {
    const coins = he.coins ? he.coins[i] : null;
    const bal = he.balances ? he.balances[i] : null;
    const bot = he.bots && he.bots[i];
    return el("tr", { class: i === S.seat ? "me" : "" },
      el("td", null, who(name, i), i === S.seat ? el("small", { class: "muted", text: ` (${t("seat.you")})` }) : null),
      el("td", { class: "num" }, amount(he.points[i], "settle.amount_points")),
      el("td", { class: "num" }, coins === null ? "–" : amount(coins, "settle.amount_coins")),
      el("td", { class: "num", text: bot ? t("seat.house") : num(bal) }));
  }));
  fillBystanders(he);
  const standings = he.final && S.matchEnd ? S.matchEnd : null;
  $("settle-standings").hidden = !standings;
  if (standings) {
    $("settle-standings-title").textContent = t("settle.standings", { count: standings.hands });
    $("settle-standings-list").replaceChildren(...standingRows(standings));
  }
  $("settle-ledger").replaceChildren(...(he.ledger.length ? he.ledger.map((e) => paymentLine(he, e))
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
