import DataAPI
import Foundation
public import Hooks
public import JSON

/// The cloud functions a host serves, registered before it starts and frozen after.
///
/// ```swift
/// registry.define("hello") { _ in "Hello world!" }
/// registry.define("greet", as: Greeting.self) { greeting, request in "Hello, \(greeting.name)!" }
/// ```
public struct FunctionRegistry: Sendable {
    /// A function: request in, JSON out.
    public typealias Handler = @Sendable (FunctionRequest) async throws -> JSONValue

    /// How a function may be called.
    public struct Options: Sendable, Hashable {
        /// Only callable with the master key (or in process), as LeanEngine's `internal: true`.
        public var isInternal: Bool
        /// The wall-clock time a call may take before the caller gets 503, code 124.
        public var timeout: Duration
        /// Whether the session token's user is looked up before the call (LeanEngine's
        /// `fetchUser`); when it is, an unknown token is refused with 401, code 211.
        public var fetchesUser: Bool

        /// The environments that serve the function (`["staging"]` to try one there first); nil
        /// serves it in every environment.
        public var environments: Set<EnvironmentName>?

        /// Whether the function itself ends at its request's deadline (JavaScript functions do,
        /// in their sandbox); otherwise the host races it against a timer.
        var keepsDeadline = false

        /// Creates options.
        public init(isInternal: Bool = false, timeout: Duration = .seconds(15), fetchesUser: Bool = true) {
            self.isInternal = isInternal
            self.timeout = timeout
            self.fetchesUser = fetchesUser
        }
    }

    struct Entry: Sendable {
        var handler: Handler
        var options: Options
    }

    private(set) var entries: [String: Entry] = [:]

    /// The hooks registered with the functions (`registry.hooks.beforeSave("Todo") { ... }`).
    public var hooks = HookRegistry()

    /// An empty registry.
    public init() {}

    /// The registry as one environment serves it: without the functions registered for others.
    func serving(_ environment: EnvironmentName) -> FunctionRegistry {
        var registry = self
        registry.entries = entries.filter { $0.value.options.environments?.contains(environment) ?? true }
        return registry
    }

    /// Whether a function of this name is registered.
    public func contains(_ name: String) -> Bool { entries[name] != nil }

    /// The registered names, sorted.
    public var names: [String] { entries.keys.sorted() }

    /// Registers a function returning JSON. Registering a name twice is a programming error.
    public mutating func define(_ name: String, options: Options = Options(), _ handler: @escaping Handler) {
        precondition(entries[name] == nil, "The cloud function '\(name)' is defined twice.")
        entries[name] = Entry(handler: handler, options: options)
    }

    /// Registers a function whose result is any `Encodable` value.
    public mutating func define<Result: Encodable & Sendable>(
        _ name: String, options: Options = Options(),
        _ handler: @escaping @Sendable (FunctionRequest) async throws -> Result
    ) {
        define(name, options: options) { request -> JSONValue in
            try Self.encode(try await handler(request))
        }
    }

    /// Registers a function whose parameters decode into `Params`.
    public mutating func define<Params: Decodable & Sendable, Result: Encodable & Sendable>(
        _ name: String, as params: Params.Type, options: Options = Options(),
        _ handler: @escaping @Sendable (Params, FunctionRequest) async throws -> Result
    ) {
        define(name, options: options) { request -> JSONValue in
            try Self.encode(try await handler(try request.decodeParams(as: Params.self), request))
        }
    }

    static func encode<Value: Encodable>(_ value: Value) throws -> JSONValue {
        // Common results skip the round trip through JSONEncoder.
        switch value {
        case let json as JSONValue: return json
        case let text as String: return .string(text)
        case let flag as Bool: return .bool(flag)
        case let number as Int: return .int(Int64(number))
        default: break
        }
        let data = try JSONEncoder().encode(value)
        return try JSONValue(parsing: Array(data))
    }
}
