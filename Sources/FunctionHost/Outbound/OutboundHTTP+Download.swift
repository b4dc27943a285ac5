import AsyncHTTPClient
package import NIOCore
import NIOHTTP1

extension OutboundHTTP {
    /// GETs `url` as `policy` allows (every redirect hop checked again) and hands its body to
    /// `sink` a part at a time as it arrives, so a large body is never held; all before
    /// `deadline`, and no more than the policy's `maxResponseSize`. A status other than 200 is an
    /// error and its body is not read.
    ///
    /// - Throws: `OutboundHTTPError` for what the policy refuses, a transport failure, another
    ///   status, a body past the limit or the deadline passing; whatever `sink` throws, as it is.
    package func download(
        _ url: String, policy: OutboundPolicy, deadline: ContinuousClock.Instant,
        into sink: @escaping @Sendable (ByteBuffer) async throws -> Void
    ) async throws {
        let limit = policy.maxResponseSize
        try await Self.racing(deadline) {
            let (response, target) = try await head(OutboundRequest(url: url), policy: policy, deadline: deadline)
            guard response.status == .ok else {
                throw OutboundHTTPError.connectionFailed(target.authority, "it answered \(response.status.code) \(response.status.reasonPhrase)")
            }
            if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > limit {
                throw OutboundHTTPError.responseTooLarge(limit: limit)
            }
            var received = 0
            var parts = response.body.makeAsyncIterator()
            while true {
                // The transport's failures read as the script's are; the sink's pass as they are.
                let part: ByteBuffer?
                do {
                    part = try await parts.next()
                } catch {
                    throw Self.failure(error, authority: target.authority)
                }
                guard let part else { return }
                received += part.readableBytes
                guard received <= limit else { throw OutboundHTTPError.responseTooLarge(limit: limit) }
                try await sink(part)
            }
        }
    }
}
