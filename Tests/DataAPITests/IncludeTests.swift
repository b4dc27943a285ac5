import JSON
import TestSupport
import Testing

@testable import DataAPI

@Suite("Resolving includes")
struct IncludeTests {
    let db: SQLiteTestDatabase
    var storage: SQLiteStorage { db.storage }
    var service: DataService { db.service }

    init() throws {
        db = try SQLiteTestDatabase()
    }

    /// The form an included object takes: its REST JSON tagged as an Object of its class.
    func included(_ object: StoredObject) -> JSONValue {
        var json = object.restJSON()
        json["__type"] = "Object"
        json["className"] = .string(object.className)
        return .object(json)
    }

    @Test("Without include, pointers stay pointers")
    func noInclude() async throws {
        let author = try await storage.create("Author", changes: sets(["name": "Ann"]))
        let post = try await storage.create("Post", changes: sets(["author": author.pointer]))
        let fetched = try await service.fetch("Post", id: post.objectId, caller: .master)
        #expect(fetched?.fields["author"] == author.pointer)
    }

    @Test("Including a pointer field replaces it with the object")
    func includePointer() async throws {
        let author = try await storage.create("Author", changes: sets(["name": "Ann", "age": 30]))
        let post = try await storage.create("Post", changes: sets(["title": "T", "author": author.pointer]))
        let fetched = try #require(try await service.fetch("Post", id: post.objectId, include: ["author"], caller: .master))
        let expected = included(author)
        #expect(fetched.fields["author"] == expected)
        #expect(fetched.fields["author"]?["name"] == "Ann")
        #expect(fetched.fields["author"]?["objectId"] == .string(author.objectId))
        #expect(fetched.fields["author"]?["__type"] == "Object")
        #expect(fetched.fields["author"]?["className"] == "Author")
        #expect(fetched.fields["title"] == "T")
        // The stored object is untouched.
        #expect(try await storage.fetch("Post", id: post.objectId)?.fields["author"] == author.pointer)
    }

    @Test("A nested path includes through an included object")
    func nestedInclude() async throws {
        let author = try await storage.create("Author", changes: sets(["name": "Ann"]))
        let post = try await storage.create("Post", changes: sets(["title": "P", "author": author.pointer]))
        let comment = try await storage.create("Comment", changes: sets(["text": "hi", "post": post.pointer]))

        let fetched = try #require(
            try await service.fetch("Comment", id: comment.objectId, include: ["post.author"], caller: .master))
        let includedPost = try #require(fetched.fields["post"])
        #expect(includedPost["__type"] == "Object")
        #expect(includedPost["title"] == "P")
        #expect(includedPost["author"] == included(author))

        // `post` alone includes one level only.
        let shallow = try await service.fetch("Comment", id: comment.objectId, include: ["post"], caller: .master)
        #expect(shallow?.fields["post"]?["author"] == author.pointer)

        // Naming both levels is the same as the nested path.
        let both = try await service.fetch(
            "Comment", id: comment.objectId, include: ["post", "post.author"], caller: .master)
        #expect(both == fetched)
    }

    @Test("Includes apply to every result of a find, sharing fetched targets")
    func includeInFind() async throws {
        let ann = try await storage.create("Author", changes: sets(["name": "Ann"]))
        let bob = try await storage.create("Author", changes: sets(["name": "Bob"]))
        for author in [ann, bob, ann] {
            _ = try await storage.create("Post", changes: sets(["author": author.pointer]))
        }
        _ = try await storage.create("Post", changes: sets(["title": "no author"]))
        let (objects, count) = try await service.find(
            ObjectQuery(className: "Post", include: ["author"]), withCount: true, caller: .master)
        #expect(count == 4)
        #expect(objects.map { $0.fields["author"]?["name"] } == ["Ann", "Bob", "Ann", nil])
        #expect(objects[3].fields["author"] == nil)
    }

    @Test("Pointers inside arrays are included")
    func includeArray() async throws {
        let ann = try await storage.create("Author", changes: sets(["name": "Ann"]))
        let bob = try await storage.create("Author", changes: sets(["name": "Bob"]))
        let post = try await storage.create("Post", changes: sets(["authors": [ann.pointer, "not a pointer", bob.pointer]]))
        let fetched = try await service.fetch("Post", id: post.objectId, include: ["authors"], caller: .master)
        #expect(fetched?.fields["authors"] == [included(ann), "not a pointer", included(bob)])
    }

    @Test("Pointers to objects that are gone, and fields never written, are left as they are")
    func unresolvable() async throws {
        let author = try await storage.create("Author", changes: sets(["name": "Ann"]))
        let post = try await storage.create(
            "Post", changes: sets(["author": author.pointer, "title": "T", "ghost": pointer("Nowhere", "x")]))
        try await storage.delete("Author", id: author.objectId, condition: nil)
        let fetched = try await service.fetch(
            "Post", id: post.objectId, include: ["author", "ghost", "missing"], caller: .master)
        #expect(fetched?.fields["author"] == author.pointer)
        #expect(fetched?.fields["title"] == "T")
        #expect(fetched?.fields["ghost"] == pointer("Nowhere", "x"))
        #expect(fetched?.fields["missing"] == nil)
    }

    @Test("Pointers to several classes in one field are each resolved")
    func mixedClasses() async throws {
        let author = try await storage.create("Author", changes: sets(["name": "Ann"]))
        let editor = try await storage.create("Editor", changes: sets(["name": "Eve"]))
        _ = try await storage.create("Post", changes: sets(["by": author.pointer]))
        _ = try await storage.create("Post", changes: sets(["by": editor.pointer]))
        let (objects, _) = try await service.find(ObjectQuery(className: "Post", include: ["by"]), caller: .master)
        #expect(objects.map { $0.fields["by"] } == [included(author), included(editor)])
    }

    @Test("Key selection applies to the REST form of found objects")
    func keySelection() async throws {
        let author = try await storage.create("Author", changes: sets(["name": "Ann"]))
        _ = try await storage.create("Post", changes: sets(["title": "T", "body": "B", "author": author.pointer]))
        let query = try ObjectQuery(className: "Post", parameters: ["keys": "title,author.name", "include": "author"])
        let (objects, _) = try await service.find(query, caller: .master)
        let selected = try #require(query.keys).apply(to: objects[0].restJSON(includeACL: query.returnACL))
        #expect(Set(selected.keys) == ["objectId", "createdAt", "updatedAt", "title", "author"])
        #expect(selected["author"]?["name"] == "Ann")

        let excluded = KeySelection("-body,-author").apply(to: objects[0].restJSON(includeACL: false))
        #expect(Set(excluded.keys) == ["objectId", "createdAt", "updatedAt", "title"])
    }
}
