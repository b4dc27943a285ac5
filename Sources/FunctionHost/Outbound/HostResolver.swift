import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolves host names with the system resolver, the way the connection itself will:
/// `getaddrinfo`, so `/etc/hosts` and the configured DNS servers both apply.
///
/// `getaddrinfo` blocks, for seconds when a DNS server is slow, so each lookup runs on a thread
/// of its own rather than on the cooperative pool (two threads on a two-core machine) or an
/// event loop. A cancelled caller stops waiting at once; the thread finishes on its own.
enum HostResolver {
    /// Every address `host` resolves to (IPv4 and IPv6, without duplicates).
    ///
    /// - Throws: `connectionFailed` when the name doesn't resolve, `timedOut` when the task is
    ///   cancelled first (the request's deadline is what cancels it).
    static func addresses(of host: String) async throws(OutboundHTTPError) -> [IPAddress] {
        let lookup = PendingLookup()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard lookup.wait(continuation) else { return }
                Thread.detachNewThread { lookup.finish(resolve(host)) }
            }
        } onCancel: {
            lookup.finish(.failure(.timedOut))
        }
        return try result.get()
    }

    /// The blocking lookup.
    private static func resolve(_ host: String) -> Result<[IPAddress], OutboundHTTPError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc) || canImport(Musl)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        // No AI_ADDRCONFIG: every address the name has is checked, even one of a family this
        // machine has no route for today.
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            let reason = String(cString: gai_strerror(status))
            return .failure(.connectionFailed(host, "the host name could not be resolved (\(reason))"))
        }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let current = node {
            if let socketAddress = current.pointee.ai_addr, let address = IPAddress(socketAddress: socketAddress),
                !addresses.contains(address)
            {
                addresses.append(address)
            }
            node = current.pointee.ai_next
        }
        guard !addresses.isEmpty else {
            return .failure(.connectionFailed(host, "the host name has no IP address"))
        }
        return .success(addresses)
    }
}

/// One lookup's hand-over between the resolving thread, the waiting task and its cancellation:
/// whichever of "result" and "cancelled" comes first resumes the task, exactly once.
private final class PendingLookup: Sendable {
    /// Where the hand-over stands.
    private enum State {
        /// Neither the waiter nor an outcome has arrived.
        case idle
        /// The task waits for an outcome.
        case waiting(CheckedContinuation<Result<[IPAddress], OutboundHTTPError>, Never>)
        /// The outcome is known (and given to the waiter, if there was one).
        case finished(Result<[IPAddress], OutboundHTTPError>)
    }

    /// The state, shared by three threads.
    private let state = Mutex<State>(.idle)

    /// Registers the waiting task; false (after resuming it) when the outcome is already known,
    /// which happens when the task was cancelled before it began to wait.
    func wait(_ continuation: CheckedContinuation<Result<[IPAddress], OutboundHTTPError>, Never>) -> Bool {
        let known: Result<[IPAddress], OutboundHTTPError>? = state.withLock { state in
            if case .finished(let result) = state { return result }
            state = .waiting(continuation)
            return nil
        }
        guard let known else { return true }
        continuation.resume(returning: known)
        return false
    }

    /// Delivers an outcome; only the first one counts.
    func finish(_ result: Result<[IPAddress], OutboundHTTPError>) {
        let waiter: CheckedContinuation<Result<[IPAddress], OutboundHTTPError>, Never>? = state.withLock { state in
            switch state {
            case .idle:
                state = .finished(result)
                return nil
            case .waiting(let continuation):
                state = .finished(result)
                return continuation
            case .finished:
                return nil
            }
        }
        waiter?.resume(returning: result)
    }
}
