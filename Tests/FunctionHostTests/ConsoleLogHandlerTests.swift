import CallSupport
import Foundation
import Hooks
import Logging
import TestSupport
import Testing

@testable import FunctionHost

@Suite struct ConsoleLogHandlerTests {
    /// Logs through a handler writing to a fresh file (through `output(file)`, the server's own
    /// buffered output unless told) and returns what it wrote once the output is closed.
    private func written(
        output makeOutput: (FileHandle) -> ConsoleOutput = { ConsoleOutput(file: $0) }, _ body: (inout Logger) -> Void
    ) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("log-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try #require(FileHandle(forWritingAtPath: path))
        let output = makeOutput(file)
        var logger = Logger(label: "test") { label in ConsoleLogHandler(label: label, level: .info, output: output) }
        body(&logger)
        output.close()
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

    @Test func theRequestLineArrivesWholeThroughTheWriterThread() throws {
        let text = try written { logger in
            logger[metadataKey: "hb.request.id"] = "9934c04be85e96bb"
            logger.info(
                "request",
                metadata: [
                    "method": "POST", "route": "/1.1/functions/{name}", "path": "/1.1/functions/hello", "status": "200",
                    "ms": "0.019", "environment": "production",
                ])
            // The writer thread takes the line while the test goes on; the next one follows it.
            Thread.sleep(forTimeInterval: 0.05)
            logger.info("second")
        }
        let lines = text.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(
            lines.first?.hasSuffix(
                " info test : environment=production hb.request.id=9934c04be85e96bb method=POST ms=0.019"
                    + " path=/1.1/functions/hello route=/1.1/functions/{name} status=200 request") == true)
        #expect(lines.last?.hasSuffix(" info test : hb.request.id=9934c04be85e96bb second") == true)
    }

    @Test func aFullBufferDropsLinesCountsThemAndSaysSo() throws {
        let text = try written(output: { ConsoleOutput(file: $0, capacity: 100, startsWriter: false) }) { logger in
            // Each line is about 40 bytes: two fit, the other three are dropped rather than waited for.
            for index in 1...5 { logger.info("line \(index)") }
        }
        #expect(text.contains(" warning console : dropped=3 log lines dropped: the log's buffer was full\n"))
        #expect(text.contains(" info test : line 1\n"))
        #expect(text.contains(" info test : line 2\n"))
        #expect(!text.contains("line 3"))
    }

    @Test func theDroppedCountIsKept() {
        let output = ConsoleOutput(file: .nullDevice, capacity: 10, startsWriter: false)
        output.write("a line longer than ten bytes\n")
        output.write("short\n")
        #expect(output.droppedLines == 1)
        output.close()
    }

    @Test func aLineWrittenAfterCloseIsWrittenAtOnce() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("log-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try #require(FileHandle(forWritingAtPath: path))
        let output = ConsoleOutput(file: file)
        output.close()
        output.write("late\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "late\n")
        try file.close()
    }

    @Test func theTimestampIsFoundationsISO8601() {
        for seconds in [0, 951_782_400, 1_795_721_367, 4_102_444_799] {
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            #expect(ConsoleTimestamp.text(parts) == Date(timeIntervalSince1970: Double(seconds)).formatted(.iso8601))
        }
    }
}
