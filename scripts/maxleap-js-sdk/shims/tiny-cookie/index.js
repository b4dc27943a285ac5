// Stand-in for tiny-cookie: in memory (Node has no cookies).
const items = new Map();
module.exports = { set: (k, v) => items.set(k, v), get: (k) => (items.has(k) ? items.get(k) : null), remove: (k) => items.delete(k) };
