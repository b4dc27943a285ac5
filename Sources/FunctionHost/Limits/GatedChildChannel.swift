import HummingbirdCore
import Logging
import NIOCore

/// A child channel of Hummingbird's (HTTP/1, or HTTP/1 with the WebSocket upgrade) with a
/// `ConnectionGate` first in each connection's pipeline, before anything the inner channel adds.
struct GatedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner
    /// A new gate for each connection.
    let gate: @Sendable () -> ConnectionGate

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(gate())
        }.flatMap {
            inner.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
