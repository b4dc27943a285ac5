import Foundation
package import JSON

/// Engine apps as `deploy --engine` sends them: the test apps' folders (`Tests/EngineApps/python`)
/// as `{path: {"data": base64}}`, with files added or replaced.
package enum EngineBundles {
    /// The command that starts a test app in its folder, with the tests' venv.
    package static var pythonCommand: String { "\(SMTPTestServer.root)/scripts/leanengine-python.sh wsgi.py" }

    /// The Python app `name`'s files, with `extra` files (path → text) over them.
    package static func python(_ name: String, extra: [String: String] = [:]) throws -> JSONValue {
        let folder = "\(SMTPTestServer.root)/Tests/EngineApps/python/\(name)"
        var files: [String: JSONValue] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasSuffix(".py") {
            let data = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(file)"))
            files[file] = ["data": .string(data.base64EncodedString())]
        }
        for (path, text) in extra { files[path] = ["data": .string(Data(text.utf8).base64EncodedString())] }
        return .object(files)
    }

    /// A deploy body of the app `files` to `environment`, started by `command` when given.
    package static func deploy(_ files: JSONValue, to environment: String, command: String? = pythonCommand, message: String = "")
        -> JSONValue
    {
        var engine: [String: JSONValue] = ["files": files]
        if let command { engine["command"] = .string(command) }
        return ["environment": .string(environment), "message": .string(message), "engine": .object(engine)]
    }
}
