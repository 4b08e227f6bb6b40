// A replay's clock: where the cursor is in game time, which step's view
// holds there, and the play/pause loop at 1x to 16x. No DOM here.

export const SPEEDS = [1, 2, 4, 8, 16];

/** The index of the last frame at or before game time `t` (0 if none). */
export function frameAt(frames, t) {
  let low = 0;
  let high = frames.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (frames[mid].t <= t) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** Plays game time forward at `speed` game seconds per wall second, and
 * calls `onTime(t)` as it moves (at most every 100 ms), stopping at `end`. */
export class Timeline {
  constructor(end, onTime) {
    this.end = end;
    this.onTime = onTime;
    this.t = 0;
    this.speed = 1;
    this.timer = null;
    this.last = 0;
  }

  get playing() {
    return this.timer !== null;
  }

  seek(t) {
    this.t = Math.min(Math.max(0, t), this.end);
    this.onTime(this.t);
  }

  play() {
    if (this.playing) return;
    if (this.t >= this.end) this.t = 0;
    this.last = performance.now();
    this.timer = setInterval(() => this.tick(), 100);
    this.onTime(this.t);
  }

  pause() {
    if (!this.playing) return;
    clearInterval(this.timer);
    this.timer = null;
    this.onTime(this.t);
  }

  tick() {
    const now = performance.now();
    const t = this.t + ((now - this.last) / 1000) * this.speed;
    this.last = now;
    if (t >= this.end) {
      this.t = this.end;
      this.pause();
      return;
    }
    this.t = t;
    this.onTime(t);
  }
}
