// The control page: one thumb on a phone sets up a game and plays every action for
// whoever's turn it is. All changes go through the JSON API with the table PIN.

import { api, ApiError, captureUrl, describeError, followState, getPin, setPin } from "./api.js";
import { said, t, tn } from "./i18n.js";
import {
  el, fill, die, parseBid, bidText, bidWords, jokerFace, gameKind, GAME_NAMES, playerTally, revealCall, gameOverHeadline, computerPlayer,
  eveningText, announce, redrawKeepingFocus, readingWords, verdictText,
} from "./ui.js";
import { announceTurn, claimCard, keepAwake, mayActFor, playerCards } from "./seatclaim.js";
import { standingsTable } from "./boardpanels.js";

const root = document.getElementById("control-main");
const pinGate = document.getElementById("pin-gate");

let state = null;
let mode = root.dataset.startWithSetup === "true" ? "setup" : "play";
let busy = false;
let lastError = "";
let lastNote = "";

// Bid picker memory survives re-renders; it resets to the lowest legal raise when the bid moves.
const picker = { count: 1, face: 2, pickedFor: null, reroll: false, aside: [] };
// Hand-entered reveal: {seat: [values]}; reset when a new reveal is due.
let handReveal = null;
let handRevealFor = null;
let handRevealOpen = false;
// Per seat of a hand-entered dice reveal: {count, fixed} (fixed: the set-aside dice first).
let handSeats = {};

// ------------------------------------------------------------------ PIN

function needsPin() {
  return Boolean(state && state.pin_required) && !getPin();
}

function showPinGate(message = "") {
  pinGate.hidden = false;
  document.getElementById("pin-error").textContent = message;
  document.getElementById("pin-input").focus();
}

document.addEventListener("visibilitychange", () => { if (state) keepAwake(state); });

document.getElementById("pin-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = document.getElementById("pin-input");
  const pin = input.value.trim();
  if (!pin) return;
  try {
    await api("POST", "/api/pin/check", undefined, { pin });
    setPin(pin);
    pinGate.hidden = true;
    input.value = "";
    render();
  } catch (error) {
    document.getElementById("pin-error").textContent =
      error instanceof ApiError && (error.status === 401 || error.status === 403)
        ? t("That PIN is not right. Look at the board.") : describeError(error);
  }
});

// ------------------------------------------------------------------ sending

async function send(method, path, body, { note = "" } = {}) {
  if (busy) return null;
  busy = true;
  lastError = "";
  lastNote = "";
  render();
  try {
    const result = await api(method, path, body);
    lastNote = note;
    const moves = shownMoves;
    // The API answers with the state its change made. A later one (another phone, the
    // buttons, the camera) may have come by the live stream meanwhile: never draw over it.
    if (result && typeof result === "object" && "version" in result && "game" in result
        && !(state && result.version <= state.version)) {
      state = result;
      noteMoves(state, note);
    }
    if (shownMoves === moves) announce(note);  // the live stream has said the move already
    return result;
  } catch (error) {
    const pinAsked = error instanceof ApiError && (error.status === 401 || error.status === 403)
      && /pin/i.test(error.message);
    if (pinAsked) {
      setPin("");
      showPinGate(error.message);
    }
    lastError = pinAsked ? error.message : describeError(error);  // the PIN's field is here
    announce(lastError, { urgent: true });
    // a refusal may mean this screen is behind (its live stream dropped): catch up
    live.refresh();
    return null;
  } finally {
    busy = false;
    render();
  }
}

// A tap just after the game moved on is not trusted: the screen changed under the finger
// (a double tap, another phone's move, a button press at the table), and what lies there
// now may be another player's button. The game's buttons wait this long, disabled.
const SETTLE_MS = 700;
let movedAt = 0;
let shownMoves = "";
let shownRounds = 0;

/** Note when the game shown moves on (another action, another phase), and say so after
 *  ``note`` (what this phone just did), except of the page's first state. */
function noteMoves(next, note = "") {
  const key = next && next.game ? `${next.actions_count}|${next.game.phase}|${next.game.turn}` : "";
  const rounds = (next && next.history || []).length;
  if (key !== shownMoves) {
    if (shownMoves) announce([note, spoken(next, shownRounds)].filter(Boolean).join(". "));
    shownRounds = rounds;
    shownMoves = key;
    movedAt = performance.now();
    setTimeout(render, SETTLE_MS + 20);
  }
}

function settling() {
  return performance.now() - movedAt < SETTLE_MS;
}

/** Whether the game's buttons are off: a request under way, or the game just moved. */
function blocked() {
  return busy || settling();
}

/** Send an action with the count of actions on this screen: the server refuses it where the
 * game has moved since (another phone was quicker), rather than apply it to another turn. */
function act(action, note) {
  if (blocked()) return null;
  return send("POST", "/api/action", { ...action, seen: state.actions_count }, { note });
}

// ------------------------------------------------------------------ helpers

function numberFaces(state) {
  const kind = gameKind(state);
  if (kind === "scam") return [1, 2, 3, 4, 5, 6];
  const joker = jokerFace(state);
  return [1, 2, 3, 4, 5, 6].filter((f) => f !== joker);
}

function totalDice(state) {
  // Scam's players hold points, not dice: the engine says how many dice a bid may count
  const inPlay = state.details && state.details.dice_in_play;
  if (typeof inPlay === "number") return inPlay;
  return ((state.game && state.game.players) || []).reduce((n, p) => n + (playerTally(p)?.value || 0), 0);
}

function legalKinds(state) {
  return new Set((state.legal && state.legal.kinds) || []);
}

function resetPickerIfMoved() {
  const game = state.game;
  const bidKey = game ? `${state.game_id}|${game.bid}|${game.turn}` : null;
  if (picker.pickedFor === bidKey) return;
  picker.pickedFor = bidKey;
  picker.reroll = false;
  picker.aside = [];
  const lowest = state.legal && state.legal.lowest_raises && state.legal.lowest_raises[0];
  const bid = lowest ? parseBid(lowest) : null;
  if (bid && bid.face !== undefined) {
    picker.count = bid.count;
    picker.face = bid.face;
  } else {
    picker.count = 1;
    picker.face = numberFaces(state)[0];
  }
}

/** The lowest legal count for a face (null: ★) now, from the state's lowest raises. */
function lowestCount(face) {
  for (const text of (state.legal && state.legal.lowest_raises) || []) {
    const bid = parseBid(text);
    if (bid && bid.face === face) return bid.count;
  }
  return null;
}

/** Choose a face: the count moves up to its lowest legal raise, and from a number bid to a ★
 *  one (or back), which count on another scale (B6), to the new kind's lowest; a count the
 *  player raised on purpose stays. */
function pickFace(face) {
  const lowest = lowestCount(face);
  const otherScale = (face === null) !== (picker.face === null);
  if (lowest !== null && (otherScale || picker.count < lowest)) picker.count = lowest;
  picker.face = face;
  render();
  announce(bidWords({ count: picker.count, face: picker.face }));
}

function errorSlot() {
  // not a live region itself: drawn anew at every change, it would be read out again each
  // time while the refusal stands; `send` says it once (ui.announce)
  return el("p", { class: "error", id: "control-error" }, lastError);
}

// ------------------------------------------------------------------ status

/** The last round's verdict, so whoever entered the reveal can check it before the next
 * bid (the board says it too, but the phone is in their hand). */
function lastVerdict(game) {
  const rounds = state.history || [];
  const last = rounds.length ? rounds[rounds.length - 1] : null;
  if (!last || !last.verdict || game.phase === "reveal") return null;
  return el("div", { class: "status-line", id: "status-verdict" },
    el("strong", {}, `${t("Round {n}", { n: last.round ?? rounds.length })}: `), verdictText(last));
}

/** A card game's deal, until the first card is played (the table's message lasts that
 * long): the dealer holds this phone. */
function dealNote(game) {
  if (game.game !== "impus") return null;
  const deal = (state.messages || []).filter((m) => m.before_play).pop();
  return deal ? el("div", { class: "status-line", id: "status-deal" }, deal.said ? said(deal.said) : deal.text) : null;
}

/** The status card's big line: whose turn, the reveal's call, or who won. */
function headlineOf(shown) {
  const game = shown.game;
  if (game.phase === "reveal") return shown.review ? t("Check the reading") : revealCall(game);
  if (game.phase === "over") return gameOverHeadline(game);
  return game.turn ? t("{player}'s turn", { player: game.turn }) : "";
}

/** The table now in a sentence, for a screen reader: a round's verdict when one has just
 *  been settled (more rounds than ``roundsBefore``), the headline, the bid. */
function spoken(shown, roundsBefore) {
  const game = shown && shown.game;
  if (!game) return "";
  const bid = game.bid ? parseBid(game.bid) : null;
  const rounds = shown.history || [];
  const settled = rounds.length > roundsBefore ? verdictText(rounds[rounds.length - 1]) : "";
  return [settled, headlineOf(shown),
    bid && bid.face !== undefined ? (shown.bidder ? t("bid {bid} by {player}", { bid: bidWords(bid), player: shown.bidder })
      : t("bid {bid}", { bid: bidWords(bid) })) : "",
  ].filter(Boolean).join(". ");
}

/** The phase in the game's own words: Impus Bluff plays cards onto a pile, nobody bids. */
function phaseWords(game) {
  if (game.game === "impus") {
    return { bidding: game.claim ? t("playing on the pile") : t("starting a pile"), reveal: t("turning the doubted cards up"), over: t("over") }[game.phase] || game.phase;
  }
  return { bidding: t("bidding"), reveal: t("reveal"), over: t("over") }[game.phase] || game.phase;
}

function statusCard() {
  const game = state.game;
  if (!game) {
    return el("section", { class: "card status-card" },
      el("div", { class: "status-line" }, t("No game on the table yet.")),
      el("div", { class: "status-turn" }, t("Set one up below")));
  }
  const kind = GAME_NAMES[game.game] || game.game;
  const headline = headlineOf(state);
  const bid = game.bid ? parseBid(game.bid) : null;
  const impusLine = game.game === "impus" && game.phase !== "over"
    ? el("div", { class: "status-line", id: "status-pile" }, game.claim
      ? tn("Pile: {n} card claimed as {claim}", "Pile: {n} cards claimed as {claim}", game.pile ?? 0, { claim: game.claim })
      : t("No pile yet: the next player starts one."))
    : null;
  return el("section", { class: "card status-card" },
    el("div", { class: "status-line", id: "status-phase" }, `${kind} · ${phaseWords(game)}`),
    el("div", { class: "status-turn", id: "status-turn" }, headline),
    impusLine || (bid && bid.face !== undefined ? el("div", { class: "status-bid" },
      t("Bid:"), " ", el("strong", { id: "status-bid" }, bidWords(bid)),
      die(bid.face === null ? "*" : bid.face, { size: 34, variant: "red" }),
      state.bidder ? el("span", { class: "muted" }, " ", t("by {player}", { player: state.bidder })) : null)
      : el("div", { class: "status-line" }, game.phase === "bidding" ? t("No bid yet this round.") : "")),
    lastVerdict(game),
    game.phase === "over" && eveningText(state.evening)
      ? el("div", { class: "status-line", id: "status-evening" }, eveningText(state.evening)) : null,
    dealNote(game),
    // until the next bid, a verdict read by the camera can still be checked again
    state.reopen ? el("a", { class: "status-line", id: "reopen-link", href: "/review" },
      `${t("A die read wrong in the last reveal? Check it again")} ›`) : null,
    lastNote ? el("p", { class: "ok-note", role: "status" }, lastNote) : null);
}

// ------------------------------------------------------------------ bidding

function bidPicker(kinds) {
  const kind = gameKind(state);
  const faces = numberFaces(state);
  const allowStar = kind === "bluff" || kind === "perudo";  // Perudo bids aces as ★ (P5)
  const maxCount = Math.max(totalDice(state), 1);
  const current = { count: picker.count, face: picker.face };
  const faceButtons = faces.map((f) => el("button", {
    type: "button", class: "btn face-btn", "aria-pressed": String(picker.face === f), "aria-label": t("face {face}", { face: f }),
    "data-face": String(f), onclick: () => pickFace(f),
  }, die(f, { size: 40, variant: picker.face === f ? "red" : "ivory" })));
  if (allowStar) {
    faceButtons.push(el("button", {
      type: "button", class: "btn face-btn", "aria-pressed": String(picker.face === null), "aria-label": t("star"),
      "data-face": "*", onclick: () => pickFace(null),
    }, die("*", { size: 40, variant: picker.face === null ? "red" : "ivory" })));
  }
  const step = (delta) => () => {
    picker.count = Math.min(maxCount, Math.max(1, picker.count + delta));
    render();
    announce(bidWords({ count: picker.count, face: picker.face }));
  };
  const player = state.game.turn;
  const items = [
    el("h2", {}, t("{player}'s bid", { player })),
    el("div", { class: "stepper" },
      el("button", { type: "button", class: "btn", "aria-label": t("fewer"), onclick: step(-1), disabled: picker.count <= 1 }, "−"),
      el("output", { id: "bid-count", "aria-label": t("count") }, picker.count),
      el("button", { type: "button", class: "btn", "aria-label": t("more"), onclick: step(1), disabled: picker.count >= maxCount }, "+")),
    el("div", { class: "faces", role: "group", "aria-label": t("face") }, faceButtons),
    el("div", { class: "bid-preview" }, t("Bid"), " ", el("strong", {}, bidWords(current))),
  ];
  const canReroll = (kinds.has("set_aside") || kinds.has("reroll")) && kind === "bluff";
  if (canReroll) {
    items.push(el("label", { class: "check" },
      el("input", { type: "checkbox", id: "reroll-toggle", checked: picker.reroll,
        onchange: (e) => { picker.reroll = e.target.checked; if (!picker.reroll) picker.aside = []; render(); } }),
      t("Raise and re-roll: put dice in front of the cup")));
    if (picker.reroll) {
      items.push(el("div", { class: "stack" },
        el("div", { class: "hint" }, t("Tap the faces of the dice you put aside (tap one below to take it back):")),
        el("div", { class: "faces" }, [1, 2, 3, 4, 5, 6].map((f) => el("button", {
          type: "button", class: "btn face-btn", "aria-label": t("put aside {face}", { face: f }),
          onclick: () => { picker.aside.push(f); render(); announce(t("put aside: {faces}", { faces: picker.aside.join(", ") })); },
        }, die(f, { size: 36 })))),
        // a group, so that its name is read (a plain div's aria-label is dropped)
        el("div", { class: "aside-list", role: "group", "aria-label": t("dice put aside") },
          picker.aside.length ? picker.aside.map((f, i) => el("button", {
            type: "button", class: "btn small", "aria-label": t("take back {face}", { face: f }),
            onclick: () => { picker.aside.splice(i, 1); render(); },
          }, die(f, { size: 28 }), "✕")) : el("span", { class: "muted" }, t("none yet")))));
    }
  }
  const wire = bidText(current);
  const label = picker.reroll ? t("Bid {bid} and re-roll", { bid: bidWords(current) }) : t("Bid {bid}", { bid: bidWords(current) });
  items.push(el("button", {
    type: "button", class: "btn primary big", id: "bid-submit", disabled: blocked() || (picker.reroll && !picker.aside.length),
    onclick: () => {
      const action = { player, bid: wire };
      if (picker.reroll) action.set_aside = picker.aside.slice();
      act(action, picker.reroll
        ? t("{player} bid {bid}, set aside {faces} and re-rolls the rest", { player, bid: bidWords(current), faces: picker.aside.join(", ") })
        : t("{player} bid {bid}", { player, bid: bidWords(current) }));
    },
  }, label));
  return items;
}

function bluffActions(kinds) {
  const player = state.game.turn;
  const buttons = [];
  if (kinds.has("challenge")) {
    buttons.push(el("button", { type: "button", class: "btn danger big wide", id: "challenge", disabled: blocked(),
      onclick: () => act({ player, challenge: true }, state.bidder ? t("{player} doubts {bidder}", { player, bidder: state.bidder }) : t("{player} doubts the bid", { player })) },
    el("span", { class: "btn-lines" }, t("Doubt it!"),
      el("small", {}, state.bidder ? t("{player} challenges {bidder}'s {bid}", { player, bidder: state.bidder, bid: bidWords(state.game.bid) })
        : t("{player} challenges {bid}", { player, bid: bidWords(state.game.bid) })))));
  }
  if (kinds.has("scam")) {
    buttons.push(el("button", { type: "button", class: "btn danger big", id: "scam", disabled: blocked(),
      onclick: () => act({ player, scam: true }, t("{player} calls Scam!", { player })) }, t("Scam!")));
  }
  if (kinds.has("dudo")) {
    buttons.push(el("button", { type: "button", class: "btn danger big wide", id: "dudo", disabled: blocked(),
      onclick: () => act({ player, dudo: true }, t("{player} calls dudo", { player })) },
    el("span", { class: "btn-lines" }, t("Dudo!"),
      el("small", {}, state.bidder ? t("{player} doubts {bidder}'s {bid}", { player, bidder: state.bidder, bid: bidWords(state.game.bid) })
        : t("{player} doubts {bid}", { player, bid: bidWords(state.game.bid) })))));
  }
  if (kinds.has("calza")) {
    buttons.push(el("button", { type: "button", class: "btn big", id: "calza", disabled: blocked(),
      onclick: () => act({ player, calza: true }, t("{player} calls calza", { player })) }, t("Calza: exactly")));
  }
  if (kinds.has("pass")) {
    buttons.push(el("button", { type: "button", class: "btn big", id: "pass", disabled: blocked(),
      onclick: () => act({ player, pass: true }, t("{player} passes", { player })) }, t("Pass")));
  }
  return buttons;
}

/** The kind that is the imp, as the table named it: the one card of the deck no one may
 *  claim (game.kinds are the claimable ones), "imp" unless the table renamed it. */
function impOf(game) {
  const claimable = game.kinds || [];
  return (game.card_kinds || []).find((k) => k !== "polymorph" && !claimable.includes(k)) || "imp";
}

/** Whether "New evening" was tapped once: the second tap clears the standings. */
let eveningAsked = false;

// Impus form values survive the re-render each state event causes.
// what a player picked on the Impus cards, kept across the page's redraws
const impusForm = { count: 1, claim: null, polymorph: null, discarder: null, discardKind: null, fourOpen: false };

function impusActions(kinds) {
  // Impus actions as the engine's replay objects: play (+claim on a new pile), doubt,
  // polymorph, and discard (four of a kind, by whoever may discard now).
  const game = state.game;
  const player = game.turn;
  const kindNames = (game.kinds || []).filter((k) => k !== impOf(game));
  const sections = [];
  if (!kindNames.includes(impusForm.claim)) impusForm.claim = kindNames[0];
  if (!kindNames.includes(impusForm.polymorph)) impusForm.polymorph = kindNames[0];
  if (kinds.has("play")) {
    // a text field for digits (a phone's number pad all the same): a number field keeps no
    // caret a redraw can put back
    const countInput = el("input", { type: "text", value: Number.isNaN(impusForm.count) ? "" : impusForm.count,
      id: "impus-count", inputmode: "numeric", pattern: "[0-9]*", maxlength: 2, autocomplete: "off",
      "aria-label": t("cards put down"), oninput: (e) => { impusForm.count = e.target.value.trim() === "" ? NaN : Number(e.target.value); } });
    const newPile = !game.claim;
    const kindSelect = el("select", { id: "impus-claim", "aria-label": t("creature named"),
      onchange: (e) => { impusForm.claim = e.target.value; } },
    kindNames.map((k) => el("option", { value: k, selected: k === impusForm.claim }, k)));
    sections.push(el("div", { class: "stack" },
      el("h2", {}, t("{player} puts cards down", { player })),
      el("div", { class: "split" }, el("label", {}, t("How many"), countInput),
        newPile ? el("label", {}, t("Claimed as"), kindSelect)
          : el("div", { class: "status-line" }, t("All claimed as"), " ", el("strong", {}, game.claim))),
      el("button", { type: "button", class: "btn primary big", id: "impus-play", disabled: blocked(),
        onclick: () => {
          // the form's memory, not this node's value: a re-render may have replaced the
          // node while the count was typed into the old one
          const count = impusForm.count;
          if (!Number.isInteger(count)) {  // 0 and too many go to the rules, which say why
            lastError = t("How many cards? Type a whole number, 1 or more.");
            announce(lastError, { urgent: true });
            render();
            return;
          }
          const action = { player, play: count };
          if (newPile) action.claim = impusForm.claim;
          impusForm.count = 1;
          act(action, t("{player} puts down {count}", { player, count }));
        } }, t("Put down"))));
  }
  const row = [];
  if (kinds.has("doubt")) {
    row.push(el("button", { type: "button", class: "btn danger big", id: "doubt", disabled: blocked(),
      onclick: () => act({ player, doubt: true }, t("{player} does not believe", { player })) }, t("Don't believe!")));
  }
  if (kinds.has("polymorph")) {
    const sel = el("select", { "aria-label": t("polymorph into"), onchange: (e) => { impusForm.polymorph = e.target.value; } },
      kindNames.map((k) => el("option", { value: k, selected: k === impusForm.polymorph }, k)));
    row.push(el("div", { class: "stack" }, sel, el("button", { type: "button", class: "btn big", id: "polymorph", disabled: blocked(),
      onclick: () => act({ player, polymorph: sel.value }, t("{player} plays a polymorph: {kind}", { player, kind: sel.value })) }, t("Polymorph"))));
  }
  if (row.length) sections.push(el("div", { class: "actions" }, row));
  const candidates = (state.details && state.details.discard_candidates) || [];
  if (candidates.length) {
    // the choices are remembered: drawn anew at a change at the table, the pickers went back
    // to the first player and kind, and Discard sent those
    if (!candidates.includes(impusForm.discarder)) impusForm.discarder = candidates[0];
    const who = el("select", { "aria-label": t("who discards"), id: "discarder",
      onchange: (e) => { impusForm.discarder = e.target.value; } },
    candidates.map((n) => el("option", { value: n, selected: n === impusForm.discarder }, n)));
    // Any card of the deal but the imp (I7); "polymorph" only when polymorphs were dealt.
    const discardable = (game.card_kinds || game.kinds || []).filter((k) => k !== impOf(game));
    if (!discardable.includes(impusForm.discardKind)) impusForm.discardKind = discardable[0];
    const what = el("select", { "aria-label": t("discarded kind"), id: "discard-kind",
      onchange: (e) => { impusForm.discardKind = e.target.value; } },
    discardable.map((k) => el("option", { value: k, selected: k === impusForm.discardKind }, k)));
    // opened only when someone holds four of a kind: the engine cannot see the hands, and a
    // panel always open took the phone's screen from the plays
    sections.push(el("details", { class: "stack four-of-a-kind", id: "discard-card", open: impusForm.fourOpen,
      ontoggle: (e) => { impusForm.fourOpen = e.target.open; } },
    el("summary", { class: "btn", id: "four-of-a-kind" }, t("Someone holds four of a kind?")),
    el("p", { class: "muted" }, t("A player holding four of a kind (never imps) lays them down face up now: "
      + "right after the deal, or after taking the pile. Only then.")),
    el("div", { class: "split" }, who, what),
    el("button", { type: "button", class: "btn big", id: "discard", disabled: blocked(),
      onclick: () => act({ player: who.value, discard: what.value }, t("{player} discards {kind}", { player: who.value, kind: what.value })) }, t("Discard"))));
  }
  return sections;
}

function playCard() {
  const kinds = legalKinds(state);
  const kind = gameKind(state);
  const content = [];
  const computer = computerPlayer(state);
  if (computer && state.game.turn === computer) {
    // the computer's move shows after a short pause (bluffcam/computer_seat.py)
    content.push(el("h2", {}, t("{player}'s turn", { player: computer })),
      el("p", { class: "hint", id: "computer-thinking" }, t("{player} (the computer) is thinking…", { player: computer })));
  } else if (kind === "impus") {
    content.push(...impusActions(kinds));
  } else {
    if (kinds.has("bid") || kinds.size === 0) content.push(...bidPicker(kinds));
    const extra = bluffActions(kinds);
    if (extra.length) content.push(el("div", { class: "actions" }, extra));
  }
  content.push(errorSlot());
  return el("section", { class: "card stack", id: "play-card" }, content);
}

// ------------------------------------------------------------------ reveal

/** Which reveal a hand entry is for: no action is taken while a reveal is due, so the game
 * and its count of actions name it (another round on the same bid, or the challenge undone
 * and made again, starts a new entry). */
function revealEntryKey() {
  return `${state.game.game}:${state.actions_count}`;
}

function impusRevealCard() {
  const game = state.game;
  const batch = game.last_batch || { count: 1, claim: game.claim };
  if (!handReveal || handRevealFor !== revealEntryKey()) {
    handRevealFor = revealEntryKey();
    handReveal = Array(batch.count).fill(batch.claim || (game.kinds || ["orc"])[0]);
  }
  const choices = game.card_kinds || (game.kinds || []).concat(["imp", "polymorph"]);
  return el("section", { class: "card stack", id: "reveal-card" },
    el("h2", {}, tn("Turn up {player}'s {n} card", "Turn up {player}'s {n} cards", batch.count, { player: batch.player ?? "" })),
    handReveal.map((card, i) => el("label", {}, t("Card {n}", { n: i + 1 }), el("select", {
      onchange: (e) => { handReveal[i] = e.target.value; } }, choices.map((k) => el("option", { value: k, selected: k === card }, k))))),
    el("button", { type: "button", class: "btn primary big", id: "reveal-submit", disabled: blocked(),
      onclick: () => act({ reveal: handReveal.slice() }, t("Cards turned up")) }, t("These were turned up")),
    state.camera && state.camera.status && state.camera.status !== "none"
      ? el("button", { type: "button", class: "btn big", id: "capture", disabled: blocked(),
        onclick: () => send("POST", captureUrl(state.review && state.review.id), {}, { note: t("Cards read by the camera") }) },
      state.camera.reading ? readingWords(state.game) : t("Read the cards with the camera")) : null,
    errorSlot());
}

function revealCard() {
  const game = state.game;
  if (game.game === "impus") return impusRevealCard();
  if (!handReveal || handRevealFor !== revealEntryKey()) {
    handRevealFor = revealEntryKey();
    handReveal = {};
    // What the engine expects per seat (dice in the cup + those set aside, which are known).
    const expected = (state.legal && state.legal.expected_reveal) || {};
    const aside = state.set_aside || {};
    const seats = Object.keys(expected).length
      ? Object.entries(expected).map(([name, hand]) => [name, hand.count, hand.set_aside || aside[name] || []])
      : (game.players || []).filter((p) => !p.out).map((p) => [p.name, playerTally(p)?.value || 0, aside[p.name] || []]);
    handSeats = {};
    for (const [name, count, shownFaces] of seats) {
      if (!count || name === computerPlayer(state)) continue;  // its dice are the Pi's, not the camera's
      const shown = shownFaces.slice(0, count);
      handReveal[name] = shown.slice();
      handSeats[name] = { count, fixed: shown.length };
    }
  }
  const missing = Object.entries(handSeats).reduce((n, [name, seat]) => n + seat.count - handReveal[name].length, 0);
  const items = [el("h2", {}, t("Reveal"))];
  if (state.review) {
    items.push(el("a", { class: "btn primary big", href: `/review/${encodeURIComponent(state.review.id)}`, id: "open-review" },
      t("Check the reading")));
  }
  const hasCamera = state.camera && state.camera.status && state.camera.status !== "none";
  items.push(hasCamera ? el("button", { type: "button", class: `btn big ${state.review ? "" : "primary"}`, id: "capture", disabled: blocked(),
    onclick: async () => {
      const result = await send("POST", captureUrl(state.review && state.review.id), {}, { note: t("Reveal captured") });
      const review = result && (result.review || (result.id && result.image_url ? result : null));
      if (review && review.id) window.location.href = `/review/${encodeURIComponent(review.id)}`;
    } }, state.camera.reading ? readingWords(state.game) : t("Capture with the camera"))
    : el("p", { class: "hint", id: "no-camera" }, t("No camera at this table: enter the dice below.")));
  items.push(el("details", { class: "stack", open: handRevealOpen || !hasCamera || null, id: "hand-reveal",
    ontoggle: (e) => { handRevealOpen = e.target.open; } },
    el("summary", { class: "btn ghost" }, t("Enter the dice by hand")),
    el("p", { class: "hint" }, t("Tap the face of each die you see; tap an entered die to take it back.")),
    Object.entries(handReveal).map(([name, values]) => handSeatEntry(name, values, handSeats[name])),
    el("button", { type: "button", class: "btn primary big", id: "reveal-submit", disabled: blocked() || missing > 0,
      onclick: () => act({ reveal: structuredClone(handReveal) }, t("Reveal entered")) },
      missing > 0 ? tn("{n} more die to enter", "{n} more dice to enter", missing) : t("Apply this reveal"))));
  items.push(errorSlot());
  return el("section", { class: "card stack", id: "reveal-card" }, items);
}

/** One seat of a hand-entered reveal: the dice entered so far (those set aside in front of
 * the cup are known and come first), and a pad of the six faces that adds a die per tap:
 * one tap a die, where turning each die to its face took up to five. */
function handSeatEntry(name, values, seat) {
  const full = values.length >= seat.count;
  return el("div", { class: "seat-entry", "data-seat": name },
    el("div", { class: "seat-entry-head" }, el("strong", {}, name),
      el("span", { class: full ? "count-ok" : "count-bad", "data-testid": "entered" }, t("{count} of {total}", { count: values.length, total: seat.count }))),
    el("div", { class: "seat-entry-dice" }, values.map((v, i) => i < seat.fixed
      ? el("span", { class: "die-fixed", title: t("set aside in front of the cup") }, die(v, { size: 34 }))
      : el("button", { type: "button", class: "btn die-btn", "aria-label": t("take back {player}'s {face}", { player: name, face: v }),
        onclick: () => { values.splice(i, 1); render(); announce(`${name}: ${t("{count} of {total}", { count: values.length, total: seat.count })}`); } },
      die(v, { size: 34 })))),
    el("div", { class: "face-pad", role: "group", "aria-label": t("{player}'s dice", { player: name }) }, [1, 2, 3, 4, 5, 6].map((face) =>
      el("button", { type: "button", class: "btn die-btn", disabled: full, "data-done": full, "aria-label": t("{player}: add a {face}", { player: name, face }),
        onclick: () => { values.push(face); render(); announce(`${name}: ${t("{count} of {total}", { count: values.length, total: seat.count })}`); } },
      die(face, { size: 34 })))));
}

// ------------------------------------------------------------------ setup

const setupForm = {
  game: "bluff",
  players: [],
  starter: "",
  // the table seat (1 = the calibration profile's first) of each player row; empty: in order
  seats: [],
  options: {
    bluff: { dice_per_player: 5, joker_face: 1, exact: "all_others_lose_one", protect_last_die: false, reroll: true },
    scam: { target: 10, allow_any_players: false },
    // the kinds of engine.cards.DEFAULT_KINDS (I1 names eight; the table may rename any)
    impus: { polymorphs: true, kinds: ["orc", "gnome", "elf", "faun", "skeleton", "dragon", "goblin", "imp", "troll", "harpy"], remove_kinds: [], imp: "imp" },
    perudo: { dice_per_player: 5, calza: true, palifico: true },
  },
  // the player row the computer plays ("" for nobody) and how well (bluffcam/computer_seat.py)
  computer: "",
  level: "hard",
};
let setupSeeded = false;

function seedSetup() {
  if (setupSeeded) return;
  setupSeeded = true;
  const last = state && state.setup;
  if (last) {
    setupForm.game = last.game || "bluff";
    setupForm.players = (last.players || []).slice();
    setupForm.starter = last.starter || "";
    setupForm.seats = Array.isArray(last.seats) ? last.seats.slice() : [];
    setupForm.odds = last.odds !== false;
    Object.assign(setupForm.options[setupForm.game] || {}, last.options || {});
    setupForm.computer = (last.computer && last.computer.player) || "";
    setupForm.level = (last.computer && last.computer.level) || "hard";
  }
  while (setupForm.players.length < 2) setupForm.players.push("");
}

function optionFields() {
  const game = setupForm.game;
  const opts = setupForm.options[game];
  const num = (key, label, min, max) => el("label", {}, label, el("input", {
    type: "number", min, max, value: opts[key], id: `opt-${key}`, inputmode: "numeric",
    onchange: (e) => { opts[key] = Number(e.target.value); },
  }));
  const check = (key, label, disabled = false) => el("label", { class: "check" }, el("input", {
    type: "checkbox", checked: Boolean(opts[key]) && !disabled, id: `opt-${key}`, disabled,
    onchange: (e) => { opts[key] = e.target.checked; },
  }), label);
  // B13: a last die is protected only under the default exact-hit rule
  const protectable = () => opts.exact === "all_others_lose_one";
  const onExact = (e) => {
    opts.exact = e.target.value;
    const box = document.getElementById("opt-protect_last_die");
    if (!box) return;
    box.disabled = !protectable();
    if (box.disabled) { box.checked = false; opts.protect_last_die = false; }
  };
  if (game === "bluff") {
    return [
      diceEachField(opts),
      el("label", {}, t("Joker (★) face"), el("select", { id: "opt-joker_face", onchange: (e) => { opts.joker_face = Number(e.target.value); } },
        el("option", { value: 1, selected: opts.joker_face === 1 }, t("1 (pip dice)")),
        el("option", { value: 6, selected: opts.joker_face === 6 }, t("6 (star on the six)")))),
      el("label", { style: "grid-column:1/-1" }, t("Exact hit"), el("select", { id: "opt-exact", onchange: onExact },
        el("option", { value: "all_others_lose_one", selected: opts.exact === "all_others_lose_one" }, t("all but the bidder lose 1")),
        el("option", { value: "challenger_pays_bidder", selected: opts.exact === "challenger_pays_bidder" }, t("challenger gives the bidder 1")))),
      check("protect_last_die", t("On an exact hit, protect a last die (not the bidder's or challenger's)"),
        !protectable()),
      check("reroll", t("Allow raise and re-roll")),
    ];
  }
  if (game === "scam") {
    return [num("target", t("Points to win"), 3, 30),
      check("allow_any_players", t("Allow 2 to 6 players (the rules say 3 or 4)"))];
  }
  if (game === "impus") return impusOptionFields(opts, check);
  if (game === "perudo") {
    return [num("dice_per_player", t("Dice each"), 1, 10),
      check("calza", t("Allow calza (claim the bid is exact)")),
      check("palifico", t("Palifico rounds (a player down to one die)"))];
  }
  return [];
}

// the computer player's levels (bot/players.py), as the setup form names them
const LEVELS = { easy: t("easy"), normal: t("normal"), hard: t("hard") };

/** Bluff, Scam and Perudo: one player row may be the computer's, at a level; ``select``
 * lists the rows' names (refreshed as they are typed). */
function computerFields(select) {
  if (setupForm.game === "impus") return null;
  return el("div", { class: "options", id: "computer-seat" },
    el("label", {}, t("The computer plays"), select),
    el("label", {}, t("Its level"), el("select", { id: "computer-level",
      onchange: (e) => { setupForm.level = e.target.value; } },
    Object.entries(LEVELS).map(([lv, words]) => el("option", { value: lv, selected: lv === setupForm.level }, words)))));
}

// Bluff's B2: five dice each, or 004's six each (five with six players), or 001's thirty dice
// shared out evenly; fewer for a short game.
function diceEachField(opts) {
  const choices = [[5, t("5 (standard)")], ["czech", t("6 (5 with six players)")], ["split", t("all 30 shared out")],
    [1, "1"], [2, "2"], [3, "3"], [4, "4"], [6, "6"]];
  // a count the last game set through the API (up to 30) stays what the form shows and sends
  if (!choices.some(([v]) => v === opts.dice_per_player)) choices.push([opts.dice_per_player, String(opts.dice_per_player)]);
  return el("label", {}, t("Dice each"), el("select", {
    id: "opt-dice_per_player",
    onchange: (e) => { const v = e.target.value; opts.dice_per_player = /^\d+$/.test(v) ? Number(v) : v; },
  }, choices.map(([value, label]) => el("option", { value, selected: opts.dice_per_player === value }, label))));
}

// Impus Bluff: the table names its ten kinds (I1: one must be the imp) and may take whole
// kinds out for a short game (I2: never the imp).
function impusOptionFields(opts, check) {
  const kindsInput = el("textarea", {
    id: "opt-kinds", rows: 3, autocomplete: "off", autocapitalize: "none", spellcheck: "false",
    onchange: (e) => {
      // any script: "Орк" and "орк" are one kind, as the engine reads them
      opts.kinds = e.target.value.split(/[,、，]/).map((k) => k.trim().normalize("NFC").toLowerCase()).filter(Boolean);
      opts.remove_kinds = opts.remove_kinds.filter((k) => opts.kinds.includes(k));
      if (!opts.kinds.includes(opts.imp || "imp")) opts.imp = opts.kinds.includes("imp") ? "imp" : opts.kinds[0];
      renderSetup();
    },
  });
  kindsInput.value = opts.kinds.join(", ");
  const imp = opts.imp || "imp";
  const removable = opts.kinds.filter((k) => k !== imp);
  // I1: one kind is the imp, whatever the table calls it ("インプ", "імп")
  const impSelect = el("select", { id: "opt-imp", onchange: (e) => { opts.imp = e.target.value; renderSetup(); } },
    opts.kinds.map((k) => el("option", { value: k, selected: k === imp }, k)));
  return [
    check("polymorphs", t("Play with the two polymorph cards (dealt at 4 or 5 players; I2)")),
    el("label", { style: "grid-column:1/-1" }, t("The ten card kinds, one of them the imp"), kindsInput),
    el("label", {}, t("Which kind is the imp"), impSelect),
    el("div", { style: "grid-column:1/-1", class: "stack" },
      el("div", { class: "hint" }, t("For a short game, take kinds out of the deck:")),
      el("div", { class: "row", role: "group", "aria-label": t("kinds taken out"), id: "opt-remove_kinds" },
        removable.map((kind) => el("button", {
          type: "button", class: "btn small", "aria-pressed": String(opts.remove_kinds.includes(kind)), "data-kind": kind,
          onclick: () => {
            opts.remove_kinds = opts.remove_kinds.includes(kind)
              ? opts.remove_kinds.filter((k) => k !== kind) : opts.remove_kinds.concat([kind]);
            renderSetup();
          },
        }, kind)))),
  ];
}

/** What a player row is called: its name, or "player 2" while it has none. */
function rowName(name, i) {
  return name || t("player {n}", { n: i + 1 });
}

/** The seat picked for player row ``i`` (the rows' own order where none was picked). */
function seatOf(i) {
  return setupForm.seats[i] || i + 1;
}

/** Where the table has more seats than the game has players (a mat for six, four playing), a
 * player row picks its seat by the calibration profile's names; else the rows take the seats
 * in order and show their number. */
function seatPicker(i, name) {
  const tableSeats = (state && state.table_seats) || [];
  if (tableSeats.length <= setupForm.players.length) return el("span", { class: "seat-no" }, i + 1);
  return el("select", { class: "seat-pick", "aria-label": t("{player}'s seat", { player: rowName(name, i) }),
    onchange: (e) => { setupForm.seats[i] = Number(e.target.value); } },
    tableSeats.map((seatName, k) => el("option", { value: k + 1, selected: seatOf(i) === k + 1 }, seatName)));
}

/** Where the form lists more players than the table's calibration has seats, say what that
 * means before the game starts rather than at its first reveal. */
function tooFewSeats() {
  const tableSeats = (state && state.table_seats) || [];
  const players = setupForm.players.length;  // rows: typing a name does not redraw the form
  if (!tableSeats.length || players <= tableSeats.length || setupForm.game === "impus") return null;
  return el("p", { class: "hint count-bad", id: "too-few-seats" },
    t("The table is calibrated for {seats} seats: the camera cannot tell {players} players apart, "
    + "so their reveals are entered by hand. Fit the zones for more seats on the calibration page.",
    { seats: tableSeats.length, players }));
}

function setupCard() {
  seedSetup();
  const names = () => setupForm.players.map((n) => n.trim()).filter(Boolean);
  const playerRows = setupForm.players.map((name, i) => el("div", { class: "player-row" },
    seatPicker(i, name),
    el("input", { value: name, placeholder: t("Player {n}", { n: i + 1 }), "aria-label": t("Player {n} name", { n: i + 1 }), maxlength: 24,
      autocomplete: "off", autocapitalize: "words",
      oninput: (e) => { setupForm.players[i] = e.target.value; refreshStarter(); refreshComputer(); } }),
    el("button", { type: "button", class: "btn small", "aria-label": t("move {player} up", { player: rowName(name, i) }), disabled: i === 0,
      onclick: () => { [setupForm.players[i - 1], setupForm.players[i]] = [setupForm.players[i], setupForm.players[i - 1]]; renderSetup(); } }, "↑"),
    el("button", { type: "button", class: "btn small", "aria-label": t("move {player} down", { player: rowName(name, i) }), disabled: i === setupForm.players.length - 1,
      onclick: () => { [setupForm.players[i + 1], setupForm.players[i]] = [setupForm.players[i], setupForm.players[i + 1]]; renderSetup(); } }, "↓"),
    el("button", { type: "button", class: "btn small", "aria-label": t("remove {player}", { player: rowName(name, i) }), disabled: setupForm.players.length <= 2,
      onclick: () => { setupForm.players.splice(i, 1); setupForm.seats.splice(i, 1); renderSetup(); } }, "✕")));
  const starterSelect = el("select", { id: "starter", "aria-label": t("Who starts"),
    onchange: (e) => { setupForm.starter = e.target.value; } });
  function refreshStarter() {
    const list = names();
    if (!list.includes(setupForm.starter)) setupForm.starter = "";
    fill(starterSelect, el("option", { value: "" }, t("random")),
      list.map((n) => el("option", { value: n, selected: n === setupForm.starter }, n)));
  }
  refreshStarter();
  const computerSelect = el("select", { id: "computer-player",
    onchange: (e) => { setupForm.computer = e.target.value; } });
  function refreshComputer() {
    const list = names();
    if (!list.includes(setupForm.computer)) setupForm.computer = "";
    fill(computerSelect, el("option", { value: "" }, t("nobody")),
      list.map((n) => el("option", { value: n, selected: n === setupForm.computer }, n)));
  }
  refreshComputer();
  const gameButtons = Object.entries(GAME_NAMES).map(([key, label]) => el("button", {
    type: "button", class: "btn", "aria-pressed": String(setupForm.game === key), "data-game": key,
    onclick: () => { setupForm.game = key; renderSetup(); },
  }, label));
  return el("section", { class: "card stack", id: "setup-card" },
    el("h1", {}, t("New game")),
    el("div", { class: "segmented", role: "group", "aria-label": t("Game") }, gameButtons),
    el("h2", {}, ((state && state.table_seats) || []).length > setupForm.players.length
      ? t("Players, clockwise, and their seats") : t("Players, clockwise from the first seat")),
    el("div", { class: "player-rows" }, playerRows),
    tooFewSeats(),
    el("button", { type: "button", class: "btn", id: "add-player", disabled: setupForm.players.length >= 6,
      onclick: () => { setupForm.players.push(""); renderSetup(); } }, `+ ${t("Add a player")}`),
    el("label", {}, t("Who starts"), starterSelect),
    el("h2", {}, t("Options")),
    el("div", { class: "options" }, optionFields(),
      // some groups think the odds spoil the bluff: the table's choice, kept with the setup
      el("label", { class: "check" }, el("input", { type: "checkbox", id: "show-odds", checked: setupForm.odds !== false,
        onchange: (e) => { setupForm.odds = e.target.checked; } }), t("Show the chance a bid holds"))),
    computerFields(computerSelect),
    el("div", { class: "row" },
      state && state.game && state.game.phase !== "over"
        ? el("button", { type: "button", class: "btn grow", onclick: () => { mode = "play"; setupForm.replaceConfirmed = false; render(); } }, t("Cancel")) : null,
      el("button", { type: "button", class: "btn primary big grow", id: "start-game", "aria-disabled": String(busy),
        onclick: async () => {
          if (busy) return;
          if (replacesAGame() && !setupForm.replaceConfirmed) {
            setupForm.replaceConfirmed = true;
            renderSetup();
            return;
          }
          const players = names();
          const body = { game: setupForm.game, players, options: { ...setupForm.options[setupForm.game] } };
          const tableSeats = (state && state.table_seats) || [];
          const seats = setupForm.players.map((n, i) => [n.trim(), seatOf(i)]).filter(([n]) => n).map(([, seat]) => seat);
          // seats only where the table has more than the players take, and not simply in order
          if (tableSeats.length > setupForm.players.length && seats.some((seat, i) => seat !== i + 1)) body.seats = seats;
          if (setupForm.computer && setupForm.game !== "impus" && players.includes(setupForm.computer)) {
            body.computer = { player: setupForm.computer, level: setupForm.level };
          }
          if (setupForm.odds === false) body.odds = false;
          if (setupForm.starter) body.starter = setupForm.starter;
          else if (players.length) body.starter = players[Math.floor(Math.random() * players.length)];
          const result = await send("POST", "/api/game", body, { note: t("New game started") });
          if (result !== null) { mode = "play"; setupSeeded = false; setupForm.replaceConfirmed = false; render(); }
        } }, replacesAGame() && setupForm.replaceConfirmed ? t("End it and start the new game") : t("Start the game"))),
    replacesAGame() && setupForm.replaceConfirmed ? el("p", { class: "message message-warning", id: "replace-warning", role: "alert" },
      tn("The {game} game in progress ends ({n} action); it stays in the journal, but only its export brings it back. "
        + "Tap again to start the new game.",
      "The {game} game in progress ends ({n} actions); it stays in the journal, but only its export brings it back. "
        + "Tap again to start the new game.", state.actions_count, { game: GAME_NAMES[state.game.game] || state.game.game })) : null,
    errorSlot());
}

/** Whether starting the form's game would end a game that is under way (actions taken). */
function replacesAGame() {
  const game = state && state.game;
  return Boolean(game && game.phase !== "over" && (state.actions_count ?? 0) > 0);
}

function renderSetup() {
  const old = document.getElementById("setup-card");
  if (!old) { render(); return; }
  redrawKeepingFocus(old.parentElement, () => old.replaceWith(setupCard()));
}

// ------------------------------------------------------------------ page

/** Undo, saying what it takes back (state.undo: null for nothing, or for a camera reveal,
 * which is reopened on the review page instead). */
function undoButton() {
  const last = state.undo;
  const what = last ? actionWords(last) : "";
  return el("button", { type: "button", class: "btn", id: "undo", disabled: blocked() || !state.game || !last,
    title: what ? t("Undo {what}", { what }) : t("Nothing to undo"),
    onclick: () => blocked() ? null : send("POST", "/api/undo", { seen: state.actions_count },
      { note: what ? t("Undone: {what}", { what }) : t("Last action undone") }) },
    `↶ ${what ? t("Undo {what}", { what }) : t("Undo")}`);
}

/** A journaled action in a few words, for the undo button. */
function actionWords(action) {
  const player = action.player || "";
  const whose = (text) => (player ? t("{player}'s {what}", { player, what: text }) : text);
  if (action.bid) {
    const bid = bidWords(parseBid(action.bid));
    return whose(action.set_aside ? t("bid {bid} and re-roll", { bid }) : t("bid {bid}", { bid }));
  }
  if (action.challenge) return whose(t("challenge"));
  if (action.scam) return whose(t("\"Scam!\""));
  if (action.dudo) return whose(t("dudo"));
  if (action.calza) return whose(t("calza"));
  if (action.pass) return whose(t("pass"));
  if (action.doubt) return whose(t("\"don't believe\""));
  if (action.play !== undefined) return whose(tn("{n} card", "{n} cards", action.play));
  if (action.polymorph) return whose(t("polymorph"));
  if (action.discard) return whose(t("discard"));
  if (action.reveal) return t("the reveal");
  return t("the last action");
}

function toolsCard() {
  const game = state.game;
  return el("section", { class: "card" },
    el("div", { class: "actions" },
      // state.undo: what an undo would take back (null: nothing, or a camera reveal, which is
      // reopened on the review page instead)
      undoButton(),
      el("button", { type: "button", class: "btn", id: "new-game", onclick: () => { mode = "setup"; lastError = ""; render(); } }, t("New game")),
      game ? el("a", { class: "btn ghost wide", href: "/api/game/export", download: "bluffcam-game.json" }, t("Export the game (replay script)")) : null));
}

/** The state changed while the setup form is on screen: only the status card above it is
 * drawn anew. The form is left where it is: moved, even into a new grid, the field being
 * typed in loses the focus, and with it the phone's keyboard and what was being typed. */
function keepSetupCard(card, status) {
  const grid = card.parentElement;
  redrawKeepingFocus(grid, () => {
    for (const node of [...grid.children]) if (node !== card) node.remove();
    grid.insertBefore(status, card);
  });
  const err = card.querySelector("#control-error");
  if (err) err.textContent = lastError;
  // greyed while the game is being started, but kept focusable: this card is not drawn
  // anew, so a disabled button would drop the keyboard's focus to the page's start
  const start = card.querySelector("#start-game");
  if (start) start.setAttribute("aria-disabled", String(busy));
  document.body.dataset.version = String(state.version ?? "");
}

function render() {
  if (!state) return;
  // once: drawn again at each change of the table, it took the focus back to the PIN field
  // and wiped what it had said ("That PIN is not right")
  if (needsPin() && pinGate.hidden) showPinGate();
  const game = state.game;
  const parts = [statusCard()];
  const wantsSetup = mode === "setup" || !game;
  if (wantsSetup) {
    // Keep a half-filled form: rebuild it only when it is not on screen yet.
    const existing = document.getElementById("setup-card");
    if (existing && existing.isConnected && existing.parentElement.parentElement === root) {
      keepSetupCard(existing, parts[0]);
      return;
    }
    parts.push(setupCard());
  } else if (game.phase === "bidding") {
    resetPickerIfMoved();
    // a phone that claimed a seat acts for its own player only (seatclaim.js)
    parts.push(...playerCards(state, render), mayActFor(state, game.turn) ? playCard() : null, toolsCard(),
      claimCard(state, render));
  } else if (game.phase === "reveal") {
    parts.push(...playerCards(state, render), revealCard(), toolsCard(), claimCard(state, render));
  } else {
    parts.push(el("section", { class: "card stack" },
      el("h2", {}, t("Game over")),
      state.standings ? el("div", { class: "standings", id: "control-standings" }, standingsTable(state.standings)) : null,
      el("button", { type: "button", class: "btn primary big", onclick: () => { mode = "setup"; render(); } }, t("Play again")),
      // the last reveal typed in wrong decided the game: it can still be taken back
      state.undo ? undoButton() : null,
      // another group sits down: tonight's standings start again from the next game
      state.evening ? el("button", { type: "button", class: "btn", id: "new-evening", disabled: busy,
        // asked twice: one tap by mistake would wipe the evening's standings
        onclick: () => {
          if (!eveningAsked) { eveningAsked = true; render(); return; }
          eveningAsked = false;
          send("POST", "/api/evening/new", undefined, { note: t("Tonight's standings start afresh") });
        } },
      eveningAsked ? t("Tap again to clear tonight's standings") : t("New evening: clear the standings")) : null,
      // until the next game starts, the standings can come back
      state.evening_undo ? el("button", { type: "button", class: "btn", id: "undo-new-evening", disabled: busy,
        onclick: () => send("POST", "/api/evening/undo", undefined, { note: t("Tonight's standings are back") }) },
      t("Undo: bring tonight's standings back")) : null,
      errorSlot()));
  }
  fill(root, el("div", { class: "control-grid" }, parts));
  document.body.dataset.version = String(state.version ?? "");
}

const live = followState((next) => {
  state = next;
  announceTurn(state);
  keepAwake(state);
  noteMoves(state);
  render();
});
