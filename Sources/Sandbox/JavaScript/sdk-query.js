// AV.Query: the constraint builders and the REST parameters they make.
(function (global) {
  'use strict';
  var AV = global.AV;

  // new AV.Query('Todo') or new AV.Query(Todo). Constraints are kept as JS values and encoded
  // when the query runs, so an object saved meanwhile is sent with its id.
  function Query(objectClass) {
    if (!(this instanceof Query)) return new Query(objectClass);
    if (typeof objectClass === 'function' && objectClass.prototype instanceof AV.Object) {
      this.objectClass = objectClass;
      this.className = objectClass.prototype.className;
    } else if (typeof objectClass === 'string' || objectClass === null) {
      this.objectClass = null;
      this.className = objectClass;
    } else {
      throw new TypeError('new AV.Query() takes a class name or an AV.Object subclass.');
    }
    this._where = {};
    this._include = [];
    this._select = [];
    this._limit = -1;
    this._skip = 0;
    this._order = undefined;
    this._returnACL = false;
  }
  var proto = Query.prototype;
  AV.Query = Query;

  function isConditionObject(value) {
    return AV._isPlainObject(value) && Object.keys(value).length > 0 &&
      Object.keys(value).every(function (key) { return key.charAt(0) === '$'; });
  }

  proto._addCondition = function (key, condition, value) {
    if (!isConditionObject(this._where[key])) this._where[key] = {};
    this._where[key][condition] = value;
    return this;
  };

  proto.equalTo = function (key, value) {
    if (value === undefined) return this.doesNotExist(key);
    this._where[key] = value;
    return this;
  };
  var operators = {
    notEqualTo: '$ne', lessThan: '$lt', lessThanOrEqualTo: '$lte', greaterThan: '$gt',
    greaterThanOrEqualTo: '$gte', sizeEqualTo: '$size'
  };
  Object.keys(operators).forEach(function (name) {
    proto[name] = function (key, value) { return this._addCondition(key, operators[name], value); };
  });
  proto.containedIn = function (key, values) { return this._addCondition(key, '$in', AV._ensureArray(values)); };
  proto.notContainedIn = function (key, values) { return this._addCondition(key, '$nin', AV._ensureArray(values)); };
  proto.containsAll = function (key, values) { return this._addCondition(key, '$all', AV._ensureArray(values)); };
  proto.exists = function (key) { return this._addCondition(key, '$exists', true); };
  proto.doesNotExist = function (key) { return this._addCondition(key, '$exists', false); };

  proto.matches = function (key, regex, modifiers) {
    var isRegExp = regex instanceof RegExp;
    this._addCondition(key, '$regex', isRegExp ? regex.source : String(regex));
    var options = modifiers || '';
    if (isRegExp && regex.ignoreCase && options.indexOf('i') < 0) options += 'i';
    if (isRegExp && regex.multiline && options.indexOf('m') < 0) options += 'm';
    if (options) this._addCondition(key, '$options', options);
    return this;
  };
  // Literal text inside a pattern, \Q...\E-quoted as LeanCloud's SDK sends it.
  Query._quote = function (text) {
    return '\\Q' + String(text).split('\\E').join('\\E\\\\E\\Q') + '\\E';
  };
  proto.contains = function (key, text) { return this._addCondition(key, '$regex', Query._quote(text)); };
  proto.startsWith = function (key, text) { return this._addCondition(key, '$regex', '^' + Query._quote(text)); };
  proto.endsWith = function (key, text) { return this._addCondition(key, '$regex', Query._quote(text) + '$'); };

  function subquery(query) {
    if (!(query instanceof Query) || !query.className) throw new TypeError('Expected an AV.Query of a known class.');
    return { where: query._where, className: query.className };
  }
  proto.matchesQuery = function (key, query) { return this._addCondition(key, '$inQuery', subquery(query)); };
  proto.doesNotMatchQuery = function (key, query) { return this._addCondition(key, '$notInQuery', subquery(query)); };
  proto.matchesKeyInQuery = function (key, queryKey, query) {
    return this._addCondition(key, '$select', { key: queryKey, query: subquery(query) });
  };
  proto.doesNotMatchKeyInQuery = function (key, queryKey, query) {
    return this._addCondition(key, '$dontSelect', { key: queryKey, query: subquery(query) });
  };

  function geoPoint(point) { return point instanceof AV.GeoPoint ? point : new AV.GeoPoint(point); }
  proto.near = function (key, point) { return this._addCondition(key, '$nearSphere', geoPoint(point)); };
  // Distances in the unit asked for; the host converts, as LeanCloud's REST API does.
  function within(unit, toRadians) {
    return function (key, point, maxDistance, minDistance) {
      this.near(key, point);
      if (maxDistance !== undefined && maxDistance !== null) this._addCondition(key, '$maxDistanceIn' + unit, maxDistance);
      if (minDistance !== undefined && minDistance !== null) this._addCondition(key, '$minDistance', minDistance * toRadians);
      return this;
    };
  }
  proto.withinRadians = within('Radians', 1);
  proto.withinKilometers = within('Kilometers', 1 / 6371.0);
  proto.withinMiles = within('Miles', 1 / 3958.8);
  proto.withinGeoBox = function (key, southwest, northeast) {
    return this._addCondition(key, '$within', { $box: [geoPoint(southwest), geoPoint(northeast)] });
  };

  proto.include = function () { this._include = this._include.concat(AV._keyList(arguments)); return this; };
  proto.select = function () { this._select = this._select.concat(AV._keyList(arguments)); return this; };
  proto.includeACL = function (value) { this._returnACL = value !== false; return this; };
  proto.limit = function (n) { this._limit = n; return this; };
  proto.skip = function (n) { this._skip = n; return this; };
  proto.ascending = function () { this._order = AV._keyList(arguments).join(','); return this; };
  proto.descending = function () {
    this._order = AV._keyList(arguments).map(function (key) { return '-' + key; }).join(',');
    return this;
  };
  proto.addAscending = function () {
    var keys = AV._keyList(arguments);
    this._order = (this._order ? [this._order] : []).concat(keys).join(',');
    return this;
  };
  proto.addDescending = function () {
    var keys = AV._keyList(arguments).map(function (key) { return '-' + key; });
    this._order = (this._order ? [this._order] : []).concat(keys).join(',');
    return this;
  };

  proto._whereJSON = function () { return AV._encode(this._where); };
  // The REST parameters of the query, as GET /classes/{className} takes them.
  proto._getParams = function () {
    var params = { where: this._whereJSON() };
    if (this._include.length) params.include = this._include.join(',');
    if (this._select.length) params.keys = this._select.join(',');
    if (this._returnACL) params.returnACL = true;
    if (this._limit >= 0) params.limit = this._limit;
    if (this._skip > 0) params.skip = this._skip;
    if (this._order) params.order = this._order;
    return params;
  };
  proto.toJSON = function () { return Object.assign({ className: this.className }, this._getParams()); };

  Query.fromJSON = function (json) {
    var query = new Query(json.className);
    query._where = json.where || {};
    query._include = AV._keyList([json.include]);
    query._select = AV._keyList([json.keys]);
    query._returnACL = json.returnACL === true;
    if (typeof json.limit === 'number') query._limit = json.limit;
    if (typeof json.skip === 'number') query._skip = json.skip;
    if (json.order) query._order = json.order;
    return query;
  };

  proto._clone = function () {
    var copy = new Query(this.objectClass || this.className);
    copy._where = Object.assign({}, this._where);
    copy._include = this._include.slice();
    copy._select = this._select.slice();
    copy._limit = this._limit;
    copy._skip = this._skip;
    copy._order = this._order;
    copy._returnACL = this._returnACL;
    copy._relationSource = this._relationSource;
    return copy;
  };

  function combine(operator, queries) {
    queries = Array.prototype.concat.apply([], queries);
    if (!queries.length) throw new TypeError('AV.Query.' + operator.slice(1) + ' needs at least one query.');
    var className = queries[0].className;
    queries.forEach(function (query) {
      if (!(query instanceof Query)) throw new TypeError('AV.Query.' + operator.slice(1) + ' takes AV.Query objects.');
      if (query.className !== className) throw new TypeError('All queries must be for the same class.');
    });
    var combined = new Query(queries[0].objectClass || className);
    combined._where[operator] = queries.map(function (query) { return query._where; });
    return combined;
  }
  Query.or = function () { return combine('$or', arguments); };
  Query.and = function () { return combine('$and', arguments); };
})(this);
