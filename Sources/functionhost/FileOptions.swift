import ArgumentParser
import FunctionHost
import Thumbnails

/// The options of `serve` about files: their size limit, who may delete them, and thumbnails.
struct FileOptions: ParsableArguments {
    @Option(
        name: .customLong("max-file-size"),
        help: "The largest file accepted, in megabytes (default: $FUNCTIONHOST_MAX_FILE_SIZE_MB, else 100).")
    var maxFileSize: Int?

    @Flag(
        name: .customLong("owners-delete-files"),
        help: "Let a file's owner delete it without the master key (closed by default, as on LeanCloud).")
    var ownersDeleteFiles = false

    @Option(
        name: .customLong("thumbnail-cache-mb"),
        help: "Megabytes of thumbnails (?imageView2/...) kept on disk under the data directory; 0 keeps none (default: 256).")
    var thumbnailCacheMegabytes: Int?

    @Option(
        name: .customLong("thumbnail-slots"),
        help: "Thumbnails made at once, one client at most half of them; past them a request waits --thumbnail-wait, then 503 (default: 2).")
    var thumbnailSlots: Int?

    @Option(
        name: .customLong("thumbnail-wait"),
        help: ArgumentHelp("Seconds a thumbnail request waits for a slot (default: 2).", valueName: "seconds"))
    var thumbnailWait: Double?

    @Option(
        name: .customLong("thumbnail-timeout"),
        help: ArgumentHelp("Seconds making one thumbnail may take; past it, 503 (default: 10).", valueName: "seconds"))
    var thumbnailTimeout: Double?

    /// Applies the options (and their environment variable) to a configuration.
    func apply(to configuration: inout HostConfiguration, environment: [String: String]) throws {
        if let megabytes = maxFileSize ?? environment["FUNCTIONHOST_MAX_FILE_SIZE_MB"].flatMap(Int.init) {
            guard megabytes > 0 else { throw ValidationError("--max-file-size must be at least 1 (megabytes).") }
            configuration.maxFileSize = megabytes * 1024 * 1024
        }
        configuration.ownersMayDeleteFiles = ownersDeleteFiles
        if let megabytes = thumbnailCacheMegabytes {
            guard megabytes >= 0 else { throw ValidationError("--thumbnail-cache-mb must be at least 0.") }
            configuration.thumbnails.cacheBytes = megabytes * 1024 * 1024
        }
        if let seconds = thumbnailTimeout {
            configuration.thumbnails.limits.timeBudget = try Self.duration(seconds, option: "--thumbnail-timeout", least: 0.001)
        }
        if thumbnailSlots != nil || thumbnailWait != nil {
            let slots = thumbnailSlots ?? configuration.thumbnails.gate.slots
            guard (1...256).contains(slots) else { throw ValidationError("--thumbnail-slots takes 1 to 256.") }
            let wait = try thumbnailWait.map { try Self.duration($0, option: "--thumbnail-wait", least: 0) }
            configuration.thumbnails.gate = ThumbnailGate(slots: slots, maxWait: wait ?? configuration.thumbnails.gate.maxWait)
        }
    }

    private static func duration(_ seconds: Double, option: String, least: Double) throws -> Duration {
        guard seconds.isFinite, seconds >= least, seconds <= 3600 else {
            throw ValidationError("\(option) takes seconds from \(least) to 3600.")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
