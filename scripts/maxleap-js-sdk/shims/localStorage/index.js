// Stand-in for the localStorage package: in memory.
const items = new Map();
module.exports = {
  getItem: (k) => (items.has(k) ? items.get(k) : null),
  setItem: (k, v) => items.set(k, String(v)),
  removeItem: (k) => items.delete(k),
  clear: () => items.clear(),
};
