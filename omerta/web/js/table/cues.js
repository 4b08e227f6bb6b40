// A short tone and a banner when something needs you: your speech, your
// nomination, a vote opening. Tones are synthesised: no sound files.

import { t } from "../i18n.js";
import { notify } from "../notice.js";

const TONES = {
  your_speech: [660, 880],
  nominated: [520, 390],
  vote_open: [740, 740],
  tech_vote: [440, 560, 440],
  your_turn: [600, 800],
};
let audio = null;

function play(notes) {
  try {
    audio = audio || new AudioContext();
    if (audio.state === "suspended") audio.resume();
    notes.forEach((frequency, i) => {
      const start = audio.currentTime + i * 0.16;
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, start);
      gain.gain.exponentialRampToValueAtTime(0.18, start + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.14);
      osc.connect(gain).connect(audio.destination);
      osc.start(start);
      osc.stop(start + 0.15);
    });
  } catch {
    // no audio output: the banner still shows
  }
}

export function cue(kind, params = {}) {
  play(TONES[kind]);
  notify(t(`cue.${kind}`, params), "cue", 4);
  document.body.classList.remove("flash");
  void document.body.offsetWidth;            // restart the flash animation
  document.body.classList.add("flash");
}
