import DataAPI
import Hummingbird
import JSON

/// Stands before every SMS and email a client causes (the verification endpoints and the
/// signup messages): an SMS needs a captcha's `validate_token` when the server requires one, and
/// each message takes room in the client's and the app's send windows, before any code is issued.
/// The master key passes: it is the operator's own backend.
struct MessageGate: Sendable {
    let counter: SendCounter
    let captchas: Captchas
    let protection: MessageProtection

    /// Runs `send` (which sends one `channel` message, or fails) if the caller, from the address
    /// `client`, may.
    ///
    /// - Throws: 608 for an SMS without the `validate_token` the server requires, or with a
    ///   wrong one; 601 (HTTP 429) past a send limit. A `send` that fails before sending gives its
    ///   room back; one that fails to deliver (602) keeps it, as the provider may have sent.
    func send<Value: Sendable>(
        _ channel: OutgoingMessage.Channel, body: [String: JSONValue], caller: Caller, client: String?,
        _ send: () async throws -> Value
    ) async throws -> Value {
        if caller.isMaster { return try await send() }
        if channel == .sms {
            if let token = body["validate_token"]?.stringValue {
                try await captchas.redeem(validateToken: token)
            } else if protection.captchaRequired {
                throw DataAPIError(.captchaInvalid, "This request needs a validate_token from verifyCaptcha.")
            }
        }
        let ticket = try await counter.take(channel, client: client)
        do {
            return try await send()
        } catch let error as DataAPIError where error.code == .messageNotSent {
            throw error
        } catch {
            await counter.refund(ticket)
            throw error
        }
    }

    /// The messages a new user is sent (`UserVerification.sendSignupMessages`), counted like any
    /// other: a signup flood from `client` can't send more than the windows allow.
    func sendSignupMessages(
        to user: StoredObject, verification: UserVerification, linkBase: String?, caller: Caller, client: String?
    ) async throws {
        var channels: [OutgoingMessage.Channel] = []
        let settings = verification.settings
        // As `sendSignupMessages` decides: no link is emailed without a public URL.
        if settings.verifyEmailOnSignup, linkBase != nil, user.fields["email"]?.stringValue?.isEmpty == false {
            channels.append(.email)
        }
        if settings.verifyPhoneOnSignup, user.fields["mobilePhoneNumber"]?.stringValue?.isEmpty == false { channels.append(.sms) }
        guard !channels.isEmpty else { return }
        guard !caller.isMaster else { return try await verification.sendSignupMessages(to: user, linkBase: linkBase) }
        var tickets: [SendCounter.Ticket] = []
        do {
            for channel in channels { tickets.append(try await counter.take(channel, client: client)) }
            try await verification.sendSignupMessages(to: user, linkBase: linkBase)
        } catch let error as DataAPIError where error.code == .messageNotSent {
            throw error
        } catch {
            for ticket in tickets { await counter.refund(ticket) }
            throw error
        }
    }

    /// Refuses a `requestSmsCode` whose `name` or `op` the operator didn't configure (its
    /// `template` and `sign` are checked against the operator's when the text is made).
    func checkSMSText(_ body: [String: JSONValue], appName: String) throws {
        try protection.checkSMSText(name: body["name"]?.stringValue, operation: body["op"]?.stringValue, appName: appName)
    }
}
