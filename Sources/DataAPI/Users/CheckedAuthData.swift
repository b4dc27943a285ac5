public import JSON

/// The providers of an `authData` once `DataService.checkAuthData` accepted them, and the ones
/// whose UnionID something vouched for.
///
/// A UnionID is no secret (a platform gives the same one to every app of a developer, and apps
/// pass it around), yet following one logs in its main account, and claiming one
/// (`main_account: true`) decides where the person's later logins land. So an entry's UnionID
/// (`unionid` + `platform`) is followed or claimed only when something vouched for that entry:
/// - the master key, or a caller that skips `onAuthData` (the server's own writes, made after
///   it checked the providers): every entry it writes;
/// - an `onAuthData` hook that ran: every entry it handed back. The hook is the app's verifier;
///   it saw each entry it returns (or made it), and returning one is accepting it, UnionID
///   included. It vouches for nothing it didn't hand back (entries stored on the user before,
///   or changed afterwards);
/// - without a hook: an entry whose built-in verifier proves UnionIDs
///   (`AuthDataVerifier.provesUnionID`), or whose UnionID's platform the operator trusts
///   unverified (`--trust-unverified-auth-data weixin`). Any other UnionID is refused (251).
/// Never an `anonymous` entry: its id is whatever the client made up, and nothing can vouch for
/// it. A client's request whose `anonymous` entry carries a UnionID, or that carries a
/// main-account marker (`_weixin_unionid`) itself, is refused before any hook runs
/// (`AuthDataVerification.refuseUnvouchable`).
public struct CheckedAuthData: Sendable, Equatable {
    /// The providers, as the check left them (an `onAuthData` hook may have changed them).
    public let providers: [String: JSONValue]
    /// The providers whose UnionID was vouched for; never `anonymous`.
    public let vouchedUnionIDs: Set<String>

    /// Checked providers; `vouchedUnionIDs` loses `anonymous` whatever the caller said.
    init(providers: [String: JSONValue], vouchedUnionIDs: Set<String>) {
        self.providers = providers
        self.vouchedUnionIDs = vouchedUnionIDs.subtracting(AuthDataVerification.selfProving)
    }

    /// Providers every one of which is vouched for (the master key's, the hook's).
    init(vouchingAll providers: [String: JSONValue]) {
        self.init(providers: providers, vouchedUnionIDs: Set(providers.keys))
    }

    /// The UnionID the entry of `provider` may be followed or claimed by: nil when it has none,
    /// or when nothing vouched for it. `entry` is the one about to be used, which must be the
    /// one checked (a `beforeSave` hook may have changed a signup's `authData` since).
    ///
    /// - Throws: 105 for a malformed platform, vouched for or not (`UnionID.init(entry:)`).
    func unionID(of provider: String, entry: JSONValue) throws -> UnionID? {
        guard let union = try UnionID(entry: entry) else { return nil }
        guard vouchedUnionIDs.contains(provider), providers[provider] == entry else { return nil }
        return union
    }

    /// `providers` with the main-account marker added for each vouched entry that asks to be
    /// the main account (`main_account: true`) and doesn't carry one already.
    func markingMainAccounts(_ providers: [String: JSONValue]) throws -> [String: JSONValue] {
        var marked = providers
        for (provider, entry) in providers {
            guard let union = try unionID(of: provider, entry: entry), union.isMainAccount, marked[union.key] == nil else { continue }
            marked[union.key] = union.entry
        }
        return marked
    }
}
