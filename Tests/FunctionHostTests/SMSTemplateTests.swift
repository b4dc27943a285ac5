import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// `requestSmsCode` with LeanCloud's `template`, `sign`, variables and `smsType: "voice"`,
/// over real HTTP on both engines: the text is made from the operator's template file, the
/// message carries template, sign, variables and type to the configured sender, and every
/// client-chosen part is checked (unknown templates and signatures, paths, variables that
/// would reshape the text or claim the code) within the send limits.
@Suite struct SMSTemplateTests {
    /// A server whose data directory holds `templates/sms/NAME.txt` for each template.
    static func run(
        templates: [String: String] = ["Order_Notice": "Your order {{order_id}} ships today; code {{code}}, valid {{ttl}} minutes ({{name}})."],
        configure: @escaping @Sendable (inout HostConfiguration) -> Void = { _ in }, _ body: @Sendable (API) async throws -> Void
    ) async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: "\(directory)/templates/sms", withIntermediateDirectories: true)
        for (name, text) in templates { try (text + "\n").write(toFile: "\(directory)/templates/sms/\(name).txt", atomically: true, encoding: .utf8) }
        try "secret".write(toFile: "\(directory)/outside.txt", atomically: true, encoding: .utf8)
        try await TestServer.run(dataDirectory: directory, configure: {
            $0.verification.smsSignatures = ["Shop", "Other"]
            configure(&$0)
        }, body)
    }

    @Test func aTemplateWithASignatureAndVariablesMakesTheText() async throws {
        try await Self.run { api in
            let reply = try await api.post(
                "/1.1/requestSmsCode",
                ["mobilePhoneNumber": "13800000001", "template": "Order_Notice", "sign": "Other", "order_id": "7623432424540", "ttl": 5])
            #expect(reply.status == .ok, "\(reply)")
            let message = try #require(try await Outbox.messages(api, to: "13800000001").first)
            let code = try #require(message["smsCode"]?.stringValue)
            #expect(message["text"]?.stringValue == "【Other】Your order 7623432424540 ships today; code \(code), valid 5 minutes (FunctionHost).")
            #expect(message["template"] == "Order_Notice" && message["sign"] == "Other" && message["smsType"] == "sms")
            #expect(message["variables"] == ["order_id": "7623432424540"])
            // The code works like any requestSmsCode's.
            #expect(try await api.post("/1.1/verifySmsCode/\(code)", ["mobilePhoneNumber": "13800000001"]).status == .ok)
            // No sign: the first configured signature.
            _ = try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000002", "template": "Order_Notice", "order_id": 42])
            #expect(try await Outbox.messages(api, to: "13800000002").first?["text"]?.stringValue?.hasPrefix("【Shop】Your order 42 ") == true)
        }
    }

    @Test func aVoiceCodeIsSentAsVoice() async throws {
        try await Self.run { api in
            #expect(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000003", "smsType": "voice"]).status == .ok)
            let message = try #require(try await Outbox.messages(api, to: "13800000003").first)
            #expect(message["smsType"] == "voice" && message["smsCode"]?.stringValue?.count == 6)
            expectError(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000003", "smsType": "fax"]), code: 1)
            expectError(
                try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000003", "smsType": "voice", "template": "Order_Notice"]),
                code: 1)
        }
    }

    @Test func clientChosenPartsAreCheckedBeforeAnythingIsSent() async throws {
        try await Self.run { api in
            let phone: JSONValue = "13800000004"
            let refused: [(JSONValue, Int64)] = [
                (["mobilePhoneNumber": phone, "template": "Missing"], 604),
                (["mobilePhoneNumber": phone, "template": "../outside"], 604),
                (["mobilePhoneNumber": phone, "template": "../../templates/sms/Order_Notice"], 604),
                (["mobilePhoneNumber": phone, "template": "Order_Notice", "sign": "Your Bank", "order_id": "1"], 600),
                (["mobilePhoneNumber": phone, "template": "Order_Notice"], 606),
                (["mobilePhoneNumber": phone, "template": "Order_Notice", "order_id": "【Bank】pay now"], 606),
                (["mobilePhoneNumber": phone, "template": "Order_Notice", "order_id": "1\nVisit evil.example"], 606),
                (["mobilePhoneNumber": phone, "template": "Order_Notice", "order_id": .string(String(repeating: "9", count: 201))], 606),
                (["mobilePhoneNumber": phone, "template": "Order_Notice", "order_id": ["nested": true]], 606),
                (["mobilePhoneNumber": phone, "template": "Order_Notice", "order_id": "1", "bad-name": "x"], 606),
                (["mobilePhoneNumber": phone, "template": .string(String(repeating: "T", count: 65))], 1),
                (["mobilePhoneNumber": phone, "template": 7], 1),
            ]
            for (body, code) in refused {
                expectError(try await api.post("/1.1/requestSmsCode", body), code: code)
            }
            var many: [String: JSONValue] = ["mobilePhoneNumber": phone, "template": "Order_Notice", "order_id": "1"]
            for index in 0..<25 { many["v\(index)"] = "x" }
            expectError(try await api.post("/1.1/requestSmsCode", .object(many)), code: 606)
            #expect(try await Outbox.messages(api, to: "13800000004").isEmpty)
        }
    }

    @Test func aClientCantSetTheCodeOrOtherSystemVariables() async throws {
        try await Self.run { api in
            let reply = try await api.post(
                "/1.1/requestSmsCode",
                ["mobilePhoneNumber": "13800000005", "template": "Order_Notice", "order_id": "1", "code": "000000", "name": "FunctionHost"])
            #expect(reply.status == .ok, "\(reply)")
            let message = try #require(try await Outbox.messages(api, to: "13800000005").first)
            let code = try #require(message["smsCode"]?.stringValue)
            #expect(message["text"]?.stringValue?.contains("code \(code),") == true)
            #expect(message["variables"] == ["order_id": "1"])
        }
    }

    @Test func templatesStayWithinTheSendLimitsAndRefusalsDontSpendThem() async throws {
        try await Self.run(configure: { $0.messageProtection.limits.perClient = .init(count: 1, period: 3600) }) { api in
            expectError(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000006", "template": "Missing"]), code: 604)
            let body: JSONValue = ["mobilePhoneNumber": "13800000006", "template": "Order_Notice", "order_id": "1"]
            #expect(try await api.post("/1.1/requestSmsCode", body).status == .ok)
            expectError(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000007", "template": "Order_Notice", "order_id": "2"]), code: 601)
        }
    }

    @Test func theWebhookCarriesTemplateSignVariablesAndType() async throws {
        try await WebhookReceiver.run { receiver in
            try await Self.run(configure: { $0.messageWebhook = URL(string: receiver.url("/messages")) }) { api in
                let reply = try await api.post(
                    "/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000008", "template": "Order_Notice", "sign": "Shop", "order_id": "9"])
                #expect(reply.status == .ok, "\(reply)")
                let message = try #require(receiver.messages.first)
                #expect(message["template"] == "Order_Notice" && message["sign"] == "Shop" && message["smsType"] == "sms")
                #expect(message["variables"] == ["order_id": "9"] && message["text"]?.stringValue?.hasPrefix("【Shop】") == true)
            }
        }
    }
}
