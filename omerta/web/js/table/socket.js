// The table WebSocket (docs/api.md, "Table WebSocket"): actions out with a
// client message id, numbered events and views in. It reconnects by itself
// with ?last=N, the newest event number held, and the server sends what
// was missed (or a view that resyncs).

const RETRY_MS = [500, 1000, 2000, 4000, 8000];
/** A ping every PING_MS keeps the server hearing from us (it pings a socket
 * silent for 2.5 s and cuts it at 3.75 s: docs/api.md), and its pong
 * keeps us hearing from the server. A socket that brings nothing for
 * SILENT_MS is taken as dropped (a dead network never closes it by itself);
 * looked at every CHECK_MS, so the player sees "Disconnected" within 4 s,
 * not a frozen clock. */
const PING_MS = 2000;
const SILENT_MS = 3500;
const CHECK_MS = 500;

export class TableSocket {
  /** `last()` gives the newest event number held; `receive(message)` gets
   * every message; `status(state)` hears "connecting", "open" or "lost";
   * `retry()` resolves whether to reconnect after the socket closed. */
  constructor(tableId, { last, receive, status, retry }) {
    this.base = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/tables/${tableId}/ws`;
    Object.assign(this, { last, receive, status, retry });
    this.ws = null;
    this.tries = 0;
    this.closed = false;
    this.counter = 0;
    this.connect();
  }

  connect() {
    if (this.closed) return;
    this.status("connecting");
    const ws = new WebSocket(`${this.base}?last=${this.last()}`);
    this.ws = ws;
    ws.onopen = () => {
      this.tries = 0;
      this.heard = this.pinged = Date.now();
      this.status("open");
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.check(ws), CHECK_MS);
    };
    ws.onmessage = (message) => {
      this.heard = Date.now();
      let data;
      try {
        data = JSON.parse(message.data);
      } catch {
        return;                 // not JSON: nothing the client can use
      }
      this.receive(data);
    };
    ws.onclose = async () => {
      if (this.closed || ws !== this.ws) return;
      clearInterval(this.pinger);
      this.status("lost");
      const wait = RETRY_MS[Math.min(this.tries++, RETRY_MS.length - 1)];
      if (await this.retry()) this.timer = setTimeout(() => this.connect(), wait);
    };
  }

  /** Give up on a socket that went silent and connect again, or ping when
   * it is time. */
  check(ws) {
    if (ws !== this.ws || ws.readyState !== WebSocket.OPEN) return;
    const now = Date.now();
    if (now - this.heard > SILENT_MS) {
      ws.onclose();          // at once: a dead network may take minutes to close it
      ws.onclose = null;
      ws.close();
      return;
    }
    if (now - this.pinged >= PING_MS) {
      this.pinged = now;
      ws.send('{"type":"ping"}');  // the exact text the server answers first
    }
  }

  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  /** Send an action; returns its client message id, or null when offline. */
  act(name, args = {}) {
    const id = `a${Date.now().toString(36)}${(this.counter++).toString(36)}`;
    return this.send({ id, do: name, ...args }) ? id : null;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    this.ws?.close();
  }
}
