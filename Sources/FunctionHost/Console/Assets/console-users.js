// Users and roles: the newest users, every role, and a role's own users and roles (its
// `users` and `roles` relations).
'use strict';

(function () {
  const { api, $, status, button, request, fillTable, register } = window.FHConsole;
  const limit = 100;

  function where(query) {
    return '?limit=' + limit + '&order=-createdAt' + (query ? '&where=' + encodeURIComponent(JSON.stringify(query)) : '');
  }

  async function showUsers() {
    const [users, roles] = await Promise.all([
      request('GET', api + '/1.1/classes/_User' + where()),
      request('GET', api + '/1.1/roles' + where()),
    ]);
    fillTable($('users-table'), users.results || [], (user) => [user.objectId, user.username, user.email, user.createdAt], 'No users.');
    fillTable($('roles-table'), roles.results || [], (role) => [
      button(role.name, () => showRole(role), 'link', 'Show the users and roles of ' + role.name), role.objectId, role.createdAt,
    ], 'No roles.');
    $('role-members').hidden = true;
    status((users.results || []).length + ' users, ' + (roles.results || []).length + ' roles shown.');
  }

  // A role's members: the objects its relation `key` holds.
  async function showRole(role) {
    const related = (key) => where({ $relatedTo: { object: { __type: 'Pointer', className: '_Role', objectId: role.objectId }, key } });
    const [users, roles] = await Promise.all([
      request('GET', api + '/1.1/classes/_User' + related('users')),
      request('GET', api + '/1.1/roles' + related('roles')),
    ]);
    $('role-members-title').textContent = 'Role ' + role.name;
    fillTable($('role-users-table'), users.results || [], (user) => [user.objectId, user.username], 'No users.');
    fillTable($('role-roles-table'), roles.results || [], (member) => [member.objectId, member.name], 'No roles.');
    $('role-members').hidden = false;
    $('role-members-title').focus();
  }

  register({
    name: 'users', label: 'Users & roles', section: 'users-view',
    open: () => showUsers().catch((error) => status(error.message, true)),
  });
})();
