/**
 * Bounded shutdown of the agent (#25 item 5). SIGTERM ends a confirm window at once and restores the
 * host (host work: kernel and FRR, no API server involved), then says so to the API server. The
 * whole runs within one deadline on this process's monotonic clock, and every step that needs the
 * API server has its own short bound on top, so an API server that is gone, refuses, or accepts and
 * never answers costs at most those bounds. A step that does not finish in its time is abandoned and
 * named; the process then exits non-zero so the cut-short work shows in the pod's last state. The
 * steps run in `shutdownWithin` (@nodenet/kube); this module holds the agent's bound per API step
 * (the deadline is --shutdown-timeout, options.ts).
 */

/** Bound on each step that talks to the API server (a status write, the observed-state loop). */
export const API_STEP_TIMEOUT_MS = 3_000;
