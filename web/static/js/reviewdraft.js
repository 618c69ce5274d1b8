// The review page's corrections in progress, kept with the review on the server (and in this
// browser until the PIN is given), so that a reload, a second phone or the trip to enter the
// PIN starts from them: GET/POST /api/reveals/<id>/draft (docs/api.md). And the checks that
// say, before Confirm, which seat and which die to change.

import { api, getPin } from "./api.js";

const LOCAL_KEY = "bluffcam.review-draft";

/** The draft of ``working`` (the page's dice) as the API takes it. */
export function draftOf(working) {
  return {
    dice: working.dice.map((d) => ({ seat: d.seat, value: d.value, x: d.x, y: d.y, edited: Boolean(d.edited) })),
    removed: working.removed,
  };
}

function localDraft(id) {
  try {
    const kept = JSON.parse(localStorage.getItem(LOCAL_KEY) || "null");
    return kept && kept.id === id ? kept.draft : null;
  } catch { return null; }
}

function keepLocally(id, draft) {
  try { localStorage.setItem(LOCAL_KEY, JSON.stringify({ id, draft })); } catch { /* private mode */ }
}

/** When the newest draft this page has seen, or sent, was kept on the server. */
let seenAt = 0;

/** The draft kept for review ``id``: the server's, else this browser's (made before the PIN). */
export async function loadDraft(id) {
  const server = await api("GET", `/api/reveals/${encodeURIComponent(id)}/draft`).catch(() => null);
  if (server && server.draft) seenAt = Math.max(seenAt, server.draft.saved_at || 0);
  return (server && server.draft) || localDraft(id);
}

/** A draft of review ``id`` another phone kept since this page last saw one, or null. */
export async function newerDraft(id) {
  const server = await api("GET", `/api/reveals/${encodeURIComponent(id)}/draft`).catch(() => null);
  const draft = server && server.draft;
  if (!draft || !(draft.saved_at > seenAt)) return null;
  seenAt = draft.saved_at;
  return draft;
}

let timer = null;
let lastSent = null;

/** Keep ``draft`` of review ``id``: in this browser at once, on the server a moment later
 * (one request for a burst of taps) where this phone has the PIN. */
export function saveDraft(id, draft, { now = false } = {}) {
  const body = JSON.stringify(draft);
  keepLocally(id, draft);
  if (!getPin() || body === lastSent) return;
  clearTimeout(timer);
  const send = () => {
    lastSent = body;
    api("POST", `/api/reveals/${encodeURIComponent(id)}/draft`, draft)
      .then((kept) => { if (kept && kept.draft) seenAt = Math.max(seenAt, kept.draft.saved_at || 0); })
      .catch(() => { lastSent = null; });
  };
  if (now) send(); else timer = setTimeout(send, 300);
}

/** Apply a kept ``draft`` to ``working``, each die keeping the camera's confidence where it
 * lies where the camera read one. */
export function applyDraft(working, draft, nextKey) {
  const read = working.dice;
  working.dice = draft.dice.map((d) => {
    const same = read.find((r) => Math.abs(r.x - d.x) < 1 && Math.abs(r.y - d.y) < 1);
    return { key: nextKey(), seat: d.seat, value: d.value, x: d.x, y: d.y,
      confidence: same ? same.confidence : 1, covered: same ? same.covered : false,
      edited: Boolean(d.edited), added: !same };
  });
  working.removed = draft.removed || 0;
}

/** Where the dice set aside in front of a cup are not among that seat's dice: the rules
 * refuse the reading (B9), so say before Confirm which seat lacks which die. */
export function setAsideGaps(working, setAside) {
  const gaps = [];
  for (const [seat, faces] of Object.entries(setAside || {})) {
    const left = working.dice.filter((d) => d.seat === seat).map((d) => d.value);
    for (const face of faces) {
      const at = left.indexOf(face);
      if (at >= 0) left.splice(at, 1); else gaps.push({ seat, face });
    }
  }
  return gaps;
}
