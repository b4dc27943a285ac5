import CZlib
import DataAPI
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import TestSupport
import Testing

@testable import FunctionHost

/// LeanCloud's captcha over real HTTP: `requestCaptcha` → the image URL (no keys) → `verifyCaptcha`
/// → a `validate_token` that lets one SMS through, required when the server says so.
@Suite struct CaptchaTests {
    /// The text a captcha shows, as the server derives it from the token and the master key
    /// (the test reads it as the outbox gives SMS codes: no OCR).
    static func answer(_ token: String, size: Int = 4) -> String {
        String(Captchas.answer(to: token, size: size, secret: VerificationCodes.Secret(masterKey: TestServer.keys.masterKey)))
    }

    /// A new captcha: its token and the path and query of its image URL.
    static func request(_ api: API, _ query: String = "", headers: HTTPFields = Headers.client) async throws -> (token: String, image: String) {
        let reply = try await api.get("/1.1/requestCaptcha" + query, headers: headers)
        #expect(reply.status == .ok, "\(reply)")
        let token = try #require(reply["captcha_token"]?.stringValue, "\(reply)")
        let url = try #require(reply["captcha_url"]?.stringValue.flatMap(URLComponents.init(string:)), "\(reply)")
        return (token, url.path + "?" + (url.query ?? ""))
    }

    /// The bytes of an image, fetched with no keys.
    static func imageBytes(_ api: API, _ path: String) async throws -> [UInt8] {
        try await api.client.execute(uri: path, method: .get, headers: Headers.none, body: nil) { response in
            #expect(response.status == .ok)
            return Array(response.body.readableBytesView)
        }
    }

    static func verify(_ api: API, _ token: String, _ code: String) async throws -> Reply {
        try await api.post("/1.1/verifyCaptcha", ["captcha_token": .string(token), "captcha_code": .string(code)])
    }

    @Test func requiredCaptchasGateEverySMSSend() async throws {
        let clock = TestClock()
        try await VerificationTests.run(clock: clock, configure: { $0.messageProtection.captchaRequired = true }) { api in
            _ = try await api.post("/1.1/users", ["username": "ada", "password": "pw", "mobilePhoneNumber": "13800000001"])
            expectError(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000002"]), code: 608, status: .badRequest)
            expectError(try await api.post("/1.1/requestLoginSmsCode", ["mobilePhoneNumber": "13800000001"]), code: 608)
            expectError(
                try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000002", "validate_token": "made-up"]), code: 608)
            #expect(try await SMSAbuseTests.sentCount(api) == 0)

            let captcha = try await Self.request(api)
            let verified = try await Self.verify(api, captcha.token, Self.answer(captcha.token).lowercased())
            let validate = try #require(verified["validate_token"]?.stringValue, "\(verified)")
            #expect(fieldNames(verified.json) == ["validate_token"])
            let sent = try await api.post("/1.1/requestLoginSmsCode", ["mobilePhoneNumber": "13800000001", "validate_token": .string(validate)])
            #expect(sent.status == .ok, "\(sent)")
            // One token, one send.
            clock.advance(minutes: 2)
            expectError(
                try await api.post("/1.1/requestLoginSmsCode", ["mobilePhoneNumber": "13800000001", "validate_token": .string(validate)]),
                code: 608)
            #expect(try await SMSAbuseTests.sentCount(api) == 1)
            // The master key (the operator's backend) needs none.
            #expect(try await api.post("/1.1/requestSmsCode", headers: Headers.master, ["mobilePhoneNumber": "13800000003"]).status == .ok)
        }
    }

    @Test func aCaptchaTakesOneGuessAndExpires() async throws {
        let clock = TestClock()
        try await VerificationTests.run(clock: clock) { api in
            let first = try await Self.request(api)
            let right = Self.answer(first.token)
            let wrong = (right.first == "A" ? "C" : "A") + right.dropFirst()
            expectError(try await Self.verify(api, first.token, wrong), code: 608, status: .badRequest)
            // The wrong guess used it up: the right text no longer works, nor does its image.
            expectError(try await Self.verify(api, first.token, right), code: 608)
            expectError(try await api.get(first.image, headers: Headers.none), code: 608, status: .notFound)
            expectError(try await Self.verify(api, "made-up", "ABCD"), code: 608)

            // A minute by default.
            let second = try await Self.request(api)
            clock.advance(minutes: 1.5)
            expectError(try await Self.verify(api, second.token, Self.answer(second.token)), code: 608)

            // A validate token expires too; and without the requirement, one that is sent is checked.
            let third = try await Self.request(api)
            let validate = try #require(try await Self.verify(api, third.token, Self.answer(third.token))["validate_token"]?.stringValue)
            clock.advance(minutes: 6)
            expectError(
                try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000004", "validate_token": .string(validate)]), code: 608)
            #expect(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000004"]).status == .ok)
        }
    }

    @Test func sizeAndLifetimeAreTheMasterKeysAndRangesAreLeanClouds() async throws {
        try await VerificationTests.run { api in
            expectError(try await api.get("/1.1/requestCaptcha?size=3"), code: 119, status: .forbidden)
            expectError(try await api.get("/1.1/requestCaptcha?ttl=180"), code: 119, status: .forbidden)
            for query in ["width=59", "width=201", "height=29", "height=101", "width=wide"] {
                expectError(try await api.get("/1.1/requestCaptcha?" + query), code: 1, status: .badRequest)
            }
            expectError(try await api.get("/1.1/requestCaptcha?size=7", headers: Headers.master), code: 1)
            let six = try await Self.request(api, "?size=6&ttl=180&width=200&height=100", headers: Headers.master)
            #expect(try await Self.verify(api, six.token, Self.answer(six.token, size: 6)).status == .ok)
            // The image URL needs no keys (an <img> loads it) and is never cached.
            let captcha = try await Self.request(api, "?width=120&height=40")
            #expect(captcha.image.hasPrefix("/1.1/captchaImage?token="))
            let image = try await api.get(captcha.image, headers: Headers.none)
            #expect(image.status == .ok && image.header("Content-Type") == "image/png" && image.header("Cache-Control") == "no-store")
            // The captcha and its answers are the master key's.
            expectError(try await api.find("_Captcha"), code: 119, status: .forbidden)
            expectError(try await api.find("_MessageSend"), code: 119, status: .forbidden)
        }
    }

    @Test(arguments: [(85, 30, 4), (60, 30, 6), (200, 100, 3)])
    func theImageIsAPNGWithTheTextDrawnLarge(size: (width: Int, height: Int, characters: Int)) async throws {
        try await VerificationTests.run { api in
            let query = "?width=\(size.width)&height=\(size.height)&size=\(size.characters)"
            let captcha = try await Self.request(api, query, headers: Headers.master)
            let bytes = try await Self.imageBytes(api, captcha.image)
            let png = try PNG(bytes)
            #expect(png.width == size.width && png.height == size.height)
            // Dark strokes cover a real part of the image, but far from all of it.
            let dark = Double(png.pixels.filter { $0 < 100 }.count) / Double(png.pixels.count)
            #expect(dark > 0.04 && dark < 0.5, "dark share \(dark)")
            // Drawn the same each time it is asked for: nothing new to average.
            #expect(try await Self.imageBytes(api, captcha.image) == bytes)
        }
    }
}

/// Just enough PNG reading to check an 8-bit grayscale image: its size and its pixels.
struct PNG {
    let width: Int
    let height: Int
    let pixels: [UInt8]

    init(_ bytes: [UInt8]) throws {
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        var offset = 8
        var header: [UInt8] = []
        var data: [UInt8] = []
        func number(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        while offset + 8 <= bytes.count {
            let length = number(offset)
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let body = Array(bytes[offset + 8..<offset + 8 + length])
            let typed = Array(type.utf8) + body
            let crc = crc32(0, typed, uInt(typed.count))
            #expect(UInt(number(offset + 8 + length)) == UInt(crc), "CRC of \(type)")
            if type == "IHDR" { header = body }
            if type == "IDAT" { data += body }
            offset += 12 + length
        }
        width = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        height = Int(header[4]) << 24 | Int(header[5]) << 16 | Int(header[6]) << 8 | Int(header[7])
        #expect(header[8] == 8 && header[9] == 0, "8-bit grayscale")
        var size = uLong((width + 1) * height)
        var raw = [UInt8](repeating: 0, count: Int(size))
        #expect(uncompress(&raw, &size, data, uLong(data.count)) == Z_OK)
        // Every row is unfiltered (filter byte 0), as the server writes it.
        var pixels: [UInt8] = []
        for row in 0..<height {
            #expect(raw[row * (width + 1)] == 0)
            pixels += raw[(row * (width + 1) + 1)..<((row + 1) * (width + 1))]
        }
        self.pixels = pixels
    }
}
