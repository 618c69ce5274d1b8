// The reveal review page: the photo with every die marked. Tap a die to change or remove
// it, tap the photo to add one, then confirm; the verdict applies only after that.

import { ApiError, api, captureUrl, describeError, followState, getPin, setPin } from "./api.js";
import { num, t, tn } from "./i18n.js";
import { applyDraft, draftOf, loadDraft, newerDraft, saveDraft, setAsideGaps } from "./reviewdraft.js";
import { el, fill, svg, die, bidWords, jokerFace, gameKind, adviceList, announce, spoken, verdictText } from "./ui.js";
import { isCardReview, renderCardReview } from "./cardreview.js";

const root = document.getElementById("review-root");
const wantedId = root.dataset.reviewId || null;

let state = null;
let working = null;     // {id, dice: [{key, seat, value, x, y, confidence, edited}]}
let selected = null;    // key of the selected die, or {add: {x, y}} for a new one
let imageSize = null;   // natural pixel size of the photo
let busy = false;
let error = "";
let done = null;        // the verdict after a confirm
let nextKey = 1;
let sending = null;     // the id of a review this page is confirming or taking again now
let notice = null;      // {kind, id, edits, next}: a reading settled elsewhere while this page had it

// A die mark's touch target, in CSS pixels across, whatever the photo's scale: a finger
// needs about 44 (WCAG 2.5.5). The visible ring stays the die's size, centred on the die.
const TARGET_PX = 48;

// A die read with less confidence than this is drawn and listed as unsure.
const UNSURE_BELOW = 0.8;

function unsure(d) {
  return d.confidence < UNSURE_BELOW || d.covered;
}

// Whether the camera saw something lying over part of the die at x, y (a "covered" problem,
// vision.cover_check): its visible pips may be read surely and wrongly, so it shows as unsure.
function coveredAt(review, x, y) {
  return (review.problems || []).some((p) => p.kind === "covered"
    && Math.abs(p.x - x) < 1 && Math.abs(p.y - y) < 1);
}

/** How many changes the page holds: dice changed or added, and dice of the reading removed. */
function changes() {
  return working.dice.filter((d) => d.edited).length + working.removed;
}

function startWorking(review) {
  const dice = [];
  for (const [seat, list] of Object.entries(review.seats || {})) {
    for (const d of list || []) {
      dice.push({ key: nextKey++, seat, value: Number(d.value), x: Number(d.x), y: Number(d.y),
        confidence: typeof d.confidence === "number" ? d.confidence : 1, edited: false,
        covered: coveredAt(review, Number(d.x), Number(d.y)) });
    }
  }
  // removed: dice of the reading taken out (added dice taken out again are no change)
  working = { id: review.id, dice, removed: 0 };
  selected = null;
  imageSize = null;
  error = "";
  draftSaved = null;
  // the corrections another phone (or this one before a reload) made: start from them
  const id = review.id;
  loadDraft(id).then((draft) => {
    if (!working || working.id !== id) return;
    working.draftLoaded = true;  // kept from now on: never over the draft before it came
    if (!draft || changes() > 0) return;
    applyDraft(working, draft, () => nextKey++);
    draftSaved = JSON.stringify(draftOf(working));
    render();
  });
}

/** The draft last kept for the review under way (JSON), so that only a change is sent. */
let draftSaved = null;

function keepDraft() {
  if (!working || !working.draftLoaded) return;
  const draft = draftOf(working);
  const text = JSON.stringify(draft);
  if (text === draftSaved) return;
  draftSaved = text;
  saveDraft(working.id, draft);
}

function seatsOf(review) {
  const names = new Set(Object.keys(review.seats || {}));
  for (const name of Object.keys(review.expected || {})) names.add(name);
  return [...names];
}

// Each seat's working dice, as ``entry`` gives each: every seat of the reveal, even one left
// with none.
function bySeat(entry) {
  const seats = {};
  for (const name of seatsOf(state.review)) seats[name] = [];
  for (const d of working.dice) (seats[d.seat] ||= []).push(entry(d));
  return seats;
}

function readingValues() {
  return bySeat((d) => d.value);
}

// The confirmed dice with their places in the photo's pixels, so that the reveal's record
// keeps a labelled photo of this table (bluffcam export-reveals); values alone where the
// photo never loaded (a tap had nothing to place the die on).
function confirmedSeats() {
  return imageSize ? bySeat((d) => ({ value: d.value, x: d.x, y: d.y })) : readingValues();
}

function dieRadius() {
  if (!imageSize) return 20;
  return Math.max(14, Math.round(Math.max(imageSize.w, imageSize.h) * 0.036));
}

/** The working die nearest (x, y), if one lies within ``reach`` pixels of it. */
function nearestDie(x, y, reach = Infinity) {
  let best = null;
  let bestSq = reach ** 2;
  for (const d of working.dice) {
    const sq = (d.x - x) ** 2 + (d.y - y) ** 2;
    if (sq <= bestSq) { best = d; bestSq = sq; }
  }
  return best;
}

function nearestSeat(x, y) {
  const nearest = nearestDie(x, y);
  const best = nearest ? nearest.seat : null;
  const expected = state.review.expected || {};
  const counts = readingValues();
  const short = Object.keys(expected).find((s) => (counts[s] || []).length < expected[s]);
  return short || best || seatsOf(state.review)[0] || "";
}

// ------------------------------------------------------------------ photo + overlay

function overlay() {
  const review = state.review;
  const r = dieRadius();
  const node = svg("svg", { class: "overlay", id: "overlay", viewBox: imageSize ? `0 0 ${imageSize.w} ${imageSize.h}` : "0 0 100 100",
    preserveAspectRatio: "none", "aria-label": t("dice marks") });
  node.addEventListener("click", (event) => {
    if (event.target.closest(".mark")) return;
    if (!imageSize) return;
    const point = node.createSVGPoint();
    point.x = event.clientX; point.y = event.clientY;
    const at = point.matrixTransform(node.getScreenCTM().inverse());
    selected = { add: { x: Math.round(at.x), y: Math.round(at.y), seat: nearestSeat(at.x, at.y) } };
    render();
  });
  for (const problem of review.problems || []) {
    if (pointsAt(problem)) {
      node.append(svg("circle", { class: "problem-mark", cx: problem.x, cy: problem.y, r: r * 1.8 },
        svg("title", {}, spoken(problem))));
    }
  }
  const perSeatIndex = {};
  for (const d of working.dice) {
    const index = (perSeatIndex[d.seat] = (perSeatIndex[d.seat] || 0) + 1);
    const classes = ["mark"];
    if (unsure(d)) classes.push("low");
    if (d.edited) classes.push("edited");
    if (selected === d.key) classes.push("selected");
    const g = svg("g", { class: classes.join(" "), tabindex: 0, role: "button", "data-seat": d.seat, "data-value": d.value,
      "aria-label": t("{player} die {n}: {face}", { player: d.seat, n: index, face: d.value }),
      onclick: (event) => { event.stopPropagation(); selected = dieAt(node, event, d).key; render(); },
      onkeydown: (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); selected = d.key; render(); } } },
    svg("circle", { class: "hit", cx: d.x, cy: d.y, r: r * 1.15 }),
    svg("circle", { class: "ring", cx: d.x, cy: d.y, r }),
    // the badge beside the die, outside its ring: the die's own pips stay in view
    svg("circle", { class: "badge", cx: d.x + r * 1.3, cy: d.y - r * 1.3, r: r * 0.5 }),
    svg("text", { x: d.x + r * 1.3, y: d.y - r * 1.3, "font-size": r * 0.62 }, String(d.value)));
    node.append(g);
  }
  if (selected && selected.add) {
    node.append(svg("circle", { class: "problem-mark", cx: selected.add.x, cy: selected.add.y, r, style: "stroke:#f0e442" }));
  }
  return node;
}

/** The die a tap on a mark means: the one nearest the finger. Touch targets are larger than
 * the dice, so where dice cluster they overlap; the nearest die, not the mark drawn last, is
 * the one tapped, and each die keeps the area round its own centre. */
function dieAt(node, event, fallback) {
  if (event.detail === 0) return fallback;  // from the keyboard, not a finger
  const point = node.createSVGPoint();
  point.x = event.clientX; point.y = event.clientY;
  const at = point.matrixTransform(node.getScreenCTM().inverse());
  return nearestDie(at.x, at.y) || fallback;
}

/** Image pixels per CSS pixel of the photo as drawn now (null before it is laid out). */
function photoScale() {
  const overlayNode = root.querySelector("#overlay");
  if (!overlayNode || !imageSize) return null;
  const box = overlayNode.getBoundingClientRect();
  if (!box.width || !box.height) return null;
  return Math.max(imageSize.w / box.width, imageSize.h / box.height);
}

/** Whether the hint about crowded dice was last shown: the page is drawn with it so, since
 * drawn hidden and shown a moment later, it shrank the page under a phone scrolled to its
 * end, and the buttons there moved under the finger. */
let crowded = false;

/** Size each mark's transparent touch target to TARGET_PX on screen, and say where dice lie
 * too close together on the photo to tell apart with a finger: the list offers every die. */
function fitTargets() {
  const scale = photoScale();
  if (!scale) return;
  const reach = Math.max(dieRadius() * 1.15, (TARGET_PX / 2) * scale);
  for (const hit of root.querySelectorAll("#overlay .mark circle.hit")) hit.setAttribute("r", reach.toFixed(1));
  const hint = root.querySelector("#crowded-hint");
  if (!hint) return;
  const near = (TARGET_PX * scale) ** 2;
  crowded = working.dice.some((a, i) => working.dice.slice(i + 1)
    .some((b) => (a.x - b.x) ** 2 + (a.y - b.y) ** 2 < near));
  hint.hidden = !crowded;
}

const resizing = typeof ResizeObserver === "function" ? new ResizeObserver(() => fitTargets()) : null;

/** Whether a problem names a spot on the photo (an uncertain or stray die does). */
function pointsAt(problem) {
  return typeof problem.x === "number" && typeof problem.y === "number";
}

// A problem about one die opens that die's picker: a whole line to tap, where the die on a
// phone's photo may be a few pixels among its neighbours.
function problemItem(problem) {
  const text = spoken(problem);
  const d = pointsAt(problem) ? nearestDie(problem.x, problem.y, 2 * dieRadius()) : null;
  if (!d) return el("li", {}, text);
  return el("li", {}, el("button", { type: "button", class: "problem-fix", "data-seat": d.seat,
    onclick: () => { selected = d.key; render(); } }, text, el("span", { class: "problem-fix-cue" }, `${t("Fix")} ›`)));
}

/** How the camera read this reveal (from the press: the wait for a still scene and the frames
 * voted on), so a table whose camera is slow to settle can see it. */
export function timingText(timing) {
  if (!timing || typeof timing.ms !== "number") return null;
  const seconds = num(timing.ms / 1000, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  return timing.frames > 0 ? tn("Read from {n} frame in {seconds} s.", "Read from {n} frames in {seconds} s.", timing.frames, { seconds })
    : t("Read in {seconds} s.", { seconds });
}

function photo() {
  const review = state.review;
  // the frame as the camera took it where it was kept: the reading's own marks on the
  // annotated photo hide the pips a person checks; the rings here are outlines
  const img = el("img", { src: review.photo_url || review.image_url, alt: t("The reveal photo"), id: "review-photo" });
  const wrap = el("div", { class: `photo-wrap${zoomed ? " zoomed" : ""}` }, img, overlay());
  const onLoad = () => {
    if (!imageSize || imageSize.w !== img.naturalWidth) {
      imageSize = { w: img.naturalWidth, h: img.naturalHeight };
      render();
    }
  };
  if (img.complete && img.naturalWidth) queueMicrotask(onLoad); else img.addEventListener("load", onLoad, { once: true });
  return el("div", { class: "photo-scroll" }, wrap);
}

/** Whether the photo is shown at twice the screen's width (a phone's dice are small). */
let zoomed = false;

function zoomButton() {
  return el("button", { type: "button", class: "btn small", id: "zoom-photo", "aria-pressed": String(zoomed),
    onclick: () => { zoomed = !zoomed; render(); } }, zoomed ? t("Zoom out") : t("Zoom in"));
}

// ------------------------------------------------------------------ the picker

// The close-up shows this many die radii (dieRadius: a mark's radius, a little more than a
// die's half-width) of the photo round the die, at this many CSS pixels square.
const CLOSE_UP_SPAN = 2.6;
const CLOSE_UP_PX = 112;

/** The photo round (x, y), enlarged. On a phone the photo's dice are a few pixels across:
 * whoever fixes a die sees the die they are fixing, not only the camera's guess. */
function closeUp(imageUrl, size, radius, x, y) {
  const scale = CLOSE_UP_PX / (radius * CLOSE_UP_SPAN);
  const at = (v) => `${(CLOSE_UP_PX / 2 - v * scale).toFixed(1)}px`;
  return el("div", {
    class: "close-up", role: "img", "aria-label": t("the photo at this die, enlarged"),
    style: `background-image:url("${encodeURI(imageUrl)}");`
      + `background-size:${(size.w * scale).toFixed(1)}px ${(size.h * scale).toFixed(1)}px;`
      + `background-position:${at(x)} ${at(y)}`,
  });
}

function pickerHead(x, y, title) {
  // the frame without the camera's marks where it was kept: they would hide the die
  const url = state.review.photo_url || state.review.image_url;
  const close = imageSize ? closeUp(url, imageSize, dieRadius(), x, y) : null;
  return el("div", { class: "picker-head" }, close, el("h3", {}, title));
}

/** The picker covers much of a phone's screen: Tab and Shift+Tab go round its own controls,
 *  never to those hidden under it (Escape or Done closes it). */
function keepTabInside(event) {
  if (event.key !== "Tab") return;
  const controls = [...event.currentTarget.querySelectorAll("button:not([disabled]), select")];
  if (!controls.length) return;
  const first = controls[0];
  const last = controls[controls.length - 1];
  if (event.shiftKey && document.activeElement === first) { event.preventDefault(); last.focus(); }
  if (!event.shiftKey && document.activeElement === last) { event.preventDefault(); first.focus(); }
}

/** Where a die added from the keyboard goes: among its seat's dice (their middle), else
 *  among all the dice, else the photo's middle. A person confirms its face; the place only
 *  marks it on the photo. */
function addSpot(seat) {
  const own = working.dice.filter((d) => d.seat === seat);
  const near = own.length ? own : working.dice;
  if (near.length) {
    return { x: Math.round(near.reduce((n, d) => n + d.x, 0) / near.length),
      y: Math.round(near.reduce((n, d) => n + d.y, 0) / near.length) };
  }
  return imageSize ? { x: Math.round(imageSize.w / 2), y: Math.round(imageSize.h / 2) } : { x: 0, y: 0 };
}

function pickerPanel() {
  if (selected === null) return null;
  const seats = seatsOf(state.review);
  if (selected.add) {
    const add = selected.add;
    return el("div", { class: "picker", role: "dialog", "aria-modal": "true", "aria-label": t("add a die"), onkeydown: keepTabInside },
      pickerHead(add.x, add.y, t("Add a die here: which face is up?")),
      el("label", {}, t("Seat"), el("select", { "aria-label": t("seat of the new die"), onchange: (e) => { add.seat = e.target.value; } },
        seats.map((s) => el("option", { value: s, selected: s === add.seat }, s)))),
      el("div", { class: "faces" }, [1, 2, 3, 4, 5, 6].map((f) => el("button", {
        type: "button", class: "btn face-btn", "aria-label": t("new die shows {face}", { face: f }),
        onclick: () => {
          const d = { key: nextKey++, seat: add.seat, value: f, x: add.x, y: add.y, confidence: 1, edited: true, added: true };
          working.dice.push(d);
          focusAfterPicker = `[data-focus-key="die-${d.key}"]`;  // on to the die just added
          selected = null;
          render();
        } }, die(f, { size: 40 })))),
      el("button", { type: "button", class: "btn", onclick: () => { selected = null; render(); } }, t("Cancel")));
  }
  const d = working.dice.find((x) => x.key === selected);
  if (!d) { selected = null; return null; }
  return el("div", { class: "picker", role: "dialog", "aria-modal": "true", "aria-label": t("change a die"), onkeydown: keepTabInside },
    pickerHead(d.x, d.y, `${t("{player}'s die — read as {face}", { player: d.seat, face: d.value })}${d.covered ? ` (${t("partly covered: check it")})`
      : unsure(d) ? ` (${t("unsure")}, ${num(d.confidence, { style: "percent", maximumFractionDigits: 0 })})` : ""}`),
    el("div", { class: "faces" }, [1, 2, 3, 4, 5, 6].map((f) => el("button", {
      type: "button", class: "btn face-btn", "aria-pressed": String(d.value === f), "aria-label": t("set to {face}", { face: f }),
      onclick: () => { d.value = f; d.edited = true; selected = null; render(); },
    }, die(f, { size: 40, variant: d.value === f ? "red" : "ivory" })))),
    el("div", { class: "split" },
      el("label", {}, t("Seat"), el("select", { "aria-label": t("seat of this die"),
        onchange: (e) => { d.seat = e.target.value; d.edited = true; render(); } },
      seats.map((s) => el("option", { value: s, selected: s === d.seat }, s)))),
      el("div", { class: "stack" },
        el("button", { type: "button", class: "btn danger", "aria-label": t("remove this die"),
          onclick: () => {
            working.dice = working.dice.filter((x) => x !== d);
            if (!d.added) working.removed += 1;
            selected = null; render();
          } }, t("Remove")),
        el("button", { type: "button", class: "btn", onclick: () => { selected = null; render(); } }, t("Done")))));
}

// ------------------------------------------------------------------ side panel

// Every die of the reading as a button, seat by seat in the photo's order: on a phone the
// dice of one cup lie a finger's width apart on the photo, and here each has a whole target.
function seatSummary() {
  const review = state.review;
  const expected = review.expected || {};
  const joker = jokerFace(state);
  const kind = gameKind(state);
  return el("div", { class: "seat-summary" }, seatsOf(review).map((name) => {
    const dice = working.dice.filter((d) => d.seat === name);
    const have = dice.length;
    const want = expected[name];
    const ok = want === undefined || have === want;
    const gap = setAsideGaps(working, state.set_aside).some((g) => g.seat === name);
    return el("div", { class: `seat-row${gap ? " seat-gap" : ""}`, "data-seat": name },
      el("strong", { class: "seat-name" }, name),
      el("span", { class: ok ? "count-ok" : "count-bad" },
        want === undefined ? tn("{n} die", "{n} dice", have) : `${ok ? "✓" : "⚠"} ${t("{count} of {total}", { count: have, total: want })}`),
      el("span", { class: "seat-dice" }, dice.map((d, i) => el("button", {
        type: "button", class: "seat-die", "data-seat": d.seat, "data-value": d.value,
        "data-state": d.edited ? "edited" : unsure(d) ? "low" : "read",
        "aria-pressed": String(selected === d.key), "data-focus-key": `die-${d.key}`,
        "aria-label": `${t("fix {player}'s die {n}: {face}", { player: d.seat, n: i + 1, face: d.value })}${d.edited ? `, ${t("changed by you")}` : unsure(d) ? `, ${t("unsure")}` : ""}`,
        onclick: () => { selected = d.key; render(); },
      }, die(d.value, { size: 30, joker: kind !== "scam" && d.value === joker }))),
      // a die the camera missed, without tapping the photo (a keyboard, a screen reader)
      el("button", { type: "button", class: "btn seat-add", "aria-label": t("add a die to {player}", { player: name }),
        onclick: () => {
          selected = { add: { ...addSpot(name), seat: name, from: `button[aria-label="${CSS.escape(t("add a die to {player}", { player: name }))}"]` } };
          render();
        } }, "+")));
  }));
}

// One request from a button: the page is busy meanwhile, and a refusal is shown in words.
async function act(request) {
  busy = true; error = ""; render();
  try {
    await request();
  } catch (e) {
    error = describeError(e);
    announce(error, { urgent: true });  // once: the box below is drawn anew at every change
  } finally {
    busy = false; render();
  }
  const shown = error && root.querySelector("#review-error");
  const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  if (shown) shown.scrollIntoView({ block: "center", behavior: still ? "auto" : "smooth" });
}

function confirm() {
  const id = working.id;
  const edits = changes();
  sending = id;
  return act(async () => {
    try {
      await api("POST", `/api/reveals/${encodeURIComponent(id)}/confirm`, { seats: confirmedSeats() });
      done = { id };
      announce(edits ? tn("Reading confirmed with {n} change: its verdict applies", "Reading confirmed with {n} changes: its verdict applies", edits)
        : t("Reading confirmed: its verdict applies"));
      backToControl();
    } catch (e) {
      // settled on another screen while this confirm was on its way: say so, not "no pending
      // review"; the live stream may not have brought the news yet, so ask for it
      if (e && e.status === 404) {
        const fresh = await api("GET", "/api/state").catch(() => null);
        if (fresh && !(fresh.review && fresh.review.id === id)) {
          notice = settledElsewhere(id, edits, fresh);
          announce(noticeText(notice), { urgent: true });
          working = null;
          selected = null;
          if (!(typeof fresh.version === "number" && fresh.version < state.version)) state = fresh;
          return;
        }
      }
      throw e;
    } finally {
      sending = null;
    }
  });
}

/** After a confirm the game goes on: back to the control page, where the verdict is said. */
function backToControl() {
  window.location.assign("/control");
}

function recapture() {
  // this page drops its own reading: no word of it when the new one comes, whichever of the
  // answer and the live stream comes first
  const id = working ? working.id : null;
  sending = id;
  return act(() => api("POST", captureUrl(id), {}).catch((e) => {
    if (sending === id) sending = null;
    throw e;
  }));
}

// A die the camera was sure of and got wrong is seen on the board after the verdict: the
// last round's reading can be sent back here until the next action.
function reopen() {
  done = null; working = null;
  return act(() => api("POST", `/api/reveals/${encodeURIComponent(state.reopen)}/reopen`, {}));
}

// ------------------------------------------------------------------ settled elsewhere

/** What became of reading ``id``, gone from this page without its confirm: settled on
 * another screen (confirmed, or its dice typed in), taken again, or dropped. */
function settledElsewhere(id, edits, now) {
  return { ...settledHow(id, edits, now), next: now.review ? now.review.id : null };
}

function settledHow(id, edits, now) {
  const last = now.last_reveal;
  if (last && last.id === id) {
    return { kind: String(last.how || "").startsWith("entered by hand") ? "entered" : "confirmed", id, edits };
  }
  if (now.review && now.review.id !== id) return { kind: "retaken", id, edits };
  return { kind: "dropped", id, edits };
}

/** Before drawing ``next``: a notice about an earlier reading goes once another reading
 *  waits (not the one that replaced it: "check the new reading" is about that one). */
function dropStaleNotice(next) {
  if (!notice || !next.review) return;
  if (next.review.id !== notice.id && next.review.id !== notice.next) notice = null;
}

/** Before drawing ``next``: whether the reading this page was checking went away under it. */
function noticeLostWork(next) {
  if (!working || sending === working.id || (done && done.id === working.id)) return;
  if (next.review && next.review.id === working.id) return;
  const edits = changes();
  notice = settledElsewhere(working.id, edits, next);
  announce(noticeText(notice), { urgent: true });
  working = null;
  selected = null;
}

function noticeText(n) {
  // a sentence whole for each case, said with the changes lost where there were any
  const checkAgain = ` ${state.reopen === n.id
    ? t("If it is wrong, tap “Check this reading again” below, or Undo on the control page.")
    : t("If it is wrong, Undo on the control page.")}`;
  const onTheBoard = ` ${t("The verdict is on the board.")}`;
  switch (n.kind) {
    case "confirmed":
      return (n.edits ? tn("This reveal was confirmed on another screen before your change was sent; your change was not applied.",
        "This reveal was confirmed on another screen before your changes were sent; your {n} changes were not applied.", n.edits) : t("This reveal was confirmed on another screen."))
        + onTheBoard + checkAgain;
    case "entered":
      return (n.edits ? tn("This reveal's dice were entered by hand on another screen before your change was sent; your change was not applied.",
        "This reveal's dice were entered by hand on another screen before your changes were sent; your {n} changes were not applied.", n.edits) : t("This reveal's dice were entered by hand on another screen."))
        + onTheBoard + checkAgain;
    case "retaken":
      return `${(n.edits ? tn("The photo was taken again on another screen before your change was sent; your change was not applied.",
        "The photo was taken again on another screen before your changes were sent; your {n} changes were not applied.", n.edits) : t("The photo was taken again on another screen."))} ${
        n.edits ? t("Check the new reading and make the change again.") : t("Check the new reading.")}`;
    default:
      return (n.edits ? tn("This reading was closed on another screen (a new game, or the challenge undone) before your change was sent; your change was not applied.",
        "This reading was closed on another screen (a new game, or the challenge undone) before your changes were sent; your {n} changes were not applied.", n.edits) : t("This reading was closed on another screen (a new game, or the challenge undone)."));
  }
}

function noticeCard() {
  if (!notice) return null;
  return el("section", { class: "card review-notice", id: "settled-elsewhere",
    "data-kind": notice.kind },
  el("p", {}, noticeText(notice)),
  el("button", { type: "button", class: "btn", id: "dismiss-notice", "aria-label": t("dismiss this message"),
    onclick: () => { notice = null; render(); } }, t("OK")));
}

// ------------------------------------------------------------------ page

function lastVerdict() {
  const round = (state.history || []).slice(-1)[0];
  return (round && verdictText(round)) || (state.last_reveal && state.last_reveal.verdict) || "";
}

function reopenCard() {
  if (!state.reopen) return null;
  return el("div", { class: "stack", id: "reopen-card" },
    el("p", { class: "hint" }, t("A die read wrong? Until the next bid, this reading can come back here: its verdict is taken back until the dice are confirmed again.")),
    el("button", { type: "button", class: "btn", id: "reopen", disabled: busy, onclick: reopen }, t("Check this reading again")),
    el("p", { class: "error", id: "reopen-error" }, error));
}

function emptyState() {
  const game = state.game;
  if (done) {
    return el("section", { class: "card empty-state", id: "review-done" },
      el("div", { class: "big-icon" }, die(6, { size: 64, variant: "hit" })),
      el("h1", {}, t("Reading confirmed")),
      el("p", { class: "verdict", "data-testid": "verdict" }, lastVerdict()),
      el("a", { class: "btn primary", href: "/" }, t("Back to the board")),
      reopenCard());
  }
  return el("section", { class: "card empty-state", id: "review-empty" },
    el("div", { class: "big-icon" }, die(null, { size: 64, variant: "hidden" })),
    el("h1", {}, t("No reading waiting for a check")),
    el("p", {}, game && game.phase === "reveal"
      ? (game.game === "impus" ? t("The doubted cards are up: read them from the control page.")
        : t("The cups are up: capture the reveal from the control page."))
      : t("When the camera is unsure about a reveal, it waits here for you.")),
    lastVerdict() ? el("p", { class: "verdict" }, t("Last verdict: {verdict}", { verdict: lastVerdict() })) : null,
    reopenCard(),
    el("div", { class: "row", style: "justify-content:center" },
      el("a", { class: "btn", href: "/" }, t("Board")), el("a", { class: "btn", href: "/control" }, t("Control"))));
}

// ------------------------------------------------------------------ the PIN, the set-aside dice

let pinError = "";

/** A phone without the PIN enters it here, not on the control page: its corrections stay. */
function pinCard() {
  if (getPin() || state.pin_required === false) return null;
  const submit = async (event) => {
    event.preventDefault();
    const input = root.querySelector("#review-pin");
    const pin = input.value.trim();
    if (!pin) return;
    try {
      await api("POST", "/api/pin/check", undefined, { pin });
      setPin(pin);
      pinError = "";
      if (working) saveDraft(working.id, draftOf(working), { now: true });
    } catch (e) {
      pinError = e instanceof ApiError && (e.status === 401 || e.status === 403)
        ? t("That PIN is not right. Look at the board.") : describeError(e);
    }
    render();
  };
  return el("form", { class: "stack pin-on-review", id: "review-pin-form", onsubmit: submit },
    el("label", { for: "review-pin" }, t("The table PIN (on the board) lets this phone confirm")),
    el("div", { class: "row" },
      el("input", { id: "review-pin", class: "grow", inputmode: "numeric", autocomplete: "off", "aria-describedby": "review-pin-error" }),
      el("button", { type: "submit", class: "btn" }, t("Use this PIN"))),
    el("p", { class: "error", id: "review-pin-error" }, pinError));
}

/** Which seat lacks which die it set aside in front of its cup, before Confirm is refused. */
function setAsideCard() {
  const gaps = setAsideGaps(working, state.set_aside);
  if (!gaps.length) return null;
  return el("div", { class: "set-aside-gaps", id: "set-aside-gaps", role: "status" },
    el("p", {}, el("strong", {}, t("Before you confirm:"))),
    el("ul", {}, gaps.map((gap) => el("li", { "data-seat": gap.seat },
      t("{player} set a {face} aside in front of the cup, and no {face} is among {player}'s dice here: change one of {player}'s dice to {face}.",
        { player: gap.seat, face: gap.face })))));
}

function render() {
  if (!state) return;
  const review = state.review;
  document.body.dataset.version = String(state.version ?? "");
  if (!review) { fill(root, noticeCard(), emptyState()); return; }
  // A state older than our confirm still shows the review: keep "done" for when it goes.
  if (done && done.id !== review.id) done = null;
  if (isCardReview(review)) {
    renderCardReview(root, state, { onDone: (id) => { done = { id }; backToControl(); }, redraw: render });
    if (notice) root.prepend(noticeCard());
    return;
  }
  if (!working || working.id !== review.id) startWorking(review);
  const bid = state.game && state.game.bid;
  const edits = changes();
  const timing = timingText(review.timing);
  fill(root,
    noticeCard(),
    el("div", { class: "review-grid" },
      el("section", { class: "stack" },
        el("div", { class: "card stack" },
          el("h1", {}, t("Check the reading")),
          el("p", { class: "hint" }, bid ? `${t("Counting for {bid}.", { bid: bidWords(bid) })} ` : "",
            t("Tap a die to fix it, tap the photo where a die was missed (or + beside its seat).")),
          wantedId && wantedId !== review.id ? el("p", { class: "hint" }, t("Reading {id} is done; this is the one waiting now.", { id: wantedId })) : null,
          photo(),
          el("p", { class: "hint", id: "crowded-hint", hidden: !crowded },
            t("Dice close together on the photo? Each one is a button under “Per seat” too.")),
          zoomButton(),
          el("div", { class: "legend" }, el("span", {}, t("read")), el("span", { class: "lg-low" }, t("unsure")), el("span", { class: "lg-edit" }, t("changed by you"))),
          timing ? el("p", { class: "hint", id: "read-timing" }, timing) : null)),
      el("section", { class: "stack" },
        (review.problems || []).length ? el("div", { class: "card" }, el("h2", {}, t("What looked wrong")),
          el("ul", { class: "problems", id: "problems" }, review.problems.map(problemItem))) : null,
        (review.advice || []).length ? el("div", { class: "card" }, el("h2", {}, t("The camera's picture")),
          adviceList(review.advice)) : null,
        el("div", { class: "card", id: "per-seat" }, el("h2", {}, t("Per seat")),
          el("p", { class: "hint" }, t("Tap a die to fix it.")), seatSummary()),
        el("div", { class: "card stack" },
          pinCard(),
          setAsideCard(),
          // above the buttons: under them it lies below a phone's screen
          el("p", { class: "error", id: "review-error" }, error),
          el("button", { type: "button", class: "btn primary big", id: "confirm", disabled: busy },
            edits ? tn("Confirm with {n} change", "Confirm with {n} changes", edits) : t("Confirm this reading")),
          el("button", { type: "button", class: "btn big", id: "recapture", disabled: busy }, t("Take the photo again"))))),
    pickerPanel());
  root.querySelector("#confirm").addEventListener("click", confirm);
  root.querySelector("#recapture").addEventListener("click", recapture);
  keepDraft();
  fitTargets();
  if (resizing) { resizing.disconnect(); resizing.observe(root.querySelector("#overlay")); }
  moveFocus();
}

// The page is drawn anew on each change (`fill` keeps the focus where it was): a picker that
// opens takes the focus, and when it closes the focus goes back to the die it was about.
let focusedPicker = null;
// where the focus goes when the picker closes: the die it was about, the die it added, or
// the "+" that opened it (a selector; null: wherever `fill` kept it)
let focusAfterPicker = null;

function moveFocus() {
  if (selected !== null) {
    if (typeof selected === "number") focusAfterPicker = `[data-focus-key="die-${selected}"]`;
    else if (focusedPicker === null) focusAfterPicker = selected.add.from || null;
    focusedPicker = selected;
    const picker = root.querySelector(".picker");
    if (picker && !picker.contains(document.activeElement)) {
      const first = picker.querySelector("button, select");
      if (first) first.focus({ preventScroll: true });
    }
    return;
  }
  // a picker just closed: back to the die it was about (any other focus `fill` kept)
  const back = focusedPicker !== null && focusAfterPicker !== null
    ? root.querySelector(focusAfterPicker) : null;
  focusedPicker = null;
  if (back && back !== document.activeElement) {
    back.focus({ preventScroll: true });
    back.scrollIntoView({ block: "nearest" });  // under the picker it may lie off the screen
  }
}

document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && selected !== null) {
    selected = null;
    render();
  }
});

// Another phone's corrections to the same reading, looked for every few seconds while this
// one is not in the middle of a change (a picker open, a request under way).
const DRAFT_LOOK_MS = 2500;
setInterval(async () => {
  if (!working || !working.draftLoaded || selected !== null || busy || document.hidden) return;
  const id = working.id;
  const draft = await newerDraft(id);
  if (!draft || !working || working.id !== id || selected !== null) return;
  const text = JSON.stringify({ dice: draft.dice, removed: draft.removed });
  if (text === draftSaved) return;
  applyDraft(working, draft, () => nextKey++);
  draftSaved = JSON.stringify(draftOf(working));
  render();
}, DRAFT_LOOK_MS);

followState((next) => {
  if (state) noticeLostWork(next);
  dropStaleNotice(next);
  state = next;
  render();
});
