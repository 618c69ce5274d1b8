// The calibration page: a fresh camera snapshot with the seat zones drawn over it, and a
// test read of the camera or of an uploaded photo. The server draws both (the profile's
// zones by /api/camera/snapshot, the dice by /api/calibration/read) into the image, so
// what is shown is exactly what the reader and the seat assignment will use.

import { api, ApiError, describeError, followState } from "./api.js";
import { el, fill, die, adviceList, chooseFileButton, announce } from "./ui.js";
import { dateTime, said, t, tn } from "./i18n.js";

const root = document.getElementById("calibration-root");

let state = null;
let snapshotUrl = null;
let snapshotError = "";
let snapshotRetries = 0;
/** A camera that says "ok" but gives no picture is asked again this often, this many times. */
const SNAPSHOT_RETRY_MS = 3000;
const SNAPSHOT_RETRIES = 20;
let reading = null;         // the last test read: {dice, values, uncertain, covered, width, height, image}
let busy = false;
let error = "";
let seatCount = null;       // the seats to fit the zones for (default: the profile's)
let proposal = null;        // a fit waiting to be used: {proposal, seats, dice, image}
let zonesNote = "";
let recordKey = null;       // the reveals the camera record was last fetched for
// The camera's record at this table, filled in place: redrawing the page would fetch the
// (uncached) snapshot again.
const recordCard = el("div", { class: "card stack", id: "camera-record" });

function takeSnapshot({ retry = false } = {}) {
  if (!retry) snapshotRetries = 0;
  snapshotError = "";
  reading = null;
  snapshotUrl = `/api/camera/snapshot?t=${Date.now()}`;
  render();
}

function showReading(data) {
  reading = data;
  if (data && data.image) snapshotUrl = data.image;
}

async function testRead() {
  busy = true; error = ""; render();
  try {
    showReading(await api("POST", "/api/calibration/read", {}));
  } catch (e) {
    error = describeError(e);
    announce(error, { urgent: true });
  } finally {
    busy = false; render();
  }
}

async function testUpload(file) {
  if (!file) return;
  busy = true; error = ""; render();
  try {
    const meta = document.querySelector('meta[name="csrf-token"]');
    const form = new FormData();
    form.append("image", file);
    const response = await fetch("/api/calibration/read", {
      method: "POST", body: form, credentials: "same-origin",
      headers: { "X-CSRF-Token": meta ? meta.content : "", "Accept": "application/json" },
    });
    const data = await response.json().catch(() => null);
    if (!response.ok) {
      throw new ApiError((data && data.error && data.error.message) || `${response.status} ${response.statusText}`,
        { rule: data && data.error ? data.error.rule : null, status: response.status });
    }
    showReading(data);
  } catch (e) {
    error = describeError(e);
    announce(error, { urgent: true });
  } finally {
    busy = false; render();
  }
}

// Refit the seat zones to the dice the players put where their cups will stand: a proposal
// first (drawn on the photo), used only when asked (POST /api/calibration/zones/...).
async function fitZones() {
  busy = true; error = ""; zonesNote = ""; render();
  try {
    proposal = await api("POST", "/api/calibration/zones/fit", { seats: currentSeatCount() });
    reading = null;
    snapshotUrl = proposal.image;
  } catch (e) {
    error = describeError(e);
    announce(error, { urgent: true });
  } finally {
    busy = false; render();
  }
}

async function applyZones() {
  busy = true; error = ""; render();
  try {
    const saved = await api("POST", "/api/calibration/zones/apply", { proposal: proposal.proposal });
    const restart = (saved.restart_for || []).join(" and ");
    zonesNote = t("Saved: {seats} ({file})", { seats: saved.seats.join(", "), file: saved.saved })
      + (restart ? `. ${t("The {what} settings edited in the file since the start apply after a restart of bluffcam", { what: restart })}` : "");
    announce(zonesNote);
    proposal = null;
    takeSnapshot();
  } catch (e) {
    error = describeError(e);
    announce(error, { urgent: true });
  } finally {
    busy = false; render();
  }
}

// Teach the camera (POST /api/calibration/teach/...): the players roll all dice in view, the
// page shows the reading, they correct and confirm it; after three or more photos the
// table's profile is learned again from them (and from the reveals a person reviewed).
let teach = null;           // {photos, needed, learned_from}
let shot = null;            // a reading waiting to be confirmed: {shot, dice, image}
let teachNote = "";

async function loadTeach() {
  try {
    teach = await api("GET", "/api/calibration/teach");
  } catch (e) {
    teach = null;
  }
  render();
}

async function teachStep(step) {
  busy = true; error = ""; teachNote = ""; render();
  try {
    await step();
  } catch (e) {
    error = describeError(e);
    announce(error, { urgent: true });
  } finally {
    busy = false; render();
  }
}

const teachRead = () => teachStep(async () => {
  shot = await api("POST", "/api/calibration/teach/read", {});
  shot.dice = shot.dice.map((d) => ({ ...d, keep: true }));
  reading = null;
  snapshotUrl = shot.image;
});

const teachConfirm = () => teachStep(async () => {
  // a die the camera missed has no place: the photo's dice are then compared by value
  const dice = shot.dice.filter((d) => d.keep)
    .map((d) => (d.added ? { value: d.value } : { value: d.value, x: d.x, y: d.y, size: d.size }));
  const kept = await api("POST", "/api/calibration/teach/confirm", { shot: shot.shot, dice });
  teach = { ...(teach || {}), photos: kept.photos, needed: kept.needed };
  teachNote = t("Photo {n} kept. Roll again for the next one.", { n: kept.photos });
  announce(teachNote);
  shot = null;
});

const teachLearn = () => teachStep(async () => {
  const learned = await api("POST", "/api/calibration/teach/learn", {});
  teach = { ...(teach || {}), learned_from: learned.learned_from };
  teachNote = tn("The camera learned this table from {n} photo.", "The camera learned this table from {n} photos.", learned.learned_from);
  announce(teachNote);
});

function teachDie(d, i) {
  const value = el("select", { "aria-label": t("Die {n}: its value", { n: i + 1 }), class: "teach-value",
    onchange: (e) => { d.value = Number(e.target.value); } },
    [1, 2, 3, 4, 5, 6].map((n) => el("option", { value: n, selected: n === d.value }, String(n))));
  const keep = el("input", { type: "checkbox", checked: d.keep, "aria-label": t("Die {n} is a die", { n: i + 1 }),
    onchange: (e) => { d.keep = e.target.checked; } });
  return el("li", { class: "row" }, die(d.value, { size: 26 }), value,
    el("label", {}, keep, ` ${t("a die")}`),
    d.added ? el("span", { class: "muted" }, t("added"))
      : el("span", { class: d.sure ? "count-ok" : "count-bad" }, d.sure ? t("sure") : t("unsure")));
}

function teachCard() {
  const photos = (teach && teach.photos) || 0;
  const needed = (teach && teach.needed) || 3;
  const learned = (teach && teach.learned_from) || 0;
  const items = [el("h2", {}, t("Teach the camera")),
    el("p", { class: "hint" }, t("Roll all the dice in view and read them; correct any value that is wrong, untick what is no die, "
      + "and confirm. After {n} photos or more, let the camera learn this table.", { n: needed })),
    el("p", { id: "teach-count" }, learned
      ? tn("{n} photo confirmed; the camera learned this table from {learned}.", "{n} photos confirmed; the camera learned this table from {learned}.", photos,
        { learned: tn("{n} photo", "{n} photos", learned) })
      : tn("{n} photo confirmed; the camera has not learned this table yet.", "{n} photos confirmed; the camera has not learned this table yet.", photos)),
    el("button", { type: "button", class: "btn grow", id: "teach-read", disabled: busy, onclick: teachRead }, t("Read the dice"))];
  if (shot) {
    items.push(el("ol", { id: "teach-dice", class: "stack" }, shot.dice.map(teachDie)),
      el("button", { type: "button", class: "btn grow", id: "teach-add", disabled: busy,
        onclick: () => { shot.dice.push({ value: 1, keep: true, added: true }); render(); } }, t("Add a die the camera missed")),
      el("button", { type: "button", class: "btn primary grow", id: "teach-confirm", disabled: busy, onclick: teachConfirm }, t("Confirm")));
  }
  items.push(el("button", { type: "button", class: "btn grow", id: "teach-learn", disabled: busy || photos < needed,
    onclick: teachLearn }, t("Learn this table")));
  if (teachNote) items.push(el("p", { class: "count-ok", id: "teach-note" }, teachNote));
  return el("div", { class: "card stack", id: "teach-card" }, items);
}

// Default: a seat for each player of the game on, else the profile's seats.
function currentSeatCount() {
  const players = (state && state.game && state.game.players) || [];
  return seatCount || players.length || ((state && state.table_seats) || []).length || 2;
}

function zonesCard() {
  const seats = el("select", { id: "fit-seats", "aria-label": t("Seats to fit"),
    onchange: (e) => { seatCount = Number(e.target.value); } },
    [1, 2, 3, 4, 5, 6].map((n) => el("option", { value: n, selected: n === currentSeatCount() }, tn("{n} seat", "{n} seats", n))));
  const items = [el("h2", {}, t("Seat zones")),
    el("p", { class: "hint" }, t("Each player puts a few dice where their cup will stand; then fit the zones around them.")),
    el("div", { class: "row" }, seats,
      el("button", { type: "button", class: "btn grow", id: "fit-zones", disabled: busy, onclick: fitZones }, t("Fit the zones")))];
  if (proposal) {
    items.push(el("p", { id: "zones-proposal" }, tn("Proposed on the photo: {seats}, fitted to {n} die.",
      "Proposed on the photo: {seats}, fitted to {n} dice.", proposal.dice, { seats: proposal.seats.join(", ") })),
      el("div", { class: "row" },
        el("button", { type: "button", class: "btn primary grow", id: "apply-zones", disabled: busy, onclick: applyZones }, t("Use these zones")),
        el("button", { type: "button", class: "btn grow", id: "keep-zones", disabled: busy,
          onclick: () => { proposal = null; takeSnapshot(); } }, t("Keep the old ones"))));
  }
  if (zonesNote) items.push(el("p", { class: "count-ok", id: "zones-note" }, zonesNote));
  return el("div", { class: "card stack", id: "zones-card" }, items);
}

function photo() {
  if (!snapshotUrl) {
    return el("div", { class: "empty-state" }, die(null, { size: 56, variant: "hidden" }),
      el("p", {}, snapshotError || t("Take a snapshot to see what the camera sees.")));
  }
  const img = el("img", { src: snapshotUrl, alt: reading ? t("The test read, annotated") : t("Camera snapshot with the seat zones"), id: "snapshot" });
  img.addEventListener("error", () => {
    snapshotUrl = null;
    // a camera that says it is fine may not have a frame yet (starting up, a recording not
    // yet pointed at a reveal): ask again for a while, rather than blame its cable for good
    const ok = state && state.camera && state.camera.status === "ok";
    if (ok && snapshotRetries < SNAPSHOT_RETRIES) {
      snapshotRetries += 1;
      snapshotError = t("The camera has no picture yet: asking again…");
      setTimeout(() => { if (!snapshotUrl && !reading) takeSnapshot({ retry: true }); }, SNAPSHOT_RETRY_MS);
    } else {
      snapshotError = t("The camera gave no picture: check the camera status and its cable, or test an uploaded photo.");
    }
    render();
  }, { once: true });
  img.addEventListener("load", () => { snapshotRetries = 0; }, { once: true });
  return el("div", { class: "photo-wrap" }, img);
}

function readingSummary() {
  if (!reading) return null;
  const values = reading.values || (reading.dice || []).map((d) => d.value);
  const counts = [1, 2, 3, 4, 5, 6].map((f) => values.filter((v) => v === f).length);
  return el("div", { class: "card stack", id: "test-read" },
    el("h2", {}, tn("Test read: {n} die", "Test read: {n} dice", values.length)),
    el("div", { class: "seat-dice" }, values.map((v) => die(v, { size: 30 }))),
    el("div", { class: "row" }, counts.map((n, i) => el("span", { class: "tag" }, `${i + 1}: ${n}`))),
    confidenceLine(values.length, reading.uncertain, reading.covered || 0),
    pictureAdvice(reading.advice || []));
}

// Whether a reveal read like this would apply or go to review; with no dice there is nothing
// to be sure of, so say what to do instead of claiming every die was read.
function confidenceLine(dice, uncertain, covered) {
  const doubts = [uncertain ? t("{n} unsure", { n: uncertain }) : "",
    covered ? tn("{n} with something over it (a hand? a cup?)", "{n} with something over them (a hand? a cup?)", covered) : ""].filter(Boolean);
  if (doubts.length) return el("p", { class: "count-bad", id: "read-confidence" }, `⚠ ${t("{doubts}: a reveal like this would go to review", { doubts: doubts.join(", ") })}`);
  if (!dice) return el("p", { class: "hint", id: "read-confidence" }, t("No dice seen: lay a few dice in the seat zones and test again."));
  return el("p", { class: "count-ok", id: "read-confidence" }, `✓ ${t("every die read with confidence")}`);
}

// What the reader would like changed about the picture (light, exposure, stillness).
function pictureAdvice(advice) {
  if (!advice.length) return el("p", { class: "count-ok", id: "picture-advice" }, `✓ ${t("the picture is well lit and still")}`);
  return adviceList(advice);
}

// How the camera has done here, from its reveal records (GET /api/camera/record).
function recordLines(r) {
  if (!r.reveals && !r.waiting) {
    return [el("p", { class: "hint" }, t("No reveal read by the camera yet: its record starts with the first game."))];
  }
  const how = [t("{n} applied at once", { n: r.at_once }), t("{n} after a look at the review page", { n: r.reviewed })];
  if (r.by_hand) how.push(t("{n} typed in by hand", { n: r.by_hand }));
  const read = r.since
    ? tn("{n} reveal read since {date}: {how}.", "{n} reveals read since {date}: {how}.", r.reveals,
      { date: dateTime(r.since, { dateStyle: "medium" }), how: how.join(", ") })
    : tn("{n} reveal read: {how}.", "{n} reveals read: {how}.", r.reveals, { how: how.join(", ") });
  const lines = [
    el("p", { id: "record-reveals" }, read),
    el("p", { id: "record-corrected" }, tn("{n} die changed, added or removed at review, of {total} read.",
      "{n} dice changed, added or removed at review, of {total} read.", r.corrected, { total: r.dice })),
    r.reopened
      ? el("p", { class: "count-bad", id: "record-reopened" }, `⚠ ${tn("{n} verdict taken back after the camera was sure: misreads only the players caught.",
        "{n} verdicts taken back after the camera was sure: misreads only the players caught.", r.reopened)}`)
      : el("p", { class: "count-ok", id: "record-reopened" }, `✓ ${t("No verdict the camera gave on its own has been taken back.")}`),
  ];
  if (r.waiting) lines.push(el("p", { class: "hint" }, tn("{n} reveal waits for review.", "{n} reveals wait for review.", r.waiting)));
  lines.push(photoLine(r.photos));
  lines.push(el("p", { class: "hint" }, t("To score the reader on these photos:"), " ",
    el("code", {}, "bluffcam export-reveals --out DIR"), ", ", el("code", {}, "bluffcam bench-vision DIR/manifest.json"), "."));
  return lines;
}

// What the reveal photos take, and the disk's room (serve --keep-photos removes the oldest).
function photoLine(p) {
  if (!p) return null;
  const mb = (bytes) => bytes > 0 && bytes < 1e6 ? t("under 1 MB") : t("{size} MB", { size: Math.round(bytes / 1e6) });
  const short = p.free_bytes < p.min_free_bytes;
  const size = p.budget_bytes === null ? mb(p.bytes) : t("{size} of the {budget} kept", { size: mb(p.bytes), budget: mb(p.budget_bytes) });
  return el("p", { id: "record-photos", class: short ? "count-bad" : "hint" },
    tn("Photos of {n} reveal: {size}; {free} free on the disk", "Photos of {n} reveals: {size}; {free} free on the disk",
      p.reveals, { size, free: mb(p.free_bytes) })
    + (short ? `: ${t("nearly full, free some space.")}` : "."));
}

async function loadRecord() {
  let lines;
  try {
    lines = recordLines(await api("GET", "/api/camera/record"));
  } catch (e) {
    lines = [el("p", { class: "error" }, describeError(e))];
  }
  fill(recordCard, el("h2", {}, t("The camera at this table")), ...lines);
}

function render() {
  const camera = (state && state.camera) || {};
  const hasCamera = camera.status && camera.status !== "none";
  fill(root,
    el("div", { class: "review-grid" },
      el("section", { class: "card stack" },
        el("h1", {}, t("Calibration")),
        el("p", { class: "hint" }, t("The seat zones of the calibration profile are drawn on the snapshot; "
          + "every die of a seat must land inside its zone.")),
        photo()),
      el("section", { class: "stack" },
        el("div", { class: "card stack" },
          el("div", {}, el("strong", {}, `${t("Camera:")} `), camera.status === "ok" ? t("ok") : camera.status_said ? said(camera.status_said) : camera.status || t("unknown"),
            camera.spec ? el("div", { class: "muted camera-spec" }, camera.spec) : null),
          el("button", { type: "button", class: "btn big", id: "snapshot-btn", disabled: !hasCamera, onclick: takeSnapshot }, t("Take a snapshot")),
          el("button", { type: "button", class: "btn primary big", id: "test-read-btn", disabled: busy || !hasCamera, onclick: testRead }, t("Test a read")),
          chooseFileButton("upload", { class: "btn big", id: "upload-btn" }, t("Test a photo…")),
          el("input", { type: "file", id: "upload", accept: "image/*", hidden: true,
            onchange: (e) => testUpload(e.target.files && e.target.files[0]) }),
          el("p", { class: "error", id: "calibration-error" }, error)),  // said once: announce
        hasCamera ? zonesCard() : null,
        hasCamera ? teachCard() : null,
        readingSummary(),
        recordCard)));
}

// Only a change of camera status redraws: a redraw would re-fetch the (uncached) snapshot.
followState((next) => {
  const before = state && state.camera ? `${state.camera.status}|${state.camera.spec}` : null;
  const first = state === null;
  state = next;
  const key = JSON.stringify([(next.history || []).length, next.review && next.review.id,
    next.last_reveal && next.last_reveal.id]);
  if (key !== recordKey) { recordKey = key; loadRecord(); }
  const now = next.camera ? `${next.camera.status}|${next.camera.spec}` : null;
  if (first) loadTeach();
  if (first && next.camera && next.camera.status && next.camera.status !== "none") takeSnapshot();
  else if (first || before !== now) render();
});
