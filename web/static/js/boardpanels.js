// The board's panels about the round under way: its story (who bid what, raises and re-rolls
// with the dice set aside, passes, the doubt) and the reading that waits for a person, drawn
// large so that the table looks at it together. Each sentence is one literal, so that it can
// be translated whole.

import { t } from "./i18n.js";
import { el, fill, die, parseBid, bidWords, spoken, GAME_NAMES } from "./ui.js";

/** One step of `state.story` (bluffcam/round_story.py) as a list item. */
function storyStep(step, kind) {
  const who = el("span", { class: "story-who" }, step.player || "");
  const bid = step.bid ? parseBid(step.bid) : null;
  const bidShown = bid && bid.face !== undefined
    ? el("span", { class: "story-bid", "aria-label": bidWords(bid) },
      el("span", { class: "story-count" }, bid.count), el("span", { class: "story-times" }, "×"),
      die(bid.face === null ? "*" : bid.face, { size: 32, variant: "red", title: bidWords(bid) }))
    : null;
  switch (step.kind) {
    case "bid":
      return el("li", { class: "story-step story-bid-step", "data-kind": "bid" }, who, el("span", { class: "story-verb" }, t("bids")), bidShown);
    case "raise_reroll":
      return el("li", { class: "story-step story-reroll", "data-kind": "raise_reroll" }, who,
        el("span", { class: "story-verb" }, t("raises and re-rolls")), bidShown,
        el("span", { class: "story-aside", "data-testid": "story-set-aside" },
          el("span", { class: "story-verb" }, t("sets aside")),
          (step.set_aside || []).map((face) => die(face, { size: 28, variant: "ivory", title: t("set aside: {face}", { face }) }))));
    case "pass":
      return el("li", { class: "story-step story-pass", "data-kind": "pass" }, who, el("span", { class: "story-verb" }, t("passes")));
    case "challenge":
      return el("li", { class: "story-step story-challenge", "data-kind": "challenge" }, who, el("span", { class: "story-verb" }, t("doubts the bid")));
    case "scam":
      return el("li", { class: "story-step story-challenge", "data-kind": "scam" }, who, el("span", { class: "story-verb" }, t("calls “Scam!”")));
    case "dudo":
      return el("li", { class: "story-step story-challenge", "data-kind": "dudo" }, who, el("span", { class: "story-verb" }, t("calls dudo")));
    case "calza":
      return el("li", { class: "story-step story-challenge", "data-kind": "calza" }, who, el("span", { class: "story-verb" }, t("calls calza")));
    case "reveal":
      return el("li", { class: "story-step story-reveal", "data-kind": "reveal" }, el("span", { class: "story-verb" }, t("Cups lifted")));
    default:
      return el("li", { class: "story-step", "data-kind": step.kind }, who,
        el("span", { class: "story-verb" }, `${String(step.kind).replace(/_/g, " ")}${step.value !== undefined && step.value !== true ? ` ${step.value}` : ""}`));
  }
}

/** The round's story panel: hidden in Impus (its pile says it) and before a game. */
export function renderStory(node, state) {
  const story = state.story;
  const kind = state.game ? state.game.game : null;
  const panel = node.closest(".story-panel");
  const shown = Boolean(story && state.game && kind !== "impus" && state.game.phase !== "over");
  panel.hidden = !shown;
  if (!shown) { fill(node); return; }
  const heading = panel.querySelector("h2");
  heading.textContent = story.settled ? t("Last round") : t("This round");
  heading.dataset.round = String(story.round);
  const steps = story.steps.map((step) => storyStep(step, kind));
  fill(node, steps.length ? steps : el("li", { class: "muted story-empty" }, t("No bid yet")));
}

// A photo's size, once loaded: the doubtful dice are marked on it in the photo's own pixels.
const PHOTO_SIZES = new Map();

/** The reading's doubtful dice, numbered from 1: a problem at a place on the photo. */
export function doubtfulDice(review) {
  return (review.problems || []).filter((p) => typeof p.x === "number" && typeof p.y === "number")
    .map((p, index) => ({ ...p, number: index + 1 }));
}

function markers(box, url, doubts) {
  const size = PHOTO_SIZES.get(url);
  box.querySelectorAll(".doubt-marker").forEach((m) => m.remove());
  if (!size) return;
  for (const doubt of doubts) {
    box.append(el("span", {
      class: "doubt-marker", "data-testid": "doubt-marker", "aria-hidden": "true",
      style: `left:${((doubt.x / size.w) * 100).toFixed(2)}%;top:${((doubt.y / size.h) * 100).toFixed(2)}%`,
    }, String(doubt.number)));
  }
}

/** The dice a seat's reading holds, each doubtful one marked with its number. */
function seatLine(name, dice, doubts, expected) {
  const mine = doubts.filter((d) => d.seat === name);
  const shown = (dice || []).map((d) => {
    const value = typeof d === "object" && d ? d.value : d;
    const doubt = mine.find((m) => typeof d === "object" && d && Math.hypot(m.x - d.x, m.y - d.y) < 4);
    return el("span", { class: `review-die${doubt ? " in-doubt" : ""}` },
      die(value, { size: 36, variant: doubt ? "hit" : "ivory", title: doubt ? t("{value}: in doubt ({number})", { value, number: doubt.number }) : String(value) }),
      doubt ? el("span", { class: "doubt-number" }, String(doubt.number)) : null);
  });
  const count = (dice || []).length;
  const short = typeof expected === "number" && expected !== count;
  return el("div", { class: `seat-reading review-seat${mine.length || short ? " has-doubt" : ""}`, "data-seat": name },
    el("span", { class: "seat-name" }, name),
    el("span", { class: "seat-dice" }, shown),
    short ? el("span", { class: "review-short" }, t("read {count} of {expected}", { count, expected })) : null);
}

/** The reading that waits for a check, large: its photo with the doubtful dice numbered,
 * each seat's dice as read, and what is in doubt. Replaces the last verdict until this
 * one applies. */
export function renderPendingReview(node, state) {
  const review = state.review;
  const doubts = doubtfulDice(review);
  const url = review.photo_url || review.image_url;
  const box = el("div", { class: "review-photo-box", "data-testid": "pending-photo" },
    el("img", { src: url, alt: t("The photo of the reading that waits for a check"), onload: (event) => {
      const img = event.target;
      if (!img.naturalWidth) return;
      PHOTO_SIZES.set(url, { w: img.naturalWidth, h: img.naturalHeight });
      box.style.setProperty("--photo-ratio", String(img.naturalWidth / img.naturalHeight));
      markers(box, url, doubts);
    } }));
  const size = PHOTO_SIZES.get(url);
  if (size) box.style.setProperty("--photo-ratio", String(size.w / size.h));
  markers(box, url, doubts);
  const other = (review.problems || []).filter((p) => typeof p.x !== "number" || typeof p.y !== "number");
  fill(node,
    el("div", { class: "pending-review", "data-testid": "pending-review" },
      box,
      el("p", { class: "pending-title" }, t("The camera is not sure: check the reading on a phone")),
      el("ol", { class: "doubt-list" }, doubts.map((d) => el("li", { value: d.number, "data-testid": "doubt" }, spoken(d))),
        other.map((p) => el("li", { class: "doubt-other" }, spoken(p)))),
      el("div", { class: "seat-readings" },
        Object.entries(review.seats || {}).map(([name, dice]) => seatLine(name, dice, doubts, (review.expected || {})[name])))));
}

/** Tonight's standings as a table (bluffcam/standings.py): every player who played, games
 * played and won per game kind, the last game's places and each kind's rating. Shown
 * between games, where the round's story was. */
export function renderStandings(node, state) {
  const standings = state.standings;
  const panel = node.closest(".standings-panel");
  const between = !state.game || state.game.phase === "over";
  panel.hidden = !(standings && between);
  if (panel.hidden) { fill(node); return; }
  fill(node, standingsTable(standings));
}

/** ``state.standings`` as a table: a row a player, won of played per game kind, the last
 * game's place, each kind's rating (the board's and the control page's). */
export function standingsTable(standings) {
  const kinds = standings.kinds || [];
  const head = el("tr", {},
    el("th", { scope: "col" }, t("Player")),
    kinds.map((kind) => el("th", { scope: "col" }, t("{game}: won of played", { game: GAME_NAMES[kind] || kind }))),
    el("th", { scope: "col" }, t("Last game")),
    kinds.map((kind) => el("th", { scope: "col" }, t("{game} rating", { game: GAME_NAMES[kind] || kind }))));
  const rows = standings.players.map((row) => el("tr", { "data-player": row.name },
    el("th", { scope: "row" }, row.name),
    kinds.map((kind) => {
      const tally = row.kinds[kind];
      return el("td", {}, tally ? t("{won} of {played}", { won: tally.won, played: tally.played }) : "–");
    }),
    el("td", { class: "standings-place" }, row.last_place ? t("#{place}", { place: row.last_place }) : "–"),
    kinds.map((kind) => el("td", { class: "standings-rating" }, row.ratings && row.ratings[kind] ? String(row.ratings[kind]) : "–"))));
  return el("table", { class: "standings-table" }, el("thead", {}, head), el("tbody", {}, rows));
}
