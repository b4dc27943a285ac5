// Stand-in for node-uuid: v1 and v4 as random UUIDs (the SDK only needs unique ids).
const crypto = require('crypto');
module.exports = { v1: () => crypto.randomUUID(), v4: () => crypto.randomUUID() };
