// Stand-in for underscore: Debian's lodash (node-lodash), with the few names that differ.
const _ = require('/usr/share/nodejs/lodash');
const u = _.runInContext();
u.any = u.some; u.all = u.every; u.contains = u.includes; u.include = u.includes;
u.pluck = u.map; u.object = u.zipObject; u.indexBy = u.keyBy; u.where = u.filter; u.findWhere = u.find;
u.extend = u.assignIn; u.compose = u.flowRight;
// underscore's array helpers take a count where lodash's don't.
u.rest = u.tail = (array, n) => u.drop(array, n == null ? 1 : n);
u.first = u.head = (array, n) => (n == null ? (array || [])[0] : u.take(array, n));
u.last = (array, n) => (n == null ? u.nth(array, -1) : u.takeRight(array, n));
u.initial = (array, n) => u.dropRight(array, n == null ? 1 : n);
u.uniq = u.unique = (array) => Array.from(new Set(array));
module.exports = u;
