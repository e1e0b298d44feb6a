/**
 * Each flag of `nodenet-agent` with a default, written once: `--help` shows it (options.ts),
 * `resolveOptions` falls back to it, and the confirm window's default (DEFAULT_CONFIRM) is parsed
 * from it.
 */
export const DEFAULTS = {
  stateDir: '/var/lib/nodenet',
  passwordNamespace: 'nodenet-bgp-passwords',
  frrConfdir: '/etc/frr',
  frrReloadCmd: '/usr/lib/frr/frr-reload.py',
  frrBindir: '/usr/bin',
  resyncPeriod: '60s',
  // 4 minutes: long enough for a session that a change broke to die by its hold timer (FRR's
  // traditional profile uses 180 s, RFC 4271 suggests 90 s, the datacenter profile 9 s), plus a few
  // rounds of checks after the routes are withdrawn. kubernetes-nmstate reverts after 480 s.
  confirmWindow: '4m',
  confirmInterval: '5s',
  confirmUnreachableLimit: '30s',
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
