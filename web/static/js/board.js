// The board page: everything a table wants to glance at, redrawn from each state event.

import { api, followState } from "./api.js";
import { lang, said, t, tn, num } from "./i18n.js";
import {
  announce, el, fill, die, parseBid, bidWords, percent, playerTally, jokerFace, gameKind, GAME_NAMES, revealCall, computerPlayer,
  gameOverHeadline, eveningText, readingWords, verdictText,
} from "./ui.js";
import { renderStory, renderPendingReview, renderStandings } from "./boardpanels.js";

const $ = (id) => document.getElementById(id);
/** How long a dashboard message stays on the board. */
const MESSAGE_SHOWN_S = 120;

/** Track fields ("3", "2*") from the state's ladder, or the Bluff ladder when it sends none. */
export function trackFields(state) {
  const kind = gameKind(state);
  const fields = [];
  const seen = new Set();
  const add = (count, star) => {
    const key = `${count}${star ? "*" : ""}`;
    if (!seen.has(key)) { seen.add(key); fields.push({ key, count, star }); }
  };
  const track = state.board && Array.isArray(state.board.track) ? state.board.track : null;
  if (track && track.length) {
    for (const entry of track) {
      const bid = parseBid(entry);
      if (bid) add(bid.count, bid.face === null);
    }
    return fields;
  }
  // Only Bluff has a bid board; without a ladder from the server, draw Bluff's (B6).
  if (kind !== "bluff" || !state.game) return fields;
  const total = (state.game.players || []).reduce((n, p) => n + (playerTally(p)?.value || 0), 0);
  for (let n = 1; n <= Math.max(total, 1); n += 1) {
    add(n, false);
    if (n % 2 === 1) add((n + 1) / 2, true);
  }
  return fields;
}

function bidKey(bid) {
  return bid ? `${bid.count}${bid.face === null ? "*" : ""}` : null;
}

/** Whether a revealed die counts towards a bid (the joker counts for every number bid). */
export function dieMatches(value, bid, joker, kind) {
  if (!bid) return false;
  if (kind === "scam") return value === bid.face;
  if (bid.face === null) return value === joker;
  return value === bid.face || value === joker;
}

// The turn card's big line: a long one (a call to the table, a long name) in a smaller size,
// so that it takes one line, not three, on a TV.
const LONG_TURN_NAME = 9;

function turnName(text, attrs = {}) {
  const classes = [attrs.class || "turn-name"];
  if (String(text).length > LONG_TURN_NAME) classes.push("long");
  return el("div", { ...attrs, class: classes.join(" ") }, text);
}

function renderTurn(state) {
  const game = state.game;
  const node = $("turn");
  if (!game) {
    fill(node,
      el("div", { class: "turn-label" }, t("No game yet")),
      el("div", { class: "turn-name small" }, t("Set one up on a phone:"), " ", el("a", { href: "/control" }, "/control")));
    node.dataset.said = t("No game yet");
    return;
  }
  if (game.phase === "over") {
    fill(node,
      el("div", { class: "turn-label" }, t("Game over")),
      turnName(gameOverHeadline(game), { class: "turn-name winner", "data-testid": "winner" }),
      eveningText(state.evening) ? el("div", { class: "turn-sub" }, eveningText(state.evening)) : null);
    node.dataset.said = [t("Game over: {headline}", { headline: gameOverHeadline(game) }), eveningText(state.evening)].filter(Boolean).join(". ");
    return;
  }
  if (game.phase === "reveal") {
    const batch = game.last_batch;
    const doubtedBid = game.bid ? (state.bidder ? t("{player}'s {bid}", { player: state.bidder, bid: bidWords(game.bid) }) : bidWords(game.bid)) : "";
    // who doubted (Bluff) or called "Scam!"; a Scam round every other player passed on has no caller (S5)
    const caller = (state.details || {}).challenger || (state.details || {}).caller;
    const doubted = game.bid
      ? (caller ? doubtWord(state, doubtedBid, caller)
        : game.game === "scam" ? t("Everyone else passed: {bid}", { bid: doubtedBid }) : t("Doubted: {bid}", { bid: doubtedBid }))
      : game.doubter && batch ? t("{doubter} does not believe {player}'s {count} × {claim}",
        { doubter: game.doubter, player: batch.player, count: batch.count, claim: batch.claim }) : "";
    // the camera's reading takes a second or two: the table sees that its press was heard
    const reading = (state.camera || {}).reading ? readingWords(game) : "";
    const call = state.review ? t("Check the reading") : reading || revealCall(game);
    fill(node,
      el("div", { class: "turn-label" }, state.review ? t("Checking the reading") : t("Reveal")),
      turnName(call, reading ? { "data-testid": "camera-reading" } : {}),
      el("div", { class: "turn-sub" }, doubted));
    node.dataset.said = [doubted, state.review ? t("The reading needs a check") : call].filter(Boolean).join(". ");
    return;
  }
  const label = {
    bluff: game.bid ? t("Raise or doubt") : t("Opening bid"),
    scam: game.bid ? t("Raise, pass or “Scam!”") : t("Opening bid"),
    perudo: game.bid ? t("Raise, dudo or calza") : t("Opening bid"),
    impus: game.claim ? t("Believe or doubt") : t("Starts a new pile"),
  }[game.game] || t("Next");
  fill(node,
    el("div", { class: "turn-label" }, label),
    turnName(game.turn ?? "—", { "data-testid": "turn" }),
    el("div", { class: "turn-sub" }, t("to play")));
  node.dataset.said = [t("{player}'s turn: {what}", { player: game.turn, what: label.toLocaleLowerCase(lang) }), moveSaid(state)].filter(Boolean).join(". ");
}

/** The move the player to play answers, in words: the bid and its bidder, or the pile's batch. */
function moveSaid(state) {
  const game = state.game;
  const batch = game.last_batch;
  if (game.game === "impus") return game.claim && batch ? putDown(batch) : "";
  const bid = game.bid ? parseBid(game.bid) : null;
  if (!bid || bid.face === undefined) return "";
  return state.bidder ? t("bid {bid} by {player}", { bid: bidWords(bid), player: state.bidder }) : t("bid {bid}", { bid: bidWords(bid) });
}

function putDown(batch) {
  return t("{player} put down {count} as {claim}", { player: batch.player, count: batch.count, claim: batch.claim });
}

function renderCurrentBid(state) {
  const node = $("current-bid");
  const game = state.game;
  node.hidden = !game || game.phase === "over";  // nothing more is bid on, or put on a pile
  if (game && game.game === "impus") {
    const batch = game.last_batch;
    node.dataset.bid = game.claim || "";
    fill(node, el("div", { class: "bid-caption" }, t("The pile")),
      game.claim
        ? el("div", { class: "bid-big", "data-testid": "claim" },
          el("span", { class: "card-stack big", "aria-hidden": "true" }),
          el("span", { class: "bid-count" }, game.pile ?? 0),
          el("span", { class: "claim-kind" }, `× ${game.claim}`))
        : el("div", { class: "bid-empty" }, t("no pile yet")),
      batch ? el("div", { class: "bid-by" }, putDown(batch)) : null);
    return;
  }
  const bid = game && game.bid ? parseBid(game.bid) : null;
  if (!bid || bid.face === undefined) {
    fill(node, el("div", { class: "bid-empty" }, t("no bid yet")));
    node.dataset.bid = "";
    return;
  }
  node.dataset.bid = game.bid;
  fill(node,
    el("div", { class: "bid-caption" }, t("Current bid")),
    el("div", { class: "bid-big", "data-testid": "current-bid" },
      el("span", { class: "bid-count" }, bid.count),
      el("span", { class: "bid-times" }, "×"),
      die(bid.face === null ? "*" : bid.face, { size: 96, variant: "red", title: bidWords(bid) })),
    el("div", { class: "bid-by" }, state.bidder ? t("by {player}", { player: state.bidder }) : ""));
}

function renderOdds(state) {
  const node = $("odds");
  const odds = state.odds;
  if (!odds || typeof odds.probability !== "number") { fill(node); node.hidden = true; return; }
  node.hidden = false;
  const pct = Math.max(0, Math.min(1, odds.probability));
  const level = pct >= 0.6 ? "likely" : pct >= 0.35 ? "even" : "unlikely";
  fill(node,
    el("div", { class: "odds-caption" }, t("Chance it holds")),
    el("div", { class: `odds-value odds-${level}`, "data-testid": "odds" }, percent(pct)),
    el("div", { class: "meter", role: "meter", "aria-label": t("chance the bid holds"), "aria-valuemin": 0,
      "aria-valuemax": 100, "aria-valuenow": Math.round(pct * 100), "aria-valuetext": percent(pct) },
      el("span", { class: `meter-fill odds-${level}`, style: `width:${(pct * 100).toFixed(1)}%` })),
    typeof odds.expected === "number"
      ? el("div", { class: "odds-sub" }, t("expected on the table: {count}", { count: num(odds.expected, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) })) : null);
}

// The API tells the PIN only to a browser on the table's own machine (the TV): show it there,
// with a QR code a phone scans to open the control page unlocked, and that page's address.
let tablePin = null;
let controlUrl = null;
let phonesCanJoin = true;

function renderPin(state) {
  const node = $("pin-card");
  const pin = state.pin_required === false ? null : tablePin;
  if (!pin) { node.hidden = true; return; }
  node.hidden = false;
  if (node.dataset.pin === pin) return;  // drawn once: the QR code is not fetched again
  node.dataset.pin = pin;
  const where = controlUrl ? controlUrl.replace(/^https?:\/\//, "") : "/control";
  node.classList.toggle("has-qr", phonesCanJoin);
  fill(node,
    phonesCanJoin ? el("button", { type: "button", class: "qr-button", "aria-label": t("Show the QR code big"), onclick: () => showBigQr(true) },
      el("img", { class: "join-qr", src: "/api/join.svg", alt: t("QR code: scan it with a phone to open the control page") })) : null,
    el("div", { class: "pin-text" },
      el("div", { class: "pin-caption" }, t("Table PIN")),
      el("div", { class: "pin-value", "data-testid": "pin" }, String(pin)),
      phonesCanJoin
        ? el("div", { class: "pin-sub", "data-testid": "join" }, t("scan to join, or open"), " ", el("strong", {}, where))
        : el("div", { class: "pin-sub", "data-testid": "join" }, t("phones cannot reach this board: start it with"), " ",
          el("strong", {}, "--host 0.0.0.0"))));
}

/** The QR code over the whole screen, big enough to scan from a seat; any tap or key closes it. */
function showBigQr(show) {
  document.getElementById("qr-big")?.remove();
  if (!show) return;
  const close = () => showBigQr(false);
  const overlay = el("div", { id: "qr-big", class: "qr-big", role: "dialog", "aria-label": t("QR code to join"), onclick: close },
    el("img", { src: "/api/join.svg", alt: t("QR code: scan it with a phone to open the control page") }),
    el("p", {}, t("Scan to join the table · tap to close")));
  document.body.append(overlay);
  document.addEventListener("keydown", close, { once: true });
}

function renderMessages(state) {
  const items = [];
  if (state.review) {
    items.push(el("a", { class: "message message-review", href: `/review/${encodeURIComponent(state.review.id)}` },
      el("strong", {}, t("The reading needs a check."), " "),
      t("Confirm or correct it on the review page before the verdict applies.")));
  }
  // Newest first, only a few, and only fresh ones: the board is for glancing at.
  const now = Date.now() / 1000;
  // A message announcing the pending review says what its card above already says.
  const pending = state.review ? state.review.id : null;
  // a lasting one (a fault found at an unwatched start) stays until the next game
  const fresh = (state.messages || []).filter((m) => (m.lasting || typeof m.at !== "number" || now - m.at < MESSAGE_SHOWN_S)
    && !(pending && m.review === pending));
  // a lasting one is never pushed off by newer news; the rest fill the three places left
  const lasting = fresh.filter((m) => m.lasting).slice(-2);
  const shown = [...lasting, ...fresh.filter((m) => !m.lasting).slice(-(3 - lasting.length))];
  for (const message of shown.sort((a, b) => (a.at ?? 0) - (b.at ?? 0)).reverse()) {
    const level = ["info", "warning", "error"].includes(message.level) ? message.level : "info";
    const text = messageText(message);
    items.push(el("div", { class: `message message-${level}`, title: text }, text));
  }
  fill($("messages"), items);
}

// A TV's board draws a table of more players than this compact (app.css: the cards, a reveal's
// seats in two columns); one of fewer lines than a 720-line TV (a 1024 × 600 panel) a table of
// more than two.
const CROWDED_TABLE = 4;
const CROWDED_ON_A_SHORT_SCREEN = 2;
const SHORT_SCREEN = window.matchMedia("(max-height: 700px)");

function crowded(count) {
  return count > (SHORT_SCREEN.matches ? CROWDED_ON_A_SHORT_SCREEN : CROWDED_TABLE);
}

// More fields than three rows of a TV board's track hold: a TV lays them out smaller (app.css),
// as a screen of fewer lines than a 720-line TV does any track.
const LONG_TRACK = 27;

function renderTrack(state) {
  const fields = trackFields(state);
  const wrap = $("track").parentElement;
  // at the game's end nothing is bid any more: the last round's short track is stale
  wrap.hidden = fields.length === 0 || (state.game && state.game.phase === "over");
  wrap.classList.toggle("compact", fields.length > LONG_TRACK || SHORT_SCREEN.matches);
  const bid = state.game && state.game.bid ? parseBid(state.game.bid) : null;
  const current = bidKey(bid);
  const currentIndex = fields.findIndex((f) => f.key === current);
  const items = fields.map((field, index) => {
    const classes = ["field", field.star ? "field-star" : "field-number"];
    if (currentIndex >= 0 && index < currentIndex) classes.push("field-passed");
    const isCurrent = index === currentIndex;
    if (isCurrent) classes.push("field-current");
    return el("li", { class: classes.join(" "), "data-field": field.key, "aria-current": isCurrent ? "true" : null },
      el("span", { class: "field-count" }, field.count),
      field.star ? el("span", { class: "field-star-mark", "aria-label": t("star") }, "★") : null,
      isCurrent ? die(bid.face === null ? "*" : bid.face, { size: 44, variant: "red", title: bidWords(bid) }) : null);
  });
  fill($("track"), items);
  // never scrolled into view: on a phone that pulled the page up to the track at every update
}

const KNOWN_PLAYER_KEYS = new Set(["name", "dice", "cards", "hand", "out", "lost", "score", "safe"]);

/** ``name``'s faces in the last round's reveal, where they are all ``count`` dice the
 * player has (typed in or read by the camera, the round's history keeps them). */
function revealedDice(state, name, count) {
  const rounds = state.history || [];
  const last = rounds.length ? rounds[rounds.length - 1] : null;
  const faces = last && last.reveal && last.reveal[name];
  return Array.isArray(faces) && faces.length === count && faces.every(Number.isInteger) ? faces : null;
}

function renderPlayers(state) {
  const game = state.game;
  const node = $("players");
  if (!game) { fill(node); return; }
  const kind = game.game;
  const setAside = state.set_aside || {};
  const target = (state.details && state.details.target) || (state.setup && state.setup.options && state.setup.options.target) || null;
  // where the table has more seats than players, each card names the seat its player took
  const tableSeats = state.table_seats || [];
  const seatNumbers = (state.setup && state.setup.seats) || null;
  const seatName = (index) => (tableSeats.length > (game.players || []).length
    ? tableSeats[(seatNumbers ? seatNumbers[index] : index + 1) - 1] || null : null);
  const cards = (game.players || []).map((player, seat) => {
    const tally = playerTally(player);
    const aside = setAside[player.name] || [];
    const classes = ["player"];
    // Impus reports a safe player as out of play too: safe is their good end, not a knock-out
    const knockedOut = player.out && !player.safe;
    if (knockedOut) classes.push("player-out");
    if (player.safe) classes.push("player-safe");
    if (game.turn === player.name && game.phase === "bidding") classes.push("player-turn");
    if (game.winner === player.name) classes.push("player-winner");
    const tags = [];
    if (game.turn === player.name && game.phase === "bidding") tags.push(el("span", { class: "tag tag-turn" }, t("to play")));
    if (computerPlayer(state) === player.name) tags.push(el("span", { class: "tag tag-computer" }, t("computer")));
    if (state.bidder === player.name && game.bid) tags.push(el("span", { class: "tag tag-bidder" }, t("bid {bid}", { bid: bidWords(game.bid) })));
    const details = state.details || {};
    if (kind === "scam" && details.round_starter === player.name && game.phase !== "over") {
      tags.push(el("span", { class: "tag tag-first" }, t("first bidder")));
    }
    if (knockedOut) tags.push(el("span", { class: "tag tag-out" }, t("out")));
    if (player.safe) tags.push(el("span", { class: "tag tag-safe" }, t("safe")));
    if (game.winner === player.name) tags.push(el("span", { class: "tag tag-winner" }, t("winner")));

    const body = [];
    if (typeof player.score === "number") {
      const goal = Number(target) || 10;
      body.push(el("div", { class: "score" },
        el("span", { class: "score-value", "data-testid": "score" }, player.score),
        el("span", { class: "score-target" }, ` / ${tn("{n} point", "{n} points", goal)}`)),
      el("div", { class: "meter small" }, el("span", { class: "meter-fill score-fill",
        style: `width:${Math.min(100, (player.score / goal) * 100).toFixed(1)}%` })));
    }
    if (tally && tally.key === "dice") {
      // once the game is over the last reveal showed the dice still on the table
      const shown = game.phase === "over" ? revealedDice(state, player.name, tally.value) : null;
      const hidden = shown ? 0 : Math.max(0, tally.value - aside.length);
      const joker = kind === "bluff" ? jokerFace(state) : null;  // marked ★ as on the last reveal
      const dice = (shown || []).map((face) => die(face, { size: 44, variant: "ivory", joker: face === joker }));
      for (let i = 0; i < hidden; i += 1) dice.push(die(null, { size: 44, variant: "hidden" }));
      if (!shown) {
        for (const face of aside) {
          dice.push(die(face, { size: 44, variant: "ivory", joker: face === joker, title: t("set aside: {face}", { face }) }));
        }
      }
      body.push(el("div", { class: "player-dice", "aria-label": tn("{n} die", "{n} dice", tally.value) }, dice));
      body.push(el("div", { class: "player-count" }, tn("{n} die", "{n} dice", tally.value),
        aside.length ? ` · ${t("{n} shown", { n: aside.length })}` : ""));
    } else if (tally) {
      body.push(el("div", { class: "player-cards" },
        el("span", { class: "card-stack", "aria-hidden": "true" }),
        el("span", { class: "player-count" }, tally.key === "cards" ? tn("{n} card", "{n} cards", tally.value) : `${num(tally.value)} ${t(tally.key)}`)));
    }
    if (typeof player.lost === "number" && player.lost > 0) body.push(el("div", { class: "lost" }, `−${player.lost}`,
      el("span", { class: "lost-words" }, " ", t("this game"))));
    if (player.lost === true) tags.push(el("span", { class: "tag tag-out" }, t("lost")));
    for (const [key, value] of Object.entries(player)) {
      if (KNOWN_PLAYER_KEYS.has(key) || value === null || typeof value === "object") continue;
      body.push(el("div", { class: "player-extra" }, `${t(key.replace(/_/g, " "))}: ${typeof value === "number" ? num(value) : value}`));
    }
    return el("article", { class: classes.join(" "), "data-player": player.name, style: `--seat:${seat}` },
      el("header", { class: "player-head" }, el("h3", {}, player.name,
        seatName(seat) ? el("span", { class: "player-seat", "data-testid": "seat" }, ` · ${seatName(seat)}`) : null),
      el("div", { class: "tags" }, tags)),
      body);
  });
  // a TV's board lays the cards out in at most two rows, compact ones for a crowded table (app.css)
  node.style.setProperty("--columns", String(cards.length <= 4 ? cards.length : Math.ceil(cards.length / 2)));
  node.classList.toggle("crowded", crowded(cards.length));
  fill(node, cards);
}

// Keys drawn elsewhere (or not worth a tile); any other key a game reports gets a tile.
const KNOWN_GAME_KEYS = new Set(["game", "phase", "turn", "bid", "winner", "players", "loser", "kinds",
  "safe", "reveal_due", "deck", "doubter", "claim", "pile"]);

// the words of the tiles Impus Bluff shows (any other game's keys show as they come)
const EXTRA_LABELS = { last_batch: t("last batch"), discards: t("discards"), card_kinds: t("card kinds") };

function renderGameExtras(state) {
  // Impus and future games: show whatever else the engine reports (pile, claim, discards…).
  const game = state.game;
  let node = document.getElementById("game-extras");
  const extras = game ? Object.entries(game).filter(([k, v]) => !KNOWN_GAME_KEYS.has(k) && v !== null && v !== undefined) : [];
  if (!extras.length) { if (node) node.remove(); return; }
  if (!node) {
    node = el("section", { id: "game-extras", class: "game-extras", "aria-label": t("Table") });
    $("players").before(node);
  }
  fill(node, extras.map(([key, value]) => {
    const [label, shown] = key === "polymorphs" && typeof value === "number"
      ? polymorphsTile(value, state.details)
      : [EXTRA_LABELS[key] || key.replace(/_/g, " "), formatValue(value, key)];
    return el("div", { class: "extra", "data-key": key },
      el("div", { class: "extra-label" }, label),
      el("div", { class: "extra-value" }, shown));
  }));
}

/** Impus's polymorphs as the table can still meet them: the engine's count of those not face
 * up (one on a pile a player takes goes back into a hand, hidden again); `game.polymorphs`
 * alone is only the deal. */
function polymorphsTile(dealt, details) {
  if (dealt <= 0) return [t("polymorphs"), t("none dealt")];
  const hidden = details && typeof details.polymorphs_hidden === "number" ? details.polymorphs_hidden : dealt;
  return [t("polymorphs hidden"), t("{count} of {total}", { count: hidden, total: dealt })];
}

function formatValue(value, key = "") {
  if (key === "last_batch" && value && typeof value === "object") {
    return `${value.player}: ${value.count} × ${value.claim}`;
  }
  if (key === "discards" && Array.isArray(value)) {
    return value.length ? value.map((d) => `${d.player}: ${d.count} × ${d.kind}`).join(", ") : t("none");
  }
  if (Array.isArray(value)) return value.length ? value.map((v) => formatValue(v)).join(", ") : t("none");
  if (value && typeof value === "object") {
    return Object.entries(value).map(([k, v]) => `${t(k.replace(/_/g, " "))}: ${formatValue(v)}`).join(" · ");
  }
  return typeof value === "number" ? num(value) : String(value);
}

/** The last settled round with its photo: history says what happened, last_reveal shows it. */
export function lastRevealView(state) {
  const round = (state.history || []).slice(-1)[0] || null;
  const photo = state.last_reveal || null;
  if (!round && !photo) return null;
  const samePhoto = photo && (!round || !round.reveal_id || round.reveal_id === photo.id);
  return {
    round,
    photo: samePhoto ? photo : null,
    seats: (round && round.reveal) || (samePhoto && photo.seats) || {},
    count: round && typeof round.actual === "number" ? round.actual : samePhoto && typeof photo.count === "number" ? photo.count : null,
    verdict: (round && verdictText(round)) || (samePhoto && photo.verdict) || "",
    bid: parseBid((round && round.bid) || ""),
  };
}

function correctionsText(photo) {
  const changes = photo && photo.corrections ? Object.entries(photo.corrections) : [];
  if (!changes.length) return null;
  return changes.map(([seat, c]) => `${seat}: ${(c.removed || []).join(", ") || "—"} → ${(c.added || []).join(", ") || "—"}`).join("; ");
}

/** How a person settled the reveal, where one did. The photo keeps the camera's own stamp
 * ("NEEDS REVIEW"), so without this line a reveal checked and confirmed as read looks
 * unsettled on the board. */
export function settledText(photo) {
  const corrected = correctionsText(photo);
  if (corrected) return `✎ ${t("corrected by hand")} — ${corrected}`;
  const how = photo && typeof photo.how === "string" ? photo.how : "";
  if (how === "confirmed") return `✓ ${t("checked by hand: the camera's reading stood")}`;
  if (how.startsWith("entered by hand")) return `✎ ${t("entered by hand")}`;
  return null;
}

function renderLastReveal(state) {
  const node = $("last-reveal");
  // a reading waiting for a check is what the table looks at: the last verdict would read
  // as this round's, so it waits until the new one applies
  $("reveal-title").textContent = state.review ? t("Checking the reading") : t("Last reveal");
  node.closest(".reveal-panel").classList.toggle("reviewing", Boolean(state.review));
  if (state.review) { renderPendingReview(node, state); return; }
  const view = lastRevealView(state);
  if (!view) { fill(node, el("p", { class: "muted" }, t("No reveal yet this game."))); return; }
  const kind = gameKind(state);
  const bid = view.bid && view.bid.face !== undefined ? view.bid : null;
  // a Perudo palifico round's number bid counts its face alone (P13): its verdict (in
  // English, whatever the page's language) says "4s: …"
  const english = (view.round && view.round.verdict) || (view.photo && view.photo.verdict) || "";
  const palifico = kind === "perudo" && bid && bid.face !== null && english
    && !/ and aces:/.test(english);
  const joker = palifico ? null : jokerFace(state);
  let seats;
  if (Array.isArray(view.seats)) {
    seats = el("div", { class: "seat-reading" }, el("span", { class: "seat-name" }, t("Turned up")), view.seats.join(", "));
  } else {
    seats = Object.entries(view.seats).map(([name, values]) =>
      el("div", { class: "seat-reading", "data-seat": name },
        el("span", { class: "seat-name" }, name),
        el("span", { class: "seat-dice" }, (Array.isArray(values) ? values : []).map((v) => {
          const value = typeof v === "object" && v ? v.value : v;
          const hit = dieMatches(value, bid, joker, kind);
          return die(value, { size: 30, variant: hit ? "hit" : "ivory", joker: kind !== "scam" && value === joker,
            title: hit ? t("{face}: counts", { face: value }) : `${value}` });
        }))));
  }
  const settled = settledText(view.photo);
  fill(node,
    el("div", { class: `reveal-grid${view.photo && view.photo.image_url ? "" : " no-photo"}` },
      view.photo && view.photo.image_url ? el("a", { class: "reveal-photo", href: view.photo.image_url, target: "_blank",
        style: PHOTO_RATIOS.has(view.photo.image_url) ? `--photo-ratio:${PHOTO_RATIOS.get(view.photo.image_url)}` : null },
        el("img", { src: view.photo.image_url, alt: t("The annotated reveal photo"), onload: fitPhotoBox })) : null,
      el("div", { class: "reveal-text" },
        el("p", { class: "verdict", "data-testid": "verdict" }, view.verdict),
        // a round's verdict says the count too ("4s and ★: 12, bid was 9 — …"): a short screen
        // leaves this line out (app.css)
        view.count !== null ? el("p", { class: `reveal-count${view.round && view.round.verdict ? " said-by-verdict" : ""}` }, bid ? t("Counted {count} for {bid}", { count: view.count, bid: bidWords(bid) }) : t("Counted {count}", { count: view.count })) : null,
        el("div", { class: `seat-readings${Array.isArray(seats) && crowded(seats.length) ? " crowded" : ""}` }, seats),
        settled ? el("p", { class: "corrected", title: settled }, settled) : null)));
}

// A TV's board scales the photo into the height the reveal's words leave; its box is kept
// no taller than the photo at full width (app.css), so the words sit right under it. The
// board is drawn again at every update: a photo's shape, once known, is given at once.
const PHOTO_RATIOS = new Map();

function fitPhotoBox(event) {
  const img = event.target;
  if (img.naturalHeight === 0) return;
  const ratio = img.naturalWidth / img.naturalHeight;
  PHOTO_RATIOS.set(img.getAttribute("src"), ratio);
  img.parentElement.style.setProperty("--photo-ratio", String(ratio));
}

/** What ``player``, who ended the bidding, did (to ``bid``), in the game's words (S5: "Scam!";
 *  Perudo's dudo or calza, P8 and P10: a round's verdict says which). */
function doubtWord(state, bid, player, round = null) {
  if (gameKind(state) === "perudo") {
    const call = round ? (/calza/.test(round.verdict || "") ? "calza" : "dudo")
      : ((state.details || {}).call || "dudo");
    if (call === "calza") {
      return bid ? t("{player} called calza on {bid}", { player, bid }) : t("{player} called calza", { player });
    }
    return bid ? t("{player} called dudo on {bid}", { player, bid }) : t("{player} called dudo", { player });
  }
  const scam = gameKind(state) === "scam";
  if (!bid) return scam ? t("{player} called Scam!", { player }) : t("{player} doubted", { player });
  return scam ? t("{player} called Scam! on {bid}", { player, bid }) : t("{player} doubted {bid}", { player, bid });
}

/** A table message in the page's language, where the server sent its words (``said``). */
function messageText(message) {
  return message.said ? said(message.said) : message.text;
}

function renderHistory(state) {
  const rounds = (state.history || []).slice().reverse();
  fill($("history"), rounds.length ? rounds.map((round) => el("li", { class: "round" },
    el("div", { class: "round-head" },
      el("span", { class: "round-no" }, t("Round {n}", { n: round.round ?? "" })),
      round.bid ? el("span", { class: "round-bid" }, t("{player} bid {bid}", { player: round.bidder ?? "?", bid: bidWords(round.bid) })) : null,
      round.challenger ? el("span", { class: "round-challenge" }, doubtWord(state, "", round.challenger, round)) : null,
      round.image_url ? el("a", { class: "round-photo", href: round.image_url, target: "_blank",
        "aria-label": t("the photo of round {n}", { n: round.round ?? "" }) }, `${t("photo")} ↗`) : null),
    el("div", { class: "round-verdict" }, verdictText(round)))) : [el("li", { class: "muted" }, t("No rounds played yet."))]);
}

/** The camera's status in words: "ok" in the page's language, a fault as the camera says it
 *  (its ``summary``: without the shell commands, bluffcam/camera_news.py; "camera offline"
 *  in the page's language where its words came too). */
function cameraWord(status, summary, summarySaid) {
  if (status === "ok") return t("ok");
  return summarySaid ? said(summarySaid) : summary || status;
}

function renderFooter(state) {
  const camera = state.camera || {};
  const status = camera.status || "none";
  const cls = status === "ok" ? "ok" : status === "none" ? "none" : "bad";
  fill($("camera-status"), el("span", { class: `dot dot-${cls}`, "aria-hidden": "true" }),
    status === "none" ? t("no camera (enter reveals by hand)") : t("camera: {status}", { status: cameraWord(status, camera.summary, camera.summary_said) })
      + (camera.learned_from ? ` · ${tn("taught on {n} photo of this table", "taught on {n} photos of this table", camera.learned_from)}` : ""));
  const kind = gameKind(state);
  // the house rules in play, so a player joining the table need not ask
  const parts = kind ? [GAME_NAMES[kind] || kind,
    state.setup ? tn("{n} player", "{n} players", (state.setup.players || []).length) : null,
    ...(state.house_rules_said || state.house_rules || []).map((r) => (typeof r === "string" ? r : said(r)))] : [];
  $("game-kind").title = parts.filter(Boolean).join(" · ");
  fill($("game-kind"), $("game-kind").title);
  // tonight's standings, once a game has ended (at a game's end, its card says them instead)
  const evening = state.game && state.game.phase === "over" ? null : eveningText(state.evening);
  $("evening").hidden = !evening;
  $("evening").title = evening || "";
  fill($("evening"), evening || "");
}

// What the board says to a screen reader: the turn card's words when they change, and each
// new message, once. The boxes themselves are drawn anew at every update: as live regions
// they would be read again (standings and all) at every change, or not at all.
let spokenTurn = null;
let spokenRounds = 0;
const spokenMessages = new Set();

function speakChanges(state) {
  const turn = $("turn").dataset.said || "";
  const messages = (state.messages || []).filter((m) => m && m.text);
  const keys = messages.map((m) => `${m.at ?? ""}|${m.text}`);
  const rounds = state.history || [];
  const first = spokenTurn === null;  // the page's first drawing is read as a page, not said
  const saying = [];
  // a round just settled: its verdict first, then who plays next
  if (!first && rounds.length > spokenRounds && rounds[rounds.length - 1].verdict) saying.push(verdictText(rounds[rounds.length - 1]));
  if (turn !== spokenTurn && !first) saying.push(turn);
  keys.forEach((key, i) => { if (!first && !spokenMessages.has(key)) saying.push(messageText(messages[i])); });
  // only the state's own (few) messages are remembered: a board left on for months
  spokenMessages.clear();
  keys.forEach((key) => spokenMessages.add(key));
  spokenTurn = turn;
  spokenRounds = rounds.length;
  if (saying.length) announce(saying.join(". "));
}

export function renderBoard(state) {
  document.body.dataset.phase = (state.game && state.game.phase) || "none";
  document.body.dataset.game = gameKind(state) || "none";
  document.body.dataset.version = String(state.version ?? "");
  renderTurn(state);
  renderCurrentBid(state);
  renderOdds(state);
  renderPin(state);
  renderMessages(state);
  renderTrack(state);
  renderGameExtras(state);
  renderPlayers(state);
  renderLastReveal(state);
  renderStory($("story"), state);
  renderStandings($("standings"), state);
  renderHistory(state);
  renderFooter(state);
  speakChanges(state);
}

let latest = null;
followState((state) => { latest = state; renderBoard(state); });
SHORT_SCREEN.addEventListener("change", () => { if (latest) renderBoard(latest); });
api("GET", "/api/pin").then((data) => {
  tablePin = data && data.pin ? String(data.pin) : null;
  controlUrl = data && data.control_url ? String(data.control_url) : null;
  phonesCanJoin = !(data && data.phones_can_join === false);
  if (latest) renderPin(latest);
  if (tablePin && phonesCanJoin && new URLSearchParams(window.location.search).get("qr") === "big") showBigQr(true);
}).catch(() => { /* not the table's own screen: players read the PIN off the TV */ });
