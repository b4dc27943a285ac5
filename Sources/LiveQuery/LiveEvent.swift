/// One event for one subscription, ready for the wire: what a LeanCloud client reads from one
/// `msg` item of a data command.
public struct LiveEvent: Sendable, Hashable {
    /// What happened to the object, in the subscription's terms.
    public enum Operation: String, Sendable, Hashable {
        /// A new object matches the query.
        case create
        /// A matching object changed and still matches.
        case update
        /// An object changed from not matching to matching.
        case enter
        /// An object changed from matching to not matching.
        case leave
        /// A matching object was deleted.
        case delete
        /// The subscriber's own `_User` row logged in.
        case login
    }

    /// The subscription the event belongs to (the client dispatches on it).
    public var queryID: String
    /// What happened.
    public var operation: Operation
    /// The event as JSON text, `{"op","query_id","object","updatedKeys"}`: the protobuf dialects
    /// carry it as a string, the JSON dialect splices it in as the object itself.
    public var json: String

    /// Creates an event from its JSON text.
    public init(queryID: String, operation: Operation, json: String) {
        self.queryID = queryID
        self.operation = operation
        self.json = json
    }
}
