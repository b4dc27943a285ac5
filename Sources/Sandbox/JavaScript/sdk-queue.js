// AV.Cloud.enqueue and AV.Cloud.getTaskInfo: the Cloud Queue, called as LeanEngine's Node SDK
// calls it, over the host's cloud.enqueue and cloud.taskInfo.
(function (global) {
  'use strict';
  var AV = global.AV;

  // The fields of a task LeanEngine's SDK sends with the function and its parameters: the
  // options are the REST body's, unchanged (`prod` aside: the environment is the enqueuing
  // code's, which the host knows; `user` is FunctionHost's, the user the task runs as).
  var optionKeys = ['attempts', 'backoff', 'delay', 'deliveryMode', 'keepResult', 'priority', 'timeout', 'uniqueId'];

  // The user the task runs as: an AV.User (or any object with an id) or its objectId; none
  // runs the task as the master, as LeanEngine's queue does.
  function userId(user) {
    if (user === undefined || user === null) return null;
    if (typeof user === 'string') return user;
    var id = user.id || user.objectId;
    if (typeof id !== 'string' || !id) throw new AV.Error(AV.Error.INVALID_POINTER, 'options.user has no objectId: it is not a saved user.');
    return id;
  }

  // AV.Cloud.enqueue(name, params, {attempts, backoff, delay, deliveryMode, keepResult,
  // priority, timeout, uniqueId, user}) → a promise of {uniqueId}.
  AV.Cloud.enqueue = function (name, params, options) {
    return new Promise(function (resolve) {
      if (typeof name !== 'string' || !name) throw new AV.Error(AV.Error.OTHER_CAUSE, 'AV.Cloud.enqueue needs a function name.');
      options = options || {};
      var args = { function: name, params: params === undefined || params === null ? {} : AV._encode(params) };
      optionKeys.forEach(function (key) { if (options[key] !== undefined) args[key] = options[key]; });
      var user = userId(options.user);
      if (user) args.user = user;
      resolve(global.__fhCall(AV._operations.cloudEnqueue, args));
    }).catch(function (error) { throw AV._toError(error); });
  };

  // AV.Cloud.getTaskInfo(uniqueId) → a promise of {uniqueId, status, finishedAt?, statusCode?,
  // result?, error?, retryAt?}, the dates as Date, as LeanEngine's SDK gives them.
  AV.Cloud.getTaskInfo = function (uniqueId) {
    return new Promise(function (resolve) {
      if (typeof uniqueId !== 'string' || !uniqueId) throw new AV.Error(AV.Error.OTHER_CAUSE, 'AV.Cloud.getTaskInfo needs a uniqueId.');
      resolve(global.__fhCall(AV._operations.cloudTaskInfo, { uniqueId: uniqueId }));
    }).then(function (body) {
      if (body && body.finishedAt) body.finishedAt = new Date(body.finishedAt);
      if (body && body.retryAt) body.retryAt = new Date(body.retryAt);
      return body;
    }, function (error) { throw AV._toError(error); });
  };
})(this);
