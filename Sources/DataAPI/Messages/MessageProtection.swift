/// What keeps clients from using the app's SMS and email as their own: captchas before SMS
/// sends (when required), send limits per client and per app, and the text of an SMS limited to
/// what the operator configured.
public struct MessageProtection: Sendable {
    /// Whether an SMS send from a client (not the master key) needs a `validate_token` from
    /// `verifyCaptcha` (608 without one). Off, a `validate_token` that is sent is still checked.
    public var captchaRequired = false
    /// The `op` values `requestSmsCode` accepts (the operation its text names); empty accepts
    /// none, so a client can't write its own words into a message sent under the app's name.
    public var operations: Set<String> = []
    /// How many messages a client and the app may send.
    package var limits = SendLimits()

    /// The defaults: no captcha, no `op`, 10 messages an hour per client, 1000 a day per app.
    public init() {}

    /// Refuses an SMS text a client shaped itself: a `name` other than the app's (600), an `op`
    /// not configured (1). A `template` is the operator's own text (`SMSTemplates`), checked
    /// where it is read.
    public func checkSMSText(name: String?, operation: String?, appName: String) throws(DataAPIError) {
        if let name, name != appName {
            throw DataAPIError(.smsSignatureInvalid, "name must be the app's name, '\(appName)' (--sms-app-name).")
        }
        if let operation, !operations.contains(operation) {
            let allowed = operations.isEmpty ? "none is configured" : "one of " + operations.sorted().joined(separator: ", ")
            throw DataAPIError(.badParameters, "op must be an operation the server allows (--sms-operations): \(allowed).")
        }
    }
}

extension DataAPIError.Code {
    /// 600: an SMS signature (`name`) the app doesn't send under.
    public static let smsSignatureInvalid = Self(rawValue: 600)
    /// 604: an SMS template that doesn't exist.
    public static let smsTemplateNotFound = Self(rawValue: 604)
}
