import ArgumentParser
import DataAPI
import Foundation
import FunctionHost

/// The options of `serve` against SMS and email abuse: the name and operations SMS texts may
/// carry, captchas, and send limits.
struct MessageOptions: ParsableArguments {
    @Option(
        name: .customLong("sms-app-name"),
        help: "The name SMS texts sign with; a requestSmsCode 'name' must equal it (default: $FUNCTIONHOST_SMS_APP_NAME, else FunctionHost).")
    var smsAppName: String?

    @Option(
        name: .customLong("sms-operations"),
        help: ArgumentHelp(
            "The 'op' values requestSmsCode accepts, comma-separated; any other is refused (default: $FUNCTIONHOST_SMS_OPERATIONS, else none).",
            valueName: "ops"))
    var smsOperations: String?

    @Option(
        name: .customLong("sms-signatures"),
        help: ArgumentHelp(
            "The SMS signatures a requestSmsCode 'sign' may name, comma-separated; the first signs texts that name none (default: $FUNCTIONHOST_SMS_SIGNATURES, else the app's name).",
            valueName: "names"))
    var smsSignatures: String?

    @Flag(
        name: .customLong("sms-captcha"),
        help: "Require a captcha's validate_token (requestCaptcha, verifyCaptcha) on every SMS send from a client (not the master key).")
    var smsCaptcha = false

    @Option(
        name: .customLong("message-client-limit"),
        help: ArgumentHelp(
            "SMS (and, separately, emails) one client address may cause: N/s, N/m, N/h or N/d; 0 for no limit (default: 10/h).",
            valueName: "rate"))
    var clientLimit: String?

    @Option(
        name: .customLong("message-app-limit"),
        help: ArgumentHelp(
            "SMS (and, separately, emails) the whole app may send: N/s, N/m, N/h or N/d; 0 for no limit (default: 1000/d).",
            valueName: "rate"))
    var appLimit: String?

    /// Refuses a malformed rate before the server starts.
    func validate() throws {
        var configuration = HostConfiguration(dataDirectory: "", keys: AppKeys(appId: "", appKey: "", masterKey: "", hookKey: ""))
        try apply(to: &configuration, environment: ProcessInfo.processInfo.environment)
    }

    /// Applies the options (and their environment variables) to a configuration.
    func apply(to configuration: inout HostConfiguration, environment: [String: String]) throws {
        if let name = smsAppName ?? environment["FUNCTIONHOST_SMS_APP_NAME"], !name.isEmpty {
            configuration.verification.appName = name
        }
        if let list = smsOperations ?? environment["FUNCTIONHOST_SMS_OPERATIONS"] {
            configuration.messageProtection.operations = Set(
                list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
        if let list = smsSignatures ?? environment["FUNCTIONHOST_SMS_SIGNATURES"] {
            configuration.verification.smsSignatures = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
            if let long = configuration.verification.smsSignatures.first(where: { $0.count > 64 }) {
                throw ValidationError("--sms-signatures: '\(long.prefix(20))...' is longer than 64 characters.")
            }
        }
        configuration.messageProtection.captchaRequired = smsCaptcha
        if let text = clientLimit {
            configuration.messageProtection.limits.perClient = try Self.rate(text, option: "--message-client-limit")
        }
        if let text = appLimit {
            configuration.messageProtection.limits.perApp = try Self.rate(text, option: "--message-app-limit")
        }
    }

    /// `N/unit`, or nil for `0` (no limit).
    private static func rate(_ text: String, option: String) throws -> SendLimits.Rate? {
        if text.trimmingCharacters(in: .whitespaces) == "0" { return nil }
        guard let rate = SendLimits.Rate(text) else {
            throw ValidationError("\(option) takes N/s, N/m, N/h or N/d (such as 10/h), or 0, not '\(text)'.")
        }
        return rate
    }
}
