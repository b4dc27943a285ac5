import DataAPI
import JSON

/// What one committed change means to one subscription, as the subscriber may see it: the
/// event it receives, or nil. The change is matched before (the original) and after (the
/// object) by the one evaluator, through the subscriber's rights worked out now
/// (`DataService.standingView`), so an object the subscriber may not read sends nothing.
struct LiveEventMaker: Sendable {
    /// Where rights are worked out.
    let data: DataService

    /// The subscription's event for the change, or nil.
    func event(for change: CommittedChange, _ subscription: Subscription) async -> LiveEvent? {
        // A subscriber who may no longer find the class (its permissions changed) hears nothing.
        guard let view = try? await data.standingView(of: subscription.query, caller: subscription.caller) else { return nil }
        let after = StoredObject(className: change.className, rest: change.object)
        let operation: LiveEvent.Operation
        switch change.kind {
        case .create:
            guard view.matches(after) else { return nil }
            operation = .create
        case .delete:
            guard view.matches(after) else { return nil }
            operation = .delete
        case .login:
            // Only the subscriber's own user, on a `_User` query that has it.
            guard let userId = subscription.caller.userId, after.objectId == userId, view.matches(after) else { return nil }
            operation = .login
        case .update:
            let now = view.matches(after)
            // A feed that lost the original (it can't be that large on the wire) counts the
            // object as having matched before: a change of a matching object is an update.
            let before = change.original.map { view.matches(StoredObject(className: change.className, rest: $0)) } ?? now
            switch (before, now) {
            case (true, true): operation = .update
            case (false, true): operation = .enter
            // A subscriber who can no longer read the object hears nothing of it, not even that
            // it left (Parse sends nothing either).
            case (true, false) where view.isVisible(after): operation = .leave
            default: return nil
            }
        }
        return try? await encode(operation, after, change: change, subscription: subscription, view: view)
    }

    /// The event's JSON: `{"op","query_id","object","updatedKeys"}`, the object as a find by
    /// the subscriber would answer it (`keys`, `returnACL`), with its `className`. Nil for an
    /// `update` that changed nothing the subscriber sees but `updatedAt`: it would only say
    /// that something hidden changed (a login's bookkeeping on `_User`, that is: who logged in
    /// when).
    private func encode(
        _ operation: LiveEvent.Operation, _ object: StoredObject, change: CommittedChange, subscription: Subscription,
        view: StandingView
    ) async throws -> LiveEvent? {
        let query = subscription.query
        let answered = try await view.answer(object)
        var json = answered.restJSON(includeACL: query.returnACL)
        if let keys = query.keys { json = keys.apply(to: json) }
        json["className"] = .string(object.className)
        var event: [String: JSONValue] = ["op": .string(operation.rawValue), "query_id": .string(subscription.queryID)]
        var updatedKeys: [String] = []
        if [.update, .enter, .leave].contains(operation) {
            // Only keys the subscriber sees, before or after: the name of a hidden field that
            // changed is no business of its.
            var visible = try await view.visibleKeys(of: object)
            if let original = change.original {
                visible.formUnion(try await view.visibleKeys(of: StoredObject(className: change.className, rest: original)))
            }
            updatedKeys = change.updatedKeys.filter(visible.contains)
            if operation == .update, updatedKeys.allSatisfy({ $0 == "updatedAt" }) { return nil }
            event["updatedKeys"] = .array(updatedKeys.map(JSONValue.string))
        }
        // The app's `afterLiveQueryEvent` sees the subscriber's object and may change it, or
        // throw to drop the event for this subscriber.
        let hookEvent = ObjectEvent(
            className: object.className, object: json, updatedKeys: updatedKeys,
            context: ["op": .string(operation.rawValue), "query_id": .string(subscription.queryID)], caller: subscription.caller)
        if let hooked = try await data.runBefore(.afterLiveQueryEvent, hookEvent) {
            json = hooked.object
            json["className"] = .string(object.className)
        }
        event["object"] = .object(json)
        return LiveEvent(queryID: subscription.queryID, operation: operation, json: JSONValue.object(event).jsonString)
    }
}

extension StoredObject {
    /// The stored object a change's REST JSON describes.
    init(className: String, rest: [String: JSONValue]) {
        var fields = rest
        let objectId = fields.removeValue(forKey: "objectId")?.stringValue ?? ""
        let createdAt = fields.removeValue(forKey: "createdAt")?.stringValue ?? ""
        let updatedAt = fields.removeValue(forKey: "updatedAt")?.stringValue ?? ""
        fields["className"] = nil
        self.init(className: className, objectId: objectId, createdAt: createdAt, updatedAt: updatedAt, fields: fields)
    }
}
