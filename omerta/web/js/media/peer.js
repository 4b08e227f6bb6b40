// The one owner of the browser's WebRTC connection to the table's media
// plane. The table page feeds it the "media" messages of the table socket
// and it answers through `send`. The messages (omerta/media/plane.py):
//   us -> server  {"type": "media", "op": "attach"}               after each (re)connect
//   server -> us  {"type": "media", "op": "description", "pc": "main",
//                  "description": {"type": "offer", "sdp": "..."},
//                  "slots": [{"mid": "0", "seat": 4, "kind": "audio", "dir": "send"|"recv"}, ...],
//                  "iceServers": [{"urls": [...], "username"?, "credential"?}, ...]}   (STUN, TURN)
//   us -> server  {"type": "media", "op": "description", "pc": "main", "description": {"type": "answer", ...}}
//   both ways     {"type": "media", "op": "candidate", "pc": "main", "candidate": {...}}  ("" ends them)
//   server -> us  {"type": "media", "op": "error", "error": "..."}
//   server -> us  {"type": "media", "op": "status", "seats": [{"seat": 4, "link": "connected",
//                  "camera": true, "mic": true}, ...]}          (every seat's media health)
// On Janus (docs/media.md) we offer to publish, and the server may send unasked:
//   server -> us  {"type": "media", "op": "offer-request", "pc": "publish-1", "slots": [send...], "iceServers": [...]}
//   us -> server  {"type": "media", "op": "description", "pc": "publish-1", "description": {"type": "offer", ...}}
//   server -> us  {"type": "media", "op": "description", "pc": "publish-1", "description": {"type": "answer", ...}}
//   server -> us  {"type": "media", "op": "close", "pc": "publish-1"}    (its media server died)
// An offer on an open connection renegotiates it; an offer-request makes the
// connection anew. What reaches whom is decided by the server's gate, never here.

// Below this many bits/s available for sending, our uplink is too weak.
const WEAK_UPLINK_BPS = 250_000;
const UPLINK_CHECK_MS = 2000;
// A connection that failed (the network changed, a NAT mapping expired) is
// made again after this long, and no more often.
const RETRY_MS = 3000;

export class MediaPeer {
  /** `send(message)` sends a socket message; `onStream(seat, stream)` hands
   * over each seat's incoming MediaStream; `onError(text)` the server's
   * refusals; `onStatus(seats)` every seat's media health; `onUplink(weak)`
   * whether our own uplink is too weak (the browser's bandwidth estimate,
   * fed by the server's congestion feedback). */
  constructor({ send, onStream, onError, onStatus = () => {}, onUplink = () => {} }) {
    Object.assign(this, { send, onStream, onError, onStatus, onUplink });
    this.uplinkTimer = null;
    this.retry = null;
    this.weak = false;
    this.connections = new Map();       // pc name -> RTCPeerConnection
    this.streams = new Map();           // seat -> MediaStream
    this.local = null;
  }

  /** Our camera and mic (asked for once), for the preview and for sending. */
  async localMedia() {
    if (!this.local) {
      try {
        this.local = await navigator.mediaDevices.getUserMedia({ audio: true, video: { width: 640, height: 480 } });
      } catch {
        this.local = new MediaStream();     // no camera or mic: still see and hear the others
      }
    }
    return this.local;
  }

  /** (Re)connect our media: the server drops the old connections and offers new ones. */
  attach() {
    this.closeConnections();
    this.send({ type: "media", op: "attach" });
  }

  /** A "media" message from the table socket. */
  async receive(message) {
    if (message.op === "description" && message.description?.type === "offer") await this.answer(message);
    else if (message.op === "description" && message.description?.type === "answer" && this.connections.has(message.pc)) {
      await this.connections.get(message.pc).setRemoteDescription(message.description);
    } else if (message.op === "offer-request") await this.offer(message);
    else if (message.op === "close") this.drop(message.pc);
    else if (message.op === "candidate" && this.connections.has(message.pc)) {
      const { candidate } = message;
      await this.connections.get(message.pc).addIceCandidate(candidate?.candidate ? candidate : null);
    } else if (message.op === "error") this.onError(message.error);
    else if (message.op === "status" && Array.isArray(message.seats)) this.onStatus(message.seats);
  }

  /** Weak when the encoder is held back for bandwidth, or the estimate is low. */
  async checkUplink() {
    let weak = false;
    for (const pc of this.connections.values()) {
      if (pc.connectionState !== "connected") continue;
      (await pc.getStats()).forEach((s) => {
        if (s.type === "outbound-rtp" && s.kind === "video" && s.qualityLimitationReason === "bandwidth") weak = true;
        if (s.type === "candidate-pair" && s.nominated && s.state === "succeeded"
            && s.availableOutgoingBitrate !== undefined && s.availableOutgoingBitrate < WEAK_UPLINK_BPS) weak = true;
      });
    }
    if (weak !== this.weak) {
      this.weak = weak;
      this.onUplink(weak);
    }
  }

  connection(name, iceServers = []) {
    if (!this.connections.has(name)) {
      const pc = new RTCPeerConnection({ iceServers, bundlePolicy: "max-bundle" });
      pc.onicecandidate = ({ candidate }) => this.send({
        type: "media", op: "candidate", pc: name,
        candidate: candidate ? candidate.toJSON() : { candidate: "", sdpMid: null, sdpMLineIndex: null },
      });
      pc.onconnectionstatechange = () => {
        if (pc.connectionState !== "failed" || this.retry) return;
        this.retry = setTimeout(() => {
          this.retry = null;
          if (this.connections.get(name) === pc && pc.connectionState === "failed") this.attach();
        }, RETRY_MS);
      };
      this.connections.set(name, pc);
      if (!this.uplinkTimer) {
        this.uplinkTimer = setInterval(() => this.checkUplink().catch(() => {}), UPLINK_CHECK_MS);
      }
    }
    return this.connections.get(name);
  }

  async answer(message) {
    const pc = this.connection(message.pc, message.iceServers || []);
    await pc.setRemoteDescription(message.description);
    // A spectator is offered no send slot: no camera or mic is asked for.
    const sends = (message.slots || []).some((slot) => slot.dir === "send");
    const local = sends ? await this.localMedia() : new MediaStream();
    for (const slot of message.slots || []) {
      const transceiver = pc.getTransceivers().find((tr) => tr.mid === slot.mid);
      if (!transceiver) continue;
      if (slot.dir === "send") {
        await transceiver.sender.replaceTrack(local.getTracks().find((tr) => tr.kind === slot.kind) || null);
        transceiver.direction = "sendonly";
      } else {
        transceiver.direction = "recvonly";
        this.show(slot.seat, transceiver.receiver.track);
      }
    }
    await pc.setLocalDescription(await pc.createAnswer());
    this.send({ type: "media", op: "description", pc: message.pc, description: pc.localDescription.toJSON() });
  }

  /** Offer our mic and camera on a new connection (a Janus publisher offers). */
  async offer(message) {
    this.drop(message.pc);
    const pc = this.connection(message.pc, message.iceServers || []);
    const local = await this.localMedia();
    for (const slot of message.slots || []) {
      if (slot.dir !== "send") continue;
      const track = local.getTracks().find((tr) => tr.kind === slot.kind);
      pc.addTransceiver(track || slot.kind, { direction: "sendonly", streams: [local] });
    }
    await pc.setLocalDescription(await pc.createOffer());
    this.send({ type: "media", op: "description", pc: message.pc, description: pc.localDescription.toJSON() });
  }

  drop(name) {
    this.connections.get(name)?.close();
    this.connections.delete(name);
  }

  /** Put `track` in `seat`'s stream, in place of an older one of its kind. */
  show(seat, track) {
    if (!this.streams.has(seat)) this.streams.set(seat, new MediaStream());
    const stream = this.streams.get(seat);
    if (stream.getTracks().includes(track)) return;
    stream.getTracks().filter((tr) => tr.kind === track.kind).forEach((tr) => stream.removeTrack(tr));
    stream.addTrack(track);
    this.onStream(seat, stream);
  }

  closeConnections() {
    for (const pc of this.connections.values()) pc.close();
    this.connections.clear();
    clearInterval(this.uplinkTimer);
    this.uplinkTimer = null;
  }

  close() {
    clearTimeout(this.retry);
    this.retry = null;
    this.closeConnections();
    this.local?.getTracks().forEach((track) => track.stop());
    this.local = null;
  }
}
