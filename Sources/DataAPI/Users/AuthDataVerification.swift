public import Foundation
public import JSON

/// What makes a third-party account (`authData.<provider>`) worth trusting before it signs up,
/// logs in or is linked. An openid or uid is no secret (apps show it, logs keep it), so a
/// provider nothing checks would let anyone who learned one log in as its user.
///
/// A provider is accepted when, in this order: the environment has an `onAuthData` hook (it is
/// the verifier, `DataService.checkAuthData` runs it); a built-in verifier is configured for it
/// (`verifiers`, e.g. `AppleIDVerifier` for `lc_apple`); or the operator chose to trust it
/// unverified (`trustsUnverified`, `--trust-unverified-auth-data`). Anything else is refused
/// with 251. The master key, unlinking (`{provider: null}`) and `anonymous` need no proof.
/// What vouches for an entry's UnionID is stricter (`CheckedAuthData`).
public struct AuthDataVerification: Sendable {
    /// The providers trusted without any check.
    public enum Trust: Sendable, Equatable {
        /// None: every provider needs a hook or a verifier (the default).
        case none
        /// Every provider (`--trust-unverified-auth-data` alone).
        case all
        /// These providers (`--trust-unverified-auth-data weixin,qq`); a UnionID platform
        /// listed here also trusts that platform's UnionIDs (`_weixin_unionid`).
        case providers(Set<String>)

        /// The trust a comma-separated list gives: `*` (or nothing) is every provider.
        public init(list: String) {
            let names = Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            self = names.isEmpty || names.contains("*") ? .all : .providers(names)
        }

        /// Whether `provider`, or the UnionID platform a `_<platform>_unionid` key names, is trusted.
        func covers(_ provider: String) -> Bool {
            switch self {
            case .none: return false
            case .all: return true
            case .providers(let names): return names.contains(provider) || UnionID.platform(ofMarker: provider).map(names.contains) == true
            }
        }
    }

    /// The providers trusted unverified.
    public var trustsUnverified: Trust = .none
    /// The built-in verifiers, by provider key.
    public var verifiers: [String: any AuthDataVerifier] = [:]
    /// The clock tokens' expiry is read with (the server's clock).
    public var now: @Sendable () -> Date = { Date() }

    /// Nothing trusted, no verifiers.
    public init() {}

    /// `anonymous` carries a random id the client made up: nobody else knows it, and there's no
    /// one to ask about it (LeanCloud checks nothing either).
    static let selfProving: Set<String> = ["anonymous"]

    /// Refuses (251) the first provider nothing vouches for; unlinked ones (`null`) pass.
    /// Returns the providers whose UnionID is vouched for (see `CheckedAuthData`).
    func check(_ providers: [String: JSONValue]) throws -> Set<String> {
        var vouched: Set<String> = []
        for (provider, entry) in providers.sorted(by: { $0.key < $1.key }) where entry != .null {
            if Self.selfProving.contains(provider) { continue }
            var provesUnionID = false
            if let verifier = verifiers[provider] {
                do {
                    try verifier.verify(entry, at: now())
                } catch {
                    throw Self.refusal(provider, error.message)
                }
                provesUnionID = verifier.provesUnionID
            } else if !trustsUnverified.covers(provider) {
                throw Self.refusal(
                    provider,
                    "no onAuthData hook or built-in verifier checks it. Register an onAuthData hook that verifies it, or start the server with --trust-unverified-auth-data \(provider) to trust it unverified.")
            }
            // A UnionID finds its platform's main account, whoever that is: a verifier that
            // proved the openid proved nothing about it, unless it proves the UnionID too; else
            // the platform must be trusted itself.
            guard let union = try UnionID(entry: entry) else { continue }
            guard provesUnionID || trustsUnverified.covers(union.platform) else {
                throw Self.refusal(
                    provider,
                    "its UnionID on \(union.platform) isn't verified. Register an onAuthData hook that verifies it, or start the server with --trust-unverified-auth-data \(union.platform).")
            }
            vouched.insert(provider)
        }
        return vouched
    }

    /// Refuses (251), before any hook sees them, the entries of a client's request that nothing
    /// can vouch for: an `anonymous` entry carrying a UnionID (the client made its id up), and a
    /// main-account marker (`_weixin_unionid`) the request sets itself, which would log in, or
    /// claim, that UnionID's main account directly. Only the server writes markers, from
    /// vouched entries; the operator's trust of a platform unverified admits its markers too.
    func refuseUnvouchable(_ providers: [String: JSONValue]) throws {
        for (provider, entry) in providers.sorted(by: { $0.key < $1.key }) where entry != .null {
            if Self.selfProving.contains(provider), try UnionID(entry: entry) != nil {
                throw Self.refusal(provider, "an anonymous account has no UnionID.")
            }
            if let platform = UnionID.platform(ofMarker: provider), !trustsUnverified.covers(platform) {
                throw Self.refusal(
                    provider,
                    "the main account of a UnionID is marked by the server, from a verified \(platform) account.")
            }
        }
    }

    static func refusal(_ provider: String, _ reason: String) -> DataAPIError {
        DataAPIError(.authDataUnverified, "The \(provider) account can't be verified: \(reason)")
    }

    /// A verifier's refusal: 251 with the reason alone (the end of the message the client gets,
    /// once `check` names the provider).
    public static func refusal(_ reason: String) -> DataAPIError {
        DataAPIError(.authDataUnverified, reason)
    }
}

/// A built-in check of one provider's `authData` entry, with nothing but local configuration
/// (keys the operator gave): no network call on the login path.
public protocol AuthDataVerifier: Sendable {
    /// Checks that `entry` proves its account at `time`.
    ///
    /// - Throws: `DataAPIError` 251 whose message says what is wrong with it (a sentence
    ///   `AuthDataVerification.refusal(_:)` makes, which names the provider when it is passed on).
    func verify(_ entry: JSONValue, at time: Date) throws(DataAPIError)

    /// Whether an entry `verify` accepted has its `unionid` and `platform` proven too (a proof
    /// the platform signed over the UnionID, say), so that its UnionID may log in, or claim, the
    /// UnionID's main account (`CheckedAuthData`). False unless a verifier says so: proving an
    /// openid proves nothing about a UnionID written next to it.
    var provesUnionID: Bool { get }
}

extension AuthDataVerifier {
    /// False: a verifier proves the account it checks, not a UnionID next to it.
    public var provesUnionID: Bool { false }
}

extension DataAPIError.Code {
    /// 251: a third-party account (`authData`) that nothing verifies, or whose proof is wrong.
    public static let authDataUnverified = Self(rawValue: 251)
}
