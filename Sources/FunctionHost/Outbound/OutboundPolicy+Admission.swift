extension OutboundPolicy {
    /// Checks a destination against the policy, resolving its name, and returns the address to
    /// connect to (the first IPv4 one, if any).
    ///
    /// Every address the name resolves to is checked, not only the one used, so a name with one
    /// public and one internal address is refused as a whole (unless it is listed exactly).
    func admit(_ target: OutboundTarget) async throws(OutboundHTTPError) -> IPAddress {
        guard let access = access(to: target.host, port: target.port) else {
            throw .hostNotAllowed(target.authority)
        }
        let addresses: [IPAddress]
        switch target.host {
        case .address(let address): addresses = [address]
        case .name(let name): addresses = try await HostResolver.addresses(of: name)
        }
        if access == .publicAddresses {
            for address in addresses {
                if let range = address.internalRange {
                    throw .addressRefused(host: target.host.description, address: address.description, range: range)
                }
            }
        }
        // Plain http connects to this one address only (see `OutboundHTTP`), so prefer IPv4:
        // servers often have IPv6 addresses configured without a route to use them.
        return addresses.first { if case .v4 = $0 { true } else { false } } ?? addresses[0]
    }
}
