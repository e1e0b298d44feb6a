/**
 * Each flag of `nodenet-agent` with a default, written once: `--help` shows it (options.ts),
 * `resolveOptions` falls back to it. The confirm window's come from the pipeline (apply/confirm.ts).
 */
import { CONFIRM_DEFAULTS } from '../apply/index.js';

export const DEFAULTS = {
  stateDir: '/var/lib/nodenet',
  passwordNamespace: 'nodenet-bgp-passwords',
  frrConfdir: '/etc/frr',
  frrReloadCmd: '/usr/lib/frr/frr-reload.py',
  frrBindir: '/usr/bin',
  resyncPeriod: '60s',
  // The confirm window's are the pipeline's own (apply/confirm.ts says why 4 minutes).
  confirmWindow: CONFIRM_DEFAULTS.window,
  confirmInterval: CONFIRM_DEFAULTS.interval,
  confirmUnreachableLimit: CONFIRM_DEFAULTS.unreachableLimit,
  // Half the configurator's default --config-timeout (5m): a renewal lost to a hiccup is retried
  // in time. With the 4m window that is one renewal per change (docs/agent-status.md, "Liveness").
  heartbeatInterval: '150s',
  leaseNamespace: 'nodenet-system',
  observeInterval: '10s',
  l3vniTimeout: '30s',
  metricsAddr: ':9462',
  healthAddr: ':9463',
  // The worst case of finishing an apply step and restoring (FRR check and reload, 60 s each,
  // twice, plus health checks), inside deploy/agent.yaml's 300 s grace period.
  shutdownTimeout: '280s',
  logLevel: 'info',
} as const;
