// The clocks: your decision's countdown, whose turn it is, the next hand's start.

import { $, secs } from "./dom.js";
import { t, term } from "./i18n.js";
import { seatName } from "./log.js";
import { answered, legal, mineToPlay, S } from "./state.js";

// The decision the seat faces, by the kinds of its legal actions, best first: 换三张, 定缺, 出牌 on
// its own turn (a kong or a self-drawn win offered there stays under 出牌), else the best claim it may make.
const DECISIONS = ["exchange", "dingque", "discard", "hu", "gang", "peng"];

export function decisionKind(acts) {
  const kinds = new Set(acts.map((a) => a.type));
  return DECISIONS.find((k) => kinds.has(k)) || "discard";
}

export function myDeadline() {
  const gone = performance.now() - S.stateAt;
  if (S.deadline !== null) return Math.max(0, S.deadline - gone);
  if (S.timer && S.timer.mine) return Math.max(0, S.timer.remaining_ms - gone);
  return null;
}

export function myTotal() {
  if (S.timer && S.timer.mine && S.timer.total_ms) return S.timer.total_ms;
  return S.deadline || 1;
}

export function nextHandLeft() {
  if (S.room && S.room.status === "between" && typeof S.room.next_hand_ms === "number") {
    return Math.max(0, S.room.next_hand_ms - (performance.now() - S.roomAt));
  }
  if (S.handEnd && typeof S.handEnd.next_hand_ms === "number") {
    return Math.max(0, S.handEnd.next_hand_ms - (performance.now() - S.handEndAt));
  }
  return null;
}

export function renderClocks() {
  if (S.replay) { $("turn-clock").textContent = ""; return; }
  const mine = mineToPlay() && !answered() ? myDeadline() : null;
  const node = $("my-clock");
  if (node && mine !== null) {
    node.querySelector(".bar > span").style.width = `${Math.round(Math.min(1, mine / myTotal()) * 100)}%`;
    node.querySelector("b").textContent = t("clock.seconds", { count: secs(mine) });
    node.classList.toggle("urgent", mine < 5000);
  }
  const other = S.timer && !S.timer.mine ? Math.max(0, S.timer.remaining_ms - (performance.now() - S.stateAt)) : null;
  let text = "";
  if (mine !== null) text = t("clock.yours", { what: term("action", decisionKind(legal())), count: secs(mine) });
  else if (other !== null) text = t("clock.theirs", { who: seatName(S.timer.seat), count: secs(other) });
  const next = nextHandLeft();
  if (next !== null && S.room && S.room.status === "between") text = t("clock.next_hand", { count: secs(next) });
  $("turn-clock").textContent = text;
  const label = $("settle-countdown");
  if ($("settlement").open) {
    label.textContent = next !== null && S.room && S.room.status === "between" ? t("clock.next_hand", { count: secs(next) })
      : S.handEnd && S.handEnd.final ? t("settle.final") : "";
  }
}
