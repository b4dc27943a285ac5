extension DataAPIError.Code {
    /// 200: the username is missing or empty.
    public static let usernameMissing = Self(rawValue: 200)
    /// 201: the password is missing or empty.
    public static let passwordMissing = Self(rawValue: 201)
    /// 202: the username is taken.
    public static let usernameTaken = Self(rawValue: 202)
    /// 203: the email is taken.
    public static let emailTaken = Self(rawValue: 203)
    /// 206: a user can be changed only with its own session (or the master key).
    public static let userNeedsSession = Self(rawValue: 206)
    /// 210: the username and password don't match.
    public static let passwordMismatch = Self(rawValue: 210)
    /// 211: no user has these credentials or this session token.
    public static let userNotFound = Self(rawValue: 211)
    /// 214: the mobile phone number is taken.
    public static let mobilePhoneTaken = Self(rawValue: 214)
}
