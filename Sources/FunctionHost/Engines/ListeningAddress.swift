import NIOCore
import Synchronization

/// Where this host listens, once it does: the base URL an app's engine reaches it at
/// (`LEANCLOUD_API_SERVER`). Known only when the server is running (a port of 0 is chosen then),
/// so engines are started after it.
final class ListeningAddress: Sendable {
    private let state = Mutex<(url: String?, waiters: [CheckedContinuation<String, Never>])>((nil, []))

    /// Records the server's channel address: loopback when it listens on every interface.
    func record(_ address: SocketAddress?) {
        guard let address, let port = address.port else { return }
        var host = address.ipAddress ?? "127.0.0.1"
        if host == "0.0.0.0" { host = "127.0.0.1" }
        if host == "::" { host = "::1" }
        let url = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        let waiters = state.withLock { state in
            state.url = url
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: url) }
    }

    /// The base URL, waiting until the server listens.
    func url() async -> String {
        await withCheckedContinuation { continuation in
            let known: String? = state.withLock { state in
                if let url = state.url { return url }
                state.waiters.append(continuation)
                return nil
            }
            if let known { continuation.resume(returning: known) }
        }
    }
}
