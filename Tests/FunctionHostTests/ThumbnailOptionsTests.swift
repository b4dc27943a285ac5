import ArgumentParser
import Foundation
import FunctionHost
import Testing
import Thumbnails

@testable import functionhost

/// The thumbnails' options as `serve` reads them: each reaches the configuration, the defaults
/// stand without them, a value out of range is refused before the server starts.
@Suite struct ThumbnailOptionsTests {
    private static func configuration(_ arguments: [String]) throws -> HostConfiguration {
        var configuration = HostConfiguration(dataDirectory: "", keys: AppKeys(appId: "", appKey: "", masterKey: "", hookKey: ""))
        try FileOptions.parse(arguments).apply(to: &configuration, environment: [:])
        return configuration
    }

    @Test func eachOptionReachesTheConfiguration() throws {
        let set = try Self.configuration([
            "--thumbnail-cache-mb", "0", "--thumbnail-slots", "3", "--thumbnail-wait", "0.5", "--thumbnail-timeout", "4",
        ]).thumbnails
        #expect(set.cacheBytes == 0 && set.gate.slots == 3 && set.gate.maxWait == .milliseconds(500))
        #expect(set.limits.timeBudget == .seconds(4))
        let defaults = try Self.configuration([]).thumbnails
        #expect(defaults.cacheBytes == 256 * 1024 * 1024 && defaults.gate.slots == 2 && defaults.gate.maxWait == .seconds(2))
        #expect(defaults.limits == ThumbnailLimits() && defaults.limits.timeBudget == .seconds(10))
    }

    @Test func valuesOutOfRangeAreRefused() {
        for arguments in [
            ["--thumbnail-cache-mb", "-1"], ["--thumbnail-slots", "0"], ["--thumbnail-slots", "100000"],
            ["--thumbnail-wait", "-1"], ["--thumbnail-wait", "nan"], ["--thumbnail-timeout", "0"], ["--thumbnail-timeout", "1e9"],
        ] {
            #expect(throws: (any Error).self, "\(arguments)") { try Self.configuration(arguments) }
        }
    }
}
