import Synchronization

/// The work a call started and didn't await (a save it didn't return, a timer), running on
/// after the call answered, as LeanEngine's Node process lets it; and the console lines that
/// work logged.
///
/// It ends when its promises have settled (no host call or timer of the call is pending), when
/// its bound passes (`CloudCode.Pool.backgroundTime`), or when it fails; then whoever waits
/// for its lines gets them, once.
public final class BackgroundWork: Sendable {
    /// A console line: its level and message.
    public typealias Line = (level: String, message: String)

    private struct State {
        var lines: [Line] = []
        var ended = false
        var waiters: [@Sendable ([Line]) -> Void] = []
    }

    private let state = Mutex(State())

    init() {}

    /// Calls `body` with the lines logged after the answer once the work has ended; at once
    /// (on the calling thread) if it has already.
    public func whenEnded(_ body: @escaping @Sendable ([Line]) -> Void) {
        let lines = state.withLock { state -> [Line]? in
            guard state.ended else {
                state.waiters.append(body)
                return nil
            }
            return state.lines
        }
        if let lines { body(lines) }
    }

    /// Waits until the work has ended, and returns the lines it logged after the answer.
    public func ended() async -> [Line] {
        await withCheckedContinuation { continuation in
            whenEnded { continuation.resume(returning: $0) }
        }
    }

    /// Whether the work has ended.
    public var hasEnded: Bool { state.withLock { $0.ended } }

    /// Ends the work with `lines` added to what it logged; later calls do nothing.
    func end(adding lines: [Line] = []) {
        let (all, waiters) = state.withLock { state -> ([Line], [@Sendable ([Line]) -> Void]) in
            guard !state.ended else { return ([], []) }
            state.ended = true
            state.lines += lines
            defer { state.waiters = [] }
            return (state.lines, state.waiters)
        }
        for waiter in waiters { waiter(all) }
    }
}
