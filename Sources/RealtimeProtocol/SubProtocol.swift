/// The WebSocket sub-protocols LeanCloud's realtime clients ask for, and how each frames a
/// command.
public enum SubProtocol: String, Sendable, CaseIterable {
    /// Binary frames, each one protobuf `GenericCommand` (the iOS and JS SDKs).
    case protobuf = "lc.protobuf2.3"
    /// The same commands base64-encoded in text frames (the JS SDK's `noBinary` option).
    case protobufBase64 = "lc.proto2base64.3"
    /// JSON text frames (the C# SDK).
    case json = "lc.json.3"
}
