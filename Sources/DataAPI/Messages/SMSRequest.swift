public import JSON

/// What a `requestSmsCode` asks of its text beyond the number: LeanCloud's `template` (a
/// template the operator wrote), `sign` (a signature the operator allows), `smsType` (`voice`
/// reads the code out in a call) and the template's variables (every other member of the body).
///
/// Every variable is bounded (count, name, length, characters) before anything is sent: the
/// values land in a text sent under the app's name.
public struct SMSRequest: Sendable, Hashable {
    /// A text message, or a call that reads the code out.
    public enum Kind: String, Sendable, Hashable {
        /// A text message (LeanCloud's default, `smsType: "sms"`).
        case text = "sms"
        /// A voice call (`smsType: "voice"`).
        case voice
    }

    /// The template's name; nil sends the server's own text.
    public var template: String?
    /// The signature's name; nil signs with the default (the first configured, else the app's name).
    public var sign: String?
    /// Text or voice.
    public var kind = Kind.text
    /// The template's variables, as text.
    public var variables: [String: String] = [:]

    /// The body members that are the request's own, never variables.
    static let requestKeys: Set<String> = [
        "mobilePhoneNumber", "ttl", "name", "op", "template", "sign", "smsType", "validate_token",
    ]
    /// The variables the server fills in (LeanCloud's reserved ones); a body can't set them.
    public static let systemVariables: Set<String> = ["name", "code", "ttl", "sign", "template"]
    /// The most variables one request may give.
    public static let maxVariables = 20
    /// The longest value of one variable, in characters.
    public static let maxValueLength = 200

    /// A plain request: the server's text, signed with the default signature.
    public init() {}

    /// Reads a `requestSmsCode` body.
    ///
    /// - Throws: 1 for a `smsType` other than `sms` or `voice`, a `template` or `sign` that isn't
    ///   text, or a voice request naming a template; 606 for a variable that can't be placed
    ///   (a bad name, a value that isn't text or a number, too long, with control characters or
    ///   LeanCloud's signature brackets 【】, or more than 20 of them).
    public init(body: [String: JSONValue]) throws(DataAPIError) {
        switch body["smsType"] {
        case nil, .null, .string("sms"): kind = .text
        case .string("voice"): kind = .voice
        default: throw DataAPIError(.badParameters, "smsType must be \"sms\" or \"voice\".")
        }
        template = try Self.name(body["template"], "template")
        sign = try Self.name(body["sign"], "sign")
        guard template != nil else { return }
        if kind == .voice {
            throw DataAPIError(.badParameters, "A voice code takes no template: the call reads the code only.")
        }
        for (key, value) in body where !Self.requestKeys.contains(key) && !Self.systemVariables.contains(key) {
            guard variables.count < Self.maxVariables else {
                throw DataAPIError(.smsTemplateRenderFailed, "At most \(Self.maxVariables) template variables.")
            }
            guard MessageTemplate.isVariableName(key) else {
                throw DataAPIError(.smsTemplateRenderFailed, "Template variable names are letters, digits and _ (at most 64).")
            }
            variables[key] = try Self.value(value, key)
        }
    }

    private static func name(_ value: JSONValue?, _ key: String) throws(DataAPIError) -> String? {
        switch value {
        case nil, .null: return nil
        case .string(let text) where !text.isEmpty && text.count <= 64: return text
        default: throw DataAPIError(.badParameters, "\(key) must be a name (1 to 64 characters).")
        }
    }

    private static func value(_ value: JSONValue, _ key: String) throws(DataAPIError) -> String {
        let text: String
        switch value {
        case .string(let string): text = string
        case .int(let number): text = String(number)
        case .double(let number): text = String(number)
        case .bool(let flag): text = String(flag)
        default: throw DataAPIError(.smsTemplateRenderFailed, "Template variable \(key) must be text or a number.")
        }
        guard text.count <= maxValueLength else {
            throw DataAPIError(.smsTemplateRenderFailed, "Template variable \(key) is longer than \(maxValueLength) characters.")
        }
        // A newline or other control character would reshape the text; the brackets are the
        // signature's (LeanCloud refuses them in values too).
        // So would an invisible format character (a right-to-left override reorders what the
        // reader sees, a zero-width space hides a word) or a line or paragraph separator.
        let reshaping: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator]
        guard !text.unicodeScalars.contains(where: { reshaping.contains($0.properties.generalCategory) || $0 == "【" || $0 == "】" })
        else {
            throw DataAPIError(.smsTemplateRenderFailed, "Template variable \(key) holds control characters or 【】.")
        }
        return text
    }
}

extension DataAPIError.Code {
    /// 606: an SMS template that can't be rendered with the request's variables.
    public static let smsTemplateRenderFailed = Self(rawValue: 606)
}
