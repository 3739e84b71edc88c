// Replaying one of your finished hands step by step, and its review (复盘): your costliest decisions
// by the expert's expected points, each a tap away from its step.

import { api } from "./api.js";
import { $, el, toast } from "./dom.js";
import { actionWords } from "./hint.js";
import { call } from "./hooks.js";
import { errText, t } from "./i18n.js";
import { seatName } from "./log.js";
import { lineText } from "./settlement.js";
import { resetTable } from "./socket.js";
import { S } from "./state.js";

// The hand `id` on the table's view (the router shows it first).
export async function openReplay(id) {
  resetTable(null, false);
  const r = await api("GET", `/api/history/${encodeURIComponent(id)}`);
  if (!r.ok || !r.data || !Array.isArray(r.data.steps) || !r.data.steps.length) {
    toast(r.ok ? t("replay.empty") : errText(r));
    location.hash = "#/";
    return;
  }
  S.replay = { id, data: r.data, k: 0, timer: null, review: null };
  S.seat = r.data.seat;
  S.names = r.data.names || null;
  replayGo(0);
}

export function replayGo(k) {
  const R = S.replay;
  if (!R) return;
  const steps = R.data.steps;
  R.k = Math.max(0, Math.min(steps.length - 1, k));
  S.view = steps[R.k].view;
  call("render");
}

export function replayPlay() {
  const R = S.replay;
  if (!R) return;
  if (R.timer) { clearInterval(R.timer); R.timer = null; call("render"); return; }
  R.timer = setInterval(() => {
    if (!S.replay || S.replay !== R || R.k >= R.data.steps.length - 1) { clearInterval(R.timer); R.timer = null; if (S.replay === R) call("render"); return; }
    replayGo(R.k + 1);
  }, 700);
  call("render");
}

const REVIEW_SHOWN = 5;

// Ask the server for the review (it searches for a second or so), then show it under the controls.
export async function openReview() {
  const R = S.replay;
  if (!R || R.review) return;
  R.review = { loading: true };
  call("render");
  const r = await api("GET", `/api/history/${encodeURIComponent(R.id)}/review`);
  if (S.replay !== R) return;
  if (!r.ok || !r.data || !Array.isArray(r.data.decisions)) {
    R.review = null;
    toast(errText(r));
  } else {
    R.review = { data: r.data };
  }
  call("render");
}

function reviewPanel(review) {
  if (review.loading) {
    return el("div", { id: "review", class: "panel review", "data-testid": "review", "aria-busy": "true" },
      el("p", { class: "muted", text: t("review.loading") }));
  }
  const data = review.data;
  const mistakes = data.decisions.filter((d) => d.mistake)  // losses beyond the search's noise (review.py)
    .sort((a, b) => b.loss - a.loss || a.step - b.step).slice(0, REVIEW_SHOWN);
  const total = Object.values(data.total_loss || {}).reduce((x, y) => x + y, 0);
  const standIns = data.decisions.filter((d) => d.stand_in).length;  // 托管 took them: not the player's
  const items = mistakes.map((d) => el("li", { dataset: { step: String(d.step), loss: String(d.loss),
                                                          standIn: String(Boolean(d.stand_in)) } },
    el("button", { class: "ghost review-step", text: t("review.step", { step: d.step + 1 }),
                   on: { click: () => replayGo(d.step) } }),
    el("span", { class: "review-taken",
                 text: t(d.stand_in ? "review.stand_in" : "review.taken", { action: actionWords(d.taken) }) }),
    el("span", { class: "review-best", text: t("review.best", { action: actionWords(d.choices[0].action) }) }),
    el("b", { class: "review-loss", text: t("review.loss", { loss: d.loss.toFixed(2) }) })));
  return el("div", { id: "review", class: "panel review", "data-testid": "review" },
    el("b", { text: t("review.title") }),
    ...(standIns && standIns === data.decisions.length  // the stand-in took every one: no total of the player's
      ? [el("p", { class: "muted review-stand-ins", text: t("review.all_stand_in", { count: standIns }) })]
      : [el("p", { class: "muted", text: t("review.total", { count: data.decisions.length - standIns, loss: total.toFixed(2) }) }),
         standIns ? el("p", { class: "muted review-stand-ins", text: t("review.stand_ins", { count: standIns }) }) : null]),
    items.length ? el("ol", null, items) : el("p", { class: "review-none", text: t("review.none") }));
}

export function recordActionWords(a) {
  if (!a) return t("replay.deal");
  return `${seatName(a.seat)}: ${actionWords(a)}`;
}

export function renderReplayControls() {
  const R = S.replay;
  const steps = R.data.steps;
  const step = steps[R.k];
  const last = R.k === steps.length - 1;
  const prompt = $("prompt");
  prompt.hidden = false;
  const res = last && R.data.result ? R.data.result : null;
  const result = res ? [...(res.winners || []), ...(res.explain || []).map((x) => ({ text: x })), ...(res.ledger || [])]
    .map((e) => el("li", { text: lineText(e) })).filter((li) => li.textContent) : [];
  prompt.replaceChildren(
    el("div", { class: "replay-line", id: "replay-line", text: recordActionWords(step.action) }),
    el("div", { class: "row replay-controls" },
      el("button", { id: "replay-first", "aria-label": t("replay.first"), title: t("replay.first"), text: "⏮", on: { click: () => replayGo(0) } }),
      el("button", { id: "replay-prev", "aria-label": t("replay.prev"), title: t("replay.prev"), text: "◀", on: { click: () => replayGo(R.k - 1) } }),
      el("button", { id: "replay-play", class: "primary", "aria-label": t("replay.play"), title: t("replay.play"), text: R.timer ? "⏸" : "▶▶", on: { click: replayPlay } }),
      el("button", { id: "replay-next", "aria-label": t("replay.next"), title: t("replay.next"), text: "▶", on: { click: () => replayGo(R.k + 1) } }),
      el("button", { id: "replay-last", "aria-label": t("replay.last"), title: t("replay.last"), text: "⏭", on: { click: () => replayGo(steps.length - 1) } }),
      el("button", { id: "review-btn", "aria-pressed": R.review ? "true" : "false", text: t("review.button"),
                     disabled: !!R.review, on: { click: openReview } })),
    R.review ? reviewPanel(R.review) : "",
    result.length ? el("ol", { class: "replay-result" }, result) : "");
}
