#!/usr/bin/env node
// A complete xuezhan bot in JavaScript (Node.js 18 or later, no packages): the bot protocol of
// docs/bot-protocol.md, one JSON object per line on stdin, one answer per request on stdout.
//
//   xuezhan simulate --games 100 --bots "cmd:node examples/bots/js/minimal_bot.js",heuristic --json
//
// It keeps its hand's suits in view: it declares void the suit it holds fewest of, wins whenever
// it may, never claims a pung or a kong, and discards a tile of its void suit first, then the
// tile with fewest neighbours of its own suit in hand (the loneliest tile).
"use strict";

const readline = require("node:readline");

const PROTOCOL = 1; // the protocol version this bot was written for

// "1258m46p779s" -> {m: [1, 2, 5, 8], p: [4, 6], s: [7, 7, 9]}
function parseTiles(text) {
  const bySuit = { m: [], p: [], s: [] };
  let ranks = [];
  for (const ch of text || "") {
    if (ch >= "1" && ch <= "9") {
      ranks.push(Number(ch));
    } else {
      bySuit[ch].push(...ranks);
      ranks = [];
    }
  }
  return bySuit;
}

// how many tiles of the hand lie within two ranks of this one, in its suit (itself excluded)
function neighbours(hand, tile) {
  const rank = Number(tile[0]);
  const same = hand[tile[1]];
  return same.filter((r) => Math.abs(r - rank) <= 2).length - 1;
}

function choose(view, legal) {
  const hand = parseTiles(view.hand);
  const of = (type) => legal.filter((a) => a.type === type);
  const win = of("hu");
  if (win.length) return win[0];
  const voids = of("dingque");
  if (voids.length) return voids.reduce((a, b) => (hand[b.suit].length < hand[a.suit].length ? b : a));
  const exchanges = of("exchange");
  if (exchanges.length) {
    // three tiles of the shortest suit that has three
    const size = (a) => hand[a.tiles.slice(-1)].length;
    return exchanges.reduce((a, b) => (size(b) < size(a) ? b : a));
  }
  const discards = of("discard");
  if (discards.length) {
    const mine = view.seats[view.seat];
    const lonely = (a) => (a.tile[1] === mine.void ? -100 : 0) + neighbours(hand, a.tile);
    return discards.reduce((a, b) => (lonely(b) < lonely(a) ? b : a));
  }
  return of("pass")[0] || legal[0];
}

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  if (!line.trim()) return;
  let message;
  try {
    message = JSON.parse(line);
  } catch (err) {
    process.stderr.write(`minimal_bot.js: not JSON: ${line.slice(0, 80)}\n`);
    return;
  }
  if (message.type === "start_hand" && message.protocol !== PROTOCOL) {
    process.stderr.write(`minimal_bot.js: written for protocol ${PROTOCOL}, the table speaks ${message.protocol}\n`);
  } else if (message.type === "request") {
    process.stdout.write(JSON.stringify({ action: choose(message.view, message.legal) }) + "\n");
  }
});
