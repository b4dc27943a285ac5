import NIOCore

/// A connection handler with at most one pending deadline, set and fired on its event loop
/// (`ConnectionGate`, `ConnectionGuard`).
protocol ConnectionDeadline: AnyObject {
    /// The pending deadline; nil once it fired or was cancelled.
    var timer: Scheduled<Void>? { get set }
}

extension ConnectionDeadline {
    /// Replaces the pending deadline with `action` after `delay`.
    func schedule(_ context: ChannelHandlerContext, in delay: TimeAmount, _ action: @escaping (Self, ChannelHandlerContext) -> Void) {
        timer?.cancel()
        timer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: delay) { [self] in
            timer = nil
            action(self, context)
        }
    }

    /// Cancels the pending deadline.
    func cancelTimer() {
        timer?.cancel()
        timer = nil
    }
}
