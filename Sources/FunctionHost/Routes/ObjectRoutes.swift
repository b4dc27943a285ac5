import DataAPI
import Hummingbird
import JSON

/// `/classes/{Class}` and `/classes/{Class}/{id}` under one version prefix.
///
/// A POST whose body carries `_method` (what browser SDKs send as text/plain) is dispatched as
/// that method.
struct ObjectRoutes: Sendable {
    let endpoint: ObjectEndpoint

    func register(on group: RouterGroup<HostRequestContext>) {
        group.post("classes/:className") { request, context in
            var request = request
            var body = try await request.jsonObject(context: context)
            let className = try context.parameters.require("className")
            let caller = context.caller
            if let method = Self.tunneledMethod(&body), method == "GET" {
                return try await endpoint.find(
                    className, parameters: Self.parameters(from: body, merging: request.queryParameters), caller: caller)
            }
            return try await endpoint.create(
                className, body: body, parameters: request.queryParameters, caller: caller, origin: RequestOrigin(request, context))
        }
        group.get("classes/:className") { request, context in
            try await endpoint.find(
                try context.parameters.require("className"), parameters: request.queryParameters,
                caller: context.caller)
        }
        group.get("classes/:className/:objectId") { request, context in
            try await endpoint.fetch(
                try context.parameters.require("className"), id: try context.parameters.require("objectId"),
                parameters: request.queryParameters, caller: context.caller)
        }
        group.put("classes/:className/:objectId") { request, context in
            var request = request
            let body = try await request.jsonObject(context: context)
            return try await endpoint.update(
                try context.parameters.require("className"), id: try context.parameters.require("objectId"), body: body,
                parameters: request.queryParameters, caller: context.caller)
        }
        group.delete("classes/:className/:objectId") { request, context in
            var request = request
            // A DELETE may carry a body: the JS SDK sends `__ignore_hooks` in it.
            let body = try await request.jsonObject(context: context)
            return try await endpoint.delete(
                try context.parameters.require("className"), id: try context.parameters.require("objectId"), body: body,
                parameters: request.queryParameters, caller: context.caller)
        }
        group.post("classes/:className/:objectId") { request, context in
            var request = request
            var body = try await request.jsonObject(context: context)
            let className = try context.parameters.require("className")
            let id = try context.parameters.require("objectId")
            let caller = context.caller
            let parameters = request.queryParameters
            switch Self.tunneledMethod(&body) {
            case "GET": return try await endpoint.fetch(className, id: id, parameters: parameters, caller: caller)
            case "PUT":
                return try await endpoint.update(className, id: id, body: body, parameters: parameters, caller: caller)
            case "DELETE":
                return try await endpoint.delete(className, id: id, body: body, parameters: parameters, caller: caller)
            default: throw HostError(status: .methodNotAllowed, code: 107, message: "POST to an object needs _method.")
            }
        }
    }

    /// Removes and returns the `_method` a tunneled request carries.
    private static func tunneledMethod(_ body: inout [String: JSONValue]) -> String? {
        body.removeValue(forKey: "_method")?.stringValue?.uppercased()
    }

    /// Query parameters carried in a tunneled GET body (`where` as an object or as text).
    private static func parameters(from body: [String: JSONValue], merging query: [String: String]) -> [String: String] {
        var parameters = query
        for (key, value) in body where !key.hasPrefix("_") {
            switch value {
            case .string(let text): parameters[key] = text
            default: parameters[key] = value.jsonString
            }
        }
        return parameters
    }
}
