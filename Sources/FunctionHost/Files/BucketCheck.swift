import Logging
import S3Storage

extension FunctionHostServer {
    /// Asks the files' bucket once, as the host starts: a bucket that doesn't exist, or
    /// credentials it refuses, stop the start with S3's own words (every upload and download
    /// would fail, each with a 503 that tells the end user nothing); a store that can't be
    /// reached just now is only logged, so hosts still start through an outage of their store.
    static func checkBucket(of store: S3FileStore, logger: Logger) async throws {
        do {
            try await store.checkBucket()
        } catch where error.kind == .unreachable {
            logger.error("The files' S3 store can't be reached; file uploads and downloads answer 503 until it can",
                metadata: ["error": .string(error.message)])
        } catch {
            throw S3Error(error.kind, "The files' S3 bucket can't be used: \(error.message)")
        }
    }
}
