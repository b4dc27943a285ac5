public import JSON

/// What the sandbox's JavaScript may ask of the host: every operation of the bridge, declared
/// here once, with the shape of its arguments and of its answer.
///
/// The JavaScript side is written against this declaration: the bootstrap receives the table of
/// names (`operationTable`) at load, freezes it as `AV._operations`, and the bootstrap and SDK
/// name operations only through it (`__fhCall(AV._operations.dataFind, args)`); `__fhCall`
/// refuses a name outside it, and so does the host (`WorkerRuntime`). So JavaScript can't spell
/// an operation Swift doesn't know, and a `switch` over the cases in the host (`ScriptHost`)
/// makes the compiler check that each one has a handler.
///
/// Every data call's arguments carry `options: {useMasterKey, sessionToken}`, who the call acts
/// as (`AV._requestOptions`); answers and failures cross as JSON (`HostCallError` for failures).
public enum BridgeOperation: String, CaseIterable, Sendable {
    /// Creates an object: `{className, data, fetchWhenSave?, ignoreHooks?, options}` → the
    /// object as REST JSON.
    case dataCreate = "data.create"
    /// Updates an object: `{className, objectId, data, where?, ignoreHooks?, options}` → the
    /// object as REST JSON.
    case dataUpdate = "data.update"
    /// Deletes an object: `{className, objectId, where?, ignoreHooks?, options}` → `null`.
    case dataDelete = "data.delete"
    /// Fetches an object: `{className, objectId, include?, keys?, options}` → the object as
    /// REST JSON; 101 when it is missing.
    case dataFetch = "data.fetch"
    /// Runs a query: `{className, where?, order?, keys?, include?, limit?, skip?, returnACL?,
    /// options}` → an array of objects as REST JSON.
    case dataFind = "data.find"
    /// Counts a query's matches: `{className, where?, options}` → a number.
    case dataCount = "data.count"
    /// Runs a full-text search (`AV.SearchQuery`): the parameters of `GET /1.1/search/select`
    /// (`{clazz?, q, limit?, skip?, sid?, order?, sort?, keys?, include?, highlights?,
    /// returnACL?, options}`) → `{results, hits, sid}` as that route answers.
    case dataSearch = "data.search"
    /// `AV.Cloud.run` of a function the script doesn't define (a Swift one):
    /// `{name, params, options: {sessionToken?}}` → the function's result.
    case cloudRun = "cloud.run"
    /// The user holding a session token (`AV.Cloud.run` with `{sessionToken}` of a script's own
    /// function): `{sessionToken}` → the user as REST JSON; 211 when no user holds it.
    case cloudUser = "cloud.user"
    /// `AV.Cloud.enqueue`: LeanEngine's body of `POST /1.1/engine/cloud-queue/tasks` without
    /// `prod` (`{function, params, attempts?, backoff?, delay?, deliveryMode?, keepResult?,
    /// priority?, timeout?, uniqueId?}`), plus `user?` (the objectId the task runs as; none: the
    /// master) → `{uniqueId}`. The task runs in the enqueuing code's environment.
    case cloudEnqueue = "cloud.enqueue"
    /// `AV.Cloud.getTaskInfo`: `{uniqueId}` → what `GET /1.1/engine/cloud-queue/tasks/:uniqueId`
    /// answers (`{uniqueId, status, finishedAt?, statusCode?, result?, error?, retryAt?}`).
    case cloudTaskInfo = "cloud.taskInfo"
    /// Outbound HTTP (`fetch`, `AV.Cloud.httpRequest`): `{url, method, headers, body?}` →
    /// `{status, headers, body}`.
    case httpRequest = "http.request"

    /// Whether the operation reads or writes data (`data.*`): its arguments name who it acts as.
    public var isData: Bool { rawValue.hasPrefix("data.") }

    /// The table the bootstrap freezes as `AV._operations`: each case's Swift name → its name on
    /// the bridge (`{"dataFind": "data.find", ...}`).
    static let operationTable: JSONValue = .object(
        Dictionary(uniqueKeysWithValues: allCases.map { (String(describing: $0), JSONValue.string($0.rawValue)) }))
}
