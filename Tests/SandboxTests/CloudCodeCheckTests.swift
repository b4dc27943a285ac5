import Testing

@testable import Sandbox

/// What `check-cloud-code` reports, looked up in a real sandbox with the SDK loaded, and which
/// files of a LeanEngine project are its cloud code.
@Suite struct CloudCodeCheckTests {
    static let cloud = """
        const LC = require('leanengine');
        const fs = require('fs');
        const pick = require('lodash/pick');
        const scoped = require('@scope/tool/sub');
        const helper = require('./lib/helper');
        const missing = require('./lib/nothing');
        // require('commented-out'); AV.Commented.out
        /* process.exit(2) */
        LC.Cloud.define('x', async (request) => {
          const text = "AV.Fake.call() in a string, require('in-a-string')";
          LC.Cloud.onIMMessageReceived(function () {});
          AV.Push.send({});
          AV.Object.extend('Todo');
          new AV.Query('Todo').equalTo('a', 1);
          AV.Cloud.run('y', {});
          AV.init({ appId: 'a' });
          process.env.SECRET;
          process.exit(1);
          return Buffer.from(text).toString('base64') + JSON.stringify(setImmediate);
        });
        """

    @Test func unsupportedUsesAreFoundWithTheirLines() async throws {
        let findings = try await CloudCodeCheck.findings(
            files: ["cloud.js": Self.cloud, "lib/helper.js": "const os = require('node:os');\nmodule.exports = {};"],
            packageJSON: "{\n  \"dependencies\": {\n    \"leanengine\": \"^3\",\n    \"moment\": \"^2\"\n  }\n}")
        let found = Set(findings.map { "\($0.file):\($0.line) \($0.usage)" })
        #expect(
            found == [
                "cloud.js:2 require('fs')", "cloud.js:3 require('lodash')", "cloud.js:4 require('@scope/tool')",
                "cloud.js:6 require('./lib/nothing')", "cloud.js:11 LC.Cloud.onIMMessageReceived", "cloud.js:12 AV.Push",
                "cloud.js:18 process.exit", "cloud.js:19 Buffer", "lib/helper.js:1 require('node:os')",
                "package.json:4 dependency moment",
            ], "\(findings)")
        #expect(findings.first { $0.usage == "require('fs')" }?.reason.contains("built-in") == true)
        #expect(findings.first { $0.usage == "require('lodash')" }?.reason.contains("npm") == true)
    }

    @Test func codeThatUsesOnlyTheSDKHasNoFindings() async throws {
        let source = """
            var AV = require('leanengine');
            AV.Cloud.define('hello', function (request) { return 'Hello ' + request.params.name; });
            AV.Cloud.beforeSave('Todo', function (request) { request.object.set('checked', true); });
            AV.Cloud.onVerified('sms', function (request) {});
            AV.Cloud.httpRequest({ url: 'https://example.com' });
            var acl = new AV.ACL(); var point = new AV.GeoPoint(1, 2); AV.User.logIn; AV.Query.or;
            setTimeout(function () {}, 1); console.log(process.env.KEY);
            """
        #expect(try await CloudCodeCheck.findings(files: ["cloud.js": source]).isEmpty)
    }

    @Test func expressRoutesAreListed() {
        let app = "var app = express();\napp.get('/', home);\n// app.post('/commented', x)\nrouter.post(\"/api/items\", create);"
        #expect(CloudCodeCheck.webRoutes(in: app, file: "app.js").map(\.description) == [
            "app.js:2: GET /: an Express web route: not served here; make it a cloud function (POST /1.1/functions/NAME)",
            "app.js:4: POST /api/items: an Express web route: not served here; make it a cloud function (POST /1.1/functions/NAME)",
        ])
    }

    @Test func aLeanEngineProjectIsCloudJSAndWhatItRequires() {
        let files = [
            "server.js": "require('./app')", "app.js": "require('./cloud')",
            "cloud.js": "require('./lib/a'); require('./lib')", "lib/a.js": "require('../shared/b.js')",
            "lib/index.js": "", "shared/b.js": "", "scripts/migrate.js": "",
        ]
        #expect(Set(CloudCodeFiles.selected(files).keys) == ["cloud.js", "lib/a.js", "lib/index.js", "shared/b.js"])
        // package.json alone marks a project too; a folder of plain cloud code loads every file.
        #expect(CloudCodeFiles.selected(["cloud.js": "", "other.js": ""], markers: ["package.json"]).keys.sorted() == ["cloud.js"])
        #expect(CloudCodeFiles.selected(["cloud.js": "", "other.js": ""]).keys.sorted() == ["cloud.js", "other.js"])
    }
}
