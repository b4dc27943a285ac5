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
    /// Before a LiveQuery subscription to the class is made: its object is the query as REST
    /// JSON (`where`, `keys`, ...), which it may narrow; a throw refuses the subscription.
    case beforeSubscribe
    /// Before one LiveQuery event of the class reaches one subscriber: its object is the
    /// object as that subscriber sees it (which it may change), `context["op"]` the event's
    /// operation; a throw drops the event for that subscriber (Parse's `afterLiveQueryEvent`).
    case afterLiveQueryEvent

    /// Whether it runs before the operation (and can change or stop it).
    public var isBefore: Bool {
        switch self {
        case .beforeSave, .beforeUpdate, .beforeDelete, .beforeFind, .onLogin, .onAuthData, .beforeSaveFile,
            .beforeDeleteFile, .beforeSubscribe, .afterLiveQueryEvent:
            true
        default: false
        }
    }
}
