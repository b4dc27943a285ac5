public import Foundation

/// An environment's own engine (an app's LeanEngine process, `EngineApp`): a command the host
/// starts and supervises, or the address of one already running.
public struct EngineSetting: Sendable {
    /// Where the engine comes from.
    public enum Source: Sendable, Equatable {
        /// `/bin/sh -c command` in `directory`, started with LeanEngine's variables, restarted when
        /// it exits, stopped with the host.
        case command(String, directory: String)
        /// An engine someone else runs, at this base URL (`http://127.0.0.1:3000`).
        case url(String)
    }

    /// Where the engine comes from.
    public var source: Source
    /// How long a started engine has to answer its metadatas before it is stopped and started again.
    public var startTimeout: Duration = .seconds(30)
    /// How long a stopped engine has between SIGTERM and SIGKILL.
    public var stopGrace: Duration = .seconds(5)
    /// The loopback port a started engine listens on (`LEANCLOUD_APP_PORT`); nil picks a free one.
    public var port: Int?

    /// An engine from `source`.
    public init(_ source: Source) {
        self.source = source
    }
}
