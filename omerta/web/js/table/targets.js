// Which action a click on a seat performs now, and which seats it may
// name. The server decides legality; this only saves a click on a seat
// the rules would refuse anyway.

const TARGET_ACTIONS = ["nominate", "vote", "shoot", "check", "visit", "kill", "heal"];

export function targetAction(view) {
  return TARGET_ACTIONS.find((name) => view.actions.includes(name)) || null;
}

export function targetsFor(action, view) {
  const living = view.seats.filter((s) => s.alive).map((s) => s.seat);
  const me = view.seat;
  switch (action) {
    case "nominate":
      return new Set(living.filter((seat) => !view.nominees.includes(seat)));
    case "vote":
      return new Set(view.vote?.calling != null ? [view.vote.calling] : view.vote?.candidates || []);
    case "check":
      return new Set(living.filter((seat) => seat !== me && !(String(seat) in view.checks)));
    case "visit":
    case "kill":
      return new Set(living.filter((seat) => seat !== me));
    case "shoot":
    case "heal":
    case "tech_call":
      return new Set(living);
    default:
      return new Set();
  }
}
