import Foundation
import JSON
import Synchronization
import Testing

@testable import DataAPI

/// A write listener (LiveQuery's publisher) only hears writes: it never changes what a write of
/// a missing object answers, which the write itself decides as when nobody listens.
@Suite struct ListenerAnswerTests {
    /// Every write heard, as "kind objectId".
    final class Heard: WriteListener {
        let writes = Mutex<[String]>([])
        func didWrite(_ kind: WriteKind, _ event: ObjectEvent) async {
            writes.withLock { $0.append("\(kind.rawValue) \(event.object["objectId"]?.stringValue ?? "?")") }
        }
    }

    /// What an operation answered: "ok" or its error's code.
    private func outcome(_ body: () async throws -> Void) async -> String {
        do {
            try await body()
            return "ok"
        } catch let error as DataAPIError {
            return "\(error.code.rawValue)"
        } catch {
            return "\(error)"
        }
    }

    @Test func aWriteOfAMissingObjectAnswersTheSameWithAListener() async throws {
        let database = try SQLiteTestDatabase()
        let heard = Heard()
        var listened = database.service
        listened.listeners = [heard]
        let kept = try await database.service.create("Doc", body: ["state": "draft"], caller: .master)
        let missing = "000000000000000000000000"
        let draft = try predicate(#"{"state":"draft"}"#)
        var answers: [[String]] = []
        for service in [database.service, listened] {
            answers.append([
                await outcome { try await service.delete("Doc", id: missing, condition: draft, caller: .master) },
                await outcome { _ = try await service.update("Doc", id: missing, body: ["state": "x"], caller: .master) },
                await outcome {
                    _ = try await service.update("Doc", id: missing, body: ["state": "x"], condition: draft, caller: .master)
                },
                await outcome { try await service.delete("Doc", id: missing, caller: .master) },
            ])
        }
        // A conditional delete of nothing is 305 ("no effect"), an update of nothing 101.
        #expect(answers[1] == answers[0])
        #expect(answers[1].first == "305" && answers[1][1] == "101")
        #expect(heard.writes.withLock { $0 }.isEmpty)
        // The object that exists is heard when it goes.
        try await listened.delete("Doc", id: kept.objectId, condition: draft, caller: .master)
        #expect(heard.writes.withLock { $0 } == ["delete \(kept.objectId)"])
    }
}
