public import DataAPI

// LeanEngine's names are how hooks are addressed over the wire (`/1.1/functions/__before_save_for_Todo`,
// the hook list); the data layer has no use for them.
extension HookKind {
    /// LeanEngine's function name for this hook of a class (`__before_save_for_Todo`).
    public func functionName(for className: String) -> String {
        switch self {
        case .onLogin: return "__on_login_\(className)"
        case .onVerified: return "__on_verified_\(className)"
        case .onAuthData: return "__on_authdata_\(className)"
        default: break
        }
        let words = rawValue.reduce(into: "") { name, letter in
            if letter.isUppercase { name += "_" + letter.lowercased() } else { name.append(letter) }
        }
        return "__\(words)_for_\(className)"
    }
}
