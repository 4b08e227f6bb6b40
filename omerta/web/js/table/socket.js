// The table WebSocket (docs/api.md, "Table WebSocket"): actions out with a
// client message id, numbered events and views in. It reconnects by itself
// with ?last=N, the newest event number held, and the server sends what
// was missed (or a view that resyncs).

const RETRY_MS = [500, 1000, 2000, 4000, 8000];
/** A ping every PING_MS; a socket that brings nothing for SILENT_MS is
 * taken as dropped (a dead network never closes it by itself), so the
 * player sees "Disconnected" within 5 s, not a frozen clock. */
const PING_MS = 1000;
const SILENT_MS = 3500;

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
      this.heard = Date.now();
      this.status("open");
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.check(ws), PING_MS);
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

  /** Ping, or give up on a socket that went silent and connect again. */
  check(ws) {
    if (ws !== this.ws || ws.readyState !== WebSocket.OPEN) return;
    if (Date.now() - this.heard > SILENT_MS) {
      ws.onclose();          // at once: a dead network may take minutes to close it
      ws.onclose = null;
      ws.close();
      return;
    }
    ws.send(JSON.stringify({ type: "ping" }));
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
