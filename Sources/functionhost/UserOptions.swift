import ArgumentParser
import DataAPI
import Foundation
import FunctionHost
import JSON

/// The options of `serve` about users: verification messages, default ACLs, third-party logins.
struct UserOptions: ParsableArguments {
    @Option(
        name: .customLong("public-url"),
        help: "The address clients reach the server at, e.g. https://api.example.com: the start of links in emails and of file URLs (default: $FUNCTIONHOST_PUBLIC_URL; without it, password-reset and verification emails are refused and file URLs use the listening address).")
    var publicURL: String?

    @Option(
        name: .customLong("message-webhook"),
        help: "POST each verification SMS and email as JSON to this URL (default: $FUNCTIONHOST_MESSAGE_WEBHOOK, else the _Outbox class).")
    var messageWebhook: String?

    @Flag(name: .customLong("verify-email-on-signup"), help: "Send a verification link to each new user's email address.")
    var verifyEmailOnSignup = false

    @Flag(name: .customLong("verify-phone-on-signup"), help: "Send a verification code to each new user's mobile phone number.")
    var verifyPhoneOnSignup = false

    @Option(
        name: .customLong("code-guesses-per-client"),
        help: "Wrong SMS codes one client address may send in an hour, across all numbers (default 30).")
    var codeGuessesPerClient: Int?

    @Option(
        name: .customLong("code-only-guesses-per-app"),
        help: "Guesses at SMS codes sent without a phone number the whole app takes in an hour (default 50).")
    var codeOnlyGuessesPerApp: Int?

    @Option(
        name: .customLong("default-acl"),
        help: #"A class's default ACL, Class={"*":{"read":true},"creator":{"write":true}}; repeatable."#)
    var defaultACLs: [String] = []

    @Flag(
        name: .customLong("anyone-creates-roles"),
        help: "Let clients with no signed-in user create roles (with an ACL), as LeanCloud's default _Role permissions do.")
    var anyoneCreatesRoles = false

    @Flag(
        name: .customLong("open-user-queries"),
        help: "Let any client query _User (find and count), as a new LeanCloud app does; closed by default: a client then finds only its own user.")
    var openUserQueries = false

    @Flag(
        name: .customLong("open-status-inboxes"),
        help: "Let any client read, count and mark read any user's status inbox by naming its owner, as LeanCloud's server did; closed by default: a user reads his own inboxes only.")
    var openStatusInboxes = false

    @Option(
        name: .customLong("field-default"),
        help: #"A column's default value, Class.field=JSON (e.g. Person.company="leancloud"); repeatable."#)
    var fieldDefaults: [String] = []

    @Option(
        name: .customLong("trust-unverified-auth-data"), defaultAsFlag: "*",
        help: ArgumentHelp(
            "Accept third-party logins (authData) that no onAuthData hook or built-in verifier checks: of every provider, or of these (weixin,qq). Anyone who knows an account's id can then log in as its user.",
            valueName: "providers"))
    var trustUnverifiedAuthData: String? = nil

    @Option(
        name: .customLong("apple-jwks"),
        help: ArgumentHelp(
            "Verify Sign in with Apple (authData.lc_apple) identity tokens against this JSON Web Key Set file (Apple's https://appleid.apple.com/auth/keys, saved); needs --apple-client-id.",
            valueName: "file"))
    var appleJWKS: String?

    @Option(
        name: .customLong("apple-client-id"),
        help: ArgumentHelp("The app's Apple client ids (bundle id, services id), comma-separated: the audiences Apple identity tokens may name.", valueName: "ids"))
    var appleClientIds: String?

    /// Refuses a malformed webhook URL or ACL before the server starts.
    func validate() throws {
        var configuration = HostConfiguration(dataDirectory: "", keys: AppKeys(appId: "", appKey: "", masterKey: "", hookKey: ""))
        try apply(to: &configuration, environment: ProcessInfo.processInfo.environment)
    }

    /// Applies the options (and their environment variables) to a configuration.
    func apply(to configuration: inout HostConfiguration, environment: [String: String]) throws {
        if let text = publicURL ?? environment["FUNCTIONHOST_PUBLIC_URL"], !text.isEmpty {
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil,
                url.query == nil, url.fragment == nil
            else {
                throw ValidationError("--public-url needs an http(s) URL such as https://api.example.com, not '\(text)'.")
            }
            configuration.publicURL = text.hasSuffix("/") ? String(text.dropLast()) : text
        }
        if let text = messageWebhook ?? environment["FUNCTIONHOST_MESSAGE_WEBHOOK"] {
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw ValidationError("--message-webhook needs an http(s) URL, not '\(text)'.")
            }
            configuration.messageWebhook = url
        }
        configuration.verification.verifyEmailOnSignup = verifyEmailOnSignup
        if verifyEmailOnSignup, configuration.publicURL == nil {
            throw ValidationError("--verify-email-on-signup needs --public-url: the links it emails start with it.")
        }
        configuration.verification.verifyPhoneOnSignup = verifyPhoneOnSignup
        for (option, value) in [("--code-guesses-per-client", codeGuessesPerClient), ("--code-only-guesses-per-app", codeOnlyGuessesPerApp)]
        where value.map({ $0 < 0 }) == true {
            throw ValidationError("\(option) takes a number of guesses, 0 or more.")
        }
        if let codeGuessesPerClient { configuration.verification.limits.maxWrongGuessesPerClient = codeGuessesPerClient }
        if let codeOnlyGuessesPerApp { configuration.verification.limits.maxCodeOnlyGuessesPerApp = codeOnlyGuessesPerApp }
        for entry in defaultACLs {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, Names.isValidClassName(parts[0]),
                case .object? = try? JSONValue(parsing: Array(parts[1].utf8))
            else {
                throw ValidationError("--default-acl takes Class={...ACL JSON...}, not '\(entry)'.")
            }
            configuration.defaultACLs[parts[0]] = try JSONValue(parsing: Array(parts[1].utf8))
        }
        configuration.anyoneCreatesRoles = anyoneCreatesRoles
        configuration.openUserQueries = openUserQueries
        configuration.openStatusInboxes = openStatusInboxes
        try applyAuthData(to: &configuration)
        for entry in fieldDefaults {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            let path = parts.first?.split(separator: ".", maxSplits: 1).map(String.init) ?? []
            guard parts.count == 2, path.count == 2, Names.isValidClassName(path[0]), Names.isValidFieldName(path[1]),
                let value = try? JSONValue(parsing: Array(parts[1].utf8))
            else {
                throw ValidationError("--field-default takes Class.field=JSON, not '\(entry)'.")
            }
            configuration.fieldDefaults[path[0], default: [:]][path[1]] = value
        }
    }
}

extension UserOptions {
    /// The providers trusted unverified and the Apple verifier (its key set read now, so a bad
    /// file stops the server before it starts).
    fileprivate func applyAuthData(to configuration: inout HostConfiguration) throws {
        if let list = trustUnverifiedAuthData { configuration.authDataVerification.trustsUnverified = .init(list: list) }
        switch (appleJWKS, appleClientIds) {
        case (nil, nil):
            return
        case (let path?, let ids?):
            let clientIds = Set(ids.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            do {
                configuration.authDataVerification.verifiers[AppleIDVerifier.provider] = try AppleIDVerifier(
                    jwksFile: path, clientIds: clientIds)
            } catch {
                throw ValidationError("--apple-jwks: \(error.message)")
            }
        default:
            throw ValidationError("--apple-jwks and --apple-client-id go together: the key set checks the signature, the ids the audience.")
        }
    }
}
