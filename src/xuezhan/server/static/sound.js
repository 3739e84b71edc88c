// The table's sounds, made here with the Web Audio API (no file is fetched), and the mute switch.
// Browsers let a page make sound only after a tap or a key: the audio starts at the first one, and
// every sound before it (or where there is no audio at all) is silently skipped, never an error.
// What the page plays is also written on <body>: data-last-sound (the latest) and data-sounds (the
// latest few, oldest first), so that tests can read it without audio hardware.
// The mute choice is the account's (GET/PUT /api/settings) and this browser's (localStorage, for
// a page not signed in, and at once on loading, before the account's answer).

import { api } from "./api.js";
import { $ } from "./dom.js";
import { S } from "./state.js";

const KEY = "xz.mute";
const KEEP = 20;

// each sound: notes of [start s, length s, frequency Hz (to Hz, a slide), wave, loudness]
const SOUNDS = {
  peng: [[0, 0.07, 520, 520, "square", 0.12], [0.09, 0.09, 700, 700, "square", 0.12]],
  gang: [[0, 0.12, 392, 330, "triangle", 0.3], [0.11, 0.12, 330, 262, "triangle", 0.3], [0.22, 0.22, 196, 98, "triangle", 0.35]],
  hu: [[0, 0.12, 523, 523, "triangle", 0.25], [0.1, 0.12, 659, 659, "triangle", 0.25], [0.2, 0.12, 784, 784, "triangle", 0.25],
    [0.3, 0.35, 1047, 1047, "sine", 0.3]],
  zimo: [[0, 0.1, 659, 659, "triangle", 0.25], [0.08, 0.1, 784, 784, "triangle", 0.25], [0.16, 0.1, 988, 988, "triangle", 0.25],
    [0.24, 0.1, 1319, 1319, "sine", 0.25], [0.32, 0.4, 1568, 2093, "sine", 0.22]],
  turn: [[0, 0.12, 880, 880, "sine", 0.18], [0.12, 0.2, 1175, 1175, "sine", 0.18]],
  tick: [[0, 0.05, 1200, 900, "square", 0.08]],
};

const audio = { ctx: null, failed: false };
let mute = readLocal();
let loadedFor; // the account whose choice was asked for
let known = null; // the account whose choice is known (asked and answered, or failed to answer)
let changes = 0; // the player's own switches: an account's answer that arrives after one is stale

function readLocal() {
  try { return localStorage.getItem(KEY) === "1"; } catch (e) { return false; }
}

function writeLocal(on) {
  try { localStorage.setItem(KEY, on ? "1" : "0"); } catch (e) { /* storage refused: this page only */ }
}

// The audio context, made at the first tap or key (and resumed there when the browser suspended it).
function unlock() {
  if (audio.failed) return;
  try {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) { audio.failed = true; return; }
    if (!audio.ctx) audio.ctx = new Ctx();
    if (audio.ctx.state === "suspended") audio.ctx.resume().catch(() => {});
  } catch (e) {
    audio.failed = true;
  }
}

function note(ctx, at, [start, length, from, to, wave, loud]) {
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = wave;
  osc.frequency.setValueAtTime(from, at + start);
  if (to !== from) osc.frequency.exponentialRampToValueAtTime(to, at + start + length);
  gain.gain.setValueAtTime(0.0001, at + start);
  gain.gain.exponentialRampToValueAtTime(loud, at + start + 0.01);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + start + length);
  osc.connect(gain).connect(ctx.destination);
  osc.start(at + start);
  osc.stop(at + start + length + 0.02);
}

function record(name) {
  const body = document.body.dataset;
  body.lastSound = name;
  body.sounds = [...(body.sounds ? body.sounds.split(" ") : []), name].slice(-KEEP).join(" ");
}

// Play one of SOUNDS (unless muted); it is recorded whether or not the device can make it.
export function play(name) {
  if (S.me && known !== S.me.name) { loadMute(); return; } // silent until the account's choice is known
  if (mute || !SOUNDS[name]) return;
  record(name);
  const ctx = audio.ctx;
  if (!ctx || ctx.state !== "running") return;
  try {
    const at = ctx.currentTime + 0.01;
    for (const n of SOUNDS[name]) note(ctx, at, n);
  } catch (e) { /* a device that cannot play: the page goes on without sound */ }
}

function showMute() {
  const button = $("mute");
  if (!button) return;
  button.setAttribute("aria-pressed", mute ? "true" : "false");
  button.classList.toggle("on", mute);
  document.body.dataset.mute = mute ? "1" : "0";
}

function setMute(on) {
  mute = on;
  writeLocal(on);
  showMute();
}

export async function toggleMute() {
  changes++;
  setMute(!mute);
  if (S.me) await api("PUT", "/api/settings", { mute });
}

// The account's choice, read once per signed-in account (on loading, and after signing in as another).
async function loadMute() {
  const who = S.me ? S.me.name : null;
  if (who === loadedFor) return;
  loadedFor = who;
  if (!who) return;
  const before = changes;
  const r = await api("GET", "/api/settings");
  if (loadedFor !== who) return;
  if (r.ok && r.data && typeof r.data.mute === "boolean" && changes === before) setMute(r.data.mute);
  known = who;
  document.body.dataset.muteLoaded = who;
}

export function initSound() {
  for (const ev of ["pointerdown", "keydown", "touchend"]) document.addEventListener(ev, unlock, { capture: true, passive: true });
  const button = $("mute");
  if (button) button.addEventListener("click", toggleMute);
  showMute();
  setInterval(loadMute, 100);
}
