// The cloud function the MaxLeap SDK run calls (LeanEngine style; the host serves it to both dialects).
var AV = require('leanengine');
AV.Cloud.define('hello', function (request) {
  return { greeting: 'hello ' + (request.params.name || '?') };
});
