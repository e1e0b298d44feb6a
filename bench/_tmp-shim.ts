export { FrrDriver } from '@nodenet/agent';
export { configDrift as configDriftForTest } from '../packages/agent/src/frr/drift.js';
