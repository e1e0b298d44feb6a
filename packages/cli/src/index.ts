export * from './exit-codes.js';
export * from './cluster/state.js';
export * from './views/nodes.js';
export * from './views/status.js';
export * from './views/history.js';
export * from './views/diff.js';
export * from './views/format.js';
export { run, type Io } from './program.js';
