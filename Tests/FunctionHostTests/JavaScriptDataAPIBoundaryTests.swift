import DataAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// What crosses between HTTP, JavaScript and the data API: typed values, the current user, the
/// master key, and the data API's errors.
@Suite struct JavaScriptDataAPIBoundaryTests {
    static let types = """
        var AV = require('leanengine');
        var Todo = AV.Object.extend('Todo');

        AV.Cloud.define('saveTyped', async function () {
          var acl = new AV.ACL();
          acl.setPublicReadAccess(true);
          acl.setWriteAccess('someUserId', true);
          var item = new AV.Object('Item');
          item.set({
            when: new Date('2024-05-06T07:08:09.010Z'),
            where: new AV.GeoPoint(39.9, 116.4),
            project: new AV.Object('Project', { name: 'Apollo' }),
            list: ['a', 1, true, null, { deep: [2.5] }],
            nested: { level1: { level2: { flag: false, none: null } } },
            nothing: null, yes: true, no: false,
            big: 9007199254740991, negative: -42, ratio: 3.25
          });
          item.setACL(acl);
          await item.save();
          return item;
        });

        AV.Cloud.define('loadTyped', async function (request) {
          var item = await new AV.Query('Item').include('project').get(request.params.id);
          return {
            item: item,
            whenIsDate: item.get('when') instanceof Date,
            whereIsGeoPoint: item.get('where') instanceof AV.GeoPoint,
            aclIsACL: item.getACL() instanceof AV.ACL,
            publicRead: item.getACL().getPublicReadAccess(),
            publicWrite: item.getACL().getPublicWriteAccess(),
            projectName: item.get('project').get('name'),
            bigIsSafe: Number.isSafeInteger(item.get('big')),
            doubled: item.get('ratio') * 2,
            nothingIsNull: item.get('nothing') === null
          };
        });

        AV.Cloud.define('paramKinds', function (request) {
          var p = request.params;
          return {
            whenIsDate: p.when instanceof Date, todoIsObject: p.todo instanceof AV.Object,
            todoIsTodo: p.todo instanceof Todo, whereIsGeoPoint: p.where instanceof AV.GeoPoint, plain: p.plain,
            nestedAreTyped: p.nested.dates[0] instanceof Date && p.nested.todos[0] instanceof AV.Object
          };
        });

        AV.Cloud.define('typedParams', async function (request) {
          var p = request.params;
          var todo = await p.todo.fetch();
          return {
            className: p.todo.className, id: p.todo.id, title: todo.get('title'),
            when: p.when, nextDay: new Date(p.when.getTime() + 86400000),
            kilometers: Math.round(p.where.kilometersTo(new AV.GeoPoint(39.9, 116.5))),
            todo: todo
          };
        });

        AV.Cloud.define('echoParam', function (request) { return request.params.value; });
        """

    static let whenISO = "2024-05-06T07:08:09.010Z"
    static let geoPoint: JSONValue = ["__type": "GeoPoint", "latitude": 39.9, "longitude": 116.4]
    static let acl: JSONValue = ["*": ["read": true], "someUserId": ["write": true]]

    @Test func typedValuesCrossAsPlainJSONThroughFunctions() async throws {
        try await JSDataServer.run(["types.js": Self.types]) { api in
            let saved = try await api.jsFunction("saveTyped")
            let id = try #require(saved["objectId"]?.stringValue, "\(saved)")
            // /functions answers an AV.Object as its toJSON(): dates as ISO text, no __type tag.
            #expect(saved["__type"] == nil && saved["className"] == nil, "\(saved)")
            #expect(saved["when"] == .string(Self.whenISO), "\(saved)")
            #expect(saved["where"] == Self.geoPoint, "\(saved)")
            #expect(saved["ACL"] == Self.acl, "\(saved)")
            #expect(saved["list"] == ["a", 1, true, nil, ["deep": [2.5]]], "\(saved)")
            #expect(saved["nested"] == ["level1": ["level2": ["flag": false, "none": nil]]], "\(saved)")
            #expect(saved["nothing"] == .null && saved["yes"] == true && saved["no"] == false, "\(saved)")
            #expect(saved["big"] == .int(9_007_199_254_740_991) && saved["negative"] == -42, "\(saved)")
            #expect(saved["ratio"] == 3.25, "\(saved)")
            #expect(isCanonicalISODate(saved["createdAt"]?.stringValue), "\(saved)")
            let projectId = try #require(saved["project"]?["objectId"]?.stringValue, "the child was saved first: \(saved)")
            #expect(saved["project"] == pointer("Project", projectId), "an unfetched object is a Pointer: \(saved)")

            // What the storage holds, as a client reads it.
            let stored = try await api.fetch("Item", id)
            #expect(stored["when"] == date(Self.whenISO), "\(stored)")
            #expect(stored["where"] == Self.geoPoint, "\(stored)")
            #expect(stored["project"] == pointer("Project", projectId), "\(stored)")
            #expect(stored["ACL"] == Self.acl, "\(stored)")
            for key in ["list", "nested", "nothing", "yes", "no", "big", "negative", "ratio"] {
                #expect(stored[key] == saved[key], "\(key) of \(stored)")
            }
            #expect(try await api.fetch("Project", projectId)["name"] == "Apollo")

            // Read back in JS: the SDK's types, and plain JSON out again.
            let loaded = try await api.jsFunction("loadTyped", ["id": .string(id)])
            for flag in ["whenIsDate", "whereIsGeoPoint", "aclIsACL", "publicRead", "bigIsSafe", "nothingIsNull"] {
                #expect(loaded[flag] == true, "\(flag) of \(loaded)")
            }
            #expect(loaded["publicWrite"] == false && loaded["projectName"] == "Apollo", "\(loaded)")
            #expect(loaded["doubled"] == 6.5, "\(loaded)")
            let item = try #require(loaded["item"])
            #expect(item["when"] == .string(Self.whenISO) && item["__type"] == nil, "\(item)")
            #expect(item["project"]?["name"] == "Apollo" && item["project"]?["__type"] == nil, "an included object: \(item)")
        }
    }

    @Test func rpcDecodesTypedParamsAndEncodesTypedResults() async throws {
        try await JSDataServer.run(["types.js": Self.types]) { api in
            let todo = try await api.create("Todo", ["title": "Typed"])
            let plain: JSONValue = [
                "list": [1, "two", nil, true], "nested": ["a": ["b": [["c": false]]]], "big": 9_007_199_254_740_991,
                "ratio": 3.25, "none": nil,
            ]
            let params: JSONValue = [
                "when": date(Self.whenISO), "todo": pointer("Todo", todo), "where": Self.geoPoint, "plain": plain,
                "nested": ["dates": [date(Self.whenISO)], "todos": [pointer("Todo", todo)]],
            ]
            // /call decodes `__type` values into the SDK's types; /functions leaves them JSON.
            let typed = try await api.jsRPC("paramKinds", params)
            #expect(
                typed == [
                    "whenIsDate": true, "todoIsObject": true, "todoIsTodo": true, "whereIsGeoPoint": true, "plain": plain,
                    "nestedAreTyped": true,
                ],
                "\(typed)")
            let untyped = try await api.jsFunction("paramKinds", params)
            #expect(
                untyped
                    == [
                        "whenIsDate": false, "todoIsObject": false, "todoIsTodo": false, "whereIsGeoPoint": false,
                        "plain": plain, "nestedAreTyped": false,
                    ],
                "\(untyped)")

            let result = try await api.jsRPC("typedParams", params)
            #expect(result["className"] == "Todo" && result["id"] == .string(todo) && result["title"] == "Typed", "\(result)")
            #expect(result["when"] == date(Self.whenISO), "\(result)")
            #expect(result["nextDay"] == date("2024-05-07T07:08:09.010Z"), "\(result)")
            #expect(result["kilometers"] == 9, "\(result)")
            let object = try #require(result["todo"], "\(result)")
            #expect(object["__type"] == "Object" && object["className"] == "Todo", "\(object)")
            #expect(object["objectId"] == .string(todo) && object["title"] == "Typed", "\(object)")

            // Values handed back as they came.
            #expect(try await api.jsRPC("echoParam", ["value": date(Self.whenISO)]) == date(Self.whenISO))
            #expect(try await api.jsRPC("echoParam", ["value": Self.geoPoint]) == Self.geoPoint)
            #expect(try await api.jsRPC("echoParam", ["value": plain]) == plain)
            let echoed = try await api.jsRPC("echoParam", ["value": pointer("Todo", todo)])
            #expect(
                echoed == pointer("Todo", todo),
                "an AV.Object without data is encoded as a Pointer, as the SDK's AV._encode does: \(echoed)")
            #expect(try await api.jsFunction("echoParam", ["value": pointer("Todo", todo)]) == pointer("Todo", todo))

            // An AV.Object read in JS comes back over /call tagged, with typed fields.
            let saved = try await api.jsFunction("saveTyped")
            let id = try #require(saved["objectId"]?.stringValue, "\(saved)")
            let loaded = try await api.jsRPC("loadTyped", ["id": .string(id)])
            let item = try #require(loaded["item"], "\(loaded)")
            #expect(item["__type"] == "Object" && item["className"] == "Item" && item["objectId"] == .string(id), "\(item)")
            #expect(item["when"] == date(Self.whenISO) && item["where"] == Self.geoPoint, "\(item)")
            #expect(item["ACL"] == Self.acl && item["big"] == .int(9_007_199_254_740_991), "\(item)")
            #expect(item["project"]?["className"] == "Project" && item["project"]?["name"] == "Apollo", "\(item)")
            #expect(loaded["whenIsDate"] == true && loaded["projectName"] == "Apollo", "\(loaded)")
        }
    }

    static let users = """
        var AV = require('leanengine');

        AV.Cloud.define('whoAmI', function (request) {
          var user = request.currentUser;
          return {
            username: user ? user.get('username') : null, id: user ? user.id : null,
            isUser: user instanceof AV.User, isObject: user instanceof AV.Object,
            sessionToken: request.sessionToken || null, userToken: user ? user.getSessionToken() : null
          };
        });

        AV.Cloud.define('whoAmIUnchecked', { fetchUser: false }, function (request) {
          return { hasUser: !!request.currentUser, sessionToken: request.sessionToken || null };
        });

        AV.Cloud.define('privateNote', async function (request) {
          var note = new AV.Object('Note', { text: request.params.text });
          note.setACL(new AV.ACL(request.currentUser));
          await note.save(null, { user: request.currentUser });
          return { id: note.id, visibleToCaller: await new AV.Query('Note').count({ user: request.currentUser }),
            visibleToApp: await new AV.Query('Note').count() };
        });

        // As LeanEngine has it: a data call acts as the user its options name, else as the app.
        AV.Cloud.define('countNotes', function (request) {
          return new AV.Query('Note').count({ sessionToken: request.sessionToken });
        });

        AV.Cloud.define('renameUser', async function (request) {
          var user = AV.Object.createWithoutData('_User', request.params.id);
          user.set('nickname', request.params.nickname);
          try {
            await user.save();
            return { saved: true };
          } catch (error) {
            return { saved: false, code: error.code, isAVError: error instanceof AV.Error };
          }
        });

        AV.Cloud.define('renameUserAsMaster', async function (request) {
          var user = AV.Object.createWithoutData('_User', request.params.id);
          user.set('nickname', request.params.nickname);
          await user.save(null, { useMasterKey: true });
          return { nickname: user.get('nickname'), isUser: user instanceof AV.User };
        });
        """

    @Test func theCurrentUserComesFromTheSessionToken() async throws {
        try await JSDataServer.run(["users.js": Self.users]) { api in
            let ada = try await JSDataServer.makeUser(api, "ada", token: "tok-ada")
            let me = try await api.jsFunction("whoAmI", headers: JSDataServer.session("tok-ada"))
            #expect(
                me == [
                    "username": "ada", "id": .string(ada), "isUser": true, "isObject": true, "sessionToken": "tok-ada",
                    "userToken": "tok-ada",
                ], "\(me)")
            #expect(try await api.jsRPC("whoAmI", headers: JSDataServer.session("tok-ada"))["username"] == "ada")
            let anonymous = try await api.jsFunction("whoAmI")
            #expect(anonymous["username"] == .null && anonymous["isUser"] == false, "\(anonymous)")
            #expect(anonymous["sessionToken"] == .null, "\(anonymous)")

            expectError(
                try await api.post("/1.1/functions/whoAmI", headers: JSDataServer.session("tok-nobody"), [:]),
                code: 211, status: .unauthorized)
            let unchecked = try await api.jsFunction("whoAmIUnchecked", headers: JSDataServer.session("tok-nobody"))
            #expect(unchecked == ["hasUser": false, "sessionToken": "tok-nobody"], "fetchUser: false looks nobody up")
        }
    }

    @Test func dataCallsActAsTheUserTheirOptionsName() async throws {
        try await JSDataServer.run(["users.js": Self.users]) { api in
            let ada = try await JSDataServer.makeUser(api, "ada", token: "tok-ada")
            // The function's data calls act as the user their options name: its ACL lets only her
            // read the note; a call without options acts as the app, with no user.
            let note = try await api.jsFunction("privateNote", ["text": "hers"], headers: JSDataServer.session("tok-ada"))
            let noteId = try #require(note["id"]?.stringValue, "\(note)")
            #expect(note["visibleToCaller"] == 1 && note["visibleToApp"] == 0, "\(note)")
            let stored = try await api.get("/1.1/classes/Note/\(noteId)", headers: Headers.master)
            #expect(stored["ACL"] == .object([ada: ["read": true, "write": true]]), "\(stored)")
            let others = try await api.results("Note")
            #expect(others.isEmpty, "another caller can't read it: \(others)")
            let hers = try await api.find("Note", headers: JSDataServer.session("tok-ada"))
            #expect(hers.results.compactMap { $0["text"]?.stringValue } == ["hers"], "\(hers)")
            #expect(try await api.jsFunction("countNotes", headers: JSDataServer.session("tok-ada")) == 1)
            #expect(try await api.jsFunction("countNotes") == 0, "an anonymous function call can't read it either")
        }
    }

    @Test func theMasterKeyIsUsedOnlyWhenAsked() async throws {
        try await JSDataServer.run(["users.js": Self.users]) { api in
            let ada = try await JSDataServer.makeUser(api, "ada", token: "tok-ada")
            let refused = try await api.jsFunction("renameUser", ["id": .string(ada), "nickname": "countess"])
            // Another user's object: only its own session or the master key may change it (206).
            #expect(refused == ["saved": false, "code": 206, "isAVError": true], "\(refused)")
            let user = try await api.get("/1.1/classes/_User/\(ada)", headers: Headers.master)
            #expect(user["username"] == "ada" && user["nickname"] == nil, "nothing was written: \(user)")

            let renamed = try await api.jsFunction("renameUserAsMaster", ["id": .string(ada), "nickname": "countess"])
            #expect(renamed == ["nickname": "countess", "isUser": true], "\(renamed)")
            let after = try await api.get("/1.1/classes/_User/\(ada)", headers: Headers.master)
            #expect(after["nickname"] == "countess" && after["username"] == "ada", "\(after)")
        }
    }

    @Test func useMasterKeyAtTheTopOfAFileAppliesToEveryCall() async throws {
        let source = """
            var AV = require('leanengine');
            AV.Cloud.useMasterKey();

            AV.Cloud.define('renameUser', async function (request) {
              var user = AV.Object.createWithoutData('_User', request.params.id);
              await user.save({ nickname: request.params.nickname });
              return user.get('nickname');
            });

            AV.Cloud.define('renameUserWithoutMaster', async function (request) {
              var user = AV.Object.createWithoutData('_User', request.params.id);
              try {
                await user.save({ nickname: request.params.nickname }, { useMasterKey: false });
                return 'saved';
              } catch (error) {
                return error.code;
              }
            });
            """
        try await JSDataServer.run(["cloud.js": source]) { api in
            let ada = try await JSDataServer.makeUser(api, "ada", token: "tok-ada")
            #expect(try await api.jsFunction("renameUser", ["id": .string(ada), "nickname": "countess"]) == "countess")
            #expect(
                try await api.jsFunction("renameUserWithoutMaster", ["id": .string(ada), "nickname": "x"]) == 206,
                "an explicit useMasterKey: false wins over the default")
            let user = try await api.get("/1.1/classes/_User/\(ada)", headers: Headers.master)
            #expect(user["nickname"] == "countess", "\(user)")
        }
    }

    static let errors = """
        var AV = require('leanengine');

        AV.Cloud.define('getMissing', async function () {
          try {
            await new AV.Query('Todo').get('missing');
            return 'found';
          } catch (error) {
            return { code: error.code, isAVError: error instanceof AV.Error, isError: error instanceof Error,
                     notFound: error.code === AV.Error.OBJECT_NOT_FOUND, hasMessage: error.message.length > 0 };
          }
        });

        AV.Cloud.define('getMissingUncaught', async function () {
          var todo = await new AV.Query('Todo').get('missing');
          return todo.id;
        });

        AV.Cloud.define('getMissingCallback', function (request, response) {
          new AV.Query('Todo').get('missing').then(function (todo) {
            response.success(todo.id);
          }, function (error) {
            response.error(error);
          });
        });
        """

    @Test func dataAPIErrorsReachTheScriptAndTheCaller() async throws {
        try await JSDataServer.run(["errors.js": Self.errors]) { api in
            _ = try await api.create("Todo", ["title": "present"])
            let caught = try await api.jsFunction("getMissing")
            #expect(
                caught == ["code": 101, "isAVError": true, "isError": true, "notFound": true, "hasMessage": true],
                "\(caught)")
            // Left uncaught, the data API's error is the function's answer: its code, status 400.
            expectError(try await api.post("/1.1/functions/getMissingUncaught", [:]), code: 101, status: .badRequest)
            expectError(try await api.post("/1.1/call/getMissingUncaught", [:]), code: 101, status: .badRequest)
            expectError(try await api.post("/1.1/functions/getMissingCallback", [:]), code: 101, status: .badRequest)
        }
    }
}
