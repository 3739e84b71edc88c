// Item cards (道具) at a table that allows them: the shop and what you hold (GET /api/items, POST
// /api/items/buy), the use buttons (an "item" message), a seek card's answer and the cards used this
// hand (everyone's kind, your own cards whole), the golden finger (its marker is the table's: seats.js,
// table.js). The server says when a card may be used.

import { refreshMe } from "./account.js";
import { api } from "./api.js";
import { $, el, num, parseTiles, tileWords, toast } from "./dom.js";
import { call } from "./hooks.js";
import { errText, t, term } from "./i18n.js";
import { seatName } from "./log.js";
import { send } from "./socket.js";
import { legal, S } from "./state.js";

const IT = { open: false, shop: null, used: [], seek: null, hand: 0 };
const BEFORE_DEAL = ["double", "flush"];
const TILES = ["m", "p", "s"].flatMap((s) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `${n}${s}`));

export function initItems() {
  $("items-btn").addEventListener("click", () => {
    IT.open = !IT.open;
    if (IT.open) loadShop();
    call("render");
  });
}

async function loadShop() {
  const r = await api("GET", "/api/items");
  if (r.ok && r.data && r.data.items) IT.shop = r.data.items;
  call("render");
}

async function buy(kind) {
  const r = await api("POST", "/api/items/buy", { kind, count: 1 });
  if (!r.ok) { toast(errText(r)); return; }
  toast(t("items.bought", { card: term("item", kind) }));
  await refreshMe();
  await loadShop();
}

function use(kind) {
  const msg = { type: "item", kind, version: S.version };
  if (kind === "flush" && $("item-suit").value) msg.suit = $("item-suit").value;
  if (kind === "swap" || kind === "random_swap") msg.tile = $("item-tile").value;
  if (kind === "swap") msg.wanted = $("item-wanted").value;
  if (kind === "seek") msg.tile = $("item-wanted").value;
  IT.pending = kind;
  send(msg);
}

// what the table's messages say of item cards: the cards used (state), a seek's answer, a card used
export function onItemsMessage(msg) {
  if (msg.type === "state") {
    if (msg.hand_no !== IT.hand) { IT.hand = msg.hand_no; IT.seek = null; }
    IT.used = msg.items || [];
  } else if (msg.type === "seek") {
    IT.seek = msg;
  } else if (msg.type === "ok" && msg.for === "item") {
    if (IT.pending) toast(t("items.used_ok", { card: term("item", IT.pending) }));
    IT.pending = null;
    loadShop();
  }
}

function usable(kind) {
  const room = S.room;
  if (!room || S.seat === null || S.seat === undefined) return false;
  const playing = room.status === "playing";
  if (kind === "golden_finger") return room.status !== "closed" && !((room.items && room.items.golden_fingers) || []).includes(S.seat);
  if (BEFORE_DEAL.includes(kind)) return !playing;
  if (!playing || !S.view) return false;
  if (kind === "seek") return true;
  return legal().some((a) => a.type === "discard"); // swaps: on your own turn
}

function cardLine(u) {
  const who = seatName(u.seat);
  return `${who} ${term("item", u.kind)}`;
}

export function renderItems() {
  const room = S.room;
  const allowed = !!(room && room.items) && !S.replay;
  $("items-btn").hidden = !allowed || S.seat === null || S.seat === undefined;
  const box = $("items");
  if (!allowed || !IT.open) { box.hidden = true; return; }
  box.hidden = false;
  const rows = (IT.shop || []).filter((i) => i.kind !== "match_ticket").map((i) => el("li", { class: "item-row" },
    el("b", { text: term("item", i.kind) }),
    el("span", { class: "muted", text: ` ${t("items.owned", { count: i.owned })} · ${t("items.price", { price: num(i.price) })} ` }),
    el("button", { class: "small", "data-testid": `item-buy-${i.kind}`, text: t("items.buy"), on: { click: () => buy(i.kind) } }),
    el("button", { class: "small primary", "data-testid": `item-use-${i.kind}`, text: t("items.use"),
      disabled: !usable(i.kind) || i.owned < 1 || undefined, on: { click: () => use(i.kind) } })));
  const mine = S.view && S.view.hand ? parseTiles(S.view.hand) : [];
  const keep = (id) => ($(id) ? $(id).value : "");
  const was = { tile: keep("item-tile"), wanted: keep("item-wanted"), suit: keep("item-suit") };
  const pick = (id, label, values, words, chosen) => el("label", null, el("span", { text: label + " " }),
    el("select", { id, "data-testid": id }, values.map((v) => el("option", { value: v, selected: v === chosen || undefined,
      text: words(v) }))));
  const controls = el("div", { class: "item-controls" },
    pick("item-tile", t("items.my_tile"), [...new Set(mine)], tileWords, was.tile),
    pick("item-wanted", t("items.wanted"), TILES, tileWords, was.wanted),
    pick("item-suit", t("items.suit"), ["", "m", "p", "s"], (s) => (s ? t(`suit.${s}`) : t("items.suit_auto")), was.suit));
  const nextDeal = (room.items && room.items.next_deal) || [];
  const seek = IT.seek ? el("p", { "data-testid": "item-seek",
    text: t("items.seek_result", { tile: tileWords(IT.seek.tile), quarters: IT.seek.quarters.join(" / ") }) }) : null;
  box.replaceChildren(...[
    el("b", { text: t("items.title") }),
    el("ul", { class: "plain-list" }, rows),
    controls,
    seek,
    el("p", { class: "muted", "data-testid": "items-used", text: IT.used.length
      ? t("items.used") + IT.used.map(cardLine).join(t("items.sep")) : t("items.none") }),
    nextDeal.length ? el("p", { class: "muted", text: t("items.next_deal") + nextDeal.map(cardLine).join(t("items.sep")) }) : null,
    el("button", { class: "ghost small", text: t("items.close"), on: { click: () => { IT.open = false; call("render"); } } }),
  ].filter(Boolean));
}
