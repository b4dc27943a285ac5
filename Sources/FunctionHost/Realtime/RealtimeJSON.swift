import JSON
import RealtimeProtocol

/// The JSON dialect (`lc.json.3`, the C# SDK's): commands as JSON objects with `cmd` as a name,
/// and pushes whose `msg` items are the events themselves, not `{data: "..."}` wrappers.
enum RealtimeJSON {
    /// Reads one text frame: `{}` is the keep-alive; any other object a command.
    static func decode(_ text: String) throws(MalformedFrame) -> RealtimeInbound {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: text, maxDepth: 8)
        } catch {
            throw MalformedFrame(reason: "not JSON")
        }
        guard let object = value.objectValue else { throw MalformedFrame(reason: "not a JSON object") }
        if object.isEmpty { return .heartbeat }
        var command = GenericCommand()
        switch object["cmd"] {
        case .string(let name)?:
            guard let type = CommandType.named(name) else { throw MalformedFrame(reason: "unknown cmd") }
            command.cmd = type
        case .int(let number)?:
            guard let type = CommandType(rawValue: Int(number)) else { throw MalformedFrame(reason: "unknown cmd") }
            command.cmd = type
        default:
            throw MalformedFrame(reason: "no cmd")
        }
        if let appID = object["appId"]?.stringValue { command.appID = appID }
        if let id = object["installationId"]?.stringValue { command.installationID = id }
        if let i = object["i"]?.intValue.flatMap(Int32.init(exactly:)) { command.i = i }
        if let service = object["service"]?.intValue.flatMap(Int32.init(exactly:)) { command.service = service }
        if let time = object["clientTs"]?.intValue { command.clientTs = time }
        return .command(command)
    }

    /// Writes one command. A data command's events are spliced in as they are: each is JSON
    /// text the server wrote itself (`LiveEvent.json`).
    static func encode(_ command: GenericCommand) -> String {
        var members: [String: JSONValue] = [:]
        if command.hasCmd { members["cmd"] = .string(command.cmd.name) }
        if command.hasI { members["i"] = .int(Int64(command.i)) }
        if command.hasAppID { members["appId"] = .string(command.appID) }
        if command.hasInstallationID { members["installationId"] = .string(command.installationID) }
        if command.hasService { members["service"] = .int(Int64(command.service)) }
        if command.hasErrorMessage {
            let error = command.errorMessage
            members["error"] = [
                "code": .int(Int64(error.code)), "reason": .string(error.reason),
                "detail": .string(error.hasDetail ? error.detail : error.reason),
            ]
        }
        let head = JSONValue.object(members).jsonString
        guard command.hasDataMessage else { return head }
        // `{...}` + `,"msg":[e1,e2]}`: the head's closing brace gives way to the events.
        let events = command.dataMessage.msg.map(\.data).joined(separator: ",")
        return String(head.dropLast()) + (members.isEmpty ? "" : ",") + #""msg":["# + events + "]}"
    }
}

extension CommandType {
    /// The command's name as the JSON dialect writes it.
    var name: String {
        switch self {
        case .ack: "ack"
        case .error: "error"
        case .login: "login"
        case .data: "data"
        case .echo: "echo"
        case .loggedin: "loggedin"
        case .logout: "logout"
        case .loggedout: "loggedout"
        case .goaway: "goaway"
        }
    }

    /// The command a JSON name stands for.
    static func named(_ name: String) -> CommandType? {
        allCases.first { $0.name == name }
    }
}
