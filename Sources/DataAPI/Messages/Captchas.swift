package import Foundation
import JSON

/// LeanCloud's captcha: `requestCaptcha` gives a token and an image URL; `verifyCaptcha` with the
/// text the image shows gives a `validate_token`; an SMS request carrying that token is let
/// through once (required when the server says so).
///
/// Captchas live in the database (class `_Captcha`, the master key's only), so every host
/// sharing it serves and checks them. The text is never stored: it is derived from the token
/// with the app's code secret (an HMAC), so the image is drawn by whichever host is asked, and
/// reading `_Captcha` gives away neither texts nor validate tokens (only their HMACs are kept).
///
/// A captcha takes one guess: `verifyCaptcha` uses it up, right or wrong (a conditional write,
/// so two racing guesses can't both be checked). A validate token works once, for one send.
package struct Captchas: Sendable {
    /// What a `requestCaptcha` may ask for, with LeanCloud's ranges and defaults.
    public struct Request: Sendable {
        /// Image width in pixels, 60 to 200.
        public var width = 85
        /// Image height in pixels, 30 to 100.
        public var height = 30
        /// Characters, 3 to 6 (LeanCloud lets only the master key choose).
        public var size = 4
        /// Seconds the captcha can be answered, 10 to 180 (master key only, as `size`).
        public var ttl: TimeInterval = 60

        /// The defaults: 85×30, four characters, a minute.
        public init() {}

        /// Refuses values outside LeanCloud's ranges (code 1).
        public func validate() throws(DataAPIError) {
            for (name, value, range) in [
                ("width", width, 60...200), ("height", height, 30...100), ("size", size, 3...6), ("ttl", Int(ttl), 10...180),
            ] where !range.contains(value) {
                throw DataAPIError(.badParameters, "\(name) must be from \(range.lowerBound) to \(range.upperBound).")
            }
        }
    }

    static let className = "_Captcha"
    /// The class is the host's own: no client reads it and no hook sees it.
    static let caller = Caller.master.withoutHooks
    /// How long a validate token works: the time between solving the captcha and asking for
    /// the SMS, seconds for a person.
    static let validateTokenLifetime: TimeInterval = 5 * 60

    /// 608: no valid captcha where one is needed (a wrong, used or expired captcha or validate token).
    public static let invalid = DataAPIError(.captchaInvalid, "Invalid or expired captcha: request a new one.")

    /// The service captchas are stored through.
    public let data: DataService
    /// The key texts are derived with and tokens stored under.
    public let secret: VerificationCodes.Secret
    /// The clock captchas expire by.
    public let now: @Sendable () -> Date

    /// Creates the captchas over a data service.
    public init(data: DataService, secret: VerificationCodes.Secret, now: @escaping @Sendable () -> Date = { Date() }) {
        self.data = data
        self.secret = secret
        self.now = now
    }

    /// Creates a captcha and returns its token.
    public func create(_ request: Request) async throws -> String {
        try request.validate()
        let token = Self.randomToken()
        let time = now().timeIntervalSince1970
        _ = try await data.create(
            Self.className,
            body: [
                "tokenHash": .string(digest("token", token)), "width": .int(Int64(request.width)),
                "height": .int(Int64(request.height)), "size": .int(Int64(request.size)),
                "expiresAt": .double(time + request.ttl), "used": false, "ACL": [:],
            ], caller: Self.caller)
        try await dropExpired(before: time - Self.validateTokenLifetime)
        return token
    }

    /// The PNG of a live captcha; nil for an unknown, used or expired one.
    public func image(token: String) async throws -> [UInt8]? {
        guard let captcha = try await live(token: token) else { return nil }
        let size = captcha.fields["size"]?.intValue.map(Int.init) ?? 4
        return try CaptchaImage(
            text: Self.answer(to: token, size: size, secret: secret), width: captcha.fields["width"]?.intValue.map(Int.init) ?? 85,
            height: captcha.fields["height"]?.intValue.map(Int.init) ?? 30,
            seed: UInt64(digest("noise", token).prefix(16), radix: 16) ?? 0
        ).png()
    }

    /// Checks the text a person read (any case) and returns a validate token; the captcha is
    /// used up either way.
    ///
    /// - Throws: 608 for a wrong text, or an unknown, used or expired captcha.
    public func verify(code: String, token: String) async throws -> String {
        guard let captcha = try await live(token: token) else { throw Self.invalid }
        let size = captcha.fields["size"]?.intValue.map(Int.init) ?? 4
        let validateToken = Self.randomToken()
        let right = code.uppercased() == String(Self.answer(to: token, size: size, secret: secret))
        var change: [String: JSONValue] = ["used": true]
        if right {
            change["validateHash"] = .string(digest("validate", validateToken))
            change["validateExpiresAt"] = .double(now().timeIntervalSince1970 + Self.validateTokenLifetime)
            change["validateUsed"] = false
        }
        try await markOnce(captcha.objectId, change, unless: "used")
        guard right else { throw Self.invalid }
        return validateToken
    }

    /// Accepts a validate token once.
    ///
    /// - Throws: 608 for an unknown, used or expired one.
    public func redeem(validateToken: String) async throws {
        let condition = try QueryPredicate(where: [
            "validateHash": .string(digest("validate", validateToken)), "validateUsed": false,
            "validateExpiresAt": ["$gt": .double(now().timeIntervalSince1970)],
        ])
        guard let match = try await data.engines.production.find(ObjectQuery(className: Self.className, predicate: condition, limit: 1)).first
        else { throw Self.invalid }
        try await markOnce(match.objectId, ["validateUsed": true], unless: "validateUsed")
    }

    /// The text a captcha shows: `size` characters of `CaptchaFont.alphabet`, from the HMAC of
    /// its token under `secret` (bytes past the last whole multiple of the alphabet are skipped,
    /// so each character is equally likely).
    public static func answer(to token: String, size: Int, secret: VerificationCodes.Secret) -> [Character] {
        let alphabet = CaptchaFont.alphabet
        var characters: [Character] = []
        var round = 0
        while characters.count < size {
            let hex = Array(secret.digest(of: "captcha-text:\(round):" + token))
            for index in stride(from: 0, to: hex.count - 1, by: 2) where characters.count < size {
                guard let byte = UInt8(String(hex[index...index + 1]), radix: 16) else { continue }
                if Int(byte) < 256 / alphabet.count * alphabet.count { characters.append(alphabet[Int(byte) % alphabet.count]) }
            }
            round += 1
        }
        return characters
    }

    /// Sets `change` on the captcha only if `flag` is still false: one guess, one send.
    private func markOnce(_ id: String, _ change: [String: JSONValue], unless flag: String) async throws {
        do {
            _ = try await data.update(
                Self.className, id: id, body: change, condition: try QueryPredicate(where: [flag: false]), caller: Self.caller)
        } catch let error as DataAPIError where error.code == .conditionNotMatched || error.code == .objectNotFound {
            throw Self.invalid
        }
    }

    private func live(token: String) async throws -> StoredObject? {
        let condition = try QueryPredicate(where: [
            "tokenHash": .string(digest("token", token)), "used": false,
            "expiresAt": ["$gt": .double(now().timeIntervalSince1970)],
        ])
        return try await data.engines.production.find(ObjectQuery(className: Self.className, predicate: condition, limit: 1)).first
    }

    /// Captchas whose validate tokens can no longer work go, a few with each new one.
    private func dropExpired(before time: TimeInterval) async throws {
        let old = try QueryPredicate(where: ["expiresAt": ["$lt": .double(time)]])
        for captcha in try await data.engines.production.find(ObjectQuery(className: Self.className, predicate: old, limit: 20)) {
            try? await data.delete(Self.className, id: captcha.objectId, caller: Self.caller)
        }
    }

    /// What is stored for a token: its HMAC, labeled by kind so no stored value matches another.
    private func digest(_ kind: String, _ token: String) -> String {
        secret.digest(of: "captcha-\(kind):" + token)
    }

    private static func randomToken() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<24).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
    }
}

extension DataAPIError.Code {
    /// 608: a captcha or validate token that is missing where one is required, wrong, used or expired.
    public static let captchaInvalid = Self(rawValue: 608)
}
