// What this browser knows of the game at one table: the numbered events
// received so far and the latest view. Kept in sessionStorage, so a
// refresh restores it and the socket resumes from the last number.

export class Game {
  constructor(tableId, username) {
    this.key = `omerta.game.${tableId}.${username || "guest"}`;
    this.tableId = tableId;
    this.names = {};              // seat -> player name
    this.seat = null;             // ours (null: watching)
    this.events = [];             // [{seq, event}], in order
    this.view = null;
    this.clock = null;            // {now: game time, at: performance.now(), scale}
    this.restore();
  }

  get last() {
    return this.events.length ? this.events[this.events.length - 1].seq : 0;
  }

  /** Take an event message; returns the event if it is new. */
  addEvent(message) {
    if (message.seq !== this.last + 1) return null;
    this.events.push({ seq: message.seq, event: message.event });
    this.save();
    return message.event;
  }

  /** Take a view message. False when it shows events are missing here
   * (or held from another stream): then the caller resyncs from 0. */
  setView(message) {
    this.view = message.view;
    const due = nextDeadline(message.view);
    const gameLeft = due === null ? 0 : due - message.now;
    // Game time runs `scale` times faster than wall time (--time-scale).
    const scale = message.deadline_in > 0 && gameLeft > 0 ? gameLeft / message.deadline_in : this.clock?.scale || 1;
    this.clock = { now: message.now, at: performance.now(), scale };
    return message.seq === this.last;
  }

  /** The game time now, as far as this browser can tell. */
  now() {
    if (!this.clock) return 0;
    return this.clock.now + ((performance.now() - this.clock.at) / 1000) * this.clock.scale;
  }

  /** Game seconds until game time `t`, never below zero. */
  until(t) {
    return Math.max(0, t - this.now());
  }

  reset() {
    this.events = [];
    this.save();
  }

  list(name) {
    return this.events.filter((item) => item.event.event === name).map((item) => item.event);
  }

  /** The events since the latest `phase` event (this phase's news). */
  sincePhase() {
    const out = [];
    for (let i = this.events.length - 1; i >= 0 && this.events[i].event.event !== "phase"; i--) {
      out.unshift(this.events[i].event);
    }
    return out;
  }

  setSeat(seat) {
    this.seat = seat;
    this.save();
  }

  /** The game_over event, once the game has ended. */
  get over() {
    return this.list("game_over").pop() || null;
  }

  save() {
    try {
      sessionStorage.setItem(this.key, JSON.stringify({ seat: this.seat, events: this.events }));
    } catch {
      // storage full: a refresh will ask the server for everything
    }
  }

  restore() {
    try {
      const saved = JSON.parse(sessionStorage.getItem(this.key) || "{}");
      if (Array.isArray(saved.events)) this.events = saved.events;
      this.seat = saved.seat ?? null;
    } catch {
      this.events = [];
    }
  }
}

/** The engine's next deadline (State.next_deadline) from a view. */
function nextDeadline(view) {
  if (view.tech) return view.tech.end;
  if (view.interjection_end != null && view.deadline != null) return Math.min(view.deadline, view.interjection_end);
  return view.deadline;
}
