import CloudQueue
import DataAPI
import JSON

extension TaskRequest {
    /// A request from LeanEngine's body of `POST /1.1/engine/cloud-queue/tasks`, which its
    /// Node SDK's `AV.Cloud.enqueue(name, params, options)` sends with the options spread in:
    /// `{function, params?, attempts?, backoff?, delay?, deliveryMode?, keepResult?, priority?,
    /// timeout?, uniqueId?}`, durations in milliseconds. `prod` is the caller's to read (the
    /// environment is given); keys LeanEngine doesn't know are ignored, as its API does.
    ///
    /// - Throws: 400 naming the first field of the wrong type; the bounds are checked when the
    ///   queue validates the request.
    init(leanEngineBody body: JSONValue, environment: EnvironmentName) throws(CloudQueueError) {
        guard case .object(let fields) = body else { throw .badRequest("The task must be a JSON object.") }
        guard let function = fields["function"]?.stringValue, !function.isEmpty else {
            throw .badRequest("function must name the cloud function the task calls.")
        }
        let params = fields["params"] ?? .object([:])
        self.init(function: function, params: params == .null ? .object([:]) : params, environment: environment)
        if let attempts = try Self.integer(fields, "attempts") {
            // Out of Int's range is out of the bounds too: validation refuses it.
            self.attempts = Int(clamping: attempts)
        }
        if let backoff = try Self.integer(fields, "backoff") { self.backoff = .milliseconds(backoff) }
        if let delay = try Self.integer(fields, "delay") { self.delay = .milliseconds(delay) }
        if let keepResult = try Self.integer(fields, "keepResult") { self.keepResult = .milliseconds(keepResult) }
        if let timeout = try Self.integer(fields, "timeout") { self.timeout = .milliseconds(timeout) }
        priority = try Self.integer(fields, "priority")
        if let mode = fields["deliveryMode"], mode != .null {
            guard let name = mode.stringValue, let deliveryMode = DeliveryMode(rawValue: name) else {
                throw .badRequest("deliveryMode must be \"atLeastOnce\" or \"atMostOnce\".")
            }
            self.deliveryMode = deliveryMode
        }
        if let uniqueId = fields["uniqueId"], uniqueId != .null {
            guard let text = uniqueId.stringValue else { throw .badRequest("uniqueId must be a string.") }
            self.uniqueId = text
        }
    }

    /// The whole number at `key` (a JavaScript number with no fraction), nil when absent or null.
    private static func integer(_ fields: [String: JSONValue], _ key: String) throws(CloudQueueError) -> Int64? {
        guard let value = fields[key], value != .null else { return nil }
        // A fraction, a number past Int64, text: none is a value the bounds allow.
        guard let integer = value.intValue else { throw .badRequest("\(key) must be a whole number.") }
        return integer
    }
}
