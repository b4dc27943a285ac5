import DataAPI
import Foundation
import Hummingbird
import JSON
import Logging
import Sandbox

/// Loads the JavaScript cloud code under the functions directory and registers each
/// `AV.Cloud.define`d function next to the Swift ones.
enum JavaScriptFunctions {
    /// Every `*.js` file below `directory` (sorted, `node_modules` skipped), as name and source;
    /// for a LeanEngine Node project, `cloud.js` and the files it requires.
    static func files(in directory: String) -> [(name: String, source: String)] {
        let root = URL(fileURLWithPath: directory)
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
            return []
        }
        var files: [(String, String)] = []
        for case let url as URL in enumerator {
            if url.lastPathComponent == "node_modules" {
                enumerator.skipDescendants()
                continue
            }
            guard url.pathExtension == "js", let source = try? String(contentsOf: url, encoding: .utf8) else { continue }
            files.append((String(url.path.dropFirst(root.path.count + 1)), source))
        }
        // A LeanEngine Node project runs as it is: cloud.js and what it requires, not its server.
        let markers: Set<String> = FileManager.default.fileExists(atPath: directory + "/package.json") ? ["package.json"] : []
        let selected = CloudCodeFiles.selected(Dictionary(files, uniquingKeysWith: { first, _ in first }), markers: markers)
        return selected.map { ($0.key, $0.value) }.sorted { $0.0 < $1.0 }
    }

    /// Loads the code and adds its functions to `registry`; load failures (in
    /// `code.loadErrors`) and name clashes are logged, and the rest is registered.
    ///
    /// - Parameters:
    ///   - variables: the code's `process.env`.
    ///   - pool: the workers the code may use and how calls share them.
    ///   - refusingClashes: throw (a deploy) instead of logging (the code found at start) when
    ///     a name is defined both in Swift and in JavaScript.
    static func load(
        files: [(name: String, source: String)], into registry: inout FunctionRegistry, timeout: Duration,
        outbound policies: [EnvironmentName: OutboundPolicy] = [:], variables: [String: String] = [:],
        pool: CloudCode.Pool = .init(), collectsGarbageBeforeEachStep: Bool = false, refusingClashes: Bool = false,
        queue: QueueReference = QueueReference(), logger: Logger
    ) async throws -> CloudCode? {
        let outbound = outboundHTTP(policies)
        if files.isEmpty { return nil }
        var limits = CloudCode.Limits(variables: variables.mapValues(JSONValue.string))
        limits.collectsGarbageBeforeEachStep = collectsGarbageBeforeEachStep
        let code = try await CloudCode(files: files, pool: pool, limits: limits)
        // What `AV.Cloud.run` reaches from a hook: the Swift functions (the script's own it
        // runs in place, as it does from a function).
        let swiftFunctions = registry
        for (file, error) in code.loadErrors {
            logger.error("Cloud code \(file) failed to load: \(error)")
        }
        let clashes = code.definitions.filter { $0.hook == nil && registry.contains($0.name) }.map(\.name)
        if refusingClashes, !clashes.isEmpty {
            throw HostError(
                status: .badRequest, code: 1,
                message: "The bundle was not deployed: \(clashes.map { "'\($0)'" }.joined(separator: ", ")) "
                    + "defined both as a Swift function (compiled into the host) and in JavaScript; rename one.")
        }
        for definition in code.definitions {
            if let hook = definition.hook {
                JavaScriptHooks.register(
                    hook, named: definition.name, of: code, into: &registry.hooks, outbound: outbound,
                    backgroundTime: pool.backgroundTime,
                    swiftFunctions: swiftFunctions, variables: variables, queue: queue, logger: logger)
                continue
            }
            guard !registry.contains(definition.name) else {
                logger.error(
                    "Cloud function '\(definition.name)' is defined as a Swift function and in JavaScript; the Swift one is kept, the JavaScript one is not served.")
                continue
            }
            let name = definition.name
            var options = FunctionRegistry.Options(
                isInternal: definition.isInternal, timeout: timeout, fetchesUser: definition.fetchesUser)
            options.keepsDeadline = true
            registry.define(name, options: options) { request in
                try await call(code, name, request, outbound: outbound(request.environment), backgroundTime: pool.backgroundTime)
            }
        }
        logger.info("Loaded \(code.definitions.count) JavaScript cloud functions and hooks from \(files.count) files.")
        return code
    }

    /// A function's call: its request as the script receives it (`{params, sessionToken, meta,
    /// currentUser}`), run by the one adapter functions and hooks share.
    private static func call(
        _ code: CloudCode, _ name: String, _ request: FunctionRequest, outbound: @escaping ScriptHost.Outbound,
        backgroundTime: Duration
    ) async throws -> JSONValue {
        let payload: JSONValue = [
            "params": request.params, "sessionToken": request.sessionToken.map(JSONValue.string) ?? .null,
            "meta": ["remoteAddress": request.remoteAddress.map(JSONValue.string) ?? .null],
            "currentUser": request.currentUser ?? .null,
        ]
        return try await JavaScriptCall(code: code, name: name, target: .function(rpc: request.isRPC)).run(
            payload, data: request.data, codeEnvironment: request.environment, deadline: request.deadline,
            backgroundTime: backgroundTime, run: { try await request.run($0, params: $1, sessionToken: $2) },
            outbound: outbound, client: JavaScriptCall.client(user: request.currentUser, address: request.remoteAddress),
            searchLinks: request.searchLinks, queue: request.queue, logger: request.taggedLogger)
    }

    /// `fetch` for an environment's scripts: through the shared client, under that
    /// environment's allow-list (an environment without one reaches no host).
    static func outboundHTTP(_ policies: [EnvironmentName: OutboundPolicy]) -> @Sendable (EnvironmentName) -> ScriptHost.Outbound {
        let client = OutboundHTTP()
        return { environment in
            let policy = policies[environment] ?? OutboundPolicy()
            return { arguments, deadline throws(HostCallError) in
                do throws(OutboundHTTPError) {
                    return try await client.perform(arguments: arguments, policy: policy, deadline: deadline)
                } catch {
                    throw HostCallError(code: error.code, message: error.message)
                }
            }
        }
    }
}
