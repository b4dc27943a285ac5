import JSON
import Testing

@testable import DataAPI

@Suite("Validating includes")
struct IncludeValidationTests {
    let db: SQLiteTestDatabase

    init() throws {
        db = try SQLiteTestDatabase()
    }

    @Test("Including a field that holds no Pointer is ignored, as LeanCloud ignores it, on queries and fetches")
    func nonPointerInclude() async throws {
        let post = try await db.storage.create("Post", changes: sets(["title": "Hello", "score": 3, "tags": ["a"]]))
        let found = try await db.service.find(
            ObjectQuery(className: "Post", include: ["title", "score", "tags", "missing"]), caller: .master)
        #expect(found.objects.map(\.objectId) == [post.objectId])
        #expect(found.objects.first?.fields["title"] == "Hello" && found.objects.first?.fields["score"] == 3)
        let fetched = try await db.service.fetch("Post", id: post.objectId, include: ["title.x", "score"], caller: .master)
        #expect(fetched?.fields["title"] == "Hello")
    }

    @Test("An include that is not a key path answers 102")
    func malformedInclude() async throws {
        await #expect(throws: DataAPIError.self) {
            _ = try await db.service.find(ObjectQuery(className: "Post", include: ["a..b"]), caller: .master)
        }
    }
}
