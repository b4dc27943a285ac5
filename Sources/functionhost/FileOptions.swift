import ArgumentParser
import FunctionHost

/// The options of `serve` about files: their size limit and who may delete them.
struct FileOptions: ParsableArguments {
    @Option(
        name: .customLong("max-file-size"),
        help: "The largest file accepted, in megabytes (default: $FUNCTIONHOST_MAX_FILE_SIZE_MB, else 100).")
    var maxFileSize: Int?

    @Flag(
        name: .customLong("owners-delete-files"),
        help: "Let a file's owner delete it without the master key (closed by default, as on LeanCloud).")
    var ownersDeleteFiles = false

    /// Applies the options (and their environment variable) to a configuration.
    func apply(to configuration: inout HostConfiguration, environment: [String: String]) throws {
        if let megabytes = maxFileSize ?? environment["FUNCTIONHOST_MAX_FILE_SIZE_MB"].flatMap(Int.init) {
            guard megabytes > 0 else { throw ValidationError("--max-file-size must be at least 1 (megabytes).") }
            configuration.maxFileSize = megabytes * 1024 * 1024
        }
        configuration.ownersMayDeleteFiles = ownersDeleteFiles
    }
}
