import ArgumentParser
import Foundation
import FunctionHost

/// The options of `serve` about what the server believes of a request: which proxies name the
/// client, which web origins may call, and how old a signature may be.
struct EdgeOptions: ParsableArguments {
    @Option(
        name: .customLong("trusted-proxies"),
        help: ArgumentHelp(
            "Proxies whose X-Forwarded-For / X-Real-IP name the client: addresses and CIDR ranges, comma-separated, e.g. 127.0.0.1,10.0.0.0/8,fd00::/8 (default: $FUNCTIONHOST_TRUSTED_PROXIES, else none: the client is the connection's peer).",
            valueName: "list"))
    var trustedProxies: String?

    @Option(
        name: .customLong("web-origins"),
        help: ArgumentHelp(
            "The origins web pages may call the API from, as LeanCloud's Web security domains: comma-separated, e.g. https://example.com,http://localhost:8080,https://*.example.com (default: $FUNCTIONHOST_WEB_ORIGINS, else every origin). A page elsewhere gets no CORS grant and its app-key requests 403; requests without an Origin and the master key are not bound.",
            valueName: "list"))
    var webOrigins: String?

    @Option(
        name: .customLong("realtime-origins"),
        help: ArgumentHelp(
            "The origins web pages may open the realtime (LiveQuery) socket from, as --web-origins takes them (default: $FUNCTIONHOST_REALTIME_ORIGINS, else what --web-origins allows). A page elsewhere is closed with 4110; sockets without an Origin (the mobile SDKs) are not bound.",
            valueName: "list"))
    var realtimeOrigins: String?

    @Option(
        name: .customLong("signature-window"),
        help: ArgumentHelp(
            "How many seconds an X-LC-Sign timestamp may be from the server's clock, either way (default: 900).",
            valueName: "seconds"))
    var signatureWindow: Int?

    /// Refuses a malformed list before the server starts.
    func validate() throws {
        var configuration = HostConfiguration(dataDirectory: "", keys: AppKeys(appId: "", appKey: "", masterKey: "", hookKey: ""))
        try apply(to: &configuration, environment: ProcessInfo.processInfo.environment)
    }

    /// Applies the options (and their environment variable) to a configuration.
    func apply(to configuration: inout HostConfiguration, environment: [String: String]) throws {
        if let list = trustedProxies ?? environment["FUNCTIONHOST_TRUSTED_PROXIES"] {
            guard let proxies = TrustedProxies(list: list) else {
                throw ValidationError("--trusted-proxies takes IP addresses and CIDR ranges (10.0.0.0/8, fd00::/8), comma-separated, not '\(list)'.")
            }
            configuration.trustedProxies = proxies
        }
        if let list = webOrigins ?? environment["FUNCTIONHOST_WEB_ORIGINS"] {
            configuration.webOrigins = try Self.origins(list, option: "--web-origins")
        }
        if let list = realtimeOrigins ?? environment["FUNCTIONHOST_REALTIME_ORIGINS"] {
            configuration.realtimeOrigins = try Self.origins(list, option: "--realtime-origins")
        }
        if let seconds = signatureWindow {
            guard seconds > 0 else { throw ValidationError("--signature-window must be at least 1 (seconds).") }
            configuration.signatureWindow = TimeInterval(seconds)
        }
    }

    private static func origins(_ list: String, option: String) throws -> WebOrigins {
        guard let origins = WebOrigins(list: list) else {
            throw ValidationError(
                "\(option) takes origins, scheme://host[:port] (https://*.example.com for subdomains), comma-separated, or *, not '\(list)'.")
        }
        return origins
    }
}
