// The page's one state object, and what it says of the seat: whether the open decision is answered, which seat
// is at the bottom of the screen, the legal actions, whether the page plays the seat (not a spectator, not a replay).

export const S = {
  me: null, tables: [], after: null,
  tiers: null, tier: null,
  code: null, watch: false,
  ws: null, wsWanted: false, retry: 0, replaced: false, node: null,
  seat: null, room: null, roomAt: 0, view: null, version: 0, handNo: 0, names: null,
  timer: null, deadline: null, stateAt: 0,
  trustee: false, decision: null, answered: null,
  sel: null, exch: [], hint: null, hintFor: null,
  handEnd: null, handEndAt: 0, lookAtTable: false, matchEnd: null,
  logOpen: false, replay: null, oldWs: null, jiaoMa: null,
};

export function answered() { return S.decision === null || S.decision === undefined || S.decision === S.answered; }

export function base() { return S.seat === null || S.seat === undefined ? 0 : S.seat; }

export function legal() { return (S.view && S.view.legal) || []; }

export function mineToPlay() { return S.seat !== null && S.seat !== undefined && !S.replay; }
