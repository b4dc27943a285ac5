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
    /// 217: a write would leave a user with a blank username (deleted, null, empty, not a string).
    public static let invalidUsername = Self(rawValue: 217)
    /// 218: a write would leave a user with a blank password.
    public static let invalidPassword = Self(rawValue: 218)
}

extension DataAPIError.Code {
    /// 125: an invalid email address.
    public static let invalidEmail = Self(rawValue: 125)
    /// 127: an invalid mobile phone number.
    public static let invalidMobilePhone = Self(rawValue: 127)
    /// 204: the email address is missing.
    public static let emailMissing = Self(rawValue: 204)
    /// 205: no user has this email address.
    public static let emailNotFound = Self(rawValue: 205)
    /// 212: the mobile phone number is missing.
    public static let mobilePhoneMissing = Self(rawValue: 212)
    /// 213: no user has this mobile phone number.
    public static let mobilePhoneNotFound = Self(rawValue: 213)
    /// 601: codes are requested for this number or address too often.
    public static let codeRequestedTooOften = Self(rawValue: 601)
    /// 602: the message could not be sent.
    public static let messageNotSent = Self(rawValue: 602)
    /// 603: the code is wrong, used or expired.
    public static let invalidCode = Self(rawValue: 603)
}
