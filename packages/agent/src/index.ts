export {};
export * from './frr/index.js';
export * from './netlink/index.js';
