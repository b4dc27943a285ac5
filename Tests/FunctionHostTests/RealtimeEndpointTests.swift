import Foundation
import HummingbirdWSClient
import JSON
import LiveQuery
import NIOCore
import NIOWebSocket
import RealtimeProtocol
import TestSupport
import Testing

@testable import FunctionHost

/// The realtime endpoint's session, over real WebSockets on loopback in each of LeanCloud's
/// dialects: login and loggedin with the serial echoed, echo, logout, `{}`, and the push of
/// events as the SDKs route it.
@Suite struct RealtimeEndpointTests {
    @Test func loginEchoesTheSerialAndAttachesTheSubscriptionID() async throws {
        try await Realtime.serve { api, connections in
            let close = try await Realtime.connect(port: api.port) { session in
                try await session.send(Realtime.command(.login, i: 7, installationID: "livequery-A"))
                let answer = try await session.command()
                #expect(answer.cmd == .loggedin && answer.i == 7)
                await connections.wait(for: .attached("livequery-A"))
                // A login sent again (the iOS SDKs resend one that timed out) is answered again,
                // without a second attach.
                try await session.send(Realtime.command(.login, i: 8, installationID: "livequery-A"))
                #expect(try await session.command().i == 8)
                try await session.send(Realtime.command(.echo, i: 9, appID: nil, service: nil))
                let echo = try await session.command()
                #expect(echo.cmd == .echo && echo.i == 9)
                try await session.send(Realtime.command(.logout, i: 10, installationID: "livequery-A"))
                let out = try await session.command()
                #expect(out.cmd == .loggedout && out.i == 10)
                await connections.wait(for: .detached("livequery-A"))
                // An ack is taken and answers nothing: the next answer is the echo's.
                var ack = Realtime.command(.ack, installationID: "livequery-A")
                ack.ackMessage.ids = ["m1"]
                try await session.send(ack)
                try await session.send(Realtime.command(.echo, i: 11, appID: nil, service: nil))
                #expect(try await session.command().i == 11)
                try await session.outbound.close(.normalClosure, reason: nil)
                try await session.drain()
            }
            #expect(close?.closeCode == .normalClosure)
            #expect(connections.changes == [.attached("livequery-A"), .detached("livequery-A")])
        }
    }

    @Test func closingTheSocketDetachesTheLogin() async throws {
        try await Realtime.serve { api, connections in
            try await Realtime.connect(port: api.port) { session in
                try await session.send(Realtime.command(.login, i: 1, installationID: "livequery-B"))
                #expect(try await session.command().cmd == .loggedin)
                try await session.outbound.close(.normalClosure, reason: nil)
                try await session.drain()
            }
            await connections.wait(for: .detached("livequery-B"))
        }
    }

    @Test func aPushCarriesTheFieldsTheSDKsRouteBy() async throws {
        try await Realtime.serve { api, connections in
            try await Realtime.connect(port: api.port) { session in
                try await session.send(Realtime.command(.login, i: 1, installationID: "livequery-C"))
                #expect(try await session.command().cmd == .loggedin)
                let sink = try #require(connections.sink("livequery-C"))
                let events = [Realtime.event(.create, objectID: "o1"), Realtime.event(.leave, queryID: "q2", objectID: "o2")]
                #expect(sink.push(events))
                let push = try await session.command()
                #expect(push.cmd == .data)
                #expect(push.service == 1 && push.installationID == "livequery-C" && push.appID == "app")
                // No serial: the SDKs would take the push for a reply.
                #expect(!push.hasI)
                #expect(push.dataMessage.msg.map(\.data) == events.map(\.json))
                let first = try JSONValue(parsing: push.dataMessage.msg[0].data)
                #expect(first["op"]?.stringValue == "create" && first["query_id"]?.stringValue == "q1")
                #expect(first["object"]?["className"]?.stringValue == "Todo")
                try await session.outbound.close(.normalClosure, reason: nil)
                try await session.drain()
            }
        }
    }

    @Test func theJSONDialectAnswersHeartbeatsAndSplicesEvents() async throws {
        try await Realtime.serve { api, connections in
            try await Realtime.connect(port: api.port, subProtocol: "lc.json.3") { session in
                try await session.send(text: "{}")
                #expect(try await session.text() == "{}")
                try await session.send(
                    text: #"{"cmd":"login","appId":"app","installationId":"guid-1","clientTs":1700000000000,"service":1,"i":3}"#)
                let loggedIn = try JSONValue(parsing: try await session.text())
                #expect(loggedIn["cmd"]?.stringValue == "loggedin" && loggedIn["i"]?.intValue == 3)
                #expect(loggedIn["error"] == nil)
                let sink = try #require(connections.sink("guid-1"))
                #expect(sink.push([Realtime.event(.update)]))
                let push = try JSONValue(parsing: try await session.text())
                #expect(push["cmd"]?.stringValue == "data" && push["installationId"]?.stringValue == "guid-1")
                #expect(push["i"] == nil)
                // Each `msg` item is the event object itself, as the C# SDK reads it.
                #expect(push["msg"]?.arrayValue?.first?["op"]?.stringValue == "update")
                #expect(push["msg"]?.arrayValue?.first?["object"]?["objectId"]?.stringValue == "o1")
                // An error answer has the `error` key the C# SDK looks for.
                try await session.send(text: #"{"cmd":"login","appId":"other","installationId":"guid-1","i":4}"#)
                let refused = try JSONValue(parsing: try await session.text())
                #expect(refused["i"]?.intValue == 4 && refused["error"]?["code"]?.intValue == 4100)
                try await session.drain()
            }
        }
    }

    @Test func theBase64DialectCarriesTheSameCommandsInText() async throws {
        try await Realtime.serve { api, connections in
            try await Realtime.connect(port: api.port, subProtocol: "lc.proto2base64.3") { session in
                let login = try Realtime.command(.login, i: 5, installationID: "livequery-D").frameBytes()
                try await session.send(text: Data(login).base64EncodedString())
                let answer = try GenericCommand(frame: [UInt8](try #require(Data(base64Encoded: try await session.text()))))
                #expect(answer.cmd == .loggedin && answer.i == 5)
                #expect(try #require(connections.sink("livequery-D")).push([Realtime.event(.delete)]))
                let push = try GenericCommand(frame: [UInt8](try #require(Data(base64Encoded: try await session.text()))))
                #expect(push.cmd == .data && push.installationID == "livequery-D" && push.dataMessage.msg.count == 1)
                try await session.outbound.close(.normalClosure, reason: nil)
                try await session.drain()
            }
        }
    }

    @Test func theIMConnectionsSubProtocolIsServedAsBinary() async throws {
        try await Realtime.serve { api, _ in
            try await Realtime.connect(port: api.port, subProtocol: "lc.protobuf2.1") { session in
                try await session.send(Realtime.command(.echo, i: 2, appID: nil, service: nil))
                #expect(try await session.command().i == 2)
                try await session.outbound.close(.normalClosure, reason: nil)
                try await session.drain()
            }
        }
    }

    @Test func anUnknownCommandIsAnsweredWithAnErrorAndTheConnectionGoesOn() async throws {
        try await Realtime.serve { api, _ in
            try await Realtime.connect(port: api.port) { session in
                try await session.send(Realtime.command(.goaway, i: 4))
                let error = try await session.command()
                #expect(error.cmd == .error && error.i == 4 && error.errorMessage.code == 4201)
                // IM (service 2) isn't served: its login is refused, the connection stays.
                try await session.send(Realtime.command(.login, i: 5, installationID: "im-client", service: 2))
                let im = try await session.command()
                #expect(im.cmd == .error && im.i == 5 && im.errorMessage.code == 4100)
                try await session.send(Realtime.command(.echo, i: 6, appID: nil, service: nil))
                #expect(try await session.command().i == 6)
                try await session.outbound.close(.normalClosure, reason: nil)
                try await session.drain()
            }
        }
    }

    @Test func connectionsCommandsAndClosesAreCounted() async throws {
        try await Realtime.serve { api, connections in
            try await Realtime.connect(port: api.port) { session in
                try await session.send(Realtime.command(.login, i: 1, installationID: "livequery-M"))
                #expect(try await session.command().cmd == .loggedin)
                #expect(try #require(connections.sink("livequery-M")).push([Realtime.event(.create)]))
                #expect(try await session.command().cmd == .data)
                try await session.outbound.close(.normalClosure, reason: nil)
                try await session.drain()
            }
            await connections.wait(for: .detached("livequery-M"))
            try await Realtime.connect(port: api.port) { session in
                try await session.send(Realtime.command(.login, i: 1, appID: "other", installationID: "livequery-M"))
                try await session.drain()
            }
            let text = try await api.get("/metrics", headers: Headers.master).text
            let sample = { (parts: [String]) in MetricsTests.sample(text, parts[0], parts[1], parts[2]) }
            #expect(sample(["functionhost_realtime_commands_total", #"direction="in""#, #"command="login""#]) == 2)
            #expect(sample(["functionhost_realtime_commands_total", #"direction="out""#, #"command="loggedin""#]) == 1)
            #expect(sample(["functionhost_realtime_commands_total", #"direction="out""#, #"command="data""#]) == 1)
            #expect(MetricsTests.sample(text, "functionhost_realtime_closes_total", #"reason="client""#) == 1)
            #expect(MetricsTests.sample(text, "functionhost_realtime_closes_total", #"reason="wrong_app""#) == 1)
        }
    }

    @Test func theRealtimeIdleTimeNeverUndercutsTheSDKsKeepAlive() {
        // The SDKs' keep-alive comes every 180 s: however short the HTTP idle time, a socket
        // is held longer than that.
        #expect(RealtimeLimits().idleTimeout(ConnectionLimits(idleTimeout: .seconds(5))) > .seconds(180))
        #expect(RealtimeLimits().idleTimeout(ConnectionLimits(idleTimeout: .seconds(600))) == .seconds(600))
    }
}
