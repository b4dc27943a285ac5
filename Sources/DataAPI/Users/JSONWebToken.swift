import Foundation
import JSON

/// A JSON Web Token in its compact form, `header.payload.signature` (each part base64url), taken
/// apart so its signature can be checked. Nothing in it is trusted until that check passes.
struct JSONWebToken: Sendable {
    /// The JOSE header (`alg`, `kid`).
    let header: JSONValue
    /// The payload's claims (`iss`, `aud`, `exp`, `sub`, ...).
    let claims: JSONValue
    /// `header.payload` exactly as sent: the bytes the signature covers.
    let signingInput: Data
    /// The signature's bytes.
    let signature: Data

    /// The token in `text`; nil unless it has three base64url parts, the first two JSON objects.
    init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Self.object(parts[0]), let claims = Self.object(parts[1]),
            let signature = Self.base64URLDecoded(parts[2]), !signature.isEmpty
        else { return nil }
        self.header = header
        self.claims = claims
        self.signingInput = Data("\(parts[0]).\(parts[1])".utf8)
        self.signature = signature
    }

    private static func object(_ part: Substring) -> JSONValue? {
        guard let bytes = base64URLDecoded(part), let value = try? JSONValue(parsing: bytes), case .object = value else { return nil }
        return value
    }

    /// Base64url (RFC 4648 §5) without padding, as JOSE writes it; padding is tolerated.
    static func base64URLDecoded(_ text: some StringProtocol) -> Data? {
        var base64 = String(text).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
