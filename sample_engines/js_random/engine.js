#!/usr/bin/env node
// js_random: a bidref/1 engine in plain Node.js (no npm packages).
// It answers every request with a random action from the request's `legal`
// list, never a bid that would cost its whole balance. Run: node engine.js
"use strict";
const readline = require("readline");

const PROTOCOL = "bidref/1";
let pending = null; // the request waiting for our action
let lastSent = null;

function send(obj) {
  // One JSON object per line; writes to a pipe are synchronous on Linux.
  process.stdout.write(JSON.stringify(obj) + "\n");
}

function affordable(request, text) {
  const m = /^bid (\d+)$/.exec(text);
  if (!m) return true;
  const v = request.view || {};
  const me = v.player;
  const credit = v.jockey === me ? 15 : 0;
  const balance = v && v.balances ? v.balances[me] : 0;
  return Math.max(0, Number(m[1]) - credit) < balance;
}

function choose(request, avoid) {
  let options = request.legal.filter((a) => a !== avoid && affordable(request, a));
  if (options.length === 0) options = request.legal;
  return options[Math.floor(Math.random() * options.length)];
}

function reply(request, avoid) {
  lastSent = choose(request, avoid);
  send({ type: "action", id: request.id, action: lastSent });
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on("line", (line) => {
  if (!line.trim()) return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    process.stderr.write(`js_random: ignoring a line that is not JSON: ${line.slice(0, 200)}\n`);
    return;
  }
  switch (msg.type) {
    case "hello":
      if (msg.protocol !== PROTOCOL) process.stderr.write(`js_random: referee speaks ${msg.protocol}\n`);
      send({ type: "hello", name: "js_random", author: "bidref", version: "1", protocol: PROTOCOL });
      break;
    case "request":
      pending = msg;
      reply(msg, null);
      break;
    case "error":
      process.stderr.write(`js_random: error ${msg.code}: ${msg.message}\n`);
      if (pending && msg.id === pending.id && (msg.code === "illegal" || msg.code === "bad_action")) {
        reply(pending, lastSent);
      }
      break;
    case "ping":
      send({ type: "pong", id: msg.id });
      break;
    case "quit":
      process.exit(0);
      break;
    default:
      break; // events and rules answers: nothing to do
  }
});
rl.on("close", () => process.exit(0));
