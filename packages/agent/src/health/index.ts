export * from './config.js';
export * from './probes.js';
export * from './checker.js';
export * from './apiserver.js';
export * from './spec-checks.js';
