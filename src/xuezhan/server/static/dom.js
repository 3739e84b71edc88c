// Small helpers for the page: elements, tiles' pictures and words, numbers, toasts, the confirmation dialog. Text from
// players is always set as text.

import { I18N, t } from "./i18n.js";

export const $ = (id) => document.getElementById(id);

export function el(tag, props, ...children) {
  const node = document.createElement(tag);
  if (props) {
    for (const [k, v] of Object.entries(props)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k === "on") for (const [ev, fn] of Object.entries(v)) node.addEventListener(ev, fn);
      else if (k === "dataset") Object.assign(node.dataset, v);
      else node.setAttribute(k, v === true ? "" : v);
    }
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

export function tileWords(name) {
  if (!name || name === "back") return t("tile.back");
  return t("tile.name", { n: name[0], suit: t(`suit.${name[1]}`) });
}

// a tile's picture; inside a hand's button (which carries data-tile itself) it is bare
export function tileImg(name, cls, bare) {
  return el("img", { class: "tile" + (cls ? " " + cls : ""), src: `/tiles/${name || "back"}.svg`, alt: bare ? "" : tileWords(name),
    draggable: "false", dataset: bare ? null : { tile: name || "back" } });
}

export function parseTiles(text) {
  const out = [];
  let digits = [];
  for (const ch of text || "") {
    if (ch >= "1" && ch <= "9") digits.push(ch);
    else if ("mps".includes(ch)) { for (const d of digits) out.push(d + ch); digits = []; }
  }
  return out;
}

export function compact(tiles) {
  const bySuit = { m: [], p: [], s: [] };
  for (const x of tiles) bySuit[x[1]].push(x[0]);
  return ["m", "p", "s"].filter((s) => bySuit[s].length).map((s) => bySuit[s].sort().join("") + s).join("");
}

export function signed(n) { return n > 0 ? "+" + n.toLocaleString(I18N.lang) : n.toLocaleString(I18N.lang); }

export function num(n) { return typeof n === "number" ? n.toLocaleString(I18N.lang) : "–"; }

export function secs(ms) { return Math.max(0, Math.ceil(ms / 1000)); }

export function toast(text, kind) {
  const node = el("div", { class: "toast" + (kind ? " " + kind : ""), role: "status", text });
  $("toasts").append(node);
  setTimeout(() => node.remove(), 4500);
}

// A confirmation in the page's own dialog (window.confirm cannot be styled or translated).
export function confirmBox(title, text, okKey) {
  return new Promise((resolve) => {
    const dlg = $("confirm");
    $("confirm-title").textContent = title;
    $("confirm-text").textContent = text;
    $("confirm-ok").textContent = t(okKey || "confirm.ok");
    const done = (answer) => { dlg.onclose = null; if (dlg.open) dlg.close(); resolve(answer); };
    $("confirm-ok").onclick = () => done(true);
    $("confirm-cancel").onclick = () => done(false);
    dlg.onclose = () => resolve(false);
    dlg.showModal();
  });
}
