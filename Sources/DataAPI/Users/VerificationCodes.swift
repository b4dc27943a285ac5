public import Foundation

/// One-time codes sent to a phone number or an email address: SMS codes of six digits, and
/// long tokens for the links in emails. They live in the database (class `_VerificationCode`,
/// readable by the master key only), so every host sharing it accepts them. Only an HMAC of
/// each code is stored, keyed with a secret derived from the master key (`Secret`): a six-digit
/// code's bare hash is reversed by trying the million codes, its HMAC not without the key.
///
/// A code is single-use (a conditional write marks it used, so two requests racing with the same
/// code can't both pass), expires, and is dropped after `Limits.maxAttempts` wrong guesses.
/// Requests are rate-limited per number or address.
public struct VerificationCodes: Sendable {
    /// What a code is for: a code issued for one purpose never serves another.
    public enum Purpose: String, Sendable, CaseIterable {
        /// `requestMobilePhoneVerify` → `verifyMobilePhone/{code}`.
        case verifyPhone
        /// The link of `requestEmailVerify`.
        case verifyEmail
        /// The link of `requestPasswordReset`.
        case resetPasswordByEmail
        /// `requestPasswordResetBySmsCode` → `resetPasswordBySmsCode/{code}`.
        case resetPasswordBySms
        /// `requestLoginSmsCode` → `login` with `smsCode`.
        case login
        /// `requestSmsCode` → `verifySmsCode/{code}` or `usersByMobilePhone`.
        case sms
        /// `requestChangePhoneNumber` → `changePhoneNumber`.
        case changePhone
    }

    /// How often codes may be requested and guessed.
    public struct Limits: Sendable {
        /// The least time between two codes for one number or address.
        public var minimumInterval: TimeInterval = 60
        /// The most codes one number or address gets in 24 hours.
        public var dailyLimit = 10
        /// Wrong guesses after which a code stops working.
        public var maxAttempts = 5

        /// The defaults: one code a minute, ten a day, five guesses.
        public init() {}
    }

    /// A code that was accepted.
    public struct Redemption: Sendable {
        /// The number or address the code was sent to.
        public var target: String
        /// The user the code was issued for, if any.
        public var userId: String?
    }

    static let className = "_VerificationCode"
    /// The class is the host's own: no client reads it and no hook sees it.
    static let caller = Caller.master.withoutHooks

    /// The service codes are stored through.
    public let data: DataService
    /// The key codes are stored under.
    public let secret: Secret
    /// The clock expiry and rate limits are measured with.
    public let now: @Sendable () -> Date
    /// The rate limits.
    public var limits: Limits

    /// Creates the codes over a data service, stored under `secret`.
    public init(
        data: DataService, secret: Secret, now: @escaping @Sendable () -> Date = { Date() }, limits: Limits = Limits()
    ) {
        self.data = data
        self.secret = secret
        self.now = now
        self.limits = limits
    }

    /// Issues a new code for `purpose` to `target` and returns it: six digits, or a 32-letter
    /// token when `link` is set (a token in a URL can be long; a code typed by hand can't).
    ///
    /// - Throws: 601 when `target` had a code less than a minute ago, or ten in a day.
    public func issue(
        _ purpose: Purpose, to target: String, userId: String? = nil, ttl: TimeInterval, link: Bool = false
    ) async throws -> String {
        let time = now().timeIntervalSince1970
        let sent = try await records(where: ["target": .string(target)])
        let recent = sent.filter { ($0.fields["sentAt"]?.doubleValue ?? 0) > time - 86_400 }
        if recent.contains(where: { ($0.fields["sentAt"]?.doubleValue ?? 0) > time - limits.minimumInterval })
            || recent.count >= limits.dailyLimit
        {
            throw DataAPIError(.codeRequestedTooOften, "Can't send a code to \(target) so often: try again later.")
        }
        // Codes older than a day count for nothing any more.
        for old in sent where !recent.contains(old) {
            try await data.delete(Self.className, id: old.objectId, caller: Self.caller)
        }
        let code = link ? Self.randomToken() : Self.randomDigits()
        var record: [String: JSONValue] = [
            "purpose": .string(purpose.rawValue), "target": .string(target), "codeHash": .string(secret.digest(of: code)),
            "sentAt": .double(time), "expiresAt": .double(time + ttl), "attempts": 0, "used": false, "ACL": [:],
        ]
        if let userId { record["userId"] = .string(userId) }
        _ = try await data.create(Self.className, body: record, caller: Self.caller)
        return code
    }

    /// Accepts a code for `purpose` (sent to `target`, when given) once: a second use, an
    /// expired code or a wrong one is 603.
    public func redeem(_ purpose: Purpose, code: String, target: String? = nil) async throws -> Redemption {
        guard let match = try await live(purpose, code: code, target: target) else {
            if let target { try await countWrongGuess(purpose, target: target) }
            throw Self.invalid
        }
        do {
            // Marked used only if nobody else did first: a code works once, even under a race.
            _ = try await data.update(
                Self.className, id: match.objectId, body: ["used": true],
                condition: try QueryPredicate(where: ["used": false]), caller: Self.caller)
        } catch let error as DataAPIError where error.code == .conditionNotMatched || error.code == .objectNotFound {
            throw Self.invalid
        }
        return Redemption(target: match.fields["target"]?.stringValue ?? "", userId: match.fields["userId"]?.stringValue)
    }

    /// A wrong guess uses up one of the attempts of the newest code sent to `target`; the last
    /// one kills it.
    private func countWrongGuess(_ purpose: Purpose, target: String) async throws {
        let sentAt = { (code: StoredObject) in code.fields["sentAt"]?.doubleValue ?? 0 }
        guard let newest = try await live(purpose, target: target).max(by: { sentAt($0) < sentAt($1) }) else { return }
        let attempts = (newest.fields["attempts"]?.intValue ?? 0) + 1
        var change: [String: JSONValue] = ["attempts": .int(attempts)]
        if attempts >= limits.maxAttempts { change["used"] = true }
        _ = try await data.update(Self.className, id: newest.objectId, body: change, caller: Self.caller)
    }

    /// Whether a code would be accepted now (without using it up).
    public func isLive(_ purpose: Purpose, code: String) async throws -> Bool {
        try await live(purpose, code: code, target: nil) != nil
    }

    static let invalid = DataAPIError(.invalidCode, "Invalid or expired code.")

    /// The unused, unexpired code for `purpose` with this text (sent to `target`, when given).
    private func live(_ purpose: Purpose, code: String, target: String?) async throws -> StoredObject? {
        try await live(purpose, target: target, hash: secret.digest(of: code)).first
    }

    /// The unused, unexpired codes for `purpose` (sent to `target`, with this hash, when given).
    private func live(_ purpose: Purpose, target: String?, hash: String? = nil) async throws -> [StoredObject] {
        var condition: [String: JSONValue] = [
            "purpose": .string(purpose.rawValue), "used": false, "expiresAt": ["$gt": .double(now().timeIntervalSince1970)],
        ]
        if let target { condition["target"] = .string(target) }
        if let hash { condition["codeHash"] = .string(hash) }
        return try await records(where: condition)
    }

    private func records(where condition: [String: JSONValue]) async throws -> [StoredObject] {
        guard try await data.storage.classExists(Self.className) else { return [] }
        var query = ObjectQuery(className: Self.className, limit: ObjectQuery.maxLimit)
        query.predicate = try QueryPredicate(where: .object(condition))
        return try await data.storage.find(query)
    }

    private static func randomDigits() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(format: "%06d", Int(generator.next(upperBound: UInt(1_000_000))))
    }

    private static func randomToken() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<32).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
    }
}
