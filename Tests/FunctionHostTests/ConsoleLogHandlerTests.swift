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

    /// The request log hands its fields over and the writer formats them: the line is the one
    /// the logger writes for the same fields, in its place among the others.
    @Test func aRequestLineHandedOverAsFieldsIsTheLineTheLoggerWrites() throws {
        let line = RequestLogLine(
            method: "POST", route: "/1.1/resetPassword/{token}", path: "/1.1/resetPassword/secret", status: 200,
            duration: .microseconds(1_234), environment: "production")
        let handedOver = try written(output: { ConsoleOutput(file: $0, startsWriter: false) }) { logger in
            logger[metadataKey: "hb.request.id"] = "9934c04be85e96bb"
            logger.info("before")
            (logger.handler as? ConsoleLogHandler)?.logRequest(line)
            logger.info("after")
        }
        let logged = try written { logger in
            logger[metadataKey: "hb.request.id"] = "9934c04be85e96bb"
            logger.info("before")
            logger.info("request", metadata: line.metadata)
            logger.info("after")
        }
        // The time is the second each was logged in.
        let withoutTimes = { (text: String) in text.split(separator: "\n").map { $0.drop { $0 != " " } } }
        #expect(withoutTimes(handedOver) == withoutTimes(logged))
        #expect(withoutTimes(handedOver).count == 3)
        #expect(
            withoutTimes(handedOver)[1]
                == " info test : environment=production hb.request.id=9934c04be85e96bb method=POST ms=1.234"
                + " path=/1.1/resetPassword/*** route=/1.1/resetPassword/{token} status=200 request")
    }

    /// A duration prints in milliseconds with three decimals (zero-padded), byte by byte for the
    /// writer and as the field's text alike; a status in decimal.
    @Test(arguments: [
        (Int64(0), "0.000"), (7, "0.007"), (36, "0.036"), (999, "0.999"), (1_000, "1.000"), (1_005, "1.005"),
        (12_340, "12.340"), (2_000_005, "2000.005"), (86_400_000_000, "86400000.000"),
    ])
    func theDurationAndStatusPrintAsTheLineSays(micros: Int64, printed: String) {
        var bytes: [UInt8] = []
        RequestLogLine.appendMilliseconds(.microseconds(micros), to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == printed)
        #expect(RequestLogLine.milliseconds(.microseconds(micros)) == printed)
        for status in [0, 7, 200, 404, 503, Int(micros), -Int(micros)] {
            var digits: [UInt8] = []
            RequestLogLine.appendDecimal(status, to: &digits)
            #expect(String(decoding: digits, as: UTF8.self) == String(status))
        }
    }

    /// The logger's own keys sort among the line's, before, between and after them; one the
    /// line sets too is the line's.
    @Test func aRequestLineMergesTheLoggersKeysAsTheLoggerDoes() throws {
        let line = RequestLogLine(
            method: "GET", route: "/1.1/classes/{className}", path: "/1.1/classes/Todo", status: 404,
            duration: .milliseconds(12), environment: "staging")
        let write = { (useFields: Bool) in
            try self.written(output: { ConsoleOutput(file: $0, startsWriter: false) }) { logger in
                for key in ["a", "hb.request.id", "mz", "path", "zz"] { logger[metadataKey: key] = "\(key)-value" }
                logger[metadataKey: "count"] = .stringConvertible(7)
                if useFields {
                    (logger.handler as? ConsoleLogHandler)?.logRequest(line)
                } else {
                    logger.info("request", metadata: line.metadata)
                }
            }
        }
        let (handedOver, logged) = (try write(true), try write(false))
        #expect(handedOver.drop { $0 != " " } == logged.drop { $0 != " " })
        #expect(handedOver.contains(" a=a-value count=7 environment=staging hb.request.id=hb.request.id-value method=GET"))
        #expect(handedOver.contains(" path=/1.1/classes/Todo route=/1.1/classes/{className} status=404 zz=zz-value request\n"))
    }

    @Test func aRequestLineBelowTheLevelIsNotHandedOver() throws {
        let output = ConsoleOutput(file: .nullDevice, capacity: 1000, startsWriter: false)
        let handler = ConsoleLogHandler(label: "test", level: .warning, output: output)
        handler.logRequest(
            RequestLogLine(method: "GET", route: "/", path: "/", status: 200, duration: .zero, environment: "production"))
        output.write(String(repeating: "x", count: 999) + "\n")
        #expect(output.droppedLines == 0)
        output.close()
    }

    @Test func aRequestLineCountsAgainstTheBuffer() throws {
        let text = try written(output: { ConsoleOutput(file: $0, capacity: 300, startsWriter: false) }) { logger in
            for index in 1...5 {
                (logger.handler as? ConsoleLogHandler)?.logRequest(
                    RequestLogLine(method: "GET", route: "/\(index)", path: "/\(index)", status: 200, duration: .zero, environment: "production"))
            }
        }
        // Each is counted as about 140 bytes: two fit, the other three are dropped.
        #expect(text.contains(" warning console : dropped=3 log lines dropped: the log's buffer was full\n"))
        #expect(text.contains("path=/2 "))
        #expect(!text.contains("path=/3 "))
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
