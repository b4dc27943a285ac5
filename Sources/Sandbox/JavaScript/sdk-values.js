// AV.GeoPoint, AV.ACL and AV.File (references to stored files; no uploads yet).
(function (global) {
  'use strict';
  var AV = global.AV;

  // AV.GeoPoint(lat, lng), ([lat, lng]) or ({latitude, longitude}).
  function GeoPoint(a, b) {
    if (!(this instanceof GeoPoint)) return new GeoPoint(a, b);
    var latitude = 0;
    var longitude = 0;
    if (Array.isArray(a)) {
      latitude = a[0];
      longitude = a[1];
    } else if (a && typeof a === 'object') {
      latitude = a.latitude;
      longitude = a.longitude;
    } else if (a !== undefined || b !== undefined) {
      latitude = a;
      longitude = b;
    }
    GeoPoint._validate(latitude, longitude);
    this.latitude = latitude;
    this.longitude = longitude;
  }
  GeoPoint._validate = function (latitude, longitude) {
    if (typeof latitude !== 'number' || !isFinite(latitude) || latitude < -90 || latitude > 90) {
      throw new TypeError('AV.GeoPoint latitude must be a number within [-90, 90], got ' + latitude + '.');
    }
    if (typeof longitude !== 'number' || !isFinite(longitude) || longitude < -180 || longitude > 180) {
      throw new TypeError('AV.GeoPoint longitude must be a number within [-180, 180], got ' + longitude + '.');
    }
  };
  GeoPoint.prototype.toJSON = function () {
    return { __type: 'GeoPoint', latitude: this.latitude, longitude: this.longitude };
  };
  // Great-circle distance (haversine), in radians of the Earth's surface.
  GeoPoint.prototype.radiansTo = function (point) {
    var toRadians = Math.PI / 180;
    var lat1 = this.latitude * toRadians;
    var lat2 = point.latitude * toRadians;
    var sinLat = Math.sin((lat2 - lat1) / 2);
    var sinLng = Math.sin((point.longitude - this.longitude) * toRadians / 2);
    var h = sinLat * sinLat + Math.cos(lat1) * Math.cos(lat2) * sinLng * sinLng;
    return 2 * Math.asin(Math.sqrt(Math.min(1, h)));
  };
  GeoPoint.prototype.kilometersTo = function (point) { return this.radiansTo(point) * 6371.0; };
  GeoPoint.prototype.milesTo = function (point) { return this.radiansTo(point) * 3958.8; };
  AV.GeoPoint = GeoPoint;

  // AV.ACL: permissions by user id, `*` (public) and `role:<name>`, as LeanCloud stores them.
  function ACL(source) {
    if (!(this instanceof ACL)) return new ACL(source);
    this.permissionsById = {};
    if (source instanceof AV.Object) {
      this.setReadAccess(source, true);
      this.setWriteAccess(source, true);
    } else if (source && typeof source === 'object') {
      var self = this;
      Object.keys(source).forEach(function (id) {
        var access = source[id];
        if (!access || typeof access !== 'object') throw new TypeError('Invalid ACL entry for ' + id + '.');
        ['read', 'write'].forEach(function (kind) {
          if (access[kind] === undefined) return;
          if (typeof access[kind] !== 'boolean') throw new TypeError('Invalid ACL ' + kind + ' permission for ' + id + '.');
          self._setAccess(kind, id, access[kind]);
        });
      });
    } else if (source !== undefined && source !== null) {
      throw new TypeError('new AV.ACL() takes a user or ACL JSON.');
    }
  }
  ACL._id = function (who) {
    if (AV.Role && who instanceof AV.Role) return ACL._roleId(who);
    if (who instanceof AV.Object) {
      if (!who.id) throw new Error('An ACL entry needs a saved user: this one has no objectId.');
      return who.id;
    }
    if (typeof who !== 'string' || !who) throw new TypeError('An ACL entry needs a user, a role or an id string.');
    return who;
  };
  ACL._roleId = function (role) {
    var name = AV.Role && role instanceof AV.Role ? role.getName() : role;
    if (typeof name !== 'string' || !name) throw new TypeError('A role ACL entry needs a role name or a named AV.Role.');
    return 'role:' + name;
  };
  ACL.prototype._setAccess = function (kind, id, allowed) {
    if (typeof allowed !== 'boolean') throw new TypeError('ACL access must be true or false.');
    var entry = this.permissionsById[id];
    if (allowed) {
      if (!entry) entry = this.permissionsById[id] = {};
      entry[kind] = true;
    } else if (entry) {
      delete entry[kind];
      if (Object.keys(entry).length === 0) delete this.permissionsById[id];
    }
  };
  ACL.prototype._getAccess = function (kind, id) {
    var entry = this.permissionsById[id];
    return !!(entry && entry[kind]);
  };
  ACL.prototype.setReadAccess = function (who, allowed) { this._setAccess('read', ACL._id(who), allowed); };
  ACL.prototype.getReadAccess = function (who) { return this._getAccess('read', ACL._id(who)); };
  ACL.prototype.setWriteAccess = function (who, allowed) { this._setAccess('write', ACL._id(who), allowed); };
  ACL.prototype.getWriteAccess = function (who) { return this._getAccess('write', ACL._id(who)); };
  ACL.prototype.setPublicReadAccess = function (allowed) { this._setAccess('read', '*', allowed); };
  ACL.prototype.getPublicReadAccess = function () { return this._getAccess('read', '*'); };
  ACL.prototype.setPublicWriteAccess = function (allowed) { this._setAccess('write', '*', allowed); };
  ACL.prototype.getPublicWriteAccess = function () { return this._getAccess('write', '*'); };
  ACL.prototype.setRoleReadAccess = function (role, allowed) { this._setAccess('read', ACL._roleId(role), allowed); };
  ACL.prototype.getRoleReadAccess = function (role) { return this._getAccess('read', ACL._roleId(role)); };
  ACL.prototype.setRoleWriteAccess = function (role, allowed) { this._setAccess('write', ACL._roleId(role), allowed); };
  ACL.prototype.getRoleWriteAccess = function (role) { return this._getAccess('write', ACL._roleId(role)); };
  ACL.prototype.toJSON = function () {
    var json = {};
    var permissions = this.permissionsById;
    Object.keys(permissions).forEach(function (id) { json[id] = Object.assign({}, permissions[id]); });
    return json;
  };
  AV.ACL = ACL;

  // AV.File: a reference to a stored file (id, name, url). Uploading comes with the files API;
  // until then save() refuses clearly rather than storing a file that doesn't exist.
  function File(name, data, mimeType) {
    if (!(this instanceof File)) return new File(name, data, mimeType);
    this.id = undefined;
    this.attributes = { name: name === undefined || name === null ? '' : String(name), url: '', metaData: {} };
    if (mimeType) this.attributes.mime_type = mimeType;
    this._hasPendingData = data !== undefined;
  }
  File.withURL = function (name, url, metaData, mimeType) {
    var file = new File(name, undefined, mimeType);
    file.attributes.url = url;
    file.attributes.metaData = Object.assign({}, metaData || {}, { __source: 'external' });
    return file;
  };
  File.createWithoutData = function (objectId) {
    var file = new File();
    file.id = objectId;
    return file;
  };
  File._fromJSON = function (json) {
    var file = new File(json.name);
    file.id = json.objectId || json.id;
    if (json.url) file.attributes.url = json.url;
    if (json.metaData) file.attributes.metaData = json.metaData;
    if (json.mime_type) file.attributes.mime_type = json.mime_type;
    return file;
  };
  File.prototype.name = function () { return this.attributes.name; };
  File.prototype.url = function () { return this.attributes.url; };
  File.prototype.get = function (key) { return key === 'objectId' ? this.id : this.attributes[key]; };
  File.prototype.size = function () { return this.attributes.metaData.size; };
  File.prototype.ownerId = function () { return this.attributes.metaData.owner; };
  File.prototype.metaData = function (key, value) {
    if (key === undefined) return this.attributes.metaData;
    if (value === undefined) return this.attributes.metaData[key];
    this.attributes.metaData[key] = value;
    return this;
  };
  File.prototype.toJSON = function () {
    var json = { __type: 'File', objectId: this.id, name: this.attributes.name, url: this.attributes.url };
    if (!this.id) delete json.objectId;
    return json;
  };
  File.prototype.toFullJSON = File.prototype.toJSON;
  File.prototype.save = AV._unavailable('Uploading files (AV.File#save)');
  File.prototype.destroy = AV._unavailable('Deleting files (AV.File#destroy)');
  File.prototype.fetch = AV._unavailable('Fetching files (AV.File#fetch)');
  AV.File = File;
})(this);
