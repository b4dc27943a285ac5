// AV.Query find, first, get, count, destroyAll and each over data.find/fetch/count.
(function (global) {
  'use strict';
  var AV = global.AV;
  var proto = AV.Query.prototype;

  // The class to ask for; a relation query of a createWithoutData object first reads the
  // relation's target class from the parent. Resolves null when the relation was never used.
  proto._resolveClassName = function (options) {
    var self = this;
    if (this.className) return Promise.resolve(this.className);
    var source = this._relationSource;
    if (!source) return Promise.reject(new AV.Error(AV.Error.INVALID_CLASS_NAME, 'The query has no class name.'));
    var args = { className: source.parent.className, objectId: source.parent.id, keys: [source.key], include: [] };
    return AV._request(AV._operations.dataFetch, args, options).then(function (json) {
      var field = json && json[source.key];
      if (!field || field.__type !== 'Relation' || typeof field.className !== 'string') return null;
      self.className = field.className;
      if (!source.relation.targetClassName) source.relation.targetClassName = field.className;
      return self.className;
    });
  };

  proto._newObject = function (json) {
    if (this.objectClass) {
      var object = new this.objectClass();
      object._reset();
      object._finishFetch(json, true);
      return object;
    }
    return AV.Object._fromJSON(this.className, json, true);
  };

  proto._findArgs = function (limit) {
    var params = this._getParams();
    var args = { className: this.className, where: params.where };
    if (limit !== undefined) args.limit = limit;
    else if (params.limit !== undefined) args.limit = params.limit;
    if (params.skip !== undefined) args.skip = params.skip;
    if (params.order) args.order = params.order;
    if (this._include.length) args.include = this._include.slice();
    if (this._select.length) args.keys = this._select.slice();
    if (this._returnACL) args.returnACL = true;
    return args;
  };

  proto._find = function (options, limit) {
    var self = this;
    return this._resolveClassName(options).then(function (className) {
      if (!className) return [];
      return AV._request(AV._operations.dataFind, self._findArgs(limit), options).then(function (rows) {
        return (rows || []).map(function (row) { return self._newObject(row); });
      });
    });
  };

  proto.find = function (options) { return this._find(options); };

  // The first match, or undefined when nothing matches.
  proto.first = function (options) {
    return this._find(options, 1).then(function (objects) { return objects[0]; });
  };

  // The object with this id, whatever the conditions (as in the SDK); 101 when it's missing.
  proto.get = function (objectId, options) {
    var self = this;
    if (typeof objectId !== 'string') {
      return Promise.reject(new AV.Error(AV.Error.MISSING_OBJECT_ID, 'AV.Query#get needs an objectId string.'));
    }
    if (!objectId) return Promise.reject(new AV.Error(AV.Error.OBJECT_NOT_FOUND, 'Object not found.'));
    return this._resolveClassName(options).then(function (className) {
      if (!className) throw new AV.Error(AV.Error.OBJECT_NOT_FOUND, 'Object not found.');
      var args = { className: className, objectId: objectId, include: self._include.slice() };
      if (self._select.length) args.keys = self._select.slice();
      return AV._request(AV._operations.dataFetch, args, options).then(function (json) { return self._newObject(json); });
    });
  };

  proto.count = function (options) {
    var self = this;
    return this._resolveClassName(options).then(function (className) {
      if (!className) return 0;
      return AV._request(AV._operations.dataCount, { className: className, where: self._whereJSON() }, options);
    });
  };

  // Destroys every object the query finds (one page, as find() returns).
  proto.destroyAll = function (options) {
    return this.find(options).then(function (objects) { return AV.Object.destroyAll(objects, options); });
  };

  // Calls `callback` on every match, walking the class in objectId order page by page; a
  // promise returned by the callback is awaited before the next object.
  proto.each = function (callback, options) {
    options = options || {};
    if (this._order || this._skip || this._limit >= 0) {
      return Promise.reject(new AV.Error(AV.Error.INVALID_QUERY, "AV.Query#each can't be used with order, skip or limit."));
    }
    var self = this;
    var batchSize = options.batchSize || 100;
    function page(afterId) {
      var query = self._clone();
      if (afterId) {
        var after = { objectId: { $gt: afterId } };
        query._where = Object.keys(self._where).length ? { $and: [self._where, after] } : after;
      }
      query._order = 'objectId';
      query._limit = batchSize;
      return query.find(options).then(function (objects) {
        return objects.reduce(function (done, object) {
          return done.then(function () { return callback(object); });
        }, Promise.resolve()).then(function () {
          if (objects.length === batchSize) return page(objects[objects.length - 1].id);
        });
      });
    }
    return page(null);
  };
})(this);
