import HTTPTypes

// The LeanCloud header names, built once: every request reads several of them.
extension HTTPField.Name {
    static let lcId = Self("X-LC-Id")!
    static let lcKey = Self("X-LC-Key")!
    static let lcSign = Self("X-LC-Sign")!
    static let lcSession = Self("X-LC-Session")!
    static let lcProd = Self("X-LC-Prod")!
    static let lcHookKey = Self("X-LC-Hook-Key")!
    static let avosApplicationId = Self("X-AVOSCloud-Application-Id")!
    static let avosApplicationKey = Self("X-AVOSCloud-Application-Key")!
    static let avosMasterKey = Self("X-AVOSCloud-Master-Key")!
    static let avosRequestSign = Self("X-AVOSCloud-Request-Sign")!
    static let avosSessionToken = Self("X-AVOSCloud-Session-Token")!
    static let uluruApplicationId = Self("X-Uluru-Application-Id")!
    static let uluruApplicationKey = Self("X-Uluru-Application-Key")!
    static let uluruMasterKey = Self("X-Uluru-Master-Key")!
    static let parseApplicationId = Self("X-Parse-Application-Id")!
    static let parseRESTAPIKey = Self("X-Parse-REST-API-Key")!
    static let parseJavascriptKey = Self("X-Parse-Javascript-Key")!
    static let parseClientKey = Self("X-Parse-Client-Key")!
    static let parseMasterKey = Self("X-Parse-Master-Key")!
    static let parseSessionToken = Self("X-Parse-Session-Token")!
    static let realIP = Self("X-Real-IP")!
    static let forwardedFor = Self("X-Forwarded-For")!
    static let forwardedProto = Self("X-Forwarded-Proto")!
}

extension HTTPFields {
    /// The session token a request carries in a header: `X-LC-Session`, or the older
    /// `X-AVOSCloud-Session-Token` and Parse's `X-Parse-Session-Token`, which SDKs of those
    /// names still send. Every route reads the session through this one place.
    var sessionToken: String? {
        for name in [HTTPField.Name.lcSession, .avosSessionToken, .parseSessionToken] {
            if let token = self[name], !token.isEmpty { return token }
        }
        return nil
    }
}
