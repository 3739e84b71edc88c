// The connection's grace: an overlay while the table's socket is down (it reconnects by itself),
// and, once back, a note of what was played for the seat meanwhile (state.missed).

import { $, el } from "./dom.js";

export function showReconnecting(on) {
  $("reconnecting").hidden = !on;
}

// Each action taken for the seat while it was away, in the server's own words (its `text`).
export function showMissed(missed) {
  if (!Array.isArray(missed) || !missed.length) return;
  $("missed-list").replaceChildren(...missed.map((a) => el("li", {}, a.text || a.type)));
  $("missed-close").onclick = () => { $("missed").hidden = true; };
  $("missed").hidden = false;
}

export function hideMissed() {
  $("missed").hidden = true;
}
