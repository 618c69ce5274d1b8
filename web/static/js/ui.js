// Small shared drawing helpers: safe DOM building, pip dice, bids in words.
// Player names come from people, so text always goes in through textContent.

import { said, t, tn, num } from "./i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";

/** Build an element: el("div", {class: "x", onclick: f}, child, "text", ...). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

/** Build an SVG element the same way. */
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

/** A button that opens the file chooser of the hidden ``<input type="file">`` of id
 * ``inputId``: a button, not a label for that input, since Tab never reaches a label. */
export function chooseFileButton(inputId, attrs, ...children) {
  return el("button", { type: "button", ...attrs,
    onclick: () => document.getElementById(inputId).click() }, ...children);
}

function setAttrs(node, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else if (key === "dataset") {
      Object.assign(node.dataset, value);
    } else if (value === true) {
      node.setAttribute(key, "");
    } else {
      node.setAttribute(key, String(value));
    }
  }
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace everything inside a node. */
export function fill(node, ...children) {
  return redrawKeepingFocus(node, () => {
    node.replaceChildren();
    append(node, children);
  });
}

/** Run ``redraw``, which replaces what lies in ``scope``, keeping the keyboard's focus: the
 * pages draw themselves anew on each change of the table's state, and whatever had the focus
 * would be replaced, the focus falling back to the page's start, which a keyboard, switch
 * or screen-reader user must then travel back from. */
export function redrawKeepingFocus(scope, redraw) {
  const active = document.activeElement;
  const inside = active && active !== document.body && scope.contains(active);
  const controls = inside ? findersIn(scope) : [];
  const at = controls.findIndex((c) => c.element === active);
  const own = at >= 0 ? controls[at].finder : (inside ? finderOf(active, 0) : null);
  // where the focus goes if this control is not drawn again: the next after it, as when a
  // button removes itself; else the nearest before it
  const order = at < 0 ? controls : [...controls.slice(at + 1), ...controls.slice(0, at).reverse()];
  const after = order.map((c) => c.finder).filter(Boolean);
  const caret = inside ? caretOf(active) : null;
  redraw();
  if (!inside || scope.contains(document.activeElement)) return scope;
  // The same control gets it back, even one greyed for a moment (while its request is on its
  // way): it keeps the focus, marked aria-disabled and refusing clicks, until the next
  // drawing enables it. Found by id, data-focus-key or aria-label, else by its kind and its
  // words: "Play again" once lost the focus to the next control, "Undo the reveal", and an
  // Enter meant for the one undid the game's end.
  const again = own && findAgain(scope, own);
  // a control greyed for good (a seat's face pad once its dice are all in) says so: data-done
  const done = again && again.disabled && "done" in again.dataset;
  if (again && !done && again.getClientRects().length) {
    if (again.disabled) holdDisabled(scope, again);
    again.focus({ preventScroll: true });
    if (document.activeElement === again) {
      // and the caret where it was: drawn anew, a field puts it at the start, and the next
      // digit typed went in front of the first
      if (caret) again.setSelectionRange(...caret);
      return scope;
    }
  }
  // Gone or done (a card replaced, a seat's dice all entered): the next control that was
  // after it; else the nearest before it.
  for (const next of after) {
    const target = findAgain(scope, next);
    if (target && !target.disabled && target.getClientRects().length) {
      target.focus({ preventScroll: true });
      if (document.activeElement === target) return scope;
    }
  }
  return scope;
}

/** Where the caret (or selection) lies in a text field, or null for anything else (a
 *  button, a select, a number field, which keeps no caret a script can read). */
function caretOf(element) {
  try {
    const { selectionStart: start, selectionEnd: end, selectionDirection: direction } = element;
    return typeof start === "number" && typeof end === "number" ? [start, end, direction || "none"] : null;
  } catch {
    return null;
  }
}

const FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex='-1'])";

/** What finds a control again in a page drawn anew: its id, its data-focus-key (a control
 *  whose label changes as it is used, a die's value), its aria-label, else its kind and its
 *  words; null for a control with none of these. */
function baseOf(element) {
  if (element.id) return `#${element.id}`;
  const named = element.dataset && element.dataset.focusKey;
  if (named) return `key:${named}`;
  const label = element.getAttribute("aria-label");
  if (label) return `${element.tagName}|label:${label}`;
  const words = element.textContent.trim();
  return words ? `${element.tagName}|words:${words}` : null;
}

function finderOf(element, index) {
  const base = baseOf(element);
  return base === null ? null : { base, index };
}

/** Each focusable control in ``node``, page order, with its finder: its base and which of
 *  the controls alike it is (two "take back 4" buttons are the first and the second). */
function findersIn(node) {
  const seen = new Map();
  return [...node.querySelectorAll(FOCUSABLE)].map((element) => {
    const finder = finderOf(element, 0);
    if (finder) {
      finder.index = seen.get(finder.base) ?? 0;
      seen.set(finder.base, finder.index + 1);
    }
    return { element, finder };
  });
}

/** The control a finder names in ``node``: the same one of those alike, else the first. */
function findAgain(node, finder) {
  // an id is the page's own name for it, on whatever element (a heading given the focus too)
  if (finder.base.startsWith("#")) return node.querySelector(`#${CSS.escape(finder.base.slice(1))}`);
  let first = null;
  let index = 0;
  for (const element of node.querySelectorAll(FOCUSABLE)) {
    if (baseOf(element) !== finder.base) continue;
    if (index === finder.index) return element;
    first = first || element;
    index += 1;
  }
  return first;
}

/** Let a control greyed for a moment keep the keyboard's focus: disabled elements cannot hold
 *  it, so it is marked aria-disabled instead and its clicks are stopped before they reach it. */
function holdDisabled(node, control) {
  control.disabled = false;
  control.setAttribute("aria-disabled", "true");
  if (!node.dataset.holdsDisabled) {
    node.dataset.holdsDisabled = "1";
    node.addEventListener("click", (event) => {
      if (event.target instanceof Element && event.target.closest("[aria-disabled='true']")) {
        event.preventDefault();
        event.stopPropagation();
      }
    }, true);
  }
}

/** Say ``text`` to a screen reader (the page's one live region, never drawn anew): a move
 *  from another phone, a count stepped, a reading confirmed. */
export function announce(text, { urgent = false } = {}) {
  // a refusal is urgent: said at once, over whatever is being read
  const node = document.getElementById(urgent ? "alerter" : "announcer");
  if (!node || !text) return;
  node.textContent = "";
  // emptied first and filled a moment later, so that the same words twice are said twice
  setTimeout(() => { node.textContent = text; }, 60);
}

const PIPS = {
  1: [[50, 50]],
  2: [[28, 28], [72, 72]],
  3: [[28, 28], [50, 50], [72, 72]],
  4: [[28, 28], [72, 28], [28, 72], [72, 72]],
  5: [[28, 28], [72, 28], [50, 50], [28, 72], [72, 72]],
  6: [[28, 26], [72, 26], [28, 50], [72, 50], [28, 74], [72, 74]],
};

const STAR_PATH = "M50 14 L60.6 38.4 L86.6 40.2 L66.8 57.4 L72.9 83 L50 69.2 L27.1 83 "
  + "L33.2 57.4 L13.4 40.2 L39.4 38.4 Z";

/**
 * A pip die as inline SVG. face: 1-6, "*" (a star: the joker) or null (a hidden die).
 * variant: "ivory" (a normal die), "red" (the bid marker), "hidden", "ghost".
 */
export function die(face, { size = 40, variant = "ivory", joker = false, title = null } = {}) {
  const node = svg("svg", {
    class: `die die-${variant}${joker ? " die-joker" : ""}`,
    viewBox: "0 0 100 100", width: size, height: size, role: "img",
    "aria-label": title || (face === null ? t("hidden die") : face === "*" ? t("star") : t("die showing {face}", { face })),
  });
  node.append(svg("rect", { x: 5, y: 5, width: 90, height: 90, rx: 20, class: "die-body" }));
  if (face === "*") {
    node.append(svg("path", { d: STAR_PATH, class: "die-star" }));
  } else if (face === null || face === undefined) {
    node.append(svg("text", { x: 50, y: 66, "text-anchor": "middle", class: "die-hidden-mark" }, "?"));
  } else {
    for (const [cx, cy] of PIPS[face] || []) {
      node.append(svg("circle", { cx, cy, r: 9.5, class: "die-pip" }));
    }
  }
  if (joker && face !== "*") {
    node.append(svg("path", { d: STAR_PATH, class: "die-joker-mark", transform: "translate(66 4) scale(0.3)" }));
  }
  if (title) node.prepend(svg("title", {}, title));
  return node;
}

/** Parse "3x4" / "3×4" / "2*" / "2★" into {count, face} (face null for a ★ bid). */
export function parseBid(text) {
  if (text === null || text === undefined) return null;
  const s = String(text).trim();
  let m = s.match(/^(\d+)\s*[x×]\s*(\d)$/i);
  if (m) return { count: Number(m[1]), face: Number(m[2]) };
  m = s.match(/^(\d+)\s*[*★]$/);
  if (m) return { count: Number(m[1]), face: null };
  m = s.match(/^(\d+)$/);
  if (m) return { count: Number(m[1]), face: undefined }; // a bare track field
  return null;
}

/** The wire form of a bid: "3x4" or "2*". */
export function bidText(bid) {
  return bid.face === null ? `${bid.count}*` : `${bid.count}x${bid.face}`;
}


/** What the table does at a reveal: lift the cups, or (Impus Bluff) turn up the doubted cards. */
export function revealCall(game) {
  return game.game === "impus" ? t("Turn up the cards!") : t("Lift the cups!");
}

/** What the table is told while the camera reads a reveal. */
export function readingWords(game) {
  return game && game.game === "impus" ? t("Reading the cards…") : t("Reading the dice…");
}

/** A bid for people: "3 × 4s" or "2 ★". */
export function bidWords(text) {
  const bid = typeof text === "string" ? parseBid(text) : text;
  if (!bid) return String(text ?? "");
  if (bid.face === null) return t("{count} ★", { count: bid.count });
  if (bid.face === undefined) return num(bid.count);
  return t("{count} × {face}s", { count: bid.count, face: bid.face });
}

/** What the camera or the table said about a reading (a review problem, a piece of advice):
 *  in the page's language where it came with its words (``said``), else its English. */
export function spoken(item) {
  return item.said ? said(item.said) : item.message || item.kind;
}

/** What to fix about the camera's picture (the server's `advice`: dark, blown out, grainy,
 *  smeared, small dice), one warning per line; the calibration and review pages both show it. */
export function adviceList(advice) {
  return el("ul", { class: "advice", id: "picture-advice" },
    advice.map((a) => el("li", { class: "count-bad", "data-kind": a.kind }, `⚠ ${spoken(a)}`)));
}

/** A percentage for the odds display. */
export function percent(p) {
  if (typeof p !== "number" || Number.isNaN(p)) return "–";
  const pct = (value) => num(value, { style: "percent", maximumFractionDigits: 0 });
  if (p >= 0.995 && p < 1) return `>${pct(0.99)}`;
  if (p > 0 && p < 0.005) return `<${pct(0.01)}`;
  return pct(p);
}

/** Number of dice (or cards) a player shows, whatever the game calls it. */
export function playerTally(player) {
  for (const key of ["dice", "cards", "hand"]) {
    const v = player[key];
    if (typeof v === "number") return { key, value: v };
    if (Array.isArray(v)) return { key, value: v.length };
  }
  return null;
}

/** The joker face of the current game (1 unless the options say otherwise). */
export function jokerFace(state) {
  const fromBoard = state && state.board && state.board.joker_face;
  const fromOptions = state && state.setup && state.setup.options && state.setup.options.joker_face;
  return Number(fromBoard || fromOptions || 1);
}

export function gameKind(state) {
  return (state && state.game && state.game.game) || (state && state.setup && state.setup.game) || null;
}

export const GAME_NAMES = { bluff: t("Bluff"), scam: t("Scam"), impus: t("Impus Bluff"), perudo: t("Perudo") };

/** A round's verdict in the page's language: the engine sends it as words with ids
 *  (``verdict_said``: a head and its parts, engine/words.py), the English ``verdict`` beside. */
export function verdictText(round) {
  const words = round && round.verdict_said;
  if (!words || !words.head) return (round && round.verdict) || "";
  const parts = (words.parts || []).map(said).filter(Boolean);
  return parts.length ? `${said(words.head)} — ${parts.join("; ")}` : said(words.head);
}

/** The player the computer plays in this game (setup "computer"), or null. */
export function computerPlayer(state) {
  const entry = state && state.setup && state.setup.computer;
  return entry && entry.player ? entry.player : null;
}

/** A finished game's headline: Bluff and Scam have a winner, Impus Bluff a loser (I9). */
export function gameOverHeadline(game) {
  if (game.winner) return t("{player} wins!", { player: game.winner });
  if (game.loser) return t("{player} loses!", { player: game.loser });
  return t("Nobody wins!");
}

/** The evening's standings in a line ("Tonight, 3 games: Ben 2 wins · Ann 1 win, 1 loss"),
 *  or null before a game of the evening has ended (state.evening, bluffcam/table/evening.py). */
export function eveningText(evening) {
  if (!evening || !evening.games) return null;
  const players = (evening.players || []).map((p) => `${p.name} ${[
    p.wins ? tn("{n} win", "{n} wins", p.wins) : null, p.losses ? tn("{n} loss", "{n} losses", p.losses) : null,
  ].filter(Boolean).join(", ")}`);
  return tn("Tonight, {n} game: {players}", "Tonight, {n} games: {players}", evening.games,
    { players: players.join(" · ") });
}
