/// The links verification emails carry: the data layer issues the token, the server says where
/// it is redeemed (its public URL and its own routes).
public struct EmailLinks: Sendable {
    /// The link that verifies an email address, for a token.
    public var verifyEmail: @Sendable (_ token: String) -> String
    /// The link that opens the password-reset page, for a token.
    public var resetPassword: @Sendable (_ token: String) -> String

    /// Links made by the two closures.
    public init(
        verifyEmail: @escaping @Sendable (_ token: String) -> String,
        resetPassword: @escaping @Sendable (_ token: String) -> String
    ) {
        self.verifyEmail = verifyEmail
        self.resetPassword = resetPassword
    }
}
