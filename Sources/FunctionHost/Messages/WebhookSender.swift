import AsyncHTTPClient
public import DataAPI
public import Foundation
import NIOCore
import NIOHTTP1

/// Delivers each message by POSTing it as JSON (`{"channel", "to", "purpose", "smsCode" |
/// "link", "text"}`, with `template`, `sign`, `smsType`, `variables`, and an email's `subject`
/// and `html` when set) to a URL the operator configured: a small service of theirs that talks
/// to their SMS and email providers. A status other than 2xx, or no answer in 10 seconds, fails
/// the request that asked for the message (602).
///
/// The URL is the operator's, not cloud code's, so the outbound allow-list does not apply.
public struct WebhookSender: MessageSender {
    /// Where messages are posted.
    public let url: URL
    /// Sent as `X-LC-Hook-Key`, so the receiver can tell the host's calls from others.
    public let hookKey: String

    /// Creates a sender that posts to `url`.
    public init(url: URL, hookKey: String) {
        self.url = url
        self.hookKey = hookKey
    }

    public func send(_ message: OutgoingMessage) async throws {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        request.headers.add(name: "X-LC-Hook-Key", value: hookKey)
        request.body = .bytes(ByteBuffer(bytes: message.json.jsonBytes))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        // The answer's body is not needed; reading it returns the connection to the pool.
        _ = try? await response.body.collect(upTo: 64 * 1024)
        guard (200..<300).contains(Int(response.status.code)) else {
            throw DataAPIError(.messageNotSent, "The message webhook answered \(response.status.code).")
        }
    }
}
