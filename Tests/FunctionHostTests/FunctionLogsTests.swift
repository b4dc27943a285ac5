import Foundation
import Logging
import Testing

@testable import FunctionHost

/// The recent function and hook lines the console and `functionhost logs` read.
@Suite struct FunctionLogsTests {
    @Test func keepsTheNewestLinesOfEachEnvironmentInOrder() {
        let logs = FunctionLogs(capacity: 3)
        for number in 1...5 {
            logs.record(level: .info, message: "line \(number)", metadata: ["function": "hello", "environment": "production"])
        }
        logs.record(level: .warning, message: "staged", metadata: ["hook": "beforeSave", "class": "Todo", "environment": "staging"])
        let production = logs.lines(environment: "production", limit: 10)
        #expect(production.map(\.message) == ["line 3", "line 4", "line 5"], "the oldest left first")
        #expect(production.map(\.sequence) == [3, 4, 5])
        #expect(logs.lines(environment: "production", after: 4, limit: 10).map(\.message) == ["line 5"])
        #expect(logs.lines(environment: "production", limit: 2).map(\.message) == ["line 4", "line 5"], "the newest of them")
        let staging = logs.lines(environment: "staging", limit: 10)
        #expect(staging.map(\.source) == ["beforeSave:Todo"] && staging.first?.sequence == 6)
    }

    @Test func linesWithoutAFunctionOrHookAreNotKept() {
        let logs = FunctionLogs(capacity: 3)
        logs.record(level: .info, message: "request", metadata: ["environment": "production"])
        #expect(logs.lines(environment: "production", limit: 10).isEmpty)
    }

    @Test func aLineCarriesItsTimeAndItsOtherMetadata() throws {
        let logs = FunctionLogs()
        let before = Date.now.addingTimeInterval(-1)
        logs.record(level: .info, message: "hi", metadata: ["function": "hello", "requestId": "r1"])
        let line = try #require(logs.lines(environment: "production", limit: 1).first)
        #expect(line.metadata == ["requestId": "r1"])
        let time = try #require(try? Date(line.time, strategy: .iso8601))
        #expect(time >= before && time <= Date.now.addingTimeInterval(1), "\(line.time)")
    }
}
