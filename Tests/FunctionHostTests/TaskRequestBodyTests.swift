import CloudQueue
import DataAPI
import JSON
import Testing

@testable import FunctionHost

/// LeanEngine's body of `POST /1.1/engine/cloud-queue/tasks`, as its Node SDK's
/// `AV.Cloud.enqueue(name, params, options)` sends it, read into the queue's request.
@Suite struct TaskRequestBodyTests {
    @Test func theSDKsOptionsAreReadInMilliseconds() throws {
        let body: JSONValue = [
            "function": "work", "params": ["a": 1], "attempts": 2, "backoff": 1000, "delay": 0, "uniqueId": "x",
            "deliveryMode": "atMostOnce", "keepResult": 60000, "priority": 5, "timeout": 3000.0, "prod": 1,
        ]
        let request = try TaskRequest(leanEngineBody: body, environment: .staging)
        #expect(request.function == "work" && request.params == ["a": 1] && request.environment == .staging)
        #expect(request.attempts == 2 && request.backoff == .milliseconds(1000) && request.delay == .zero)
        #expect(request.uniqueId == "x" && request.deliveryMode == .atMostOnce && request.keepResult == .seconds(60))
        #expect(request.priority == 5 && request.timeout == .seconds(3) && request.userId == nil)
        // What the SDK leaves out takes LeanEngine's defaults; null params are none.
        let plain = try TaskRequest(leanEngineBody: ["function": "work", "params": .null, "uniqueId": .null], environment: .production)
        #expect(plain.params == [:] && plain.attempts == 1 && plain.backoff == .seconds(60) && plain.keepResult == .seconds(300))
        #expect(plain.uniqueId == nil && plain.priority == nil && plain.timeout == nil && plain.deliveryMode == .atLeastOnce)
    }

    @Test func fieldsOfTheWrongTypeAreRefusedByName() {
        let refusals: [(JSONValue, String)] = [
            (["params": [:]], "function"), (["function": ""], "function"), (["function": 3], "function"),
            (["function": "f", "attempts": "2"], "attempts"), (["function": "f", "attempts": 1.5], "attempts"),
            (["function": "f", "backoff": 1e30], "backoff"), (["function": "f", "delay": true], "delay"),
            (["function": "f", "priority": [1]], "priority"), (["function": "f", "deliveryMode": "often"], "deliveryMode"),
            (["function": "f", "uniqueId": 7], "uniqueId"), ("not an object", "object"),
        ]
        for (body, field) in refusals {
            #expect {
                try TaskRequest(leanEngineBody: body, environment: .production)
            } throws: { error in
                guard let error = error as? CloudQueueError else { return false }
                return error.kind == .badRequest && error.message.contains(field)
            }
        }
    }
}
