import Foundation
import Hummingbird
import Synchronization

/// A request log at its cheapest: one line per request formatted on the request's thread into a
/// shared buffer, written to standard output in 64 KiB pieces.
final class FloorLog: Sendable {
    private let buffer = Mutex<[UInt8]>([])

    /// Adds `line`; writes the buffer out once it holds 64 KiB.
    func write(_ line: String) {
        let full: [UInt8]? = buffer.withLock { buffer in
            buffer.append(contentsOf: line.utf8)
            guard buffer.count >= 1 << 16 else { return nil }
            defer { buffer.removeAll(keepingCapacity: true) }
            return buffer
        }
        if let full { full.withUnsafeBytes { _ = Foundation.write(1, $0.baseAddress, $0.count) } }
    }
}

/// Logs each request: its time, method, path, status and duration.
struct FloorLogMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Where the lines go.
    let log: FloorLog

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var status = 500
        defer {
            let (seconds, attoseconds) = start.duration(to: .now).components
            let micros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
            log.write("\(time(nil)) info request method=\(request.method) path=\(request.uri.path) status=\(status) us=\(micros)\n")
        }
        do {
            let response = try await next(request, context)
            status = response.status.code
            return response
        } catch let error as HTTPError {
            status = error.status.code
            throw error
        }
    }
}
