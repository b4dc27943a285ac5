import ArgumentParser
import Foundation
import FunctionHost
import S3Storage
import Testing

@testable import functionhost

/// The bucket's options as `serve` reads them: each reaches the configuration, credentials
/// come from the environment when the command line gives none, and settings that can't work
/// are refused before the server starts.
@Suite struct FileS3OptionsTests {
    private static func configuration(_ arguments: [String], environment: [String: String] = [:]) throws -> HostConfiguration {
        var configuration = HostConfiguration(dataDirectory: "", keys: AppKeys(appId: "", appKey: "", masterKey: "", hookKey: ""))
        try FileOptions.parse(arguments).apply(to: &configuration, environment: environment)
        return configuration
    }

    @Test func eachOptionReachesTheConfiguration() throws {
        let set = try Self.configuration([
            "--files-s3-endpoint", "http://127.0.0.1:9000", "--files-s3-bucket", "my-app", "--files-s3-region", "eu-west-1",
            "--files-s3-prefix", "app/files/", "--files-s3-path-style", "--files-s3-access-key", "AK", "--files-s3-secret-key", "SK",
            "--files-redirect",
        ])
        let s3 = try #require(set.s3Files)
        #expect(s3.endpoint.absoluteString == "http://127.0.0.1:9000" && s3.bucket == "my-app" && s3.region == "eu-west-1")
        #expect(s3.prefix == "app/files/" && s3.pathStyle && s3.accessKey == "AK" && s3.secretKey == "SK")
        #expect(set.filesRedirect)
        // Without them, files stay on disk and are streamed.
        let defaults = try Self.configuration([])
        #expect(defaults.s3Files == nil && !defaults.filesRedirect)
    }

    @Test func credentialsComeFromTheEnvironmentUnlessGiven() throws {
        let environment = ["AWS_ACCESS_KEY_ID": "ENV-AK", "AWS_SECRET_ACCESS_KEY": "ENV-SK"]
        let bucket = ["--files-s3-endpoint", "https://s3.us-east-1.amazonaws.com", "--files-s3-bucket", "my-app"]
        let fromEnvironment = try #require(try Self.configuration(bucket, environment: environment).s3Files)
        #expect(fromEnvironment.accessKey == "ENV-AK" && fromEnvironment.secretKey == "ENV-SK")
        #expect(!fromEnvironment.pathStyle && fromEnvironment.region == "us-east-1" && fromEnvironment.prefix.isEmpty)
        let given = try #require(
            try Self.configuration(bucket + ["--files-s3-secret-key", "CLI-SK"], environment: environment).s3Files)
        #expect(given.accessKey == "ENV-AK" && given.secretKey == "CLI-SK")
    }

    @Test func settingsThatCantWorkAreRefused() {
        let keys = ["--files-s3-access-key", "AK", "--files-s3-secret-key", "SK"]
        for arguments in [
            ["--files-s3-endpoint", "http://127.0.0.1:9000"] + keys, ["--files-s3-bucket", "my-app"] + keys,
            ["--files-redirect"],
            ["--files-s3-endpoint", "http://127.0.0.1:9000", "--files-s3-bucket", "my-app"],
            ["--files-s3-endpoint", "file:///etc", "--files-s3-bucket", "my-app"] + keys,
            ["--files-s3-endpoint", "http://h/x?y", "--files-s3-bucket", "my-app"] + keys,
            ["--files-s3-endpoint", "http://h", "--files-s3-bucket", "My_App"] + keys,
            ["--files-s3-endpoint", "http://h", "--files-s3-bucket", "my-app", "--files-s3-prefix", "../up"] + keys,
            ["--files-s3-endpoint", "http://h", "--files-s3-bucket", "my-app", "--files-s3-region", "us east"] + keys,
        ] {
            #expect(throws: (any Error).self, "\(arguments)") { try Self.configuration(arguments) }
        }
    }
}
