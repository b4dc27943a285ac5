import AsyncHTTPClient
package import NIOCore
import NIOHTTP1

extension OutboundHTTP {
    /// GETs `url` as `policy` allows (every redirect hop checked again) and hands its body to
    /// `sink` a part at a time as it arrives, so a large body is never held; all before
    /// `deadline`. A status other than 200 is an error and its body is not read.
    ///
    /// - Throws: `OutboundHTTPError` for what the policy refuses, a transport failure, another
    ///   status or the deadline passing; whatever `sink` throws, as it is.
    package func download(
        _ url: String, policy: OutboundPolicy, deadline: ContinuousClock.Instant,
        into sink: @escaping @Sendable (ByteBuffer) async throws -> Void
    ) async throws {
        let request = OutboundRequest(url: url)
        // The deadline races the whole exchange, body included: a server that drips its bytes
        // can't hold the download past it.
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                let (response, target) = try await head(request, policy: policy, deadline: deadline)
                guard response.status == .ok else {
                    throw OutboundHTTPError.connectionFailed(target.authority, "it answered \(response.status.code) \(response.status.reasonPhrase)")
                }
                var parts = response.body.makeAsyncIterator()
                while true {
                    // The transport's failures read as the script's are; the sink's pass as they are.
                    let part: ByteBuffer?
                    do {
                        part = try await parts.next()
                    } catch {
                        throw Self.failure(error, authority: target.authority)
                    }
                    guard let part else { return true }
                    try await sink(part)
                }
            }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return false
            }
            defer { group.cancelAll() }
            guard try await group.next() == true else { throw OutboundHTTPError.timedOut }
        }
    }
}
