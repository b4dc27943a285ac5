import Crypto
import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import FunctionHost

/// Verification codes are stored as an HMAC under a secret derived from the master key: six
/// digits' bare SHA-256 is reversed by trying the million codes, this not without the key.
@Suite struct VerificationCodeSecretTests {
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    @Test func codesAreStoredUnderTheMasterKeysSecretAndOnlyItsHostsAcceptThem() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = TestClock()
        let onClock: (inout HostConfiguration) -> Void = { $0.clock = { clock.now } }
        let phone = "13800000021"
        let code: String = try await TestServer.run(dataDirectory: directory, configure: onClock) { api in
            #expect(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": .string(phone)]).status == .ok)
            let code = try await Outbox.lastCode(api, to: phone)
            let records = try await api.find("_VerificationCode", headers: Headers.master).results
            let stored = try #require(records.first?["codeHash"]?.stringValue, "\(records)")
            #expect(stored != code && stored != Self.hex(SHA256.hash(data: Data(code.utf8))), "not the code nor its bare hash")
            // HMAC-SHA256(HMAC-SHA256(master key, label), code): what every host holding this
            // master key computes, so they all accept each other's codes.
            let secret = HMAC<SHA256>.authenticationCode(
                for: Data("functionhost verification codes".utf8), using: SymmetricKey(data: Data("master".utf8)))
            let expected = HMAC<SHA256>.authenticationCode(for: Data(code.utf8), using: SymmetricKey(data: Data(secret)))
            #expect(stored == Self.hex(expected))
            return code
        }
        // A host with another master key, on the same database, can't match the code.
        var otherKeys = TestServer.keys
        otherKeys.masterKey = "another master key"
        try await TestServer.run(dataDirectory: directory, keys: otherKeys, configure: onClock) { api in
            expectError(try await api.post("/1.1/verifySmsCode/\(code)", ["mobilePhoneNumber": .string(phone)]), code: 603)
        }
        // Another host with the same keys (here: this one, restarted) accepts it, once.
        try await TestServer.run(dataDirectory: directory, configure: onClock) { api in
            #expect(try await api.post("/1.1/verifySmsCode/\(code)", ["mobilePhoneNumber": .string(phone)]).status == .ok)
            expectError(try await api.post("/1.1/verifySmsCode/\(code)", ["mobilePhoneNumber": .string(phone)]), code: 603)
        }
    }
}
