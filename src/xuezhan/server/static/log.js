// Seats by name, and the table's log: each event in the server's words (its `text`).

import { $, el, parseTiles, tileImg } from "./dom.js";
import { t } from "./i18n.js";
import { S } from "./state.js";

export function seatInfo(i) {
  if (S.room && S.room.seats && S.room.seats[i]) return S.room.seats[i];
  if (S.names && S.names[i] !== undefined) return { seat: i, name: S.names[i], bot: false };
  return null;
}

export function seatName(i) {
  if (i === null || i === undefined) return "?";
  if (i === S.seat) return t("seat.you");
  const s = seatInfo(i);
  return (s && s.name) || t("common.seat", { seat: i + 1 });
}

export function logLine(cls, ...parts) {
  const log = $("log");
  log.append(el("li", { class: cls || "" }, ...parts));
  while (log.children.length > 300) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

// The log shows the server's words for each event (its `text`, in this connection's language),
// with the pictures of the tiles the event names.
export const LOG_CLASS = { exchange: "mine", exchange_received: "mine", draw: "mine", pass_hu: "mine", hu: "win", pay: "pay" };

export function logEvent(ev) {
  if (ev.type === "discard") S.lastDiscard = ev.seat; // the river that shows the latest discard
  if (!ev.text) return;
  const pictures = ev.tile ? [tileImg(ev.tile)] : typeof ev.tiles === "string" ? parseTiles(ev.tiles).map((x) => tileImg(x)) : [];
  logLine(LOG_CLASS[ev.type] || "", ev.text, pictures.length ? " " : "", ...pictures);
}
