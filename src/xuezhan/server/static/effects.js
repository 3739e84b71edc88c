// What the table plays and shows for the moments of a hand: a sound for peng, a kong, a win, a
// self-drawn win (zimo), the player's own turn and the last seconds of its clock, and a short effect
// over the table for a win (hu), a self-drawn win (zimo), an exposed kong (guafeng: zhigang, bugang),
// a concealed kong (xiayu: angang) and two or more wins on one discard (yipao, "one shot, many
// rings"); its words come from the catalog (web.effect.*). The effect also records itself:
// data-effect on #effect while it shows, data-last-effect and data-effects (the latest few) on
// <body>, for tests.

import { myDeadline } from "./clocks.js";
import { $, el } from "./dom.js";
import { t } from "./i18n.js";
import { seatName } from "./log.js";
import { initSound, play } from "./sound.js";
import { answered, mineToPlay, S } from "./state.js";

const SHOW_MS = 1800;
const URGENT_MS = 5000;
const KEEP = 20;

const WORDS = {
  hu: () => t("effect.hu"),
  zimo: () => t("effect.zimo"),
  guafeng: () => t("effect.guafeng"),
  xiayu: () => t("effect.xiayu"),
  yipao: () => t("effect.yipao"),
};

let seenDecision = null;
let hideTimer = null;
let lastTick = null;

const selfDrawn = (w) => w.from === null || w.from === undefined;

// The strongest moment among one message's events: its effect (or null), its sound and its seats.
export function moment(events) {
  const wins = events.filter((e) => e.type === "hu");
  const onDiscard = new Map();
  for (const w of wins) if (!selfDrawn(w)) onDiscard.set(w.from, (onDiscard.get(w.from) || 0) + 1);
  if ([...onDiscard.values()].some((n) => n >= 2)) {
    return { effect: "yipao", sound: "hu", seats: wins.filter((w) => !selfDrawn(w)).map((w) => w.seat) };
  }
  const zimo = wins.find(selfDrawn);
  if (zimo) return { effect: "zimo", sound: "zimo", seats: [zimo.seat] };
  if (wins.length) return { effect: "hu", sound: "hu", seats: [wins[0].seat] };
  const kong = events.find((e) => e.type === "zhigang" || e.type === "bugang" || e.type === "angang");
  if (kong) return { effect: kong.type === "angang" ? "xiayu" : "guafeng", sound: "gang", seats: [kong.seat] };
  if (events.some((e) => e.type === "peng")) return { effect: null, sound: "peng", seats: [] };
  return null;
}

function record(kind) {
  const body = document.body.dataset;
  body.lastEffect = kind;
  body.effects = [...(body.effects ? body.effects.split(" ") : []), kind].slice(-KEEP).join(" ");
}

export function showEffect(kind, seats) {
  const box = $("effect");
  if (!box || !WORDS[kind]) return;
  const who = seats.map((s) => seatName(s)).join(" · ");
  const word = WORDS[kind]();
  box.replaceChildren(el("b", { class: "effect-word" + (word.length > 3 ? " long" : ""), text: word }),
    who ? el("span", { class: "effect-who", text: who }) : null);
  box.dataset.effect = kind;
  box.hidden = false;
  box.classList.remove("play");
  void box.offsetWidth; // start the animation again for a second effect in a row
  box.classList.add("play");
  record(kind);
  clearTimeout(hideTimer);
  hideTimer = setTimeout(hideEffect, SHOW_MS);
}

// No effect over the table any more (another table, or a replay, is shown in its place).
export function hideEffect() {
  const box = $("effect");
  clearTimeout(hideTimer);
  if (!box) return;
  box.hidden = true;
  box.classList.remove("play");
  delete box.dataset.effect;
}

// A `state` message's sound and effect. The events of a message that shows the hand again from its
// start (`reset`: the first message of a connection) are not news: only a decision new to the page sounds.
export function onState(msg) {
  const decision = msg.decision === undefined ? null : msg.decision;
  const fresh = decision !== null && decision !== seenDecision && !msg.trustee;
  seenDecision = decision;
  const m = msg.reset ? null : moment(msg.events || []);
  if (m && m.effect) showEffect(m.effect, m.seats);
  if (m) play(m.sound);
  else if (fresh) play("turn");
}

// The last seconds of the player's own clock: one tick a second.
function tick() {
  if ($("table-view").hidden || !mineToPlay() || answered() || S.trustee) { lastTick = null; return; }
  const left = myDeadline();
  if (left === null || left <= 0 || left > URGENT_MS) return;
  const key = `${S.decision}:${Math.ceil(left / 1000)}`;
  if (key !== lastTick) { lastTick = key; play("tick"); }
}

export function initEffects() {
  initSound();
  setInterval(tick, 200);
}
