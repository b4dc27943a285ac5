import Foundation

/// A successful server answer: its bytes, for `--json`, and its parsed object, for the summary.
struct EngineAnswer {
    /// The body exactly as the server sent it.
    let body: Data

    /// The body parsed as a JSON object.
    let object: [String: Any]

    /// The answer as one line of JSON, what `--json` prints.
    var jsonLine: String { JSONText.oneLine(body) }

    /// The integer at `key`, or a failure naming the field when the server left it out.
    func int(_ key: String) throws(ClientFailure) -> Int {
        // JSONSerialization hands numbers back as NSNumber, which casts to Int only when integral.
        guard let number = object[key] as? Int else {
            throw ClientFailure(message: "the server's answer has no integer \"\(key)\": \(jsonLine)")
        }
        return number
    }

    /// The string at `key`, or `fallback` when absent, since summaries should not fail on a missing label.
    func string(_ key: String, default fallback: String = "") -> String {
        object[key] as? String ?? fallback
    }
}
