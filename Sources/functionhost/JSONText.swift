import Foundation

/// Turns Foundation JSON values into text, and text into JSON objects, the way the client prints them.
enum JSONText {
    /// The compact text of a JSON value, keys sorted so output and request bodies are stable.
    ///
    /// Fragments are allowed because a cloud function's result may be a bare string or number.
    static func string(_ value: Any) -> String {
        String(decoding: data(value), as: UTF8.self)
    }

    /// The compact UTF-8 bytes of a JSON value, keys sorted.
    static func data(_ value: Any) -> Data {
        // Only values that came from JSONSerialization or literal dictionaries reach here, so this
        // cannot fail; "null" keeps the output well-formed should that ever change.
        (try? JSONSerialization.data(
            withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes]))
            ?? Data("null".utf8)
    }

    /// The JSON object in `data`, or `nil` when it is not JSON or not an object.
    static func object(_ data: Data) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) as? [String: Any]
    }

    /// A server answer as one line: kept byte for byte when it already is one, else re-encoded.
    static func oneLine(_ data: Data) -> String {
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.contains(where: { $0 == "\n" || $0 == "\r" }),
            let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        else {
            return text
        }
        return string(value)
    }

    /// A JSON value as indented text, keys sorted, for a person to read.
    static func pretty(_ value: Any) -> String {
        let data = try? JSONSerialization.data(
            withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes, .prettyPrinted])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}
