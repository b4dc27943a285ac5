import Foundation
import HummingbirdWebSocket
import JSON
import LiveQuery
import NIOCore
import RealtimeProtocol

/// One frame a client sent, read in its connection's dialect.
enum RealtimeInbound: Sendable {
    /// A command.
    case command(GenericCommand)
    /// The JSON dialect's keep-alive, the text `{}`: answered with `{}`.
    case heartbeat
    /// An ack, known by its first field and not read further: its ids are ignored.
    case ack
}

/// A frame that is no command of the connection's dialect: the wrong frame type, bad base64,
/// bytes that are no protobuf command, JSON that is no object.
struct MalformedFrame: Error {
    /// What was wrong, for the close frame's reason.
    var reason: String
}

/// Reads and writes commands in one sub-protocol's framing: binary protobuf, base64 protobuf in
/// text frames, or JSON text (the C# SDK's, whose pushes carry each event as an object).
struct RealtimeCodec: Sendable {
    /// The connection's dialect.
    let dialect: SubProtocol

    /// Reads one frame.
    func decode(_ message: WebSocketMessage) throws(MalformedFrame) -> RealtimeInbound {
        switch (dialect, message) {
        case (.protobuf, .binary(let buffer)):
            return try Self.inbound(Array(buffer.readableBytesView))
        case (.protobufBase64, .text(let text)):
            guard let bytes = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw MalformedFrame(reason: "not base64")
            }
            return try Self.inbound(Array(bytes))
        case (.json, .text(let text)):
            return try RealtimeJSON.decode(text)
        case (.protobuf, .text):
            throw MalformedFrame(reason: "text frame on a binary protocol")
        case (.protobufBase64, .binary), (.json, .binary):
            throw MalformedFrame(reason: "binary frame on a text protocol")
        }
    }

    /// Writes one command.
    func encode(_ command: GenericCommand) -> WebSocketOutboundWriter.OutboundFrame {
        switch dialect {
        case .protobuf:
            return .binary(ByteBuffer(bytes: Self.bytes(command)))
        case .protobufBase64:
            return .text(Data(Self.bytes(command)).base64EncodedString())
        case .json:
            return .text(RealtimeJSON.encode(command))
        }
    }

    /// The answer to the JSON dialect's keep-alive.
    static let heartbeat = WebSocketOutboundWriter.OutboundFrame.text("{}")

    /// `cmd` (field 1, a varint) set to ack, first as every SDK writes it: the rest of an ack
    /// (its ids, up to the frame limit) isn't parsed.
    private static let ackPrefix: [UInt8] = [0x08, UInt8(CommandType.ack.rawValue)]

    private static func inbound(_ bytes: [UInt8]) throws(MalformedFrame) -> RealtimeInbound {
        if bytes.starts(with: ackPrefix) { return .ack }
        return .command(try command(bytes))
    }

    private static func command(_ bytes: [UInt8]) throws(MalformedFrame) -> GenericCommand {
        do {
            return try GenericCommand(frame: bytes)
        } catch {
            throw MalformedFrame(reason: "not a realtime command")
        }
    }

    /// Every command the server writes sets its required fields (an error's code and reason,
    /// each event's data), so serialising cannot fail; an empty frame stands in if it ever did.
    private static func bytes(_ command: GenericCommand) -> [UInt8] {
        (try? command.frameBytes()) ?? []
    }
}
