/// When a hook runs, relative to a data operation.
public enum HookKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// Before an object is created: may change it, or reject the write.
    case beforeSave
    /// After an object was created.
    case afterSave
    /// Before an object is updated: may change the update, or reject it.
    case beforeUpdate
    /// After an object was updated.
    case afterUpdate
    /// Before an object is deleted: may reject the delete.
    case beforeDelete
    /// After an object was deleted.
    case afterDelete
    /// Before a query runs: may change it.
    case beforeFind
    /// After a query ran: may change its results.
    case afterFind
    /// Before a login completes (class `_User`): may refuse it.
    case onLogin
    /// After a user verified a phone number or an email address; its "class" is the channel,
    /// `sms` or `email`, as LeanEngine names it.
    case onVerified
    /// Before a third-party `authData` is used to sign up, log in or link (class `_User`): may
    /// check it (a throw refuses) or rewrite it.
    case onAuthData
    /// Before a file's bytes are stored (class `_File`): may rename it, change its metadata, or
    /// reject the upload.
    case beforeSaveFile
    /// After a file was stored and its `_File` object written.
    case afterSaveFile
    /// Before a file is deleted: may reject the delete.
    case beforeDeleteFile
    /// After a file and its bytes were deleted.
    case afterDeleteFile

    /// Whether it runs before the operation (and can change or stop it).
    public var isBefore: Bool {
        switch self {
        case .beforeSave, .beforeUpdate, .beforeDelete, .beforeFind, .onLogin, .onAuthData, .beforeSaveFile,
            .beforeDeleteFile:
            true
        default: false
        }
    }

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
