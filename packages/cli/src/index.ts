export * from './exit-codes.js';
export * from './state.js';
export * from './node-rows.js';
export * from './status-view.js';
export * from './history.js';
export * from './diff.js';
export * from './format.js';
export { run, type Io } from './program.js';
