// The page's sentences (GET /api/i18n) and the game's terms (GET /api/vocab), in the chosen language, and the
// words of a refusal.

import { api } from "./api.js";
import { S } from "./state.js";

export const I18N = { lang: "zh-CN", messages: {} };

export const VOCAB = { langs: ["zh-CN", "zh-TW", "en"], default: "zh-CN", kinds: {} };

export function fmtValue(v) {
  return typeof v === "number" ? v.toLocaleString(I18N.lang) : String(v);
}

// t("lobby.join") reads web.lobby.join; t("common.coins", {count}) reads a common message.
export function t(key, params) {
  const full = key.startsWith("common.") ? key : "web." + key;
  let m = I18N.messages[full];
  if (m === undefined || m === null) return key;
  const p = params || {};
  if (typeof m === "object") {
    let count = p.count;
    if (typeof count !== "number") count = Object.values(p).find((v) => typeof v === "number") || 0;
    const cat = new Intl.PluralRules(I18N.lang).select(Math.abs(count));
    m = m[cat] !== undefined ? m[cat] : m.other;
  }
  return m.replace(/\{(\w+)\}/g, (all, name) => (name in p ? fmtValue(p[name]) : all));
}

export function term(kind, id, lang) {
  const names = VOCAB.kinds[kind] && VOCAB.kinds[kind][id];
  if (!names) return id;
  return names[lang || I18N.lang] || names[VOCAB.default] || id;
}

export function applyStatic(root) {
  const scope = root || document;
  for (const node of scope.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of scope.querySelectorAll("[data-i18n-placeholder]")) node.placeholder = t(node.dataset.i18nPlaceholder);
  for (const node of scope.querySelectorAll("[data-i18n-label]")) {
    const text = t(node.dataset.i18nLabel);
    node.setAttribute("aria-label", text);
    node.title = text;
  }
  document.title = t("brand");
}

export async function loadMessages(lang) {
  const r = await api("GET", "/api/i18n" + (lang ? `?lang=${encodeURIComponent(lang)}` : ""));
  if (r.ok && r.data && r.data.messages) {
    I18N.lang = r.data.lang;
    I18N.messages = r.data.messages;
  }
  document.documentElement.lang = I18N.lang;
  for (const sel of document.querySelectorAll("select.lang-select")) sel.value = I18N.lang;
  applyStatic();
}

export async function loadVocab() {
  const r = await api("GET", "/api/vocab");
  if (r.ok && r.data && r.data.kinds) Object.assign(VOCAB, r.data);
}

// The page in another language; true when it changed (the views are then drawn again: main.js).
export async function setLang(lang) {
  if (lang === I18N.lang) return false;
  const r = await api("POST", "/api/lang", { lang });
  if (!r.ok) document.cookie = `lang=${encodeURIComponent(lang)}; path=/; max-age=31536000; samesite=lax`;
  await loadMessages(lang);
  if (S.me) S.me.lang = lang;
  S.tiers = null; // their names come from the server, in the language asked for
  return true;
}

export function errorWords(code, message) {
  if (message) return message;
  const name = code ? term("error", code) : "";
  return name || t("error.generic");
}

// A refused request (api.js) in words: offline when no answer came, else its error's (errorWords), else its status.
export function errText(r) {
  if (r.status === 0) return t("error.offline");
  const e = r.data && r.data.error;
  return e ? errorWords(e.code, e.message) : t("error.status", { status: r.status });
}
