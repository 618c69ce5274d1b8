// The review page for a card reveal (Impus Bluff): the annotated photo, one row per card of
// the doubted batch (prefilled with what the camera named; "?" where it was unsure) and a
// confirm that sends {"seats": {"cards": [...]}} to the same endpoint the dice use.

import { api, captureUrl, describeError } from "./api.js";
import { announce, el, fill, spoken } from "./ui.js";
import { t, tn } from "./i18n.js";

let cards = null;      // [kind or ""] for the review being checked
let cardsFor = null;   // that review's id
let busy = false;
let error = "";
let lastDrawn = "";

export function isCardReview(review) {
  const keys = Object.keys((review && review.expected) || {});
  return keys.length === 1 && keys[0] === "cards";
}

function start(review) {
  const read = ((review.seats && review.seats.cards) || []).map((c) => c.value || "");
  const count = Number(review.expected.cards) || read.length;
  cards = Array.from({ length: count }, (_, i) => read[i] || "");
  cardsFor = review.id;
  error = "";
}

/** Draw the card review of ``state.review``; ``redraw`` is the page's own render (it reads
 * the newest state: after a confirm the review may already be gone). */
export function renderCardReview(root, state, { onDone, redraw }) {
  const review = state.review;
  if (cardsFor !== review.id) start(review);
  const game = state.game || {};
  const choices = game.card_kinds || [];
  const rerender = redraw;
  const confirm = async () => {
    busy = true; error = ""; rerender();
    try {
      await api("POST", `/api/reveals/${encodeURIComponent(review.id)}/confirm`, { seats: { cards: cards.slice() } });
      onDone(review.id);
    } catch (e) {
      error = describeError(e);
      announce(error, { urgent: true });  // once: the box below is drawn anew at every change
    } finally {
      busy = false; rerender();
    }
  };
  const recapture = async () => {
    busy = true; error = ""; rerender();
    try { await api("POST", captureUrl(review.id), {}); } catch (e) {
      error = describeError(e);
      announce(error, { urgent: true });
    }
    finally { busy = false; rerender(); }
  };
  const batch = game.last_batch || {};
  // Redraw only on a real change: a state event that changes nothing here must not replace
  // the buttons under a finger (a tap split across two redraws is lost).
  const drawn = JSON.stringify([review.id, review.problems, cards, busy, error, choices, batch, root.childElementCount]);
  if (drawn === lastDrawn && root.querySelector("#card-rows")) return;
  lastDrawn = drawn;
  fill(root,
    el("div", { class: "review-grid" },
      el("section", { class: "card stack" },
        el("h1", {}, t("Check the turned-up cards")),
        el("p", { class: "hint" }, batch.player
          ? tn("{player}'s {n} card, claimed as {claim}: name each one.", "{player}'s {n} cards, claimed as {claim}: name each one.",
            cards.length, { player: batch.player, claim: batch.claim ?? game.claim ?? "?" })
          : tn("The {n} card, claimed as {claim}: name each one.", "The {n} cards, claimed as {claim}: name each one.",
            cards.length, { claim: batch.claim ?? game.claim ?? "?" })),
        el("div", { class: "photo-wrap" }, el("img", { src: review.image_url, alt: t("The turned-up cards, annotated"), id: "review-photo" }))),
      el("section", { class: "stack" },
        (review.problems || []).length ? el("div", { class: "card" }, el("h2", {}, t("What looked wrong")),
          el("ul", { class: "problems", id: "problems" }, review.problems.map((p) => el("li", {}, spoken(p))))) : null,
        el("div", { class: "card stack", id: "card-rows" },
          cards.map((kind, i) => el("label", { class: "row" }, t("Card {n}", { n: i + 1 }),
            el("select", { "aria-label": t("card {n}", { n: i + 1 }), "data-card": i,
              onchange: (e) => { cards[i] = e.target.value; rerender(); } },
            el("option", { value: "", selected: !kind }, `? (${t("name it")})`),
            choices.map((k) => el("option", { value: k, selected: k === kind }, k)))))),
        el("div", { class: "card stack" },
          el("button", { type: "button", class: "btn primary big", id: "confirm", disabled: busy || cards.includes(""),
            onclick: confirm }, cards.includes("") ? t("Name every card first") : t("Confirm these cards")),
          el("button", { type: "button", class: "btn big", id: "recapture", disabled: busy, onclick: recapture }, t("Take the photo again")),
          el("p", { class: "error", id: "review-error" }, error)))));
}
