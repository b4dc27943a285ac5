import DataAPI
import Hummingbird
import JSON

/// LeanCloud's verification API: codes by SMS (`requestMobilePhoneVerify`,
/// `verifyMobilePhone/{code}`, `requestPasswordResetBySmsCode`, `resetPasswordBySmsCode/{code}`,
/// `requestLoginSmsCode`, `requestSmsCode`, `verifySmsCode/{code}`, `usersByMobilePhone`,
/// `requestChangePhoneNumber`, `changePhoneNumber`) and links by email (`requestEmailVerify`,
/// `requestPasswordReset`). Each answers `{}` on success. Every request that sends passes
/// `MessageGate` first: captcha, send limits.
struct VerificationRoutes: Sendable {
    let verification: UserVerification
    let accounts: UserAccounts
    let gate: MessageGate
    /// The address links in emails start with; nil refuses to send links.
    let publicURL: String?

    func register(on group: RouterGroup<HostRequestContext>) {
        route(group, "requestEmailVerify", sends: .email) { body, _, _ in
            try await verification.requestEmailVerify(Self.text(body, "email"), links: try LinkBase.forEmail(publicURL: publicURL))
        }
        route(group, "requestPasswordReset", sends: .email) { body, _, _ in
            try await verification.requestPasswordReset(Self.text(body, "email"), links: try LinkBase.forEmail(publicURL: publicURL))
        }
        route(group, "requestMobilePhoneVerify", sends: .sms) { body, _, _ in
            try await verification.requestMobilePhoneVerify(Self.text(body, "mobilePhoneNumber"))
        }
        // Guesses at codes are counted per client address too (`ClientAddress`).
        route(group, "verifyMobilePhone/:code") { body, request, context in
            try await verification.verifyMobilePhone(
                code: try context.parameters.require("code"), phone: body["mobilePhoneNumber"]?.stringValue,
                caller: context.caller, client: context.clientAddress)
        }
        route(group, "requestPasswordResetBySmsCode", sends: .sms) { body, _, _ in
            try await verification.requestPasswordResetBySmsCode(Self.text(body, "mobilePhoneNumber"))
        }
        for method in [HTTPRequest.Method.put, .post] {
            route(group, "resetPasswordBySmsCode/:code", method: method) { body, request, context in
                try await verification.resetPasswordBySmsCode(
                    code: try context.parameters.require("code"), phone: Self.text(body, "mobilePhoneNumber"),
                    password: Self.text(body, "password"), caller: context.caller, client: context.clientAddress)
            }
        }
        route(group, "requestLoginSmsCode", sends: .sms) { body, _, _ in
            try await verification.requestLoginSmsCode(Self.text(body, "mobilePhoneNumber"))
        }
        route(group, "requestSmsCode", sends: .sms) { body, _, _ in
            try gate.checkSMSText(body, appName: verification.settings.appName)
            try await verification.requestSmsCode(
                Self.text(body, "mobilePhoneNumber"), ttlMinutes: try Self.minutes(body["ttl"]), name: body["name"]?.stringValue,
                operation: body["op"]?.stringValue, request: try SMSRequest(body: body))
        }
        route(group, "verifySmsCode/:code") { body, request, context in
            try await verification.verifySmsCode(
                code: try context.parameters.require("code"), phone: Self.text(body, "mobilePhoneNumber"),
                client: context.clientAddress)
        }
        route(group, "requestChangePhoneNumber", sends: .sms) { body, _, context in
            try await verification.requestChangePhoneNumber(
                Self.text(body, "mobilePhoneNumber"), ttlMinutes: try Self.minutes(body["ttl"]), caller: context.caller)
        }
        route(group, "changePhoneNumber") { body, request, context in
            try await verification.changePhoneNumber(
                Self.text(body, "mobilePhoneNumber"), code: Self.text(body, "code"), caller: context.caller,
                client: context.clientAddress)
        }
        group.post("usersByMobilePhone") { request, context in
            var request = request
            let body = try await request.jsonObject(context: context)
            let (user, created) = try await accounts.signUpOrLogIn(
                phone: Self.text(body, "mobilePhoneNumber"), smsCode: Self.text(body, "smsCode"),
                password: body["password"]?.stringValue, caller: context.caller, client: context.clientAddress)
            return JSONResponse(status: created ? .created : .ok, user)
        }
    }

    /// A route (POST unless told) with a JSON object body, answering `{}`; one that `sends` a
    /// message runs through the gate.
    private func route(
        _ group: RouterGroup<HostRequestContext>, _ path: String, method: HTTPRequest.Method = .post,
        sends channel: OutgoingMessage.Channel? = nil,
        _ action: @escaping @Sendable ([String: JSONValue], Request, HostRequestContext) async throws -> Void
    ) {
        group.on(RouterPath(path), method: method) { request, context in
            var request = request
            let body = try await request.jsonObject(context: context)
            if let channel {
                try await gate.send(channel, body: body, caller: context.caller, client: context.clientAddress) { try await action(body, request, context) }
            } else {
                try await action(body, request, context)
            }
            return JSONResponse([:])
        }
    }

    /// A text member of the body; a missing one is empty, which each flow refuses with its code.
    private static func text(_ body: [String: JSONValue], _ key: String) -> String {
        body[key]?.stringValue ?? ""
    }

    /// A `ttl` in minutes, as LeanCloud's SMS API takes it.
    private static func minutes(_ value: JSONValue?) throws -> Int? {
        guard let value, value != .null else { return nil }
        guard let minutes = value.intValue ?? value.stringValue.flatMap({ Int64($0) }) else {
            throw DataAPIError(.incorrectType, "ttl must be a number of minutes.")
        }
        return Int(clamping: minutes)
    }
}
