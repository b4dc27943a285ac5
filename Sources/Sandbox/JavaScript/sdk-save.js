// AV.Object save, destroy and fetch (and their All forms) over data.create/update/delete/fetch.
(function (global) {
  'use strict';
  var AV = global.AV;
  var AVObject = AV.Object;
  var proto = AVObject.prototype;

  function reject(code, message) { return Promise.reject(new AV.Error(code, message)); }

  // Saves of one object run one after another, so a second save() of a new object updates
  // the object the first one created instead of creating another.
  proto._enqueue = function (work) {
    var run = (this._queue || Promise.resolve()).then(work);
    this._queue = run.catch(function () {});
    return run;
  };

  // save(), save({k: v}, options), save('k', v, options). Unsaved or changed objects it points
  // to are saved first, deepest first, as the SDK does.
  proto.save = function (key, value, options) {
    var attributes = null;
    if (key !== null && key !== undefined && typeof key === 'object') {
      attributes = key;
      options = value;
    } else if (typeof key === 'string') {
      attributes = {};
      attributes[key] = value;
    } else {
      options = value;
    }
    options = options || {};
    var self = this;
    var children;
    try {
      if (attributes) this.set(attributes, options);
      children = this._dirtyChildren();
    } catch (error) {
      return Promise.reject(error);
    }
    var childOptions = Object.assign({}, options);
    delete childOptions.query;
    delete childOptions.fetchWhenSave;
    return children.reduce(function (done, child) {
      return done.then(function () { return child._enqueue(function () { return child._saveSelf(childOptions); }); });
    }, Promise.resolve()).then(function () {
      return self._enqueue(function () { return self._saveSelf(options); });
    });
  };

  // The AV.Objects reachable from this one's fields that need saving, children before parents.
  proto._dirtyChildren = function () {
    var result = [];
    var seen = [];
    var path = [this];
    function visit(value) {
      if (value === null || typeof value !== 'object') return;
      if (value instanceof AVObject) {
        if (path.indexOf(value) >= 0) {
          if (!value.id) throw new AV.Error(AV.Error.MISSING_OBJECT_ID, 'Can\'t save: unsaved objects point to each other in a cycle.');
          return;
        }
        if (seen.indexOf(value) >= 0) return;
        seen.push(value);
        path.push(value);
        visitFields(value.attributes);
        path.pop();
        if (value.dirty()) result.push(value);
        return;
      }
      if (value instanceof AV.File) {
        if (!value.id) {
          throw new AV.Error(AV.Error.UNSAVED_FILE_ERROR,
            'Can\'t save an object holding an AV.File without an objectId: uploading files isn\'t available yet.');
        }
        return;
      }
      if (value instanceof Date || value instanceof AV.ACL || value instanceof AV.GeoPoint || value instanceof AV.Relation) return;
      if (Array.isArray(value)) { value.forEach(visit); return; }
      visitFields(value);
    }
    function visitFields(fields) { Object.keys(fields).forEach(function (key) { visit(fields[key]); }); }
    visitFields(this.attributes);
    return result;
  };

  // The REST body of the pending changes.
  proto._changesJSON = function (ops) {
    var body = {};
    Object.keys(ops).forEach(function (key) {
      var op = ops[key];
      switch (op.kind) {
        case 'set': body[key] = AV._encode(op.value); break;
        case 'unset': body[key] = { __op: 'Delete' }; break;
        case 'increment': body[key] = { __op: 'Increment', amount: op.amount }; break;
        case 'add': body[key] = { __op: 'Add', objects: AV._encode(op.objects) }; break;
        case 'addUnique': body[key] = { __op: 'AddUnique', objects: AV._encode(op.objects) }; break;
        case 'remove': body[key] = { __op: 'Remove', objects: AV._encode(op.objects) }; break;
        case 'bitAnd': body[key] = { __op: 'BitAnd', value: op.value }; break;
        case 'bitOr': body[key] = { __op: 'BitOr', value: op.value }; break;
        case 'bitXor': body[key] = { __op: 'BitXor', value: op.value }; break;
        case 'relation': {
          var adds = Object.keys(op.add).map(function (id) { return op.add[id]._toPointer(); });
          var removes = Object.keys(op.remove).map(function (id) { return op.remove[id]._toPointer(); });
          if (adds.length && removes.length) {
            // The host takes one operation per field and write.
            throw new AV.Error(AV.Error.INTERNAL_SERVER_ERROR,
              "Can't add to and remove from relation '" + key + "' in one save: save between the two.");
          }
          if (adds.length) body[key] = { __op: 'AddRelation', objects: adds };
          if (removes.length) body[key] = { __op: 'RemoveRelation', objects: removes };
          break;
        }
      }
    });
    return body;
  };

  proto._saveSelf = function (options) {
    var self = this;
    if (typeof this.className !== 'string' || !this.className) {
      return reject(AV.Error.INVALID_CLASS_NAME, "Can't save an AV.Object that has no className.");
    }
    var sent = this._ops;
    var body;
    var where;
    try {
      body = this._changesJSON(sent);
      if (options.query) where = options.query._whereJSON();
    } catch (error) {
      return Promise.reject(error);
    }
    var fetchWhenSave = options.fetchWhenSave === true || this._flags.fetchWhenSave;
    if (this.id && Object.keys(sent).length === 0 && !where && !fetchWhenSave) return Promise.resolve(this);
    this._ops = {};
    // The hooks this code chose to skip travel beside the data, never in it: a field of the
    // data (a client's params set on the object) names no hook to skip.
    var ignoreHooks = this._flags.ignoreHooks.slice();
    var request = this.id
      ? AV._request(AV._operations.dataUpdate, { className: this.className, objectId: this.id, data: body, where: where, ignoreHooks: ignoreHooks }, options)
      : AV._request(AV._operations.dataCreate, { className: this.className, data: body, fetchWhenSave: fetchWhenSave, ignoreHooks: ignoreHooks }, options);
    return request.then(function (json) {
      // The host answers with the whole stored object; changes made during the save stay pending.
      self._applyServer(json, false);
      self._hasData = true;
      return self;
    }, function (error) {
      self._restoreOps(sent);
      throw error;
    });
  };

  // A failed save keeps its changes pending, under any made while it ran.
  proto._restoreOps = function (sent) {
    Object.keys(sent).forEach(function (key) {
      var newer = this._ops[key];
      if (!newer) { this._ops[key] = sent[key]; return; }
      if (newer.kind === 'relation' && sent[key].kind === 'relation') {
        ['add', 'remove'].forEach(function (side) {
          var other = side === 'add' ? 'remove' : 'add';
          Object.keys(sent[key][side]).forEach(function (id) {
            if (!newer[side][id] && !newer[other][id]) newer[side][id] = sent[key][side][id];
          });
        });
        return;
      }
      if (newer.kind !== 'relation') this._ops[key] = AV._changes.merge(sent[key], newer, this.attributes[key]);
    }, this);
  };

  proto.destroy = function (options) {
    options = options || {};
    var self = this;
    if (!this.id) return Promise.resolve(this);
    var where;
    try {
      if (options.query) where = options.query._whereJSON();
    } catch (error) {
      return Promise.reject(error);
    }
    return AV._request(AV._operations.dataDelete, { className: this.className, objectId: this.id, where: where, ignoreHooks: this._flags.ignoreHooks.slice() }, options)
      .then(function () { return self; });
  };

  // fetch({keys, include}, options): reloads the object; with keys, only those fields.
  proto.fetch = function (fetchOptions, options) {
    var self = this;
    if (!this.id) return reject(AV.Error.MISSING_OBJECT_ID, "Can't fetch an AV.Object that has no objectId.");
    fetchOptions = fetchOptions || {};
    var keys = AV._keyList([fetchOptions.keys]);
    var include = AV._keyList([fetchOptions.include]);
    var args = { className: this.className, objectId: this.id, include: include };
    if (keys.length) args.keys = keys;
    return AV._request(AV._operations.dataFetch, args, options).then(function (json) {
      self._finishFetch(json, true, keys.length > 0);
      return self;
    });
  };

  function sequentially(list, work) {
    return list.reduce(function (done, item) {
      return done.then(function () { return work(item); });
    }, Promise.resolve()).then(function () { return list; });
  }

  AVObject.saveAll = function (list, options) {
    return sequentially(AV._ensureArray(list), function (object) { return object.save(null, options); });
  };
  AVObject.destroyAll = function (list, options) {
    return sequentially(AV._ensureArray(list), function (object) { return object.destroy(options); });
  };
  AVObject.fetchAll = function (list, options) {
    return sequentially(AV._ensureArray(list), function (object) { return object.fetch({}, options); });
  };
})(this);
