// "I am Ben": a phone that claims a seat shows that player's view. His turn is announced
// (a vibration where the browser allows, a short sound, the screen kept awake while a game
// runs); his own dice, typed in, give his odds, computed here and never sent anywhere; and it
// acts only for him. A phone that claims no seat is the host's: it acts for whoever's turn
// it is, as every phone did before (docs/dashboard.md).

import { t } from "./i18n.js";
import { el, die, percent, parseBid, bidWords, jokerFace, gameKind } from "./ui.js";

const SEAT_KEY = "bluffcam.seat";
const DICE_KEY = "bluffcam.my-dice";

export function claimedSeat() {
  try { return localStorage.getItem(SEAT_KEY) || null; } catch { return null; }
}

function claim(name) {
  try {
    if (name) localStorage.setItem(SEAT_KEY, name); else localStorage.removeItem(SEAT_KEY);
    localStorage.removeItem(DICE_KEY);
  } catch { /* private mode: the claim lasts this page only */ }
}

/** The claimed player, where they play in the game on the table (else null: the host's view). */
export function me(state) {
  const name = claimedSeat();
  const players = (state.game && state.game.players) || [];
  return name && players.some((p) => p.name === name) ? name : null;
}

/** Whether this phone may act for the player to play: the host's phone for anyone, a claimed
 * phone for its own player only. */
export function mayActFor(state, player) {
  const mine = me(state);
  return mine === null || mine === player;
}

// ------------------------------------------------------------------ the odds with my dice

/** P(at least ``bid.count`` matching dice), from the bid, the dice in play, the faces all can
 * see (set aside), and the faces only this player sees (engine/odds.py's bid_probability). */
export function oddsWithMyDice({ bid, kind, joker, diceInPlay, publicFaces, myFaces }) {
  const matches = (f) => (kind === "scam" ? f === bid.face
    : bid.face === null ? f === joker : f === bid.face || f === joker);
  const p = kind === "scam" || bid.face === null ? 1 / 6 : 2 / 6;
  const seen = [...publicFaces, ...myFaces];
  const hidden = Math.max(0, diceInPlay - seen.length);
  const needed = bid.count - seen.filter(matches).length;
  if (needed <= 0) return 1;
  if (needed > hidden) return 0;
  let term = (1 - p) ** hidden;  // P(X = 0), then P(X = k) by the ratio of successive terms
  let tail = needed === 0 ? 1 : 0;
  for (let k = 0; k < hidden; k += 1) {
    term *= ((hidden - k) / (k + 1)) * (p / (1 - p));
    if (k + 1 >= needed) tail += term;
  }
  return Math.min(1, tail);
}

function myDice() {
  try { return JSON.parse(localStorage.getItem(DICE_KEY) || "[]").filter(Number.isInteger); } catch { return []; }
}

function setMyDice(faces) {
  try { localStorage.setItem(DICE_KEY, JSON.stringify(faces)); } catch { /* kept for this page only */ }
}

function diceInPlay(state) {
  const inPlay = state.details && state.details.dice_in_play;
  if (typeof inPlay === "number") return inPlay;
  return ((state.game && state.game.players) || []).reduce((n, p) => n + (typeof p.dice === "number" ? p.dice : 0), 0);
}

function myOddsCard(state, name, redraw) {
  const game = state.game;
  const mine = myDice();
  const player = (game.players || []).find((p) => p.name === name) || {};
  const aside = (state.set_aside || {})[name] || [];
  const room = Math.max(0, (typeof player.dice === "number" ? player.dice : 0) - aside.length);
  const bid = game.bid ? parseBid(game.bid) : null;
  const kind = gameKind(state);
  const publicFaces = Object.values(state.set_aside || {}).flat();
  const chance = bid && bid.face !== undefined && state.odds_shown !== false
    ? oddsWithMyDice({ bid, kind, joker: jokerFace(state), diceInPlay: diceInPlay(state), publicFaces, myFaces: mine })
    : null;
  return el("section", { class: "card stack my-odds", id: "my-odds" },
    el("h2", {}, t("Your dice (only on this phone)")),
    el("div", { class: "faces", role: "group", "aria-label": t("add one of your dice") }, [1, 2, 3, 4, 5, 6].map((f) => el("button", {
      type: "button", class: "btn face-btn", "aria-label": t("I have a {face}", { face: f }), disabled: mine.length >= room,
      onclick: () => { setMyDice([...mine, f]); redraw(); },
    }, die(f, { size: 36 })))),
    el("div", { class: "row", id: "my-dice" },
      mine.length ? mine.map((f, i) => el("button", { type: "button", class: "btn small", "aria-label": t("take back {face}", { face: f }),
        onclick: () => { setMyDice(mine.filter((_, j) => j !== i)); redraw(); } }, die(f, { size: 28 }), "✕"))
        : el("span", { class: "muted" }, t("Tap the faces under your cup"))),
    chance !== null ? el("p", { class: "my-chance", "data-testid": "my-chance" },
      t("With your dice, {bid} holds with a chance of {chance}", { bid: bidWords(bid), chance: percent(chance) })) : null);
}

// ------------------------------------------------------------------ the turn announced

let audio = null;

function beep() {
  try {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    audio = audio || new Context();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 880;
    gain.gain.setValueAtTime(0.2, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.35);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.35);
  } catch { /* no sound here: the notice and the vibration say it */ }
}

let wasMyTurn = false;

/** Say "your turn" once as the turn comes to this phone's player: vibrate and beep. */
export function announceTurn(state) {
  const name = me(state);
  const game = state.game;
  const mine = Boolean(name && game && game.phase === "bidding" && game.turn === name);
  if (mine && !wasMyTurn) {
    if (navigator.vibrate) navigator.vibrate([200, 100, 200]);
    beep();
    document.body.dataset.myTurn = String(Date.now());
  }
  wasMyTurn = mine;
}

let wakeLock = null;

/** The screen kept awake while a game runs on a claimed phone (the Screen Wake Lock API). */
export async function keepAwake(state) {
  const running = Boolean(me(state) && state.game && state.game.phase !== "over");
  if (running && !wakeLock && navigator.wakeLock && document.visibilityState === "visible") {
    try {
      wakeLock = await navigator.wakeLock.request("screen");
      wakeLock.addEventListener("release", () => { wakeLock = null; });
    } catch { wakeLock = null; }  // refused (no user gesture yet, a low battery): asked again
  } else if (!running && wakeLock) {
    wakeLock.release().catch(() => {});
    wakeLock = null;
  }
}

// ------------------------------------------------------------------ the cards

/** "This phone is …": the claim, with the players of the game on the table. */
export function claimCard(state, redraw) {
  const players = ((state.game && state.game.players) || []).map((p) => p.name);
  const current = claimedSeat();
  return el("section", { class: "card stack claim-card", id: "claim-card" },
    el("label", { for: "claim-seat" }, t("This phone is")),
    el("select", { id: "claim-seat", onchange: (e) => { claim(e.target.value); wasMyTurn = false; redraw(); } },
      el("option", { value: "", selected: !current }, t("the host's: it acts for every player")),
      players.map((name) => el("option", { value: name, selected: current === name }, t("{player}'s phone", { player: name })))));
}

/** A claimed phone's own part of the page: whose turn it is, its odds. */
export function playerCards(state, redraw) {
  const name = me(state);
  const game = state.game;
  if (!name || !game || game.phase === "over") return [];
  const myTurn = game.phase === "bidding" && game.turn === name;
  const notice = myTurn
    ? el("section", { class: "card my-turn", id: "my-turn", role: "alert", "data-testid": "my-turn" },
      el("strong", {}, t("Your turn, {player}!", { player: name })))
    : el("section", { class: "card waiting", id: "waiting-turn" },
      game.phase === "bidding" ? t("Waiting for {player}", { player: game.turn }) : t("Reveal: lift the cups"));
  const kind = gameKind(state);
  return [notice, kind === "impus" ? null : myOddsCard(state, name, redraw)];
}
