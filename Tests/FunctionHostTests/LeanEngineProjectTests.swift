import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import FunctionHost

/// A LeanEngine Node project, laid out and written as LeanCloud's guides show one (package.json,
/// server.js and app.js around Express, cloud.js with functions and hooks, a module it
/// requires), checked, deployed unchanged with the CLI and called over HTTP.
@Suite struct LeanEngineProjectTests {
    static let files: [String: String] = [
        "package.json": """
            {
              "name": "movie-reviews",
              "main": "server.js",
              "dependencies": {
                "express": "^4.18.2",
                "leanengine": "^3.8.0",
                "leancloud-storage": "^4.15.0"
              }
            }
            """,
        "server.js": """
            'use strict';
            var AV = require('leanengine');
            AV.init({
              appId: process.env.LEANCLOUD_APP_ID,
              appKey: process.env.LEANCLOUD_APP_KEY,
              masterKey: process.env.LEANCLOUD_APP_MASTER_KEY
            });
            AV.Cloud.useMasterKey();
            var app = require('./app');
            var PORT = parseInt(process.env.LEANCLOUD_APP_PORT || process.env.PORT || 3000);
            app.listen(PORT, function (err) {
              console.log('Node app is running on port:', PORT);
            });
            """,
        "app.js": """
            'use strict';
            var express = require('express');
            var AV = require('leanengine');
            require('./cloud');
            var app = express();
            app.use(AV.express());
            app.get('/', function (req, res) { res.send('hello'); });
            module.exports = app;
            """,
        "cloud.js": """
            var AV = require('leanengine');
            var stars = require('./lib/stars');

            /**
             * 一个简单的云代码方法
             */
            AV.Cloud.define('hello', function (request) {
              return 'Hello world!';
            });

            AV.Cloud.define('averageStars', async function (request) {
              var query = new AV.Query('Review');
              query.equalTo('movie', request.params.movie);
              var reviews = await query.find();
              return stars.average(reviews);
            });

            AV.Cloud.define('movieReport', async function (request) {
              var average = await AV.Cloud.run('averageStars', { movie: request.params.movie });
              return { movie: request.params.movie, average: average };
            });

            AV.Cloud.beforeSave('Review', function (request) {
              var comment = request.object.get('comment');
              if (comment) {
                if (comment.length > 140) {
                  // 截断并添加 '…'
                  request.object.set('comment', comment.substring(0, 140) + '…');
                }
              } else {
                // 不保存数据，并返回错误
                throw new AV.Cloud.Error('No comment provided!');
              }
            });

            AV.Cloud.afterSave('Comment', async function (request) {
              var query = new AV.Query('Post');
              var post = await query.get(request.object.get('post').id);
              post.increment('comments');
              return post.save();
            });

            AV.Cloud.onVerified('sms', function (request) {
              console.log('onVerified: sms, user: ' + request.object);
              var log = new AV.Object('VerifyLog');
              return log.save({ user: request.object, type: 'sms' });
            });
            """,
        "lib/stars.js": """
            exports.average = function (reviews) {
              if (reviews.length === 0) return 0;
              var sum = 0;
              for (var i = 0; i < reviews.length; ++i) sum += reviews[i].get('stars');
              return sum / reviews.length;
            };
            """,
    ]

    static func project() throws -> String {
        let root = try TestServer.makeDataDirectory() + "-project"
        for (path, text) in files { try ImportFixture.write(text, to: root + "/" + path) }
        return root
    }

    @Test func theProjectChecksCleanDeploysAsItIsAndAnswers() async throws {
        let project = try Self.project()
        defer { try? FileManager.default.removeItem(atPath: project) }

        let check = try await CLI.functionhost(["check-cloud-code", project], port: 0)
        // Only what the move changes: the Express app and its npm dependency; cloud.js is clean.
        #expect(check.output.contains("A LeanEngine project: checking cloud.js and the 1 files it requires."), "\(check)")
        #expect(check.output.contains("package.json:5: dependency express"), "\(check)")
        #expect(check.output.contains("app.js:7: GET /: an Express web route"), "\(check)")
        #expect(!check.output.contains("cloud.js:"), "\(check)")
        #expect(check.status == 1)

        try await DeployTests.run(transport: .socket) { api in
            let deployed = try await CLI.functionhost(["deploy", project, "--env", "staging", "-m", "moved"], port: api.port)
            #expect(deployed.status == 0, "\(deployed)")
            let promoted = try await CLI.functionhost(["promote"], port: api.port)
            #expect(promoted.status == 0, "\(promoted)")
            let versions = try await api.get("/1.1/engine/deploys", headers: Headers.master)
            // Only cloud.js and the module it requires were sent: the Express server stays behind.
            let sent = versions.results.first?["files"]?.arrayValue?.compactMap(\.stringValue).sorted()
            #expect(sent == ["cloud.js", "lib/stars.js"], "\(versions)")

            #expect(try await api.post("/1.1/functions/hello", [:])["result"] == "Hello world!")
            for (stars, comment) in [(4, "good"), (2, String(repeating: "长", count: 150))] {
                let saved = try await api.post(
                    "/1.1/classes/Review?fetchWhenSave=true", ["movie": "Up", "stars": .int(Int64(stars)), "comment": .string(comment)])
                #expect(saved.status == .created, "\(saved)")
            }
            let long = try await api.get("/1.1/classes/Review?" + "where=" + encode(#"{"stars":2}"#))
            #expect(long.results.first?["comment"]?.stringValue?.count == 141, "\(long)")
            let refused = try await api.post("/1.1/classes/Review", ["movie": "Up", "stars": 5])
            expectError(refused, code: 142)
            #expect(refused["error"]?.stringValue?.contains("No comment provided!") == true, "\(refused)")

            #expect(try await api.post("/1.1/functions/averageStars", ["movie": "Up"])["result"] == 3)
            let report = try await api.post("/1.1/call/movieReport", ["movie": "Up"])
            #expect(report["result"]?["average"] == 3, "\(report)")

            let post = try #require(try await api.post("/1.1/classes/Post", ["title": "t", "comments": 0]).objectId)
            _ = try await api.post("/1.1/classes/Comment", ["post": pointer("Post", post), "text": "first"])
            #expect(try await api.get("/1.1/classes/Post/\(post)")["comments"] == 1)

            let user = try await api.post("/1.1/users", ["username": "ann", "password": "pw1", "mobilePhoneNumber": "13900000009"])
            _ = try await api.post("/1.1/requestMobilePhoneVerify", ["mobilePhoneNumber": "13900000009"])
            let code = try await Outbox.lastCode(api, to: "13900000009")
            #expect(try await api.post("/1.1/verifyMobilePhone/\(code)", [:]).status == .ok)
            let logs = try await api.find("VerifyLog", headers: Headers.master).results
            #expect(logs.count == 1 && logs.first?["user"]?["objectId"] == user["objectId"], "\(logs)")
        }
    }
}
