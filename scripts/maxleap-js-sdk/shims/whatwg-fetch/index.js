// Stand-in for whatwg-fetch: Node has fetch.
module.exports = {};
