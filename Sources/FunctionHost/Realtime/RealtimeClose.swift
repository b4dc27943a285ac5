/// Why the server ends a realtime connection, with the WebSocket close code it sends. LeanCloud's
/// codes where it has one; the JS SDK gives up for good on 4100, 4103 and 4110 and reconnects on
/// any other, which is what each of these wants of a client.
struct RealtimeClose: Sendable, Hashable {
    /// The close code.
    var code: UInt16
    /// The close frame's reason, for a person reading the client's log.
    var reason: String
    /// The metrics' label.
    var label: String

    /// A login for another app (4100, LeanCloud's "app not available"): the client must not
    /// retry with the same settings.
    static let wrongApp = RealtimeClose(
        code: 4100, reason: "This server does not serve that app id.", label: "wrong_app")
    /// A login without a usable subscription id (4103, LeanCloud's "invalid login").
    static let invalidLogin = RealtimeClose(
        code: 4103, reason: "The login has no valid installationId (subscription id).", label: "invalid_login")
    /// A browser page of an origin the server doesn't allow (4110, LeanCloud's "invalid
    /// origin"): the JS SDK gives up rather than reconnecting.
    static let invalidOrigin = RealtimeClose(
        code: 4110, reason: "This page's origin may not connect.", label: "invalid_origin")
    /// Nothing arrived for the idle time (4107, LeanCloud's "read timeout"): the SDKs reconnect.
    static let idle = RealtimeClose(code: 4107, reason: "Nothing was received for too long.", label: "idle")
    /// More commands a second than the limit allows (4116, LeanCloud's "command sent too fast").
    static let tooFast = RealtimeClose(code: 4116, reason: "Commands sent too fast.", label: "too_fast")
    /// The client read its pushes too slowly and its queue filled (4120, this server's own): the
    /// SDKs reconnect, log in and subscribe again, and the subscriptions resume.
    static let slowConsumer = RealtimeClose(
        code: 4120, reason: "Events were read too slowly: reconnect and resubscribe.", label: "slow_consumer")
    /// The server's queue of changes overflowed and an event of the connection's subscriptions
    /// was lost (4121, this server's own): the SDKs reconnect, log in and subscribe again.
    static let eventsLost = RealtimeClose(
        code: 4121, reason: "The server fell behind and lost events: reconnect and resubscribe.", label: "events_lost")
    /// A frame that is no command of the dialect (1007, RFC 6455's "invalid payload data").
    static func malformed(_ why: String) -> RealtimeClose {
        RealtimeClose(code: 1007, reason: "Malformed frame: \(why).", label: "malformed")
    }
}
