import SwiftProtobuf

extension GenericCommand {
    /// Reads one binary frame of the protobuf dialects. Throws on anything that is not a whole
    /// command (truncated, a wrong wire type, an event without its `data`): the caller answers
    /// it as a malformed frame.
    public init(frame bytes: [UInt8]) throws {
        try self.init(serializedBytes: bytes)
    }

    /// The command as one binary frame of the protobuf dialects.
    public func frameBytes() throws -> [UInt8] {
        try serializedBytes()
    }
}

extension SubProtocol {
    /// The sub-protocol for a name a client offered: LeanCloud's three, and `lc.protobuf2.1`
    /// (the iOS SDKs' IM connection, which LiveQuery shares), whose frames are the same binary
    /// commands. Nil for any other name.
    public init?(offered name: some StringProtocol) {
        let trimmed = name.trimmingCharacters(in: " \t")
        if trimmed == "lc.protobuf2.1" {
            self = .protobuf
        } else {
            self.init(rawValue: trimmed)
        }
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        let blanks = Set(set)
        return String(drop(while: { blanks.contains($0) }).reversed().drop(while: { blanks.contains($0) }).reversed())
    }
}
