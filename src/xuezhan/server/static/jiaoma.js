// Jiao ma (bystander bets, rules.md §12): a spectator bets on the next hand. Between hands the people watching get a button; at the deal the
// bystander alone is told its tile and seat (the "jiao_ma" message); everyone else sees only who bets
// (room.bystanders). The settlement lists every bet with its coins (hand_end.bystanders).

import { $, el, num, tileImg, tileWords } from "./dom.js";
import { t } from "./i18n.js";
import { seatName } from "./log.js";
import { send } from "./socket.js";
import { S } from "./state.js";

const ASKING = ["waiting", "between", "finished"];
const MAX_BYSTANDERS = 4;

// The bystander's own bet, for the hand being dealt (it comes right after that hand's first state).
export function onJiaoMa(msg) {
  S.jiaoMa = { tile: msg.tile, seat: msg.seat, handNo: S.handNo };
}

function myBet() {
  const room = S.room;
  const bet = S.jiaoMa;
  return bet && room && room.status === "playing" && bet.handNo === S.handNo ? bet : null;
}

function askButton(room, id) {
  const full = (room.bystanders || []).length >= MAX_BYSTANDERS;
  return el("button", { id, class: "primary", disabled: full, text: t("jiao_ma.ask"),
    on: { click: () => send({ type: "jiao_ma" }) } });
}

// A spectator between hands: asked already, or may ask (null: neither, a seat or a hand under way).
function asking(room) {
  if (S.seat !== null || !ASKING.includes(room.status)) return null;
  const me = S.me && S.me.name;
  return me !== null && me !== undefined && (room.bystanders || []).includes(me) ? "asked" : "ask";
}

export function renderJiaoMa() {
  const box = $("jiao-ma");
  const room = S.room;
  const bet = myBet();
  box.replaceChildren();
  for (const k of ["betTile", "betSeat", "state"]) delete box.dataset[k];
  if (S.replay || !room) { box.hidden = true; return; }
  const names = room.bystanders || [];
  const state = asking(room);
  if (bet) {
    Object.assign(box.dataset, { betTile: bet.tile, betSeat: String(bet.seat), state: "mine" });
    box.append(tileImg(bet.tile, "jm-tile", true),
      el("span", { class: "jm-text", text: `${tileWords(bet.tile)} · ${t("jiao_ma.mine", { name: seatName(bet.seat) })}` }));
  } else if (state && !(S.handEnd && !S.lookAtTable)) {
    box.dataset.state = state;
    box.append(...askParts(room, state, "jiao-ma-ask"));
  } else if (names.length && room.status === "playing") {
    box.dataset.state = "others";
    box.append(el("span", { class: "jm-text", text: t("jiao_ma.others", { names: names.join(" · ") }) }));
  } else {
    box.hidden = true;
    return;
  }
  box.hidden = false;
}

function askParts(room, state, id) {
  return state === "asked" ? [el("span", { class: "jm-text", text: t("jiao_ma.asked") })]
    : [el("span", { class: "jm-note muted small-text", text: t("jiao_ma.note") }), askButton(room, id)];
}

function signed(n) { return n > 0 ? "+" + num(n) : n < 0 ? "-" + num(-n) : num(0); }

// The settlement's bets: who, its tile, the seat it followed, its coins; and for a spectator, the next hand's
// bet to ask for without leaving the settlement.
export function fillBystanders(he) {
  const bets = he.bystanders || [];
  const box = $("settle-bystanders");
  const state = S.room && !S.replay ? asking(S.room) : null;
  box.hidden = bets.length === 0 && !state;
  box.replaceChildren(el("h3", { text: t("jiao_ma.settle_title") }),
    ...bets.map((b) => el("div", { class: "jm-line", dataset: { name: b.name, betTile: b.tile, betSeat: String(b.seat) } },
      el("span", { class: "who", text: b.name }), tileImg(b.tile, "jm-tile", true),
      el("span", { class: "how", text: `${tileWords(b.tile)} · ${t("jiao_ma.followed", { name: he.names[b.seat] })}` }),
      typeof b.coins === "number"
        ? el("span", { class: "amt " + (b.coins > 0 ? "pos" : b.coins < 0 ? "neg" : "zero"), dataset: { amount: String(b.coins) },
          text: t("settle.amount_coins", { n: signed(b.coins), count: Math.abs(b.coins) }) })
        : el("span", { class: "amt zero", text: "–" }))),
    state ? el("div", { class: "jm-ask", dataset: { state } }, ...askParts(S.room, state, "settle-jiao-ma")) : null);
}
