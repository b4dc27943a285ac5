// AV.User (_User, session token kept out of the fields) and AV.Role (_Role).
(function (global) {
  'use strict';
  var AV = global.AV;
  var objectProto = AV.Object.prototype;
  var unavailable = AV._unavailable;

  // AV.User: the `_User` class. The session token is kept apart from the fields, so it is
  // never written back or shown by toJSON().
  var User = AV.Object.extend('_User', {
    _applyServer: function (json, merge) {
      if (json && typeof json.sessionToken === 'string') {
        this._sessionToken = json.sessionToken;
        json = Object.assign({}, json);
        delete json.sessionToken;
      }
      return objectProto._applyServer.call(this, json, merge);
    },
    getSessionToken: function () { return this._sessionToken || null; },
    getUsername: function () { return this.get('username'); },
    setUsername: function (username) { return this.set('username', username); },
    setPassword: function (password) { return this.set('password', password); },
    getEmail: function () { return this.get('email'); },
    setEmail: function (email) { return this.set('email', email); },
    getMobilePhoneNumber: function () { return this.get('mobilePhoneNumber'); },
    setMobilePhoneNumber: function (phone) { return this.set('mobilePhoneNumber', phone); },
    isAnonymous: function () { return false; },
    signUp: unavailable('AV.User#signUp'),
    logIn: unavailable('AV.User#logIn'),
    updatePassword: unavailable('AV.User#updatePassword')
  }, {
    // The user of a request, from the host's `_User` JSON (sessionToken included).
    _fromServer: function (json) {
      if (!json) return null;
      return AV.Object._fromJSON('_User', json, true);
    },
    // There is no process-wide current user on a server: use request.currentUser.
    current: function () { return null; },
    currentAsync: function () { return Promise.resolve(null); },
    signUp: unavailable('AV.User.signUp'),
    logIn: unavailable('AV.User.logIn'),
    logOut: function () { return Promise.resolve(); },
    become: unavailable('AV.User.become'),
    logInWithMobilePhone: unavailable('AV.User.logInWithMobilePhone'),
    logInWithMobilePhoneSmsCode: unavailable('AV.User.logInWithMobilePhoneSmsCode'),
    signUpOrlogInWithMobilePhone: unavailable('AV.User.signUpOrlogInWithMobilePhone'),
    loginWithAuthData: unavailable('AV.User.loginWithAuthData'),
    requestPasswordReset: unavailable('AV.User.requestPasswordReset'),
    requestEmailVerify: unavailable('AV.User.requestEmailVerify'),
    requestMobilePhoneVerify: unavailable('AV.User.requestMobilePhoneVerify'),
    requestLoginSmsCode: unavailable('AV.User.requestLoginSmsCode')
  });
  AV.User = User;

  // AV.Role: the `_Role` class; new AV.Role(name, acl).
  var Role = AV.Object.extend('_Role', {
    constructor: function Role(name, acl) {
      if (typeof name === 'string') {
        AV.Object.call(this);
        this.setName(name);
        if (acl) this.setACL(acl);
      } else {
        AV.Object.call(this, name, acl);
      }
    },
    getName: function () { return this.get('name'); },
    setName: function (name) { return this.set('name', name); },
    getUsers: function () { return this.relation('users'); },
    getRoles: function () { return this.relation('roles'); }
  });
  AV.Role = Role;
})(this);
