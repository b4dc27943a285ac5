import CallSupport
import Foundation
import Hooks
import Logging
import TestSupport
import Testing

@testable import FunctionHost

@Suite struct ConsoleLogHandlerTests {
    /// Logs through a handler writing to a fresh file and returns what it wrote.
    private func written(_ body: (inout Logger) -> Void) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("log-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try #require(FileHandle(forWritingAtPath: path))
        let output = ConsoleOutput(file: file)
        var logger = Logger(label: "test") { label in ConsoleLogHandler(label: label, level: .info, output: output) }
        body(&logger)
        try file.close()
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    @Test func aLineCarriesLevelLabelSortedMetadataAndMessage() throws {
        let text = try written { logger in
            logger[metadataKey: "request"] = "7"
            logger.tagged(["function": "hello"]).warning("slow", metadata: ["ms": "12"])
        }
        #expect(text.hasSuffix(" warning test : function=hello ms=12 request=7 slow\n"))
    }

    @Test func linesBelowTheLevelAreNotWritten() throws {
        let text = try written { logger in
            logger.debug("hidden")
            logger.info("shown")
        }
        #expect(!text.contains("hidden"))
        #expect(text.contains(" info test : shown\n"))
    }
}
