// AV._encode and AV._decode: JS values to LeanCloud's __type JSON and back.
(function (global) {
  'use strict';
  var AV = global.AV;

  // Modes: 'pointer' is a REST body (objects as Pointers), 'full' embeds objects as
  // {__type:'Object', ...} recursively, 'plain' is toJSON() (ISO date strings, fetched objects
  // as their own toJSON). `seen` stops cycles: an object met again is written as a Pointer.
  function encode(value, mode, seen) {
    if (value === null || value === undefined) return value;
    if (typeof value === 'function' || typeof value === 'symbol') return undefined;
    if (typeof value === 'bigint') return Number(value);
    if (typeof value !== 'object') return value;
    if (value instanceof Date) return mode === 'plain' ? value.toJSON() : { __type: 'Date', iso: value.toJSON() };
    if (value instanceof AV.Object) {
      if (mode === 'pointer' || seen.indexOf(value) >= 0) return value._toPointer();
      if (!value._hasData) return value._toPointer();
      return value._toJSONWith(mode, seen.concat(value));
    }
    if (value instanceof AV.ACL || value instanceof AV.GeoPoint || value instanceof AV.File) return value.toJSON();
    if (AV.Relation && value instanceof AV.Relation) return value.toJSON();
    if (AV.Query && value instanceof AV.Query) return value.toJSON();
    if (value instanceof RegExp) return value.source;
    if (Array.isArray(value)) {
      return value.map(function (item) {
        var encoded = encode(item, mode, seen);
        return encoded === undefined ? null : encoded;
      });
    }
    var json = {};
    Object.keys(value).forEach(function (key) {
      var encoded = encode(value[key], mode, seen);
      if (encoded !== undefined) json[key] = encoded;
    });
    return json;
  }
  AV._encodeWith = encode;

  // AV._encode(value, full): JS values to LeanCloud JSON. Also accepts the SDK's own
  // (value, seenObjects, disallowObjects, full) form.
  AV._encode = function (value, full) {
    if (arguments.length >= 4) full = arguments[3];
    return encode(value, full === true ? 'full' : 'pointer', []);
  };

  function decodeObject(json, hasData) {
    var fields = {};
    Object.keys(json).forEach(function (key) {
      if (key !== '__type' && key !== 'className') fields[key] = json[key];
    });
    return AV.Object._fromJSON(json.className, fields, hasData);
  }

  // AV._decode(json, key): LeanCloud JSON to JS values (Date, AV.Object of the registered
  // subclass, AV.GeoPoint, AV.File, AV.Relation, AV.ACL under an `ACL` key).
  function decode(value, key) {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map(function (item) { return decode(item); });
    if (!AV._isPlainObject(value)) return value;
    switch (value.__type) {
      case 'Date': {
        var date = AV._parseDate(value.iso);
        if (date) return date;
        break;
      }
      case 'Pointer':
      case 'Object':
        // A Pointer with more than its three keys carries the object's data (an include).
        if (typeof value.className === 'string') {
          return decodeObject(value, value.__type === 'Object' || Object.keys(value).length > 3);
        }
        break;
      case 'GeoPoint':
        try { return new AV.GeoPoint(value.latitude, value.longitude); } catch (e) { break; }
      case 'File':
        return AV.File._fromJSON(value);
      case 'Relation': {
        var relation = new AV.Relation(null, key);
        relation.targetClassName = value.className || null;
        return relation;
      }
      case 'Bytes':
        return Object.assign({}, value);
      case undefined:
        // Included objects nested without a type tag still name their class and id.
        if (typeof value.className === 'string' && typeof value.objectId === 'string') return decodeObject(value, true);
        break;
    }
    var out = {};
    Object.keys(value).forEach(function (name) {
      var member = value[name];
      if (name === 'ACL' && AV._isPlainObject(member) && member.__type === undefined) {
        try { out[name] = new AV.ACL(member); return; } catch (e) { /* not an ACL after all: keep it as data */ }
      }
      out[name] = decode(member, name);
    });
    return out;
  }
  AV._decode = decode;
})(this);
