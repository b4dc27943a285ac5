import DataAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// A server whose functions directory holds the given JavaScript files, on fresh temporary data.
enum JSDataServer {
    /// Writes `scripts` (file name → source) into a new functions directory, starts a server on
    /// its own new data directory, runs `body` over HTTP, stops the server and removes both.
    static func run<Value: Sendable>(
        _ scripts: [String: String], functions: FunctionRegistry = FunctionRegistry(),
        configure: (inout HostConfiguration) -> Void = { _ in }, _ body: @Sendable (API) async throws -> Value
    ) async throws -> Value {
        let root = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let code = root + "/cloud"
        let data = root + "/data"
        for directory in [code, data] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        for (name, source) in scripts {
            try source.write(toFile: code + "/" + name, atomically: true, encoding: .utf8)
        }
        return try await TestServer.run(
            dataDirectory: data, functions: functions, functionsDirectory: code, configure: configure, body)
    }

    /// The client key plus `X-LC-Session`.
    static func session(_ token: String) -> HTTPFields {
        Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "key"), ("X-LC-Session", token)])
    }

    /// Creates the `_User` `username` holding session `token` with the master key, as the tests of
    /// the Swift functions do; returns its id.
    static func makeUser(_ api: API, _ username: String, token: String) async throws -> String {
        try await api.create(
            "_User", ["username": .string(username), "sessionToken": .string(token)], headers: Headers.master)
    }
}

extension API {
    /// `POST /1.1/functions/{name}` (plain JSON), expecting 200: the `result`.
    func jsFunction(
        _ name: String, _ params: JSONValue = [:], headers: HTTPFields = Headers.client,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        let reply = try await post("/1.1/functions/\(name)", headers: headers, params)
        #expect(reply.status == .ok, "/functions/\(name): \(reply)", sourceLocation: sourceLocation)
        return try #require(reply["result"], "/functions/\(name): \(reply)", sourceLocation: sourceLocation)
    }

    /// `POST /1.1/call/{name}` (rpc: typed values both ways), expecting 200: the `result`.
    func jsRPC(
        _ name: String, _ params: JSONValue = [:], headers: HTTPFields = Headers.client,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        let reply = try await post("/1.1/call/\(name)", headers: headers, params)
        #expect(reply.status == .ok, "/call/\(name): \(reply)", sourceLocation: sourceLocation)
        return try #require(reply["result"], "/call/\(name): \(reply)", sourceLocation: sourceLocation)
    }
}

/// JavaScript cloud functions that use the data API (`AV.Object`, `AV.Query`, ...), called over
/// real HTTP; every write they make is checked through the REST API, so it reached the same
/// storage the clients use.
@Suite struct JavaScriptDataAPITests {
    /// A LeanEngine `cloud.js` that follows the patterns of LeanCloud's cloud-function guide
    /// (LeanEngine, Node.js): CommonJS `require('leanengine')`, `AV.Cloud.define` with async
    /// functions and with the older `(request, response)` callbacks, `AV.Object.extend`,
    /// `new AV.Query(...)`, `request.params`, `request.currentUser` and `AV.Cloud.Error`. It must run
    /// here unchanged.
    static let leanEngineCloudJS = """
        var AV = require('leanengine');

        var Todo = AV.Object.extend('Todo');

        AV.Cloud.define('hello', function (request) {
          return 'Hello world!';
        });

        AV.Cloud.define('averageStars', async (request) => {
          var query = new AV.Query('Review');
          query.equalTo('movie', request.params.movie);
          var results = await query.find();
          if (results.length === 0) {
            throw new AV.Cloud.Error('No reviews for ' + request.params.movie, { code: 400 });
          }
          var sum = 0;
          for (var i = 0; i < results.length; ++i) {
            sum += results[i].get('stars');
          }
          return sum / results.length;
        });

        AV.Cloud.define('addTodo', async (request) => {
          var currentUser = request.currentUser;
          if (!currentUser) {
            throw new AV.Cloud.Error('Please log in first.', { code: 400 });
          }
          var todo = new Todo();
          todo.set('title', request.params.title);
          todo.set('done', false);
          todo.set('owner', currentUser);
          await todo.save();
          return todo.id;
        });

        AV.Cloud.define('finishTodo', async (request) => {
          var query = new AV.Query('Todo');
          var todo = await query.get(request.params.id);
          todo.set('done', true);
          await todo.save();
          return todo;
        });

        AV.Cloud.define('myOpenTodos', function (request, response) {
          var query = new AV.Query('Todo');
          query.equalTo('owner', request.currentUser);
          query.equalTo('done', false);
          query.find().then(function (todos) {
            response.success(todos.map(function (todo) {
              return todo.get('title');
            }));
          }).catch(function (error) {
            response.error(error);
          });
        });
        """

    @Test func aLeanEngineCloudJSFromTheDocsRunsUnchanged() async throws {
        try await JSDataServer.run(["cloud.js": Self.leanEngineCloudJS]) { api in
            #expect(try await api.jsFunction("hello") == "Hello world!")

            for (movie, stars) in [("Up", 4), ("Up", 5), ("Cars", 3)] {
                _ = try await api.create("Review", ["movie": .string(movie), "stars": .int(Int64(stars))])
            }
            #expect(try await api.jsFunction("averageStars", ["movie": "Up"]) == 4.5)
            #expect(try await api.jsRPC("averageStars", ["movie": "Cars"]) == 3)
            expectError(
                try await api.post("/1.1/functions/averageStars", ["movie": "Nope"]), code: 400, status: .badRequest)

            let adaId = try await JSDataServer.makeUser(api, "ada", token: "tok-ada")
            let ada = JSDataServer.session("tok-ada")
            let milk = try #require(try await api.jsFunction("addTodo", ["title": "Buy milk"], headers: ada).stringValue)
            let dog = try #require(try await api.jsFunction("addTodo", ["title": "Walk the dog"], headers: ada).stringValue)
            #expect(isObjectId(milk) && isObjectId(dog) && milk != dog)
            expectError(
                try await api.post("/1.1/functions/addTodo", ["title": "Anonymous"]), code: 400, status: .badRequest)

            let stored = try await api.fetch("Todo", milk)
            #expect(stored["title"] == "Buy milk", "\(stored)")
            #expect(stored["done"] == false)
            #expect(stored["owner"] == pointer("_User", adaId), "the owner is the caller: \(stored)")
            #expect(try await api.count("Todo") == 2, "the anonymous call wrote nothing")

            let finished = try await api.jsFunction("finishTodo", ["id": .string(milk)])
            #expect(finished["objectId"] == .string(milk), "\(finished)")
            #expect(finished["title"] == "Buy milk" && finished["done"] == true, "\(finished)")
            #expect(finished["__type"] == nil && finished["className"] == nil, "plain JSON: \(finished)")
            #expect(isCanonicalISODate(finished["updatedAt"]?.stringValue), "\(finished)")
            #expect(try await api.fetch("Todo", milk)["done"] == true, "the update reached the storage")

            #expect(try await api.jsFunction("myOpenTodos", headers: ada) == ["Walk the dog"])
            #expect(try await api.jsRPC("myOpenTodos", headers: ada) == ["Walk the dog"])
        }
    }

    /// Create, query, update and delete from JavaScript.
    static let books = """
        var AV = require('leanengine');
        var Book = AV.Object.extend('Book');

        AV.Cloud.define('addBooks', async function (request) {
          var ids = [];
          for (var i = 0; i < request.params.books.length; i++) {
            var book = new Book();
            book.set(request.params.books[i]);
            await book.save();
            ids.push(book.id);
          }
          return ids;
        });

        AV.Cloud.define('bookQueries', async function (request) {
          function titles(books) { return books.map(function (book) { return book.get('title'); }); }
          function books() { return new AV.Query('Book'); }
          var first = await books().ascending('pages').first();
          var none = await books().equalTo('genre', 'cookery').first();
          var got = await books().get(request.params.id);
          return {
            equalTo: titles(await books().equalTo('genre', 'sf').ascending('pages').find()),
            greaterThan: titles(await books().greaterThan('pages', 300).ascending('pages').find()),
            containedIn: titles(await books().containedIn('genre', ['poetry', 'history']).ascending('pages').find()),
            regex: titles(await books().matches('title', /^the/i).ascending('pages').find()),
            regexText: titles(await books().matches('title', 'ness$').find()),
            exists: titles(await books().exists('award').ascending('pages').find()),
            descending: titles(await books().descending('pages').find()),
            page: titles(await books().ascending('pages').skip(1).limit(2).find()),
            count: await books().equalTo('genre', 'sf').count(),
            countAll: await books().count(),
            first: first.get('title'),
            firstIsBook: first instanceof Book,
            firstOfNothing: none === undefined,
            get: got.get('title'),
            getId: got.id
          };
        });

        AV.Cloud.define('reviseBook', async function (request) {
          var book = AV.Object.createWithoutData('Book', request.params.id);
          book.set('title', 'Dune Messiah');
          book.increment('pages', 10);
          book.add('tags', ['desert', 'spice']);
          book.addUnique('labels', ['classic', 'epic']);
          book.remove('shelves', 'b');
          book.unset('award');
          await book.save();
          return {
            title: book.get('title'), pages: book.get('pages'), tags: book.get('tags'),
            labels: book.get('labels'), shelves: book.get('shelves'), hasAward: book.has('award')
          };
        });

        AV.Cloud.define('removeBook', async function (request) {
          var book = await new AV.Query('Book').get(request.params.id);
          await book.destroy();
          return book.id;
        });
        """

    @Test func createQueryUpdateAndDeleteFromJavaScript() async throws {
        try await JSDataServer.run(["books.js": Self.books]) { api in
            let seed: JSONValue = try json(
                """
                [{"title": "Dune", "genre": "sf", "pages": 412, "award": "Hugo",
                  "tags": ["sf"], "labels": ["classic"], "shelves": ["a", "b", "c"]},
                 {"title": "The Left Hand of Darkness", "genre": "sf", "pages": 304, "award": "Nebula"},
                 {"title": "Neuromancer", "genre": "sf", "pages": 271},
                 {"title": "The Odyssey", "genre": "poetry", "pages": 541},
                 {"title": "SPQR", "genre": "history", "pages": 608},
                 {"title": "the waste land", "genre": "poetry", "pages": 64}]
                """)
            let created = try await api.jsFunction("addBooks", ["books": seed])
            let ids = try #require(created.arrayValue?.compactMap { $0.stringValue }, "\(created)")
            try #require(ids.count == 6, "\(created)")
            #expect(Set(ids).count == 6 && ids.allSatisfy { isObjectId($0) })
            // Each create reached the storage, with every field.
            #expect(try await api.count("Book") == 6)
            for (id, fields) in zip(ids, seed.arrayValue ?? []) {
                let stored = try await api.fetch("Book", id)
                for (key, value) in fields.objectValue ?? [:] {
                    #expect(stored[key] == value, "\(key) of \(stored)")
                }
            }
            let dune = ids[0]

            let found = try await api.jsFunction("bookQueries", ["id": .string(dune)])
            #expect(found["equalTo"] == ["Neuromancer", "The Left Hand of Darkness", "Dune"], "\(found)")
            #expect(found["greaterThan"] == ["The Left Hand of Darkness", "Dune", "The Odyssey", "SPQR"], "\(found)")
            #expect(found["containedIn"] == ["the waste land", "The Odyssey", "SPQR"], "\(found)")
            #expect(found["regex"] == ["the waste land", "The Left Hand of Darkness", "The Odyssey"], "\(found)")
            #expect(found["regexText"] == ["The Left Hand of Darkness"], "\(found)")
            #expect(found["exists"] == ["The Left Hand of Darkness", "Dune"], "\(found)")
            #expect(
                found["descending"]
                    == ["SPQR", "The Odyssey", "Dune", "The Left Hand of Darkness", "Neuromancer", "the waste land"],
                "\(found)")
            #expect(found["page"] == ["Neuromancer", "The Left Hand of Darkness"], "\(found)")
            #expect(found["count"] == 3 && found["countAll"] == 6, "\(found)")
            #expect(found["first"] == "the waste land" && found["firstIsBook"] == true, "\(found)")
            #expect(found["firstOfNothing"] == true, "\(found)")
            #expect(found["get"] == "Dune" && found["getId"] == .string(dune), "\(found)")

            let revised = try await api.jsFunction("reviseBook", ["id": .string(dune)])
            let expected: JSONValue = [
                "title": "Dune Messiah", "pages": 422, "tags": ["sf", "desert", "spice"], "labels": ["classic", "epic"],
                "shelves": ["a", "c"],
            ]
            var seenInJS = revised.objectValue ?? [:]
            #expect(seenInJS.removeValue(forKey: "hasAward") == false, "\(revised)")
            #expect(JSONValue.object(seenInJS) == expected, "the object after its save, in JS: \(revised)")
            let stored = try await api.fetch("Book", dune)
            for (key, value) in expected.objectValue ?? [:] {
                #expect(stored[key] == value, "\(key) of \(stored)")
            }
            #expect(stored["award"] == nil, "unset removed the field: \(stored)")
            #expect(stored["genre"] == "sf", "fields the update didn't name are kept: \(stored)")

            #expect(try await api.jsFunction("removeBook", ["id": .string(dune)]) == .string(dune))
            #expect(try await api.fetch("Book", dune) == [:], "destroyed")
            #expect(try await api.count("Book") == 5)
        }
    }

    /// Includes, `AV.Query.or` and `matchesQuery` over data written through REST.
    static let projects = """
        var AV = require('leanengine');

        function titles(todos) { return todos.map(function (todo) { return todo.get('title'); }); }

        AV.Cloud.define('todosWithProjects', async function () {
          var query = new AV.Query('Todo');
          query.include('project');
          query.ascending('rank');
          var todos = await query.find();
          return todos.map(function (todo) {
            var project = todo.get('project');
            return {
              title: todo.get('title'), project: project.get('name'), isObject: project instanceof AV.Object,
              className: project.className, hasData: project.isDataAvailable()
            };
          });
        });

        AV.Cloud.define('todoWithoutInclude', async function (request) {
          var todo = await new AV.Query('Todo').get(request.params.id);
          var project = todo.get('project');
          return { projectId: project.id, name: project.get('name') === undefined ? 'absent' : project.get('name'),
                   fetchedName: (await project.fetch()).get('name') };
        });

        AV.Cloud.define('todoWithInclude', async function (request) {
          var todo = await new AV.Query('Todo').include('project').get(request.params.id);
          return todo.get('project').get('name');
        });

        AV.Cloud.define('orAndMatchesQuery', async function () {
          var late = new AV.Query('Todo').greaterThanOrEqualTo('rank', 3);
          var done = new AV.Query('Todo').equalTo('done', true);
          var either = AV.Query.or(late, done).ascending('rank');
          var active = new AV.Query('Project').equalTo('active', true);
          var inActive = new AV.Query('Todo').matchesQuery('project', active).ascending('rank');
          return { or: titles(await either.find()), matchesQuery: titles(await inActive.find()),
                   orCount: await AV.Query.or(late, done).count() };
        });
        """

    @Test func includeOrAndMatchesQuery() async throws {
        try await JSDataServer.run(["projects.js": Self.projects]) { api in
            let apollo = try await api.create("Project", ["name": "Apollo", "active": true])
            let gemini = try await api.create("Project", ["name": "Gemini", "active": false])
            var todos: [String] = []
            for (rank, project, done) in [(1, apollo, false), (2, gemini, true), (3, apollo, false), (4, gemini, false)] {
                todos.append(
                    try await api.create(
                        "Todo",
                        ["title": .string("t\(rank)"), "rank": .int(Int64(rank)), "done": .bool(done),
                         "project": pointer("Project", project)]))
            }

            let included = try await api.jsFunction("todosWithProjects")
            let rows = try #require(included.arrayValue, "\(included)")
            #expect(rows.compactMap { $0["title"]?.stringValue } == ["t1", "t2", "t3", "t4"], "\(included)")
            #expect(rows.compactMap { $0["project"]?.stringValue } == ["Apollo", "Gemini", "Apollo", "Gemini"], "\(included)")
            for row in rows {
                #expect(row["isObject"] == true && row["className"] == "Project" && row["hasData"] == true, "\(row)")
            }

            let bare = try await api.jsFunction("todoWithoutInclude", ["id": .string(todos[1])])
            #expect(bare == ["projectId": .string(gemini), "name": "absent", "fetchedName": "Gemini"], "\(bare)")
            #expect(try await api.jsFunction("todoWithInclude", ["id": .string(todos[2])]) == "Apollo")

            let combined = try await api.jsFunction("orAndMatchesQuery")
            #expect(combined["or"] == ["t2", "t3", "t4"], "\(combined)")
            #expect(combined["orCount"] == 3, "\(combined)")
            #expect(combined["matchesQuery"] == ["t1", "t3"], "\(combined)")
        }
    }
}
