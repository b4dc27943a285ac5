// AV.Object: classes (extend, register), fields, pending changes, JSON forms.
(function (global) {
  'use strict';
  var AV = global.AV;
  // Classes the code made itself (extend, register) stay for the worker's life. Classes
  // made on the fly for a name met in data (a decoded Pointer, `new AV.Object(name)`)
  // are kept in a bounded cache, oldest use out first: a request naming 100 000 classes
  // must not grow the worker's heap for ever.
  var classes = Object.create(null);
  var madeOnTheFly = new Map();
  var maxMadeOnTheFly = 1000;
  var hasOwn = Object.prototype.hasOwnProperty;

  // new AV.Object('Todo', attrs) builds an instance of Todo's registered subclass, so
  // `instanceof Todo` holds whichever way the object was made.
  function AVObject(attributes, options) {
    if (typeof attributes === 'string') {
      var Klass = AVObject._getSubclass(attributes);
      return new Klass(options, arguments[2]);
    }
    if (typeof this.className !== 'string' && this.constructor !== AVObject && this.constructor.name) {
      this.className = this.constructor.name;
    }
    this._reset();
    var defaults = typeof this.defaults === 'function' ? this.defaults() : this.defaults;
    if (defaults) this.set(defaults);
    if (attributes) this.set(attributes, options);
    this.initialize.apply(this, arguments);
  }
  var proto = AVObject.prototype;
  AV.Object = AVObject;

  // Subclassing: a new class is registered under its name; extending a known name without
  // properties returns the registered class, with properties it extends that class.
  AVObject.extend = function (className, protoProps, classProps) {
    if (typeof className !== 'string') {
      if (className && typeof className.className === 'string') {
        classProps = protoProps;
        protoProps = className;
        className = protoProps.className;
      } else if (this !== AVObject && this.prototype && typeof this.prototype.className === 'string') {
        classProps = protoProps;
        protoProps = className;
        className = this.prototype.className;
      }
    }
    if (typeof className !== 'string' || !className) {
      throw new TypeError("AV.Object.extend's first argument should be the className.");
    }
    if (!classes[className] && madeOnTheFly.has(className)) {
      // The code names a class met in data before: from now on it is the code's own.
      classes[className] = madeOnTheFly.get(className);
      madeOnTheFly.delete(className);
    }
    var existing = classes[className];
    if (existing && !protoProps && !classProps) return existing;
    var parent = existing || (this === AVObject || (this && this.prototype instanceof AVObject) ? this : AVObject);
    var Sub = inherit(parent, protoProps, classProps, className);
    classes[className] = Sub;
    return Sub;
  };

  function inherit(parent, protoProps, classProps, className) {
    var Sub = protoProps && hasOwn.call(protoProps, 'constructor')
      ? protoProps.constructor
      : function AVObjectSubclass() {
          // Reflect.construct keeps an ES class parent (AV.Object.register) constructible.
          return Reflect.construct(parent, arguments, new.target || Sub);
        };
    Object.setPrototypeOf(Sub, parent);
    Sub.prototype = Object.create(parent.prototype, {
      constructor: { value: Sub, writable: true, configurable: true }
    });
    if (protoProps) {
      Object.keys(protoProps).forEach(function (name) {
        if (name !== 'constructor' && name !== 'className') {
          Object.defineProperty(Sub.prototype, name, Object.getOwnPropertyDescriptor(protoProps, name));
        }
      });
    }
    Sub.prototype.className = className;
    if (classProps) Object.assign(Sub, classProps);
    Sub.className = className;
    Sub.__super__ = parent.prototype;
    addClassHelpers(Sub);
    return Sub;
  }

  function addClassHelpers(Klass) {
    // Todo.createWithoutData(id), still accepting the base form (className, id).
    Klass.createWithoutData = function (id, hasData) {
      if (typeof hasData === 'string' || typeof id === 'function') return AVObject.createWithoutData.apply(AVObject, arguments);
      return AVObject.createWithoutData(Klass, id, hasData);
    };
    Klass['new'] = function (attributes, options) { return new Klass(attributes, options); };
  }

  // ES class support: class Todo extends AV.Object {}; AV.Object.register(Todo).
  AVObject.register = function (klass, name) {
    if (typeof klass !== 'function' || !(klass.prototype instanceof AVObject)) {
      throw new TypeError('AV.Object.register needs a subclass of AV.Object.');
    }
    var className = typeof name === 'string' && name ? name : klass.name;
    if (!className) throw new TypeError('AV.Object.register needs a class name.');
    klass.prototype.className = className;
    if (!hasOwn.call(klass, 'createWithoutData')) addClassHelpers(klass);
    classes[className] = klass;
    return klass;
  };

  AVObject._getSubclass = function (className) {
    if (typeof className !== 'string' || !className) throw new TypeError('An AV.Object class name must be a non-empty string.');
    if (classes[className]) return classes[className];
    var Klass = madeOnTheFly.get(className);
    if (Klass) {
      madeOnTheFly.delete(className);
    } else {
      Klass = inherit(AVObject, undefined, undefined, className);
      if (madeOnTheFly.size >= maxMadeOnTheFly) madeOnTheFly.delete(madeOnTheFly.keys().next().value);
    }
    madeOnTheFly.set(className, Klass);
    return Klass;
  };
  AVObject._classCacheSize = function () { return madeOnTheFly.size; };

  // A bare instance of a class, without the defaults a user's constructor would mark dirty.
  AVObject._create = function (className) {
    var object = new (AVObject._getSubclass(className))();
    object._reset();
    return object;
  };

  AVObject._fromJSON = function (className, json, hasData) {
    var object = AVObject._create(className);
    object._finishFetch(json, hasData !== false);
    return object;
  };

  AVObject.createWithoutData = function (klass, id, hasData) {
    var Klass = typeof klass === 'string' ? AVObject._getSubclass(klass) : klass;
    if (typeof Klass !== 'function' || !(Klass === AVObject || Klass.prototype instanceof AVObject)) {
      throw new TypeError('AV.Object.createWithoutData(className, objectId) needs a class name or an AV.Object subclass.');
    }
    var object = new Klass();
    object._reset();
    object.id = id;
    object._hasData = hasData === true;
    return object;
  };

  proto.initialize = function () {};

  proto._reset = function () {
    this.attributes = this.attributes || {};
    Object.keys(this.attributes).forEach(function (key) { delete this.attributes[key]; }, this);
    this._serverData = {};
    this._ops = {};
    this._relations = {};
    this._flags = this._flags || { fetchWhenSave: false, ignoreHooks: [] };
    this._hasData = true;
  };

  proto.get = function (key) {
    if (key === 'objectId') return this.id;
    if (key === 'createdAt' || key === 'updatedAt') return this[key];
    return this.attributes[key];
  };
  proto.has = function (key) {
    var value = this.get(key);
    return value !== undefined && value !== null;
  };
  proto.getObjectId = function () { return this.id; };
  proto.getCreatedAt = function () { return this.createdAt; };
  proto.getUpdatedAt = function () { return this.updatedAt; };
  proto.isDataAvailable = function () { return !!this._hasData; };
  proto.getACL = function () { return this.get('ACL'); };
  proto.setACL = function (acl, options) { return this.set('ACL', acl, options); };

  // set(key, value) or set({key: value}); `objectId`, `createdAt`, `updatedAt` are not fields.
  proto.set = function (key, value, options) {
    var attributes;
    if (key && typeof key === 'object') {
      attributes = key;
      options = value;
    } else if (typeof key === 'string' && key) {
      attributes = {};
      attributes[key] = value;
    } else {
      throw new TypeError('AV.Object#set needs a key string or an object of keys and values.');
    }
    var unset = !!(options && options.unset);
    Object.keys(attributes).forEach(function (name) {
      var newValue = attributes[name];
      if (name === 'objectId') { this.id = newValue; return; }
      if (name === 'createdAt' || name === 'updatedAt') { this[name] = AV._parseDate(newValue) || undefined; return; }
      this._addOp(name, unset || newValue === undefined ? { kind: 'unset' } : { kind: 'set', value: newValue });
    }, this);
    return this;
  };
  proto.unset = function (key) { this._addOp(key, { kind: 'unset' }); return this; };
  proto.increment = function (key, amount) {
    if (amount === undefined || amount === null) amount = 1;
    if (typeof amount !== 'number' || !isFinite(amount)) throw new TypeError('AV.Object#increment needs a finite number.');
    this._addOp(key, { kind: 'increment', amount: amount });
    return this;
  };
  proto.add = function (key, items) { this._addOp(key, { kind: 'add', objects: AV._ensureArray(items) }); return this; };
  proto.addUnique = function (key, items) { this._addOp(key, { kind: 'addUnique', objects: AV._ensureArray(items) }); return this; };
  proto.remove = function (key, items) { this._addOp(key, { kind: 'remove', objects: AV._ensureArray(items) }); return this; };
  ['bitAnd', 'bitOr', 'bitXor'].forEach(function (kind) {
    proto[kind] = function (key, value) {
      if (!Number.isInteger(value)) throw new TypeError('AV.Object#' + kind + ' needs an integer.');
      this._addOp(key, { kind: kind, value: value });
      return this;
    };
  });

  proto.dirty = function (key) {
    if (key !== undefined) return hasOwn.call(this._ops, key);
    return !this.id || Object.keys(this._ops).length > 0;
  };
  proto.dirtyKeys = function () { return Object.keys(this._ops); };

  proto.relation = function (key) {
    var current = this.attributes[key];
    if (current instanceof AV.Relation) {
      current._ensureParent(this, key);
      return current;
    }
    if (!this._relations[key]) this._relations[key] = new AV.Relation(this, key);
    return this._relations[key];
  };

  proto.fetchWhenSave = function (enabled) { this._flags.fetchWhenSave = enabled !== false; return this; };
  // Hook names to skip on the next writes (sent as __ignore_hooks, as the SDK does).
  proto.ignoreHook = function (name) {
    if (this._flags.ignoreHooks.indexOf(name) < 0) this._flags.ignoreHooks.push(name);
    return this;
  };
  proto.disableBeforeHook = function () {
    return this.ignoreHook('beforeSave').ignoreHook('beforeUpdate').ignoreHook('beforeDelete');
  };
  proto.disableAfterHook = function () {
    return this.ignoreHook('afterSave').ignoreHook('afterUpdate').ignoreHook('afterDelete');
  };

  proto.clone = function () {
    var copy = new this.constructor();
    copy._reset();
    copy.set(Object.assign({}, this.attributes));
    return copy;
  };

  proto._toPointer = function () {
    return { __type: 'Pointer', className: this.className, objectId: this.id };
  };
  proto._toJSONWith = function (mode, seen) {
    var json = {};
    Object.keys(this.attributes).forEach(function (key) {
      var encoded = AV._encodeWith(this.attributes[key], mode, seen);
      if (encoded !== undefined) json[key] = encoded;
    }, this);
    if (this.id !== undefined) json.objectId = this.id;
    if (this.createdAt instanceof Date) json.createdAt = this.createdAt.toJSON();
    if (this.updatedAt instanceof Date) json.updatedAt = this.updatedAt.toJSON();
    if (mode === 'full') {
      json.__type = 'Object';
      json.className = this.className;
    }
    return json;
  };
  proto.toJSON = function () { return this._toJSONWith('plain', [this]); };
  proto.toFullJSON = function (seen) { return this._toJSONWith('full', (Array.isArray(seen) ? seen : []).concat(this)); };
  proto.toPointer = proto._toPointer;

  // Stores what the server holds; `merge` keeps fields the answer left out (a `keys` fetch).
  // Pending changes are dropped, as a fetch in the SDK does.
  proto._finishFetch = function (json, hasData, merge) {
    this._ops = {};
    this._applyServer(json, merge);
    this._hasData = hasData !== false;
  };

  proto._applyServer = function (json, merge) {
    var data = merge ? Object.assign({}, this._serverData) : {};
    Object.keys(json || {}).forEach(function (key) {
      var value = json[key];
      if (key === 'objectId') { this.id = value; return; }
      if (key === 'createdAt' || key === 'updatedAt') {
        var date = AV._parseDate(value);
        if (date) this[key] = date;
        return;
      }
      if (key === '__type' || key === 'className') return;
      data[key] = this._decodeField(key, value);
    }, this);
    this._serverData = data;
    this._rebuild();
  };

  proto._decodeField = function (key, value) {
    if (key === 'ACL' && AV._isPlainObject(value) && value.__type === undefined) {
      try { return new AV.ACL(value); } catch (e) { return value; }
    }
    var decoded = AV._decode(value, key);
    if (decoded instanceof AV.Relation) decoded._ensureParent(this, key);
    return decoded;
  };

  // attributes = server data with the pending changes applied on top.
  proto._rebuild = function () {
    var attributes = this.attributes;
    Object.keys(attributes).forEach(function (key) { delete attributes[key]; });
    Object.assign(attributes, this._serverData);
    Object.keys(this._ops).forEach(function (key) {
      setAttribute(attributes, key, AV._changes.apply(this._ops[key], attributes[key]));
    }, this);
  };

  proto._addOp = function (key, op) {
    if (typeof key !== 'string' || !key) throw new TypeError('An AV.Object key must be a non-empty string.');
    var after = AV._changes.apply(op, this.attributes[key]);
    this._ops[key] = AV._changes.merge(this._ops[key], op, after);
    setAttribute(this.attributes, key, after);
  };

  // Called by AV.Relation#add/remove: one relation change per key, adds and removes by id.
  proto._relationChange = function (key, relation, adding, objects) {
    var op = this._ops[key];
    if (!op || op.kind !== 'relation') op = { kind: 'relation', add: {}, remove: {} };
    objects.forEach(function (object) {
      if (!(object instanceof AVObject) || !object.id) {
        throw new TypeError("A relation's members must be saved AV.Objects (with an objectId).");
      }
      if (relation.targetClassName && relation.targetClassName !== object.className) {
        throw new TypeError('A relation holds objects of one class: ' + relation.targetClassName + ', not ' + object.className + '.');
      }
      relation.targetClassName = object.className;
      delete op[adding ? 'remove' : 'add'][object.id];
      op[adding ? 'add' : 'remove'][object.id] = object;
    });
    this._ops[key] = op;
    if (!(this.attributes[key] instanceof AV.Relation)) this.attributes[key] = relation;
  };

  function setAttribute(attributes, key, value) {
    if (value === undefined) delete attributes[key];
    else attributes[key] = value;
  }
})(this);
