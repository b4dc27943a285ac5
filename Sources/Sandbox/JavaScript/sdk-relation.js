// AV.Relation: a many-to-many field, changed through its parent's save.
(function (global) {
  'use strict';
  var AV = global.AV;

  // AV.Relation: the many-to-many field `key` of `parent`. Changes become the parent's
  // AddRelation / RemoveRelation operations, sent with its next save.
  function Relation(parent, key) {
    this.parent = parent || null;
    this.key = key || null;
    this.targetClassName = null;
  }
  Relation.prototype._ensureParent = function (parent, key) {
    if (!this.parent) this.parent = parent;
    if (!this.key) this.key = key;
  };
  Relation.prototype._change = function (adding, objects) {
    if (!this.parent || !this.key) throw new TypeError('This AV.Relation belongs to no object: get it with object.relation(key).');
    objects = AV._ensureArray(objects);
    if (objects.length) this.parent._relationChange(this.key, this, adding, objects);
  };
  Relation.prototype.add = function (objects) { this._change(true, objects); };
  Relation.prototype.remove = function (objects) { this._change(false, objects); };
  Relation.prototype.toJSON = function () { return { __type: 'Relation', className: this.targetClassName }; };

  // A query for the members. When the target class isn't known yet (a relation of an object
  // made with createWithoutData), the query looks it up from the parent when it runs.
  Relation.prototype.query = function () {
    if (!this.parent || !this.parent.id) throw new TypeError("Can't query the relation of an unsaved object.");
    var query = new AV.Query(this.targetClassName || null);
    query._where.$relatedTo = { object: this.parent._toPointer(), key: this.key };
    if (!this.targetClassName) query._relationSource = { parent: this.parent, key: this.key, relation: this };
    return query;
  };
  AV.Relation = Relation;
})(this);
