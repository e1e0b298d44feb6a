export * from './errors.js';
export * from './config.js';
export * from './client.js';
export * from './resources.js';
export * from './informer.js';
export * from './events.js';
export * from './leader.js';
export * from './event-correlator.js';
