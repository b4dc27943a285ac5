package import Foundation
import JSON

/// One-time codes sent to a phone number or an email address: SMS codes of six digits, and
/// long tokens for the links in emails. They live in the database (class `_VerificationCode`,
/// readable by the master key only), so every host sharing it accepts them. Only an HMAC of
/// each code is stored, keyed with a secret derived from the master key (`Secret`): a six-digit
/// code's bare hash is reversed by trying the million codes, its HMAC not without the key.
///
/// A code is single-use (a conditional write marks it used, so two requests racing with the same
/// code can't both pass), expires, and takes at most `Limits.maxAttempts` guesses. Requests are
/// rate-limited per number or address.
///
/// Guesses are counted before they are checked, in the database (so concurrent guesses and
/// several hosts can't get more): each guess at a number's codes uses up one attempt of every
/// live code of that number; each wrong guess counts against the client's address
/// (`Limits.maxWrongGuessesPerClient`); and a guess that names no number (the Objective-C SDK's
/// `verifyMobilePhone:` sends the code alone, so any pending code may match) also counts
/// against the whole app (`Limits.maxCodeOnlyGuessesPerApp`). Link tokens (32 letters) aren't
/// counted: nobody guesses one.
package struct VerificationCodes: Sendable {
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

        /// Whether codes for this purpose are typed by a person (six digits, guessable, so
        /// guesses are counted), not carried by a link (32 letters).
        var isTyped: Bool { self != .verifyEmail && self != .resetPasswordByEmail }
    }

    /// How often codes may be requested and guessed.
    public struct Limits: Sendable {
        /// The least time between two codes for one number or address.
        public var minimumInterval: TimeInterval = 60
        /// The most codes one number or address gets in 24 hours.
        public var dailyLimit = 10
        /// Guesses after which a code stops working (a right one uses it up anyway).
        public var maxAttempts = 5
        /// Wrong codes one client address may send in an hour, whatever the code was for: a
        /// code is six digits, so each guess at one of P pending codes wins with P in a million.
        /// Generous enough for people behind one carrier-grade NAT mistyping codes.
        public var maxWrongGuessesPerClient = 30
        /// Guesses without a number (which may match any pending code) the whole app takes in
        /// an hour. Past it such guesses are refused, right or wrong, until the hour ends; a
        /// client that sends the number isn't affected. At 50 an hour, an attacker's chance of
        /// hitting one of 100 pending codes is 50 × 100 / 10⁶ = 0.5 % an hour at most.
        public var maxCodeOnlyGuessesPerApp = 50

        /// The defaults: one code a minute, ten a day, five guesses, 30 wrong codes an hour per
        /// client, 50 code-only guesses an hour per app.
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
    /// - Throws: 601 (1 for an email address) when `target` had a code less than a minute ago,
    ///   or ten in a day.
    public func issue(
        _ purpose: Purpose, to target: String, userId: String? = nil, ttl: TimeInterval, link: Bool = false
    ) async throws -> String {
        let time = now().timeIntervalSince1970
        // Counted by the destination as it is delivered, not as it is written: `A@x.com` and
        // `a@X.com` reach one mailbox, `+8613…`, `008613…` and `13…` one phone.
        let destination = Self.destination(of: target)
        let sent = try await records(where: ["destination": .string(destination)])
        let recent = sent.filter { ($0.fields["sentAt"]?.doubleValue ?? 0) > time - 86_400 }
        if recent.contains(where: { ($0.fields["sentAt"]?.doubleValue ?? 0) > time - limits.minimumInterval })
            || recent.count >= limits.dailyLimit
        {
            // An address's mails (the linked codes) are refused as LeanCloud refuses them: code 1,
            // in its own words, which apps show and the Python SDK's suite checks. A number's
            // codes answer 601.
            if !purpose.isTyped { throw DataAPIError(.badParameters, "请不要往同一个邮件地址发送太多邮件。") }
            throw DataAPIError(.codeRequestedTooOften, "Can't send a code to \(target) so often: try again later.")
        }
        // Codes older than a day count for nothing any more.
        for old in sent where !recent.contains(old) {
            try await data.delete(Self.className, id: old.objectId, caller: Self.caller)
        }
        let code = link ? Self.randomToken() : Self.randomDigits()
        var record: [String: JSONValue] = [
            "purpose": .string(purpose.rawValue), "target": .string(target), "destination": .string(destination),
            "codeHash": .string(secret.digest(of: code)),
            "sentAt": .double(time), "expiresAt": .double(time + ttl), "attempts": 0, "used": false, "ACL": [:],
        ]
        if let userId { record["userId"] = .string(userId) }
        _ = try await data.create(Self.className, body: record, caller: Self.caller)
        return code
    }

    /// Where a code for `target` is delivered, for the send limits: an email address in lower
    /// case; a phone number's digits with its country code (`+86` for a mainland number written
    /// without one, LeanCloud's default region; `00` read as `+`).
    static func destination(of target: String) -> String {
        if target.contains("@") { return target.lowercased() }
        var digits = String(target.unicodeScalars.filter { ("0"..."9").contains($0) }.map(Character.init))
        if target.hasPrefix("+") { return "+" + digits }
        if digits.hasPrefix("00") {
            digits.removeFirst(2)
            return "+" + digits
        }
        if digits.count == 11, digits.hasPrefix("1") { return "+86" + digits }
        return digits.isEmpty ? target : digits
    }

    /// Accepts a code for `purpose` (sent to `target`, when given) once: a second use, an
    /// expired code, a wrong one or one past its guesses is 603. `client` is the address the
    /// guess came from.
    public func redeem(
        _ purpose: Purpose, code: String, target: String? = nil, client: String? = nil
    ) async throws -> Redemption {
        guard purpose.isTyped else {
            guard let match = try await live(purpose, code: code, target: target) else { throw Self.invalid }
            return try await use(match)
        }
        // Counted first, checked after: every guess that gets checked has been paid for.
        let guesses = GuessCounters(codes: self)
        if let client { try await guesses.take(.client(client), limit: limits.maxWrongGuessesPerClient) }
        let match: StoredObject?
        if let target {
            match = try await attempt(purpose, code: code, target: target)
        } else {
            try await guesses.take(.codeOnly(purpose), limit: limits.maxCodeOnlyGuessesPerApp)
            match = try await live(purpose, code: code, target: nil)
        }
        guard let match else { throw Self.invalid }
        let redemption = try await use(match)
        // Only wrong guesses count against the address: its right one is given back.
        if let client { try await guesses.giveBack(.client(client)) }
        return redemption
    }

    /// Uses up one attempt of every live code sent to `target`, atomically (a code whose
    /// attempts are used up takes none), then returns the one this guess matches among those
    /// that took it.
    private func attempt(_ purpose: Purpose, code: String, target: String) async throws -> StoredObject? {
        let hash = secret.digest(of: code)
        var match: StoredObject?
        for candidate in try await live(purpose, target: target) {
            do {
                let counted = try await data.update(
                    Self.className, id: candidate.objectId, body: ["attempts": ["__op": "Increment", "amount": 1]],
                    condition: try QueryPredicate(where: ["used": false, "attempts": ["$lt": .int(Int64(limits.maxAttempts))]]),
                    caller: Self.caller
                ).object
                if counted.fields["codeHash"]?.stringValue == hash { match = counted }
            } catch let error as DataAPIError where error.code == .conditionNotMatched || error.code == .objectNotFound {
                continue
            }
        }
        return match
    }

    /// Marks a code used, only if nobody else did first, and returns what it was for.
    private func use(_ match: StoredObject) async throws -> Redemption {
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

    /// Whether a code would be accepted now (without using it up).
    public func isLive(_ purpose: Purpose, code: String) async throws -> Bool {
        try await live(purpose, code: code, target: nil) != nil
    }

    static let invalid = DataAPIError(.invalidCode, "Invalid or expired code.")

    /// The unused, unexpired code for `purpose` with this text (sent to `target`, when given).
    private func live(_ purpose: Purpose, code: String, target: String?) async throws -> StoredObject? {
        try await live(purpose, target: target, hash: secret.digest(of: code)).first
    }

    /// The unused, unexpired codes for `purpose` with guesses left (sent to `target`, with this
    /// hash, when given).
    private func live(_ purpose: Purpose, target: String?, hash: String? = nil) async throws -> [StoredObject] {
        var condition: [String: JSONValue] = [
            "purpose": .string(purpose.rawValue), "used": false, "expiresAt": ["$gt": .double(now().timeIntervalSince1970)],
            "attempts": ["$lt": .int(Int64(limits.maxAttempts))],
        ]
        if let target { condition["target"] = .string(target) }
        if let hash { condition["codeHash"] = .string(hash) }
        return try await records(where: condition)
    }

    private func records(where condition: [String: JSONValue]) async throws -> [StoredObject] {
        guard try await data.engines.production.classExists(Self.className) else { return [] }
        var query = ObjectQuery(className: Self.className, limit: ObjectQuery.maxLimit)
        query.predicate = try QueryPredicate(where: .object(condition))
        return try await data.engines.production.find(query)
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
