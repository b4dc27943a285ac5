import DataAPI
package import HTTPTypes
package import JSON
package import Testing

/// Checks a LeanCloud error answer: a 4xx status (never 500), a body that is exactly
/// `{"code": <number>, "error": <string>}`, and the expected code.
package func expectError(
    _ reply: Reply, code: Int64, status: HTTPResponse.Status? = nil, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect((400..<500).contains(reply.status.code), "expected a 4xx answer, got \(reply)", sourceLocation: sourceLocation)
    if let status {
        #expect(reply.status == status, "status of \(reply)", sourceLocation: sourceLocation)
    }
    #expect(reply["code"] == .int(code), "code of \(reply)", sourceLocation: sourceLocation)
    guard case .string(let message)? = reply["error"] else {
        Issue.record("no error message in \(reply)", sourceLocation: sourceLocation)
        return
    }
    #expect(!message.isEmpty, sourceLocation: sourceLocation)
    #expect(
        Set(reply.json?.objectValue.map { Array($0.keys) } ?? []) == ["code", "error"], "members of \(reply)",
        sourceLocation: sourceLocation)
}

/// The member names of a JSON object (empty for anything else).
package func fieldNames(_ value: JSONValue?) -> Set<String> {
    Set(value?.objectValue.map { Array($0.keys) } ?? [])
}

/// Whether `text` is a canonical LeanCloud date: `2024-01-02T03:04:05.678Z`.
package func isCanonicalISODate(_ text: String?) -> Bool {
    guard let text, text.utf8.count == 24 else { return false }
    return text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil
}

/// Whether `text` looks like an object id: 24 lowercase hex digits.
package func isObjectId(_ text: String?) -> Bool {
    guard let text else { return false }
    return text.wholeMatch(of: /[0-9a-f]{24}/) != nil
}
