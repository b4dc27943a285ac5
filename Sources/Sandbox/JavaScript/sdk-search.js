// AV.SearchQuery and AV.SearchSortBuilder: full-text search (GET /1.1/search/select) over
// data.search, with the caller rules of every other data call.
(function (global) {
  'use strict';
  var AV = global.AV;

  // The `sort` of a search: a list of one-key entries, built in the order the calls come, as
  // LeanCloud's SDKs send it. The host refuses the entries it can't honour (a geo distance).
  function SearchSortBuilder() {
    if (!(this instanceof SearchSortBuilder)) return new SearchSortBuilder();
    this._sortFields = [];
  }
  AV.SearchSortBuilder = SearchSortBuilder;

  SearchSortBuilder.prototype._field = function (key, order, mode, missing) {
    var missingText = String(missing || 'last');
    var entry = {};
    entry[key] = {
      order: order,
      mode: mode || 'avg',
      missing: missingText.charAt(0) === '_' ? missingText : '_' + missingText
    };
    this._sortFields.push(entry);
    return this;
  };
  // mode: 'avg' (default), 'min', 'max' or 'sum' for array fields; missing: 'last' (default) or 'first'.
  SearchSortBuilder.prototype.ascending = function (key, mode, missing) { return this._field(key, 'asc', mode, missing); };
  SearchSortBuilder.prototype.descending = function (key, mode, missing) { return this._field(key, 'desc', mode, missing); };
  // Nearest first (or last, with options.order 'desc') to a point: options.order, mode, unit.
  SearchSortBuilder.prototype.whereNear = function (key, point, options) {
    options = options || {};
    var distance = { order: options.order || 'asc', mode: options.mode || 'avg', unit: options.unit || 'km' };
    distance[key] = { lat: point.latitude, lon: point.longitude };
    this._sortFields.push({ _geo_distance: distance });
    return this;
  };
  SearchSortBuilder.prototype.build = function () { return JSON.stringify(AV._encode(this._sortFields)); };

  // new AV.SearchQuery('GameScore'), or new AV.SearchQuery() for every class search is on for.
  // Conditions of AV.Query (equalTo, ...) are not sent: a search's conditions are in its `q`.
  function SearchQuery(objectClass) {
    if (!(this instanceof SearchQuery)) return new SearchQuery(objectClass);
    AV.Query.call(this, objectClass || null);
    this._sid = null;
    this._hits = 0;
    this._hitEnd = false;
    this._queryString = null;
    this._highlights = null;
    this._sortBuilder = null;
  }
  SearchQuery.prototype = Object.create(AV.Query.prototype, {
    constructor: { value: SearchQuery, writable: true, configurable: true }
  });
  var proto = SearchQuery.prototype;
  AV.SearchQuery = SearchQuery;

  proto.sid = function (sid) { this._sid = sid || null; return this; };
  proto.queryString = function (q) { this._queryString = q; return this; };
  // highlights('title', 'content'), highlights(['title']), or highlights('*') for every indexed field.
  proto.highlights = function () { this._highlights = AV._keyList(arguments); return this; };
  proto.sortBy = function (builder) { this._sortBuilder = builder || null; return this; };
  // How many objects match in all (the caller's view), as of the last find.
  proto.hits = function () { return this._hits || 0; };
  // Whether another find() may return more: false once an answer came without a scroll id.
  proto.hasMore = function () { return !this._hitEnd; };
  // Back to the first page (the parameters stay).
  proto.reset = function () {
    this._hitEnd = false;
    this._sid = null;
    this._hits = 0;
    return this;
  };

  // The arguments of data.search; throws as LeanCloud's SDK does for a query it can't send.
  proto._searchArgs = function (limit, sid) {
    if (typeof this._queryString !== 'string' || !this._queryString) {
      throw new AV.Error(AV.Error.INVALID_QUERY, 'Please set query string.');
    }
    if (this._sortBuilder && this._order) {
      throw new AV.Error(AV.Error.INVALID_QUERY, 'sort and order can not be set at same time.');
    }
    var args = { q: this._queryString };
    if (this.className) args.clazz = this.className;
    if (limit !== undefined) args.limit = limit;
    else if (this._limit >= 0) args.limit = this._limit;
    if (this._skip > 0) args.skip = this._skip;
    if (sid) args.sid = sid;
    if (this._order) args.order = this._order;
    if (this._sortBuilder) args.sort = this._sortBuilder.build();
    if (this._highlights && this._highlights.length) args.highlights = this._highlights.slice();
    if (this._include.length) args.include = this._include.slice();
    if (this._select.length) args.keys = this._select.slice();
    if (this._returnACL) args.returnACL = true;
    return args;
  };

  // One result: an object of its own class (a search of every class answers several), its
  // `_app_url` as `appURL`, `_highlight` kept as an attribute, as LeanCloud's SDK shows them.
  proto._searchResult = function (json) {
    var className = json.className || this.className;
    var fields = Object.assign({}, json);
    delete fields.className;
    delete fields._app_url;
    delete fields._deeplink;
    var object = this.objectClass && className === this.className
      ? this._newObject(fields)
      : AV.Object._fromJSON(className, fields, true);
    object.appURL = json._app_url;
    return object;
  };

  proto._search = function (options, limit, sid) {
    var self = this;
    return new Promise(function (resolve) {
      resolve(AV._request(AV._operations.dataSearch, self._searchArgs(limit, sid), options));
    }).then(function (answer) {
      answer = answer || {};
      return {
        hits: typeof answer.hits === 'number' ? answer.hits : 0,
        sid: answer.sid || null,
        objects: (answer.results || []).map(function (json) { return self._searchResult(json); })
      };
    });
  };

  // The next page: the first, then each one after it through the answer's scroll id.
  proto.find = function (options) {
    var self = this;
    return this._search(options, undefined, this._sid).then(function (page) {
      self._sid = page.sid;
      if (!page.sid) self._hitEnd = true;
      self._hits = page.hits;
      return page.objects;
    });
  };

  // The best match, leaving the paging of find() as it is.
  proto.first = function (options) {
    return this._search(options, 1, null).then(function (page) { return page.objects[0]; });
  };

  // How many objects match (the caller's view), leaving the paging of find() as it is.
  proto.count = function (options) {
    return this._search(options, 1, null).then(function (page) { return page.hits; });
  };

  // A search pages with find() and hasMore(); these would ignore its query string.
  proto.each = function () {
    return Promise.reject(new AV.Error(AV.Error.INVALID_QUERY, 'AV.SearchQuery#each is not available: page with find() while hasMore().'));
  };
  proto.destroyAll = function () {
    return Promise.reject(new AV.Error(AV.Error.INVALID_QUERY, 'AV.SearchQuery#destroyAll is not available: destroy the objects find() answers.'));
  };
})(this);
