// 听牌提示: the waits bar while your hand is ready (or the waits of the tile you picked to discard), and the badge of
// live winning tiles on each tile whose discard leaves the hand ready. The server reckons them from what you see.

import { $, el, tileImg, tileWords } from "./dom.js";
import { t } from "./i18n.js";
import { S } from "./state.js";

// how many winning tiles are still out of your sight
export function liveCount(waits) { return waits.reduce((n, w) => n + w.left, 0); }

// the waits a discard of `tile` would leave (an empty list when it leaves the hand not ready)
export function discardWaits(tile) {
  const dw = (S.view && S.view.discard_waits) || {};
  return (tile && dw[tile]) || [];
}

// the bar: `picked`, the tile chosen to discard, shows what that discard would leave
export function renderWaits(picked) {
  const node = $("waits");
  const after = picked ? discardWaits(picked) : [];
  const waits = after.length ? after : (S.view && S.view.waits) || [];
  node.hidden = waits.length === 0;
  if (!waits.length) { node.replaceChildren(); return; }
  node.replaceChildren(
    el("span", { class: "waits-label", text: after.length ? t("waits.after", { tile: tileWords(picked) }) : t("waits.title") }),
    ...waits.map((w) => el("span", { class: "wait" + (w.left ? "" : " dead"), dataset: { tile: w.tile, left: String(w.left) },
      "aria-label": t("waits.item", { tile: tileWords(w.tile), count: w.left, fan: w.fan }) },
    tileImg(w.tile, "", true), el("b", { text: t("waits.left", { count: w.left }) }), el("small", { text: t("waits.fan", { count: w.fan }) }))),
    el("span", { class: "waits-total", text: t("waits.total", { count: liveCount(waits) }) }));
}

// a hand tile's mark on your discard decision: data-waits and a badge when discarding it leaves the hand ready
export function markWaits(button, tile) {
  const waits = discardWaits(tile);
  if (!waits.length) return;
  const n = liveCount(waits);
  button.dataset.waits = String(n);
  button.classList.add("readies");
  button.append(el("span", { class: "waits-badge", "aria-hidden": "true", text: String(n) }));
}
