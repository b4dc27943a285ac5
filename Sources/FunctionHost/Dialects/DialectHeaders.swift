import HTTPTypes

/// The dialects' header families and their credentials, put onto LeanCloud's headers so that a
/// dialect request passes the one authentication step every request passes (`AuthMiddleware`).
enum DialectHeaders {
    /// A header family: `X-ML-`, `X-LAS-` or the older `X-ZCloud-`, in the order they are read
    /// (MaxLeap's server reads `X-ML-` and falls back to `X-LAS-`; clients still send `X-ZCloud-`).
    enum Family: String, CaseIterable, Sendable {
        case maxLeap = "x-ml-"
        case las = "x-las-"
        case zCloud = "x-zcloud-"

        /// The dialect a request in these headers speaks.
        var dialect: Dialect { self == .maxLeap ? .maxLeap : .las }
    }

    /// The credential headers, by their name after the family prefix (names are case-insensitive).
    enum Credential: String, CaseIterable, Sendable {
        case appId = "appid"
        case apiKey = "apikey"
        case clientKey = "clientkey"
        case masterKey = "masterkey"
        case session = "session-token"
        case sign = "request-sign"
    }

    /// Headers that would change how a request is served and that a client must not set: hook
    /// skipping (`Request-From-Cloudcode`) and MaxLeap's cloud-code mapping. They are dropped,
    /// so hooks always run, as for a LeanCloud request.
    static let ignored: Set<String> = ["request-from-cloudcode", "ccode-mapping"]

    /// LeanCloud's own credential headers (and their legacy aliases).
    static let leanCloudCredentials: [HTTPField.Name] = [
        .lcId, .lcKey, .lcSign, .lcSession, .lcHookKey, .avosApplicationId, .avosApplicationKey, .avosMasterKey,
        .avosRequestSign, .avosSessionToken, .uluruApplicationId, .uluruApplicationKey, .uluruMasterKey,
        .parseApplicationId, .parseRESTAPIKey, .parseJavascriptKey, .parseClientKey, .parseMasterKey,
        .parseSessionToken,
    ]

    /// The dialect headers a browser may send (the CORS preflight's answer lists them).
    static let corsNames: [String] = ["ML", "LAS", "ZCloud"].flatMap { family in
        ["AppId", "APIKey", "ClientKey", "MasterKey", "Session-Token", "Request-Sign", "Fid", "Hash", "Version", "Locale"]
            .map { "X-\(family)-\($0)" }
    }

    /// The first family any header of the request belongs to, in `Family` order.
    static func family(of headers: HTTPFields) -> Family? {
        // One pass over the headers (every LeanCloud request on `/1.1` comes here too); the
        // families rank in `allCases` order, `X-ML-` first.
        var best: Family?
        for field in headers {
            let name = field.name.canonicalName
            guard name.hasPrefix("x-"), let family = Family.allCases.first(where: { name.hasPrefix($0.rawValue) }) else {
                continue
            }
            if family == .maxLeap { return family }
            if best == nil || (best == .zCloud && family == .las) { best = family }
        }
        return best
    }

    /// A dialect header's family and the rest of its name (`request-sign`), lowercased.
    static func split(_ name: HTTPField.Name) -> (Family, String)? {
        let text = name.canonicalName
        for family in Family.allCases where text.hasPrefix(family.rawValue) {
            return (family, String(text.dropFirst(family.rawValue.count)))
        }
        return nil
    }

    /// The value of a non-credential dialect header (`fid`), from the first family that sends it.
    static func value(_ suffix: String, in headers: HTTPFields) -> String? {
        var best: (Int, String)?
        for field in headers where !field.value.isEmpty {
            guard let (family, rest) = split(field.name), rest == suffix else { continue }
            let rank = Family.allCases.firstIndex(of: family)!
            if best.map({ rank < $0.0 }) ?? true { best = (rank, field.value) }
        }
        return best?.1
    }

    /// The request's headers with its dialect credentials put as LeanCloud's: the app id as
    /// `X-LC-Id`, a sign as `X-LC-Sign` (it replaces the keys, as on MaxLeap's server), else the
    /// master key as `X-LC-Key: <key>,master`, else the API or client key (both are the app key) as
    /// `X-LC-Key`; the session as `X-LC-Session`. Every dialect credential header is removed.
    /// `appIdInDialect` says the app id came in a dialect's own header (`X-ML-AppId`), the only
    /// form in which a session may stand in for the key.
    ///
    /// - Throws: 401 (90102) when the request carries dialect and LeanCloud credentials both:
    ///   which of them counts would otherwise be the client's choice.
    static func translated(_ headers: HTTPFields) throws -> (headers: HTTPFields, signed: Bool, appIdInDialect: Bool) {
        var found: [Credential: (rank: Int, value: String)] = [:]
        var kept = HTTPFields()
        for field in headers {
            guard let (family, rest) = split(field.name) else {
                kept.append(field)
                continue
            }
            if ignored.contains(rest) { continue }
            guard let credential = Credential(rawValue: rest) else {
                kept.append(field)
                continue
            }
            let rank = Family.allCases.firstIndex(of: family)!
            if field.value.isEmpty { continue }
            if let held = found[credential], held.rank <= rank { continue }
            found[credential] = (rank, field.value)
        }
        guard !found.isEmpty else { return (kept, false, false) }
        if leanCloudCredentials.contains(where: { headers[$0] != nil }) {
            throw HostError(status: .unauthorized, code: 90102, message: "Credentials of two dialects in one request.")
        }
        if let appId = found[.appId]?.value { kept[.lcId] = appId }
        if let sign = found[.sign]?.value {
            kept[.lcSign] = sign
        } else if let master = found[.masterKey]?.value {
            kept[.lcKey] = master + ",master"
        } else if let key = found[.apiKey]?.value ?? found[.clientKey]?.value {
            kept[.lcKey] = key
        }
        if let session = found[.session]?.value { kept[.lcSession] = session }
        return (kept, found[.sign] != nil, found[.appId] != nil)
    }
}
