import FunctionHost
import Foundation

/// What `serve` tells a person at start: where it serves, the app's keys, and a request to
/// paste. Written straight to standard output, unbuffered: `print` would hold it in a buffer
/// until exit when the output is a pipe (`make run | tee`), so a newcomer saw no keys.
struct StartupBanner {
    let dataDirectory: String
    let host: String
    let port: Int
    let keys: AppKeys
    /// Whether the master and hook keys were generated just now (shown once; afterwards they
    /// are read from keys.json).
    let showsSecrets: Bool
    /// The address clients reach the server at (`--public-url`); nil says what that turns off.
    var publicURL: String? = nil
    /// The origins web pages may call from (`--web-origins`); said only when it is a list.
    var webOrigins = WebOrigins.any
    /// The SMTP server email goes through (`SMTPSettings.description`: never the password).
    var mail: String? = nil

    /// The banner's lines.
    var lines: [String] {
        let reachable = host == "0.0.0.0" || host == "::" ? "localhost" : host
        var lines = [
            "FunctionHost \(dataDirectory) on \(host):\(port)",
            "  App ID:     \(keys.appId)",
            "  App Key:    \(keys.appKey)",
        ]
        if showsSecrets {
            lines += ["  Master Key: \(keys.masterKey)", "  Hook Key:   \(keys.hookKey)"]
        }
        lines += [
            "  Keys file:  \(dataDirectory)/keys.json",
            publicURL.map { "  Public URL: \($0)" }
                ?? "  Public URL: none: password-reset and verification emails are refused, file URLs use the listening address (set --public-url)",
        ]
        if let mail { lines.append("  Mail:       \(mail)") }
        if !webOrigins.allowsEveryOrigin {
            lines.append("  Web origins: \(webOrigins) (pages elsewhere are refused)")
        }
        lines += [
            "Try it:",
            "  curl -X POST http://\(reachable):\(port)/1.1/classes/Todo \\",
            "    -H \"X-LC-Id: \(keys.appId)\" -H \"X-LC-Key: \(keys.appKey)\" -H \"Content-Type: application/json\" \\",
            "    -d '{\"title\": \"Buy milk\", \"priority\": 2}'",
        ]
        return lines
    }

    /// Writes the banner to standard output at once.
    func write() {
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}
