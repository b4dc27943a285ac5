// The pending-change algebra of AV.Object: how set, increment, add, ... apply locally and combine.
(function (global) {
  'use strict';
  var AV = global.AV;

  // Pending field changes of an AV.Object: {kind: 'set'|'unset'|'increment'|'add'|'addUnique'|
  // 'remove'|'bitAnd'|'bitOr'|'bitXor'|'relation', ...}. One per key until the next save.
  function sameValue(a, b) {
    if (a === b) return true;
    if (a instanceof AV.Object && b instanceof AV.Object) return !!a.id && a.id === b.id && a.className === b.className;
    if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
    return JSON.stringify(AV._encode(a)) === JSON.stringify(AV._encode(b));
  }

  function union(list, items) {
    var result = list.slice();
    items.forEach(function (item) {
      if (!result.some(function (existing) { return sameValue(existing, item); })) result.push(item);
    });
    return result;
  }

  function bits(kind, a, b) {
    try {
      var x = BigInt(a);
      var y = BigInt(b);
      return Number(BigInt.asIntN(64, kind === 'bitAnd' ? x & y : kind === 'bitOr' ? x | y : x ^ y));
    } catch (e) {
      return a;
    }
  }

  // The local estimate of a field after a change, so get() reflects it before the save.
  function applyOp(op, old) {
    var list = Array.isArray(old) ? old : [];
    switch (op.kind) {
      case 'set': return op.value;
      case 'unset': return undefined;
      case 'increment': return (typeof old === 'number' ? old : 0) + op.amount;
      case 'add': return list.concat(op.objects);
      case 'addUnique': return union(list, op.objects);
      case 'remove': return list.filter(function (item) { return !op.objects.some(function (o) { return sameValue(item, o); }); });
      case 'bitAnd': case 'bitOr': case 'bitXor': return bits(op.kind, typeof old === 'number' ? old : 0, op.value);
      default: return old;
    }
  }

  // One pending change per key: like changes combine (two increments add up); unlike ones
  // become a plain set of the value they lead to, which the server stores as is.
  function mergeOps(previous, next, after) {
    if (!previous || next.kind === 'set' || next.kind === 'unset') return next;
    if (previous.kind === next.kind) {
      switch (next.kind) {
        case 'increment': return { kind: 'increment', amount: previous.amount + next.amount };
        case 'add': return { kind: 'add', objects: previous.objects.concat(next.objects) };
        case 'addUnique': case 'remove': return { kind: next.kind, objects: union(previous.objects, next.objects) };
        case 'bitAnd': case 'bitOr': case 'bitXor': return { kind: next.kind, value: bits(next.kind, previous.value, next.value) };
      }
    }
    return { kind: 'set', value: after };
  }

  AV._changes = { apply: applyOp, merge: mergeOps, sameValue: sameValue };
})(this);
