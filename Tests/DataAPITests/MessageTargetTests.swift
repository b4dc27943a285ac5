import Testing

@testable import DataAPI

/// What the send limits count a code's target as, and how a username shows in the app's mail.
@Suite struct MessageTargetTests {
    @Test(arguments: [
        ("+8613812345678", "+8613812345678"), ("13812345678", "+8613812345678"), ("008613812345678", "+8613812345678"),
        ("+1 (415) 555-0100", "+14155550100"), ("Eve@Example.COM", "eve@example.com"), ("eve@example.com", "eve@example.com"),
    ])
    func aTargetWrittenAnotherWayIsOneDestination(_ target: String, _ destination: String) {
        #expect(VerificationCodes.destination(of: target) == destination)
    }

    @Test func aUsernameInAMailIsOneShortLine() {
        let note = "Security notice:\r\nyour account is locked.\u{2028}Confirm at https://evil.example/login \u{202E}now"
        let shown = UserVerification.mailName(note + String(repeating: " and more", count: 20))
        #expect(!shown.unicodeScalars.contains { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format })
        #expect(!shown.contains("\n") && !shown.contains("\u{2028}"))
        #expect(shown.count == UserVerification.maxMailNameLength + 1 && shown.hasSuffix("…"))
        #expect(UserVerification.mailName("alice") == "alice")
    }
}
