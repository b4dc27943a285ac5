import JSON
import Testing

@testable import Sandbox

/// A hook whose answer the host reads (`hook`) sends back the object as it left it; one whose
/// answer it doesn't (`hookWithoutAnswer`, an after-hook's) runs the same and sends nothing.
@Suite struct HookAnswerModeTests {
    static let source = """
        AV.Cloud.afterSave('Todo', function (request) {
          request.object.set('seen', true);
          console.log('saw ' + request.object.get('title'));
        });
        """

    static let event: JSONValue = [
        "kind": "afterSave", "className": "Todo", "object": ["objectId": "t1", "title": "milk"], "original": .null,
        "updatedKeys": [], "user": .null, "context": [:], "results": [],
    ]

    static func run(_ mode: CloudCode.Mode) async throws -> CloudCode.Outcome {
        let code = try await CloudCode(files: [("cloud.js", source)], workerCount: 1)
        return try await code.call("__after_save_for_Todo", request: event, mode: mode, cpuLimit: 20, deadline: .now + .seconds(60))
    }

    @Test func aReadHookAnswersTheObjectItLeft() async throws {
        let outcome = try await Self.run(.hook)
        let value = try outcome.result.get()
        #expect(value["object"]?["seen"] == true && value["object"]?["title"] == "milk", "\(value)")
        #expect(outcome.logs.map(\.message) == ["saw milk"])
    }

    @Test func anUnreadHookRunsAndAnswersNothing() async throws {
        let outcome = try await Self.run(.hookWithoutAnswer)
        #expect(try outcome.result.get() == .null)
        #expect(outcome.logs.map(\.message) == ["saw milk"], "the hook ran, with its object")
    }
}
