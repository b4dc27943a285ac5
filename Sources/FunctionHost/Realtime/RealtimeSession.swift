import LiveQuery
import RealtimeProtocol

/// One realtime connection's commands, answered in order by its reader: login attaches the
/// connection to its subscription id, logout detaches it, echo and `{}` are the keep-alives, acks
/// are taken and ignored (the server offers no redelivery). Owned by the reader alone.
struct RealtimeSession {
    /// The LiveQuery service: the only one served (IM, service 2, is not).
    static let liveQueryService: Int32 = 1
    /// The longest subscription id taken: the SDKs send `livequery-<UUID>` or a GUID.
    static let maxInstallationIDLength = 128

    let appID: String
    let connections: any LiveQueryConnections
    let outbox: RealtimeOutbox
    let limits: RealtimeLimits
    let metrics: HostMetrics
    /// The client address the connection came from, which its logins carry.
    let client: String?
    /// The logins of this connection, by subscription id.
    private(set) var logins: [String: RealtimeLogin] = [:]
    private var commands: RealtimeRate
    /// The acks taken: at most one per push written plus `RealtimeLimits.ackBurst`.
    private var acks = 0

    init(
        appID: String, connections: any LiveQueryConnections, outbox: RealtimeOutbox, limits: RealtimeLimits, metrics: HostMetrics,
        client: String? = nil
    ) {
        self.client = client
        self.appID = appID
        self.connections = connections
        self.outbox = outbox
        self.limits = limits
        self.metrics = metrics
        commands = RealtimeRate(rate: limits.commandsPerSecond, burst: limits.commandBurst)
    }

    /// Answers one frame (through the outbox); false when the connection is to close.
    mutating func handle(_ inbound: RealtimeInbound) async -> Bool {
        let command: GenericCommand
        switch inbound {
        case .heartbeat:
            metrics.recordRealtimeCommand(direction: "in", command: "heartbeat")
            guard spend() else { return false }
            outbox.reply(.heartbeat)
            metrics.recordRealtimeCommand(direction: "out", command: "heartbeat")
            return true
        case .ack:
            return ack()
        case .command(let read):
            command = read
        }
        if command.hasCmd, command.cmd == .ack { return ack() }
        metrics.recordRealtimeCommand(direction: "in", command: command.hasCmd ? command.cmd.name : "unknown")
        guard spend() else { return false }
        switch command.hasCmd ? command.cmd : nil {
        case .login?:
            return await login(command)
        case .logout?:
            if command.hasInstallationID, let login = logins.removeValue(forKey: command.installationID) {
                await connections.detach(login, subscriptionID: login.installationID)
            }
            reply(.loggedout, to: command)
            return true
        case .echo?:
            reply(.echo, to: command)
            return true
        default:
            refuse(command, code: 4201, reason: "Unsupported command: this endpoint serves LiveQuery's login, logout, echo and ack.")
            return true
        }
    }

    /// Detaches every login: the connection has ended.
    mutating func end() async {
        for login in logins.values { await connections.detach(login, subscriptionID: login.installationID) }
        logins = [:]
    }

    private mutating func login(_ command: GenericCommand) async -> Bool {
        guard command.appID == appID else {
            refuse(command, code: RealtimeClose.wrongApp)
            return false
        }
        guard !command.hasService || command.service == Self.liveQueryService else {
            refuse(command, code: 4100, reason: "Only LiveQuery (service 1) is served here.")
            return true
        }
        let id = command.installationID
        guard Self.isValid(installationID: id) else {
            refuse(command, code: RealtimeClose.invalidLogin)
            return false
        }
        // A login sent again (the iOS SDKs resend one that timed out) is answered again.
        if logins[id] == nil {
            guard logins.count < limits.maxLoginsPerConnection else {
                refuse(command, code: 4111, reason: "This connection holds as many logins as it may.")
                return true
            }
            let login = RealtimeLogin(installationID: id, outbox: outbox, client: client)
            guard await connections.attach(login, subscriptionID: id) else {
                refuse(command, code: 4111, reason: "This subscription id holds as many connections as it may.")
                return true
            }
            logins[id] = login
        }
        reply(.loggedin, to: command)
        return true
    }

    /// Printable ASCII without spaces, of a bounded length: what every SDK's id is.
    static func isValid(installationID id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= maxInstallationIDLength && id.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f }
    }

    /// Takes one command from the rate's bucket; when empty, the connection closes (4116).
    private mutating func spend() -> Bool {
        guard commands.take() else {
            outbox.close(.tooFast)
            return false
        }
        return true
    }

    /// Takes an ack: the JS SDK acks every push, so acks aren't held to the command rate but to
    /// the pushes written (plus a burst); past that the connection closes (4116). Their ids are
    /// ignored: the server offers no redelivery.
    private mutating func ack() -> Bool {
        metrics.recordRealtimeCommand(direction: "in", command: "ack")
        acks += 1
        guard acks <= outbox.pushesWritten + limits.ackBurst else {
            outbox.close(.tooFast)
            return false
        }
        return true
    }

    private func reply(_ type: CommandType, to command: GenericCommand) {
        var answer = GenericCommand()
        answer.cmd = type
        if command.hasI { answer.i = command.i }
        if command.hasService { answer.service = command.service }
        if command.hasInstallationID { answer.installationID = command.installationID }
        send(answer)
    }

    /// An error answer, then the close that goes with it.
    private func refuse(_ command: GenericCommand, code close: RealtimeClose) {
        refuse(command, code: Int32(close.code), reason: close.reason)
        outbox.close(close)
    }

    private func refuse(_ command: GenericCommand, code: Int32, reason: String) {
        var answer = GenericCommand()
        answer.cmd = .error
        if command.hasI { answer.i = command.i }
        var error = ErrorCommand()
        error.code = code
        error.reason = reason
        answer.errorMessage = error
        send(answer)
    }

    private func send(_ command: GenericCommand) {
        outbox.reply(.command(command))
        metrics.recordRealtimeCommand(direction: "out", command: command.cmd.name)
    }
}
