import Foundation

extension UserVerification {
    /// What a `requestSmsCode` asked its text to be (`SMSRequest`), checked against the
    /// operator's templates and signatures before a code is issued.
    struct SMSText: Sendable {
        /// The longest SMS a template may render, in characters (about seven billed parts).
        static let maxLength = 500

        let request: SMSRequest
        /// The template named, read from its file.
        let template: (name: String, text: MessageTemplate)?
        /// The signature named (nil: the default, the first configured one, else none).
        let signature: String?

        /// Reads the template and checks the signature and the variables.
        ///
        /// - Throws: 604 for a template with no file, 600 for a signature the operator didn't
        ///   configure, 606 for a variable the template names and the request lacks.
        init(_ request: SMSRequest, settings: Settings) throws(DataAPIError) {
            self.request = request
            if let name = request.template {
                let text = try settings.smsTemplates.template(named: name)
                if let missing = text.variableNames.subtracting(request.variables.keys).subtracting(SMSRequest.systemVariables).min() {
                    throw DataAPIError(.smsTemplateRenderFailed, "SMS template '\(name)' needs the variable \(missing).")
                }
                template = (name, text)
            } else {
                template = nil
            }
            if let sign = request.sign {
                guard sign == settings.appName || settings.smsSignatures.contains(sign) else {
                    throw DataAPIError(.smsSignatureInvalid, "SMS signature '\(sign.prefix(64))' is not one the server allows (--sms-signatures).")
                }
                signature = sign
            } else {
                signature = settings.smsSignatures.first
            }
        }

        /// The message carrying `code`: the template's text under `【signature】`, or an empty
        /// text (the server's own) without a template; `appName` fills `{{name}}`.
        func message(to phone: String, code: String, lifetime: TimeInterval, appName: String) throws(DataAPIError) -> OutgoingMessage {
            var message = OutgoingMessage(channel: .sms, to: phone, purpose: VerificationCodes.Purpose.sms.rawValue, code: code, text: "")
            message.sign = request.sign
            message.smsType = request.kind.rawValue
            guard let template else { return message }
            let signedBy = signature ?? appName
            message.template = template.name
            message.variables = request.variables
            var values = request.variables
            values["name"] = appName
            values["code"] = code
            values["ttl"] = String(Int(lifetime / 60))
            values["sign"] = signedBy
            values["template"] = template.name
            do throws(MessageTemplate.MissingVariable) {
                message.text = "【\(signedBy)】" + (try template.text.render(values))
            } catch {
                throw DataAPIError(.smsTemplateRenderFailed, "SMS template '\(template.name)' needs the variable \(error.name).")
            }
            guard message.text.count <= Self.maxLength else {
                throw DataAPIError(.smsTemplateRenderFailed, "The rendered SMS is longer than \(Self.maxLength) characters.")
            }
            return message
        }
    }
}
