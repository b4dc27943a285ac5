import Testing

@testable import DataAPI

@Suite("Validating includes")
struct IncludeValidationTests {
    let db: TestDatabase

    init() throws {
        db = try TestDatabase()
    }

    @Test("Including a field that is not a Pointer answers 102, on queries and fetches")
    func nonPointerInclude() async throws {
        let post = try await db.storage.create("Post", changes: sets(["title": "Hello", "tags": ["a"]]))
        await #expect(throws: DataAPIError(.invalidQuery, "Can't include title: it is a String, not a Pointer or File.")) {
            _ = try await db.service.find(ObjectQuery(className: "Post", include: ["title"]), caller: .master)
        }
        await #expect(throws: DataAPIError.self) {
            _ = try await db.service.fetch("Post", id: post.objectId, include: ["title.x"], caller: .master)
        }
        // Arrays may hold pointers, and a field never written is no error (it resolves nothing).
        let found = try await db.service.find(ObjectQuery(className: "Post", include: ["tags", "missing"]), caller: .master)
        #expect(found.objects.map(\.objectId) == [post.objectId])
    }
}
