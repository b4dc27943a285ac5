import JSON
package import Logging

/// The sender used when no provider is configured: each message goes to the outbox, class
/// `_Outbox`, which only the master key reads (`GET /1.1/classes/_Outbox?where={"to":"..."}`),
/// so local development and tests see the codes; the log says a message was kept there, without
/// its text (a code or link in a log is a live credential for whoever reads it).
package struct OutboxSender: MessageSender {
    /// The service the outbox is written through.
    public let data: DataService
    /// Where each message is logged.
    public let logger: Logger

    /// Creates the sender.
    public init(data: DataService, logger: Logger) {
        self.data = data
        self.logger = logger
    }

    public func send(_ message: OutgoingMessage) async throws {
        logger.info(
            "Outbox: \(message.channel.rawValue) to \(message.to) kept in _Outbox (the master key reads it).",
            metadata: ["purpose": .string(message.purpose)])
        guard case .object(var fields) = message.json else { return }
        fields["ACL"] = [:]
        _ = try await data.create("_Outbox", body: fields, caller: Caller.master.withoutHooks)
    }
}
