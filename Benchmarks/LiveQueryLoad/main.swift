// LiveQuery's load: SUBSCRIBERS realtime clients, each logged in on its own socket and subscribed
// to one query, hear WRITES creates made over REST (on another host when WRITE_URL names one).
// Prints events delivered per second and the time from a write's send to each event's arrival.
//   LiveQueryLoad SUBSCRIBE_URL WRITE_URL APP_ID APP_KEY [SUBSCRIBERS] [WRITES] [PAUSE_MS]
// PAUSE_MS between writes (0: back to back, for throughput; a pause long enough for every event
// to arrive first measures the delay of one write's events on an idle host).
import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket
import NIOPosix
import NIOFoundationCompat
import RealtimeProtocol
import Synchronization

let arguments = CommandLine.arguments
guard arguments.count >= 5 else {
    print("usage: LiveQueryLoad SUBSCRIBE_URL WRITE_URL APP_ID APP_KEY [SUBSCRIBERS] [WRITES] [PAUSE_MS]")
    exit(2)
}
let subscribeURL = arguments[1]
let writeURL = arguments[2]
let appID = arguments[3]
let appKey = arguments[4]
let subscriberCount = arguments.count > 5 ? Int(arguments[5]) ?? 1000 : 1000
let writeCount = arguments.count > 6 ? Int(arguments[6]) ?? 100 : 100
let pause = arguments.count > 7 ? Int(arguments[7]) ?? 0 : 0
let className = "LiveLoad\(UInt32.random(in: 0...UInt32.max))"
let logger = Logger(label: "livequery-load")
let clock = ContinuousClock()
let start = clock.now

/// Nanoseconds since the run started: the writes carry it, the subscribers subtract it.
func elapsed() -> Int64 {
    let d = clock.now - start
    return d.components.seconds * 1_000_000_000 + d.components.attoseconds / 1_000_000_000
}

/// What every subscriber records: ready sockets, and each event's delay.
final class Tally: Sendable {
    struct State {
        var ready = 0
        var delays: [Int64] = []
        var lastArrival: Int64 = 0
    }
    let state = Mutex(State())
    func loggedIn() { state.withLock { $0.ready += 1 } }
    func heard(sentAt: Int64) {
        let now = elapsed()
        state.withLock {
            $0.delays.append(now - sentAt)
            $0.lastArrival = max($0.lastArrival, now)
        }
    }
    var readyCount: Int { state.withLock { $0.ready } }
    var heardCount: Int { state.withLock { $0.delays.count } }
}

let tally = Tally()
let http = HTTPClient(eventLoopGroupProvider: .singleton)

func call(_ base: String, _ method: HTTPMethod, _ path: String, _ body: [String: Any]?) async throws -> [String: Any] {
    var request = HTTPClientRequest(url: base + path)
    request.method = method
    request.headers.add(name: "X-LC-Id", value: appID)
    request.headers.add(name: "X-LC-Key", value: appKey)
    request.headers.add(name: "Content-Type", value: "application/json")
    if let body { request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: body))) }
    let response = try await http.execute(request, timeout: .seconds(30))
    let bytes = try await response.body.collect(upTo: 1 << 20)
    let answer = (try? JSONSerialization.jsonObject(with: Data(buffer: bytes))) as? [String: Any] ?? [:]
    guard response.status.code < 300 else { throw LoadError("\(method) \(path): \(response.status.code) \(answer)") }
    return answer
}

struct LoadError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

@Sendable func command(_ build: (inout GenericCommand) -> Void) -> ByteBuffer {
    var command = GenericCommand()
    build(&command)
    return ByteBuffer(bytes: try! command.frameBytes())
}

/// One subscriber: logs in on its own socket, then counts the events it hears until told to stop.
func subscriber(_ index: Int, server: String, stop: @escaping @Sendable () -> Bool) async throws {
    let id = "livequery-load-\(index)"
    var configuration = WebSocketClientConfiguration()
    configuration.additionalHeaders = [.secWebSocketProtocol: SubProtocol.protobuf.rawValue]
    configuration.maxFrameSize = 1 << 20
    _ = try await WebSocketClient.connect(url: server, configuration: configuration, logger: logger) { inbound, outbound, _ in
        try await outbound.write(.binary(command {
            $0.cmd = .login
            $0.appID = appID
            $0.installationID = id
            $0.service = 1
            $0.i = 1
        }))
        for try await message in inbound.messages(maxSize: 1 << 20) {
            guard case .binary(let buffer) = message, let pushed = try? GenericCommand(frame: Array(buffer.readableBytesView)) else { continue }
            if pushed.cmd == .loggedin { tally.loggedIn(); continue }
            guard pushed.cmd == .data else { continue }
            for item in pushed.dataMessage.msg {
                guard let event = try? JSONSerialization.jsonObject(with: Data(item.data.utf8)) as? [String: Any],
                    let object = event["object"] as? [String: Any], let sentAt = (object["sentAt"] as? NSNumber)?.int64Value
                else { continue }
                tally.heard(sentAt: sentAt)
            }
            if stop() { break }
        }
        try? await outbound.close(.normalClosure, reason: nil)
    }
}

let route = try await call(subscribeURL, .GET, "/v1/route?appId=\(appID)", nil)
guard let server = route["server"] as? String else { throw LoadError("no server in \(route)") }
let expected = subscriberCount * writeCount
let done = Atomic<Bool>(false)
try await withThrowingTaskGroup(of: Void.self) { group in
    for index in 0..<subscriberCount {
        group.addTask { try await subscriber(index, server: server, stop: { done.load(ordering: .relaxed) }) }
    }
    while tally.readyCount < subscriberCount {
        guard clock.now - start < .seconds(120) else { throw LoadError("only \(tally.readyCount) logged in") }
        try await Task.sleep(for: .milliseconds(20))
    }
    // Subscribe every id, 16 at a time.
    try await withThrowingTaskGroup(of: Void.self) { subscribing in
        for index in 0..<subscriberCount {
            if index >= 16 { try await subscribing.next() }
            subscribing.addTask {
                _ = try await call(
                    subscribeURL, .POST, "/1.1/LiveQuery/subscribe",
                    ["query": ["className": className, "where": [String: Any]()], "id": "livequery-load-\(index)"])
            }
        }
        try await subscribing.waitForAll()
    }
    let firstWrite = elapsed()
    var roundTrips: [Int64] = []
    for _ in 0..<writeCount {
        let sentAt = elapsed()
        _ = try await call(writeURL, .POST, "/1.1/classes/\(className)", ["sentAt": sentAt])
        roundTrips.append(elapsed() - sentAt)
        if pause > 0 { try await Task.sleep(for: .milliseconds(pause)) }
    }
    while tally.heardCount < expected {
        guard clock.now - start < .seconds(300) else { break }
        try await Task.sleep(for: .milliseconds(20))
    }
    done.store(true, ordering: .relaxed)
    let (delays, last) = tally.state.withLock { ($0.delays.sorted(), $0.lastArrival) }
    func ms(_ ns: Int64) -> String { String(format: "%.1f", Double(ns) / 1e6) }
    func percentile(_ values: [Int64], _ p: Double) -> Int64 { values.isEmpty ? 0 : values[min(values.count - 1, Int(Double(values.count) * p))] }
    let seconds = Double(last - firstWrite) / 1e9
    roundTrips.sort()
    print(
        "livequery: subscribers=\(subscriberCount) writes=\(writeCount) pause_ms=\(pause) events=\(delays.count)/\(expected) "
            + String(format: "events/s=%.0f", Double(delays.count) / seconds)
            + " p50_ms=\(ms(percentile(delays, 0.5))) p99_ms=\(ms(percentile(delays, 0.99)))"
            + " create_p50_ms=\(ms(percentile(roundTrips, 0.5)))")
    // The sockets end with the process: the figures are printed.
    exit(delays.count == expected ? 0 : 1)
}
