import DataAPI
import JSON
import LiveQuery
import Testing

@Suite struct LocalChangeFeedTests {
    private func change(_ id: String, _ kind: CommittedChange.Kind = .create) -> CommittedChange {
        CommittedChange(kind: kind, className: "Todo", object: ["objectId": .string(id)], environment: .production)
    }

    @Test func everyStreamHearsEveryChangeInOrder() async {
        let feed = LocalChangeFeed()
        let first = feed.changes()
        let second = feed.changes()
        for id in ["a", "b", "c"] { await feed.publish(change(id)) }
        feed.finish()
        var heard: [[String]] = []
        for stream in [first, second] {
            var ids: [String] = []
            for await change in stream { ids.append(change.object["objectId"]?.stringValue ?? "") }
            heard.append(ids)
        }
        #expect(heard == [["a", "b", "c"], ["a", "b", "c"]])
    }

    @Test func aStreamTakenLaterHearsOnlyLaterChanges() async {
        let feed = LocalChangeFeed()
        await feed.publish(change("before"))
        let stream = feed.changes()
        await feed.publish(change("after", .delete))
        feed.finish()
        var heard: [CommittedChange.Kind] = []
        for await change in stream { heard.append(change.kind) }
        #expect(heard == [.delete])
    }

    @Test func aWriteListenerPublishesTheCommittedWrite() async {
        let feed = LocalChangeFeed()
        let stream = feed.changes()
        let event = ObjectEvent(
            className: "Todo", object: ["objectId": .string("x1"), "title": .string("new")], updatedKeys: ["title"],
            caller: Caller.master)
        await ChangeFeedPublisher(feed: feed).didWrite(.update, event)
        feed.finish()
        var heard: [CommittedChange] = []
        for await change in stream { heard.append(change) }
        #expect(heard.map(\.kind) == [.update])
        #expect(heard.first?.updatedKeys == ["title"])
        #expect(heard.first?.className == "Todo")
    }
}
