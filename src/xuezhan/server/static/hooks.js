// Hooks: a function of a module higher up, called by name from a module below it, so that every import runs
// down the layers and none runs back up. main.js provides each one before the page starts; calling a name
// nobody provided, or providing a name twice, is a mistake in the page and throws.

const HOOKS = new Map();

export function provide(name, fn) {
  if (HOOKS.has(name)) throw new Error(`hook "${name}" is provided twice`);
  HOOKS.set(name, fn);
}

export function call(name, ...args) {
  const fn = HOOKS.get(name);
  if (!fn) throw new Error(`hook "${name}" is called but was never provided`);
  return fn(...args);
}
