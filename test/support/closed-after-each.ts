import { afterEach } from "vitest";

/** Something a test opened that must be closed when the test ends. */
export interface Closable {
  close(): Promise<void> | void;
}

/** The resources of the running test; see {@link closedAfterEach}. */
export interface OpenResources {
  /** Adds resources to close after the running test, in the reverse order of adding. */
  push(...items: Closable[]): void;
}

/**
 * Registers (once per test file, at its top level) an `afterEach` that closes every resource the
 * test pushed, last opened first, and returns the list to push to.
 */
export function closedAfterEach(): OpenResources {
  const open: Closable[] = [];
  afterEach(async () => {
    for (const item of open.splice(0).reverse()) await item.close();
  });
  return { push: (...items) => void open.push(...items) };
}
