// Loaded (`node --import`) into every Node process the supervisor starts, which it gives an IPC
// channel: when the supervisor dies, however it dies (SIGKILL included), the channel closes and the
// process stops as on SIGTERM — with whatever it started in its process group — instead of running
// on unsupervised. FERRY_LIFELINE_GRACE_MS (default 10 s) is how long it may take before it and
// its group are killed.
const graceMs = Number(process.env.FERRY_LIFELINE_GRACE_MS ?? 10_000);

/** Signals this process's group when it leads one (started detached), else itself alone. */
const signalGroup = (signal) => {
  try {
    process.kill(-process.pid, signal);
  } catch {
    process.kill(process.pid, signal);
  }
};

const supervisorGone = () => {
  signalGroup("SIGTERM");
  setTimeout(() => {
    signalGroup("SIGKILL");
    process.exit(1);
  }, graceMs).unref();
};

if (process.channel) {
  // The channel alone keeps no process alive, and nothing is ever sent on it.
  process.channel.unref();
  if (process.connected) process.once("disconnect", supervisorGone);
  else supervisorGone();
}
