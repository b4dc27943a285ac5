extension HostConfiguration {
    /// The outbound HTTP policy of an environment (`production`, `staging`); one that is not
    /// configured allows nothing.
    public func outboundPolicy(for environment: EnvironmentName) -> OutboundPolicy {
        outbound[environment] ?? OutboundPolicy()
    }
}
