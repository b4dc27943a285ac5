import DataAPI
import Hummingbird
import JSON

/// The deploy API, master key only (the `functionhost` CLI speaks it):
///
/// - `POST /engine/deploys` `{"environment", "message", "files": {path: source}}` → 201 the new
///   version; an engine app instead with `"engine": {"files": {path: base64}, "command"?}`; `GET /engine/deploys[?environment=E]` the versions, newest first, each with the
///   environments running it;
/// - `GET /engine/environments` each environment's version and history;
/// - `POST /engine/promote` production runs staging's version;
///   `POST /engine/rollback` `{"environment", "version"?}`;
/// - `GET /engine/variables?environment=E`, `PUT /engine/variables`
///   `{"environment", "set": {K: V}, "secret": bool, "unset": [K]}` (secrets answered masked).
struct DeployRoutes: Sendable {
    let deployer: Deployer

    func register(on group: RouterGroup<HostRequestContext>) {
        group.post("engine/deploys") { request, context in
            var request = request
            let body = try await Self.masterBody(&request, context)
            if let engine = body["engine"] {
                // An engine app: its folder as it is, run in a process of its own.
                guard body["files"] == nil else {
                    throw HostError(status: .badRequest, code: 107, message: "A deploy has files (cloud code) or engine (an engine app), not both.")
                }
                guard case .object(let app) = engine else {
                    throw HostError(status: .badRequest, code: 107, message: "engine must be an object with files and an optional command.")
                }
                if let command = app["command"], command.stringValue == nil {
                    throw HostError(status: .badRequest, code: 107, message: "engine.command must be a string.")
                }
                let environment = try Self.environment(body["environment"]?.stringValue ?? "staging")
                let version = try await deployer.deploy(
                    engineApp: try EngineBundle(json: app["files"] ?? .null), command: app["command"]?.stringValue,
                    message: body["message"]?.stringValue ?? "", author: body["author"]?.stringValue ?? "master key", to: environment)
                var json = version.summary(live: [environment])
                json["environment"] = .string(environment.rawValue)
                return JSONResponse(status: .created, .object(json))
            }
            guard case .object(let members)? = body["files"] else {
                throw HostError(status: .badRequest, code: 107, message: "files must be an object of path → source.")
            }
            var files: [String: String] = [:]
            for (path, source) in members {
                guard let text = source.stringValue, Self.isValidPath(path) else {
                    throw HostError(
                        status: .badRequest, code: 107,
                        message: "Invalid file '\(path)': a relative .js path (or timers.json) with source text.")
                }
                files[path] = text
            }
            let environment = try Self.environment(body["environment"]?.stringValue ?? "staging")
            let version = try await deployer.deploy(
                files: files, message: body["message"]?.stringValue ?? "",
                author: body["author"]?.stringValue ?? "master key", to: environment)
            var json = version.summary(live: [environment])
            json["environment"] = .string(environment.rawValue)
            return JSONResponse(status: .created, .object(json))
        }
        group.get("engine/deploys") { request, context in
            try Self.requireMaster(context)
            let only = try request.queryParameters["environment"].map(Self.environment)
            var versions = try await deployer.versions()
            if let only {
                // An environment's versions are the ones it has run.
                let ran = Set(try await deployer.state(of: only).history)
                versions = versions.filter { ran.contains($0.version.number) }
            }
            return JSONResponse(["results": .array(versions.map { .object($0.version.summary(live: $0.live)) })])
        }
        group.get("engine/environments") { _, context in
            try Self.requireMaster(context)
            var answer: [String: JSONValue] = [:]
            for name in EnvironmentName.allCases {
                let state = try await deployer.state(of: name)
                answer[name.rawValue] = [
                    "version": state.version.map { .int(Int64($0)) } ?? .null,
                    "history": .array(state.history.map { .int(Int64($0)) }),
                ]
            }
            return JSONResponse(.object(answer))
        }
        group.post("engine/promote") { request, context in
            var request = request
            _ = try await Self.masterBody(&request, context)
            let version = try await deployer.promote()
            return JSONResponse(["environment": "production", "version": .int(Int64(version))])
        }
        group.post("engine/rollback") { request, context in
            var request = request
            let body = try await Self.masterBody(&request, context)
            let environment = try Self.environment(body["environment"]?.stringValue ?? "")
            let target = try body["version"].map { value -> Int in
                guard let number = value.intValue, number > 0 else {
                    throw HostError(status: .badRequest, code: 107, message: "version must be a positive integer.")
                }
                return Int(number)
            }
            let version = try await deployer.rollback(environment, to: target)
            return JSONResponse(["environment": .string(environment.rawValue), "version": .int(Int64(version))])
        }
        group.get("engine/variables") { request, context in
            try Self.requireMaster(context)
            let state = try await deployer.state(of: try Self.environment(request.queryParameters["environment"] ?? "production"))
            return Self.variables(state)
        }
        group.put("engine/variables") { request, context in
            var request = request
            let body = try await Self.masterBody(&request, context)
            let environment = try Self.environment(body["environment"]?.stringValue ?? "production")
            var set: [String: String] = [:]
            for (key, value) in body["set"]?.objectValue ?? [:] {
                guard Self.isValidVariable(key), let text = value.stringValue else {
                    throw HostError(status: .badRequest, code: 107, message: "Invalid variable '\(key)': a name of letters, digits and _, and a text value.")
                }
                set[key] = text
            }
            let unset = body["unset"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let state = try await deployer.setVariables(set, secret: body["secret"] == true, unset: unset, in: environment)
            return Self.variables(state)
        }
    }

    private static func variables(_ state: EnvironmentState) -> JSONResponse {
        JSONResponse([
            "environment": .string(state.name.rawValue), "variables": state.shownVariables,
            "secrets": .array(state.secrets.sorted().map(JSONValue.string)),
        ])
    }

    private static func requireMaster(_ context: HostRequestContext) throws {
        guard context.caller.isMaster else {
            throw HostError(status: .unauthorized, code: 401, message: "The deploy API needs the master key.")
        }
    }

    private static func masterBody(_ request: inout Request, _ context: HostRequestContext) async throws -> [String: JSONValue] {
        try requireMaster(context)
        return try await request.jsonObject(context: context)
    }

    private static func environment(_ name: String) throws -> EnvironmentName {
        guard let environment = EnvironmentName(rawValue: name) else {
            throw HostError(status: .badRequest, code: 107, message: "environment must be production or staging, not '\(name)'.")
        }
        return environment
    }

    /// A bundle path: relative, `.js`, no `..` (it becomes a module name for `require`).
    static func isValidPath(_ path: String) -> Bool {
        // The bundle's timers, at its root (`DeployTimers`).
        if path == DeployTimers.file { return true }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return path.hasSuffix(".js") && !path.hasPrefix("/") && path.utf8.count <= 512
            && parts.allSatisfy { !$0.isEmpty && $0 != ".." && $0 != "." }
    }

    private static func isValidVariable(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else {
            return false
        }
        return name.utf8.count <= 128 && name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }
}
