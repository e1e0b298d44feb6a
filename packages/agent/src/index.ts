export {};
export * from './frr/index.js';
