// Stand-in for web-detector: an unknown device.
module.exports = { os: { name: 'na', version: 0 }, browser: { name: 'na', version: 0 }, device: { name: 'na', version: 0 }, engine: { name: 'na', version: 0 } };
