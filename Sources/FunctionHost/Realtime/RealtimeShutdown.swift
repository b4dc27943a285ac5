import Synchronization

/// The realtime connections to tell LeanCloud's `goaway` when the server shuts down gracefully:
/// on it the SDKs drop their cached route and reconnect at once (to another host, or to this
/// one once it is back) instead of taking the close for an error. Shared by every connection of
/// one server.
///
/// Each connection's goaway must be on its way before the WebSocket library's own graceful
/// shutdown writes its close frame. The library registers its shutdown handler once a
/// connection is upgraded and closes from a task it starts there; `GatedChildChannel` registers
/// one that calls `begin()` before handing the connection to the library, and graceful
/// shutdown calls handlers in the order they were registered, so the first such call comes
/// before every library handler and sends every goaway at once, in order ahead of their closes.
final class RealtimeShutdown: Sendable {
    private struct State {
        var begun = false
        var next = 0
        var goaways: [Int: @Sendable () -> Void] = [:]
    }

    private let state = Mutex(State())

    init() {}

    /// Adds a connection's goaway; the id to remove it with once the connection ends. Once
    /// shutdown has begun, `goaway` is called at once (a connection upgraded meanwhile).
    func register(_ goaway: @escaping @Sendable () -> Void) -> Int? {
        let id = state.withLock { state -> Int? in
            guard !state.begun else { return nil }
            state.next += 1
            state.goaways[state.next] = goaway
            return state.next
        }
        if id == nil { goaway() }
        return id
    }

    /// Forgets a connection that ended.
    func remove(_ id: Int?) {
        guard let id else { return }
        state.withLock { _ = $0.goaways.removeValue(forKey: id) }
    }

    /// The server shuts down: every connection's goaway, once (later calls do nothing).
    func begin() {
        let goaways = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.begun else { return [] }
            state.begun = true
            defer { state.goaways = [:] }
            return Array(state.goaways.values)
        }
        for goaway in goaways { goaway() }
    }
}
