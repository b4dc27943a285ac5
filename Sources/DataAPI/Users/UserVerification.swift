public import Foundation
import JSON

/// LeanCloud's verification flows: codes sent by SMS (phone verification, password reset,
/// login, plain SMS codes, changing the number) and links sent by email (address verification,
/// password reset). Messages go through a `MessageSender`; codes through `VerificationCodes`.
/// A verification that makes `mobilePhoneVerified` or `emailVerified` true fires
/// `onVerified('sms')` or `onVerified('email')` once the user is written.
///
/// Codes, links and the users they reach are production's: a staging with a database of its
/// own (`--staging-data-dir`) sends no messages to its test users, which keeps a trial of new
/// code from texting real people.
public struct UserVerification: Sendable {
    /// How codes and links behave.
    public struct Settings: Sendable {
        /// The name messages sign with.
        public var appName = "FunctionHost"
        /// How long an SMS code works, unless the request asks for another `ttl`.
        public var smsCodeLifetime: TimeInterval = 10 * 60
        /// How long an email verification link works.
        public var emailLinkLifetime: TimeInterval = 24 * 3600
        /// How long a password-reset link works.
        public var passwordResetLifetime: TimeInterval = 3600
        /// Whether a signup with an email address is sent a verification link at once.
        public var verifyEmailOnSignup = false
        /// Whether a signup with a mobile phone number is sent a verification code at once.
        public var verifyPhoneOnSignup = false
        /// How often codes may be requested and guessed.
        package var limits = VerificationCodes.Limits()
        /// The SMS signatures a `requestSmsCode` may name with `sign`, besides the app's name;
        /// the first signs texts that name none (none configured: the app's name).
        public var smsSignatures: [String] = []
        /// The templates a `requestSmsCode` may name with `template`.
        public var smsTemplates = SMSTemplates(directory: nil)

        /// The defaults: codes for 10 minutes, links for a day (reset links an hour), nothing sent
        /// on signup.
        public init() {}
    }

    /// The hooked service users are read and written through.
    public let data: DataService
    /// Where messages go.
    public let sender: any MessageSender
    /// How codes and links behave.
    public let settings: Settings
    /// The clock codes expire by.
    public let now: @Sendable () -> Date
    /// The key codes are stored under.
    package let codeSecret: VerificationCodes.Secret

    /// Creates the flows; codes are stored under `codeSecret`.
    package init(
        data: DataService, sender: any MessageSender, codeSecret: VerificationCodes.Secret, settings: Settings = Settings(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.data = data
        self.sender = sender
        self.codeSecret = codeSecret
        self.settings = settings
        self.now = now
    }

    /// The codes, with this configuration's clock and limits.
    package var codes: VerificationCodes {
        VerificationCodes(data: data, secret: codeSecret, now: now, limits: settings.limits)
    }

    // MARK: Phone

    /// Sends a code that verifies a user's phone number; nothing is sent to a number already
    /// verified. 213 when no user has the number.
    public func requestMobilePhoneVerify(_ phone: String) async throws {
        let user = try await data.user(withPhone: phone, in: .production)
        if user.fields["mobilePhoneVerified"] == true { return }
        try await sendCode(.verifyPhone, to: phone, userId: user.objectId, doing: "verify your phone number")
    }

    /// Verifies the phone number the code was sent to (`phone`, when the client names it; a
    /// guess without one counts against the app's budget too). `client` is the request's address.
    public func verifyMobilePhone(code: String, phone: String?, caller: Caller, client: String? = nil) async throws {
        let redemption = try await codes.redeem(.verifyPhone, code: code, target: phone, client: client)
        guard let id = redemption.userId else { throw VerificationCodes.invalid }
        try await markVerified(.sms, userId: id, caller: caller)
    }

    /// Sends a code that resets the password of the user with this phone number (213 if none).
    public func requestPasswordResetBySmsCode(_ phone: String) async throws {
        let user = try await data.user(withPhone: phone, in: .production)
        try await sendCode(.resetPasswordBySms, to: phone, userId: user.objectId, doing: "reset your password")
    }

    /// Sets a new password with a code from `requestPasswordResetBySmsCode`; the user's sessions
    /// end, and the phone number counts as verified (the code reached it).
    public func resetPasswordBySmsCode(
        code: String, phone: String, password: String, caller: Caller, client: String? = nil
    ) async throws {
        guard !password.isEmpty else { throw DataAPIError(.passwordMissing, "Password is missing or empty.") }
        let redemption = try await codes.redeem(.resetPasswordBySms, code: code, target: phone, client: client)
        guard let id = redemption.userId else { throw VerificationCodes.invalid }
        try await setPassword(password, userId: id)
        try await markVerified(.sms, userId: id, caller: caller)
    }

    /// Sends a code the user with this phone number logs in with (`login` with `smsCode`).
    public func requestLoginSmsCode(_ phone: String) async throws {
        let user = try await data.user(withPhone: phone, in: .production)
        try await sendCode(.login, to: phone, userId: user.objectId, doing: "log in")
    }

    /// Sends a plain SMS code to any number (`requestSmsCode`), for the app's own checks or for
    /// `usersByMobilePhone`. `ttl` is in minutes, as LeanCloud's; `name` and `op` shape the
    /// server's text; `request` names a template, a signature, variables or a voice call.
    public func requestSmsCode(
        _ phone: String, ttlMinutes: Int?, name: String?, operation: String?, request: SMSRequest = SMSRequest()
    ) async throws {
        try Self.checkPhone(phone)
        // The template and signature are checked before a code is issued.
        let text = try SMSText(request, settings: settings)
        try await sendCode(
            .sms, to: phone, userId: nil, doing: operation ?? "verify it's you", appName: text.signature ?? name,
            lifetime: try Self.lifetime(minutes: ttlMinutes)
        ) { code, lifetime in
            try text.message(to: phone, code: code, lifetime: lifetime, appName: name ?? settings.appName)
        }
    }

    /// Checks a code from `requestSmsCode` (once).
    public func verifySmsCode(code: String, phone: String, client: String? = nil) async throws {
        try Self.checkPhone(phone)
        _ = try await codes.redeem(.sms, code: code, target: phone, client: client)
    }

    /// Sends the signed-in user a code for a new phone number (which no other user may have).
    public func requestChangePhoneNumber(_ phone: String, ttlMinutes: Int?, caller: Caller) async throws {
        guard let userId = caller.userId else {
            throw DataAPIError(.userNeedsSession, "Changing the phone number needs the user's session.")
        }
        try Self.checkPhone(phone)
        if let holder = try await data.user(where: "mobilePhoneNumber", equals: phone, in: .production), holder.objectId != userId {
            throw DataAPIError(.mobilePhoneTaken, "Mobile phone number has already been taken.")
        }
        try await sendCode(
            .changePhone, to: phone, userId: userId, doing: "change your phone number",
            lifetime: try Self.lifetime(minutes: ttlMinutes))
    }

    /// Sets the signed-in user's phone number to the one the code was sent to; it counts as
    /// verified.
    public func changePhoneNumber(_ phone: String, code: String, caller: Caller, client: String? = nil) async throws {
        let redemption = try await codes.redeem(.changePhone, code: code, target: phone, client: client)
        guard let userId = redemption.userId, userId == caller.userId else { throw VerificationCodes.invalid }
        _ = try await data.update(
            "_User", id: userId, body: ["mobilePhoneNumber": .string(phone)], caller: Caller.master.withoutHooks)
        try await markVerified(.sms, userId: userId, caller: caller)
    }

    // MARK: Email

    /// Sends a link that verifies a user's email address; nothing is sent to an address already
    /// verified. 205 when no user has the address.
    public func requestEmailVerify(_ email: String, links: EmailLinks) async throws {
        let user = try await user(withEmail: email)
        if user.fields["emailVerified"] == true { return }
        try await sendLink(.verifyEmail, to: email, user: user, links: links)
    }

    /// Follows a verification link: the address it was sent to is verified.
    public func verifyEmail(token: String, caller: Caller) async throws {
        let redemption = try await codes.redeem(.verifyEmail, code: token)
        guard let id = redemption.userId else { throw VerificationCodes.invalid }
        // The link verifies the address it was sent to, not one the user has changed to since.
        guard let user = try await data.engines.production.fetch("_User", id: id),
            user.fields["email"]?.stringValue == redemption.target
        else { throw VerificationCodes.invalid }
        try await markVerified(.email, userId: id, caller: caller)
    }

    /// Sends a password-reset link to the user with this email address (205 if none).
    public func requestPasswordReset(_ email: String, links: EmailLinks) async throws {
        let user = try await user(withEmail: email)
        try await sendLink(.resetPasswordByEmail, to: email, user: user, links: links)
    }

    /// Whether a password-reset link still works (the page asks before showing its form).
    public func passwordResetIsLive(token: String) async throws -> Bool {
        try await codes.isLive(.resetPasswordByEmail, code: token)
    }

    /// Sets a new password through a reset link; the user's sessions end.
    public func resetPassword(token: String, password: String) async throws {
        guard !password.isEmpty else { throw DataAPIError(.passwordMissing, "Password is missing or empty.") }
        let redemption = try await codes.redeem(.resetPasswordByEmail, code: token)
        guard let id = redemption.userId else { throw VerificationCodes.invalid }
        try await setPassword(password, userId: id)
    }

    // MARK: Signup

    /// What a new user is sent when the settings say so: a link to its email address, a code to
    /// its phone. A failure to send is logged by the caller, never undoes the signup.
    ///
    /// - Parameter links: where the email's link points; nil sends no link, as no trustworthy
    ///   address is known (the server refuses to start that way).
    public func sendSignupMessages(to user: StoredObject, links: EmailLinks?) async throws {
        if settings.verifyEmailOnSignup, let links, let email = user.fields["email"]?.stringValue, !email.isEmpty {
            try await sendLink(.verifyEmail, to: email, user: user, links: links, kind: "signup")
        }
        if settings.verifyPhoneOnSignup, let phone = user.fields["mobilePhoneNumber"]?.stringValue, !phone.isEmpty {
            try await sendCode(.verifyPhone, to: phone, userId: user.objectId, doing: "verify your phone number")
        }
    }

    // MARK: Parts

    /// Sets the channel's verified flag; `onVerified` is named by the channel (`sms`, `email`).
    private func markVerified(_ channel: OutgoingMessage.Channel, userId: String, caller: Caller) async throws {
        let field = channel == .sms ? "mobilePhoneVerified" : "emailVerified"
        let user = try await data.update("_User", id: userId, body: [field: true], caller: Caller.master.withoutHooks).object
        let hookCaller = caller.asServer(for: .object(user.restJSON()))
        await data.runAfter(.onVerified, ObjectEvent(className: channel.rawValue, object: user.restJSON(), caller: hookCaller))
    }

    private func setPassword(_ password: String, userId: String) async throws {
        _ = try await data.update(
            "_User", id: userId,
            body: ["password": .string(password), "sessionToken": .string(DataService.newSessionToken())],
            caller: Caller.master.withoutHooks)
    }

    /// Issues a code and sends it; `shape` may give the message a template's text (it keeps
    /// the server's own text when it leaves `text` empty).
    private func sendCode(
        _ purpose: VerificationCodes.Purpose, to phone: String, userId: String?, doing action: String,
        appName: String? = nil, lifetime: TimeInterval? = nil,
        shape: ((String, TimeInterval) throws -> OutgoingMessage)? = nil
    ) async throws {
        let lifetime = lifetime ?? settings.smsCodeLifetime
        let code = try await codes.issue(purpose, to: phone, userId: userId, ttl: lifetime)
        let text = "[\(appName ?? settings.appName)] Your code to \(action) is \(code); it works for \(Int(lifetime / 60)) minutes."
        var message = try shape?(code, lifetime) ?? OutgoingMessage(channel: .sms, to: phone, purpose: purpose.rawValue, code: code, text: text)
        if message.text.isEmpty { message.text = text }
        if message.smsType == nil { message.smsType = SMSRequest.Kind.text.rawValue }
        try await deliver(message)
    }

    /// Issues a link and emails it; `kind` names the mail template (`verifyEmail`, `signup`,
    /// `resetPassword`), whose variables the message carries.
    private func sendLink(
        _ purpose: VerificationCodes.Purpose, to email: String, user: StoredObject, links: EmailLinks, kind: String? = nil
    ) async throws {
        let reset = purpose == .resetPasswordByEmail
        let lifetime = reset ? settings.passwordResetLifetime : settings.emailLinkLifetime
        let token = try await codes.issue(purpose, to: email, userId: user.objectId, ttl: lifetime, link: true)
        let link = reset ? links.resetPassword(token) : links.verifyEmail(token)
        let name = Self.mailName(user.fields["username"]?.stringValue ?? email)
        let text =
            reset
            ? "Hello \(name), open this link to choose a new password for \(settings.appName): \(link)"
            : "Hello \(name), open this link to verify your email address for \(settings.appName): \(link)"
        var message = OutgoingMessage(channel: .email, to: email, purpose: purpose.rawValue, link: link, text: text)
        message.template = kind ?? (reset ? "resetPassword" : "verifyEmail")
        message.variables = [
            "appname": settings.appName, "username": name, "email": email, "link": link,
            "hours": String(max(1, Int(lifetime / 3600))),
        ]
        try await deliver(message)
    }

    /// A username as the app's mail shows it: line breaks, other control and format characters
    /// as spaces, at most 64 characters. A username is the client's text; long and on several
    /// lines, it would read as the app's own words in a mail sent under its name (a phishing
    /// note in the verification mail, to an address the client chose).
    static func mailName(_ name: String) -> String {
        let hidden: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator]
        let scalars = name.unicodeScalars.map { hidden.contains($0.properties.generalCategory) ? " " : $0 }
        let flat = String(String.UnicodeScalarView(scalars))
        return flat.count <= maxMailNameLength ? flat : String(flat.prefix(maxMailNameLength)) + "…"
    }

    /// The longest username a mail shows whole.
    static let maxMailNameLength = 64

    private func deliver(_ message: OutgoingMessage) async throws {
        do {
            try await sender.send(message)
        } catch let error as DataAPIError {
            throw error
        } catch {
            throw DataAPIError(.messageNotSent, "The \(message.channel.rawValue) message could not be sent: \(error)")
        }
    }

    private func user(withEmail email: String) async throws -> StoredObject {
        try Self.checkEmail(email)
        guard let user = try await data.user(where: "email", equals: email, in: .production) else {
            throw DataAPIError(.emailNotFound, "Could not find a user with this email address.")
        }
        return user
    }

    /// A request's `ttl` in minutes as a code's lifetime (LeanCloud's SMS API counts minutes):
    /// 1 to 1440 minutes; nil keeps the default.
    static func lifetime(minutes: Int?) throws(DataAPIError) -> TimeInterval? {
        guard let minutes else { return nil }
        guard (1...1440).contains(minutes) else {
            throw DataAPIError(.badParameters, "ttl must be a number of minutes from 1 to 1440.")
        }
        return TimeInterval(minutes * 60)
    }

    /// A phone number: digits, an optional leading `+`, 5 to 20 digits (212 when empty, 127 else).
    static func checkPhone(_ phone: String) throws(DataAPIError) {
        guard !phone.isEmpty else { throw DataAPIError(.mobilePhoneMissing, "Mobile phone number is missing.") }
        let digits = phone.hasPrefix("+") ? phone.dropFirst() : Substring(phone)
        guard (5...20).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw DataAPIError(.invalidMobilePhone, "Invalid mobile phone number.")
        }
    }

    /// An email address: something, `@`, a domain with a dot, no spaces (204 when empty, 125 else).
    static func checkEmail(_ email: String) throws(DataAPIError) {
        guard !email.isEmpty else { throw DataAPIError(.emailMissing, "Email address is missing.") }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !email.contains(where: \.isWhitespace),
            email.count <= 254
        else { throw DataAPIError(.invalidEmail, "Invalid email address.") }
    }
}
