/// The engine each environment's data lives in: production's, and staging's own when it has
/// one (`--staging-data-dir`), else production's too.
///
/// The data service picks the engine from the caller of each operation (`Caller.environment`),
/// so the environment travels in one value, the caller, and nothing keeps a second copy of it
/// in step.
public struct StorageEngines: Sendable {
    /// Production's engine.
    public let production: any StorageEngine
    /// Staging's engine: its own, or production's.
    public let staging: any StorageEngine

    /// Both environments in one engine.
    public init(_ shared: any StorageEngine) {
        self.production = shared
        self.staging = shared
    }

    /// Staging with an engine of its own.
    public init(production: any StorageEngine, staging: any StorageEngine) {
        self.production = production
        self.staging = staging
    }

    /// The engine of an environment.
    public func engine(for environment: EnvironmentName) -> any StorageEngine {
        environment == .staging ? staging : production
    }
}
