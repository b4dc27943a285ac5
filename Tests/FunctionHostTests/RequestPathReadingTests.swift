import Testing

@testable import FunctionHost

/// The request log's redaction and the body limits read ASCII paths byte by byte and any other
/// path character by character (issue 32): both readings give the same answers.
@Suite struct RequestPathReadingTests {
    @Test func redactionReadsNonASCIIPathsAsASCIIOnes() {
        #expect(RedactedPath.of("/1.1/resetPassword/tökén") == "/1.1/resetPassword/***")
        #expect(RedactedPath.of("/1.1/resetPassword/token") == "/1.1/resetPassword/***")
        #expect(RedactedPath.of("/files/ключ/имя.txt") == "/files/***/имя.txt")
        #expect(RedactedPath.of("/files/key/name.txt") == "/files/***/name.txt")
        #expect(RedactedPath.of("//1.1/verifySmsCode/12é") == "/1.1/verifySmsCode/***")
        #expect(RedactedPath.of("/1.1/classes/Tödo/x") == "/1.1/classes/Tödo/x")
        #expect(RedactedPath.of("/1.1/classes/Todo/x") == "/1.1/classes/Todo/x")
        // A combining mark makes another character of the slash before it: not a separator.
        #expect(RedactedPath.of("/1.1/resetPassword/\u{301}x") == "/1.1/resetPassword/\u{301}x")
        #expect(RedactedPath.of("/1.1/functions/hello") == "/1.1/functions/hello")
        #expect(RedactedPath.of("/1/fileUploads/t") == "/1/fileUploads/***")
    }

    @Test func bodyLimitsReadNonASCIIPathsAsASCIIOnes() {
        let limits = BodyLimits(largest: 20 << 20)
        #expect(limits.limit(forPath: "/1.1/batch") == 20 << 20)
        #expect(limits.limit(forPath: "/1/engine/deploys") == 20 << 20)
        #expect(limits.limit(forPath: "/1.1/functions/hello") == BodyLimits.functionCall)
        #expect(limits.limit(forPath: "/1.1/functions/héllo") == BodyLimits.functionCall)
        #expect(limits.limit(forPath: "/1.1/call/x") == BodyLimits.functionCall)
        #expect(limits.limit(forPath: "/call/x") == BodyLimits.other)
        #expect(limits.limit(forPath: "/1.1/classes/Todo") == BodyLimits.other)
        #expect(limits.limit(forPath: "/1.1/classes/Tödo") == BodyLimits.other)
        // "h" with a combining mark is not "h": not the batch route.
        #expect(limits.limit(forPath: "/1.1/batch\u{301}") == BodyLimits.other)
        #expect(BodyLimits(largest: 1000).limit(forPath: "/1.1/functions/hello") == 1000)
    }
}
