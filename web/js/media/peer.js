// The one owner of the browser's WebRTC connection to the table's media
// plane. The table page feeds it the "media" messages of the table socket
// and it answers through `send`. The messages (omerta/media/plane.py):
//   us -> server  {"type": "media", "op": "attach"}               after each (re)connect
//   server -> us  {"type": "media", "op": "description", "pc": "main",
//                  "description": {"type": "offer", "sdp": "..."},
//                  "slots": [{"mid": "0", "seat": 4, "kind": "audio", "dir": "send"|"recv"}, ...]}
//   us -> server  {"type": "media", "op": "description", "pc": "main", "description": {"type": "answer", ...}}
//   both ways     {"type": "media", "op": "candidate", "pc": "main", "candidate": {...}}  ("" ends them)
//   server -> us  {"type": "media", "op": "error", "error": "..."}
// Connections are offered by the server; a new offer on an open connection
// renegotiates it. What reaches whom is decided by the server's gate, never here.

export class MediaPeer {
  /** `send(message)` sends a socket message; `onStream(seat, stream)` hands
   * over each seat's incoming MediaStream; `onError(text)` the server's refusals. */
  constructor({ send, onStream, onError }) {
    Object.assign(this, { send, onStream, onError });
    this.connections = new Map();       // pc name -> RTCPeerConnection
    this.streams = new Map();           // seat -> MediaStream
    this.local = null;
  }

  /** Our camera and mic (asked for once), for the preview and for sending. */
  async localMedia() {
    if (!this.local) {
      try {
        this.local = await navigator.mediaDevices.getUserMedia({ audio: true, video: { width: 640, height: 360 } });
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
    else if (message.op === "candidate" && this.connections.has(message.pc)) {
      const { candidate } = message;
      await this.connections.get(message.pc).addIceCandidate(candidate?.candidate ? candidate : null);
    } else if (message.op === "error") this.onError(message.error);
  }

  connection(name) {
    if (!this.connections.has(name)) {
      const pc = new RTCPeerConnection({ iceServers: [], bundlePolicy: "max-bundle" });
      pc.onicecandidate = ({ candidate }) => this.send({
        type: "media", op: "candidate", pc: name,
        candidate: candidate ? candidate.toJSON() : { candidate: "", sdpMid: null, sdpMLineIndex: null },
      });
      this.connections.set(name, pc);
    }
    return this.connections.get(name);
  }

  async answer(message) {
    const pc = this.connection(message.pc);
    await pc.setRemoteDescription(message.description);
    const local = await this.localMedia();
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
  }

  close() {
    this.closeConnections();
    this.local?.getTracks().forEach((track) => track.stop());
    this.local = null;
  }
}
