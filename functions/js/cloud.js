// LeanEngine-style cloud code: this file runs unchanged on LeanEngine and on FunctionHost.
const AV = require('leanengine');

AV.Cloud.define('helloJS', function (request) {
  return 'Hello, ' + (request.params.name || 'world') + '!';
});

// Promise style: the average of the given ratings.
AV.Cloud.define('averageStars', async function (request) {
  const ratings = request.params.ratings || [];
  if (!Array.isArray(ratings) || ratings.length === 0) {
    throw new AV.Cloud.Error('ratings must be a non-empty array', { code: 400 });
  }
  return ratings.reduce((sum, r) => sum + r, 0) / ratings.length;
});

// The older callback style much existing cloud code uses.
AV.Cloud.define('legacyEcho', function (request, response) {
  console.log('legacyEcho called with', request.params);
  response.success({ echoed: request.params });
});
