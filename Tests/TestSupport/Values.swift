import DataAPI
import Foundation
package import JSON

/// `?a=1&b=2`, each part percent-encoded; empty for no parameters.
package func queryString(_ parameters: [String: String]) -> String {
    if parameters.isEmpty { return "" }
    return "?" + parameters.keys.sorted().map { key in "\(encode(key))=\(encode(parameters[key]!))" }
        .joined(separator: "&")
}

/// Percent-encodes everything but letters and digits.
package func encode(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
}

/// Parses JSON text written by the test itself.
package func json(_ text: String) throws -> JSONValue {
    try JSONValue(parsing: text)
}

extension Int64 {
    /// The number as an `Int`.
    package var asInt: Int { Int(self) }
}

/// A Pointer value.
package func pointer(_ className: String, _ id: String) -> JSONValue {
    ["__type": "Pointer", "className": .string(className), "objectId": .string(id)]
}

/// A Date value.
package func date(_ iso: String) -> JSONValue {
    ["__type": "Date", "iso": .string(iso)]
}

/// A field operation.
package func op(_ name: String, _ members: [String: JSONValue] = [:]) -> JSONValue {
    var object = members
    object["__op"] = .string(name)
    return .object(object)
}
