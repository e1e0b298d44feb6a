import type { TypeRegistry } from '../../resources/registry.js';
import type { Store } from '../../storage/store.js';
import type { Writes } from '../writes.js';
import type { ControllerQueue } from './queue.js';

/** What a built-in controller works with: the store, the types, the write rules and the work queue. */
export interface ControllerContext {
  store: Store;
  registry: TypeRegistry;
  writes: Writes;
  queue: ControllerQueue;
}
