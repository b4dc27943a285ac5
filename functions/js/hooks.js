// Example hooks, as a LeanEngine app writes them: a Todo is normalised before it is stored
// (and refused without a title), and noted in the log once it is.
var AV = require('leanengine');

AV.Cloud.beforeSave('Todo', function (request) {
  var title = request.object.get('title');
  if (typeof title !== 'string' || !title.trim()) throw new AV.Cloud.Error('A todo needs a title.');
  request.object.set('title', title.trim());
  if (request.object.get('priority') === undefined) request.object.set('priority', 1);
});

AV.Cloud.afterSave('Todo', function (request) {
  console.log('todo created', request.object.id);
});
