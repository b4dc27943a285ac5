import DataAPI
import JSON
import TestSupport
import Testing
import Synchronization
import NIOCore

@testable import FunctionHost

/// Outbound HTTP for cloud code, against a real server on loopback: the allow-list, the
/// internal-address rule (with DNS), limits, deadlines and redirects.
@Suite(.timeLimit(.minutes(1)))
struct OutboundHTTPTests {
    let http = OutboundHTTP()

    /// A deadline far enough away that only a hanging route reaches it.
    var later: ContinuousClock.Instant { .now + .seconds(20) }

    /// Sends a request that must succeed.
    func send(
        _ request: OutboundRequest, _ policy: OutboundPolicy, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> OutboundResponse {
        do throws(OutboundHTTPError) {
            return try await http.send(request, policy: policy, deadline: later)
        } catch {
            Issue.record("\(request.url): \(error.message)", sourceLocation: sourceLocation)
            throw error
        }
    }

    /// The error a request must fail with; nil (and a recorded issue) when it succeeds.
    func failure(
        _ request: OutboundRequest, _ policy: OutboundPolicy, deadline: ContinuousClock.Instant? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> OutboundHTTPError? {
        do throws(OutboundHTTPError) {
            let response = try await http.send(request, policy: policy, deadline: deadline ?? later)
            Issue.record("\(request.url) answered \(response.status)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    /// The echo route's JSON answer.
    func echoed(_ response: OutboundResponse) throws -> JSONValue {
        try JSONValue(parsing: response.body)
    }

    // MARK: The allow-list

    @Test func defaultPolicyAllowsNothing() async throws {
        try await OutboundTestServer.run { server in
            let error = await failure(OutboundRequest(url: server.url("/echo")), OutboundPolicy())
            #expect(error?.kind == .hostNotAllowed)
            #expect(error?.code == 1)
            #expect(server.requests.isEmpty)
        }
    }

    @Test func hostNotOnTheListIsRefusedWithoutConnecting() async throws {
        try await OutboundTestServer.run { server in
            let policy = try OutboundPolicy(allowing: ["api.example.com", "*.example.com"])
            let error = await failure(OutboundRequest(url: server.url("/echo")), policy)
            #expect(error?.kind == .hostNotAllowed)
            #expect(error?.message.contains("127.0.0.1:\(server.port)") == true)
            #expect(server.requests.isEmpty)
        }
    }

    @Test func listedPortOnly() async throws {
        try await OutboundTestServer.run { server in
            let other = server.port == 65535 ? 65534 : server.port + 1
            let wrongPort = try OutboundPolicy(allowing: ["127.0.0.1:\(other)"])
            #expect(await failure(OutboundRequest(url: server.url("/echo")), wrongPort)?.kind == .hostNotAllowed)
            #expect(server.requests.isEmpty)
            let rightPort = try OutboundPolicy(allowing: ["127.0.0.1:\(server.port)"])
            #expect(try await send(OutboundRequest(url: server.url("/echo")), rightPort).status == 200)
        }
    }

    @Test func wildcardMatching() throws {
        let policy = try OutboundPolicy(allowing: ["*.Example.com", "api.other.org:8443"])
        func access(_ host: String, _ port: Int = 443) -> OutboundPolicy.Access? {
            policy.access(to: OutboundHost(host)!, port: port)
        }
        #expect(access("a.example.com") == .publicAddresses)
        #expect(access("A.B.EXAMPLE.COM.") == .publicAddresses)
        #expect(access("example.com") == nil)
        #expect(access("badexample.com") == nil)
        #expect(access("example.com.evil.net") == nil)
        #expect(access("api.other.org", 8443) == .anyAddress)
        #expect(access("api.other.org", 443) == nil)
        #expect(access("x.api.other.org", 8443) == nil)

        let everything = try OutboundPolicy(list: " * , localhost ")
        #expect(everything.access(to: OutboundHost("anything.net")!, port: 80) == .publicAddresses)
        // An exact entry wins over the wildcard that also matches.
        #expect(everything.access(to: OutboundHost("localhost")!, port: 80) == .anyAddress)
        #expect(try OutboundPolicy(list: "").allowsNothing)
        #expect(try OutboundPolicy(list: "[::1]:8080, ::1, 10.0.0.5").description == "[::1]:8080, [::1], 10.0.0.5")
    }

    @Test(arguments: ["http://example.com", "example.com/path", "*.", "a*b.com", "*.10.0.0.1", "host:0", "host:x", "exa mple.com"])
    func invalidEntriesAreRejected(entry: String) {
        #expect(throws: OutboundHTTPError.self) { try OutboundPolicy(allowing: [entry]) }
    }

    // MARK: Internal addresses

    @Test func loopbackIsRefusedUnlessListed() async throws {
        try await OutboundTestServer.run { server in
            let anyHost = try OutboundPolicy(allowing: ["*"])
            for url in [
                server.url("/echo"), "http://[::1]:\(server.port)/echo", "http://[::ffff:127.0.0.1]:\(server.port)/",
                "http://0.0.0.0:\(server.port)/", "http://169.254.169.254/latest/meta-data/", "http://10.1.2.3/",
            ] {
                let error = await failure(OutboundRequest(url: url), anyHost)
                #expect(error?.kind == .addressRefused, "\(url): \(error?.message ?? "")")
            }
            let metadata = await failure(OutboundRequest(url: "http://169.254.169.254/"), anyHost)
            #expect(metadata?.message.contains("cloud metadata") == true)
            #expect(server.requests.isEmpty)
        }
    }

    @Test func nameResolvingToLoopbackIsRefused() async throws {
        try await OutboundTestServer.run { server in
            let localhost = "http://localhost:\(server.port)/echo"
            // Listing the address does not list the names that resolve to it.
            let addressListed = try OutboundPolicy(allowing: ["127.0.0.1"])
            #expect(await failure(OutboundRequest(url: localhost), addressListed)?.kind == .hostNotAllowed)
            // A wildcard covers the name, but the name resolves to loopback.
            let anyHost = try OutboundPolicy(allowing: ["*"])
            let error = await failure(OutboundRequest(url: localhost), anyHost)
            #expect(error?.kind == .addressRefused)
            #expect(error?.message.contains("loopback") == true)
            // The decimal form of 127.0.0.1 is a "name" that resolves to it.
            let decimal = await failure(OutboundRequest(url: "http://2130706433:\(server.port)/echo"), anyHost)
            #expect(decimal?.kind == .addressRefused)
            #expect(server.requests.isEmpty)
            // Listing the name exactly lets it through.
            let nameListed = try OutboundPolicy(allowing: ["localhost"])
            let response = try await send(OutboundRequest(url: localhost), nameListed)
            #expect(response.status == 200)
            #expect(try echoed(response)["headers"]?["host"] == .string("localhost:\(server.port)"))
        }
    }

    @Test(arguments: [
        ("10.1.2.3", "private"), ("172.31.255.255", "private"), ("192.168.0.1", "private"),
        ("100.100.100.200", "shared (CGNAT)"), ("127.0.0.53", "loopback"), ("169.254.169.254", "cloud metadata"),
        ("169.254.10.1", "link-local"), ("0.0.0.0", "unspecified"), ("224.0.0.251", "multicast"),
        ("255.255.255.255", "reserved"), ("::", "unspecified"), ("::1", "loopback"), ("fe80::1", "link-local"),
        ("fd00:ec2::254", "unique-local"), ("ff02::1", "multicast"), ("::ffff:10.0.0.1", "private"),
        ("64:ff9b::7f00:1", "loopback"), ("2002:a9fe:a9fe::", "cloud metadata"),
    ])
    func internalAddresses(address: String, range: String) {
        #expect(IPAddress(literal: address)?.internalRange == range)
    }

    @Test(arguments: ["8.8.8.8", "172.32.0.1", "100.128.0.1", "1.1.1.1", "2001:4860:4860::8888", "::ffff:8.8.8.8"])
    func publicAddresses(address: String) {
        #expect(IPAddress(literal: address) != nil)
        #expect(IPAddress(literal: address)?.internalRange == nil)
    }

    // MARK: Requests and responses

    @Test func listedLoopbackGET() async throws {
        try await OutboundTestServer.run { server in
            let policy = try OutboundPolicy(allowing: ["127.0.0.1"])
            let response = try await send(
                OutboundRequest(url: server.url("/echo?a=1&b=%20"), headers: [("X-Test", "yes")]), policy)
            #expect(response.status == 200)
            #expect(response.header("content-type") == "application/json")
            #expect(response.url == server.url("/echo?a=1&b=%20"))
            let echo = try echoed(response)
            #expect(echo["method"] == "GET")
            #expect(echo["uri"] == "/echo?a=1&b=%20")
            #expect(echo["headers"]?["x-test"] == "yes")
            #expect(echo["headers"]?["host"] == .string("127.0.0.1:\(server.port)"))
            #expect(server.requests == ["/echo"])
        }
    }

    @Test func listedLoopbackPOSTWithBodyAndHeaders() async throws {
        try await OutboundTestServer.run { server in
            let policy = try OutboundPolicy(allowing: ["127.0.0.1"])
            let request = OutboundRequest(
                url: server.url("/echo"), method: "post",
                headers: [("Content-Type", "text/plain"), ("Authorization", "Bearer t"), ("Host", "evil.example")],
                body: Array("héllo".utf8))
            let echo = try echoed(try await send(request, policy))
            #expect(echo["method"] == "POST")
            #expect(echo["body"] == "héllo")
            #expect(echo["headers"]?["content-type"] == "text/plain")
            #expect(echo["headers"]?["authorization"] == "Bearer t")
            // The script can't choose the Host header: it always names the checked host.
            #expect(echo["headers"]?["host"] == .string("127.0.0.1:\(server.port)"))
            #expect(echo["headers"]?["content-length"] == "6")
        }
    }

    @Test func invalidRequestsAreRefusedWithoutConnecting() async throws {
        try await OutboundTestServer.run { server in
            let policy = try OutboundPolicy(allowing: ["127.0.0.1"])
            let url = server.url("/echo")
            let requests = [
                OutboundRequest(url: url, method: "PO ST"),
                OutboundRequest(url: url, method: "CONNECT"),
                OutboundRequest(url: url, headers: [("Bad Name", "x")]),
                OutboundRequest(url: url, headers: [("X-Split", "a\r\nInjected: yes")]),
                OutboundRequest(url: url, body: Array("no body on GET".utf8)),
                OutboundRequest(url: url, method: "POST", body: [UInt8](repeating: 0, count: OutboundRequest.maxBodySize + 1)),
            ]
            for request in requests {
                let error = await failure(request, policy)
                #expect(error?.kind == .invalidRequest, "\(request.method) \(request.headers): \(error?.message ?? "")")
                #expect(error?.code == 1)
            }
            #expect(server.requests.isEmpty)
        }
    }

    @Test(arguments: [
        "ftp://127.0.0.1/file", "file:///etc/passwd", "javascript:alert(1)", "not a url", "/echo", "http://",
        "http://user:secret@127.0.0.1/echo", "http://%6c%6fcalhost/", "http://127.0.0.1:99999/", "http://ex ample.com/",
        "http://127.0.0.1:99999999999999999999/",
    ])
    func badURLsAreRefused(url: String) async throws {
        let policy = try OutboundPolicy(allowing: ["*", "127.0.0.1", "localhost"])
        let error = await failure(OutboundRequest(url: url), policy)
        #expect(error?.kind == .invalidURL, "\(url): \(error?.message ?? "")")
        #expect(error?.code == 1)
    }

    /// A download streams its body to the sink under the same policy: the size limit (by
    /// `Content-Length` and by the bytes that come), the internal-address rule, another status.
    @Test func downloadKeepsThePolicy() async throws {
        try await OutboundTestServer.run { server in
            let received = Mutex(0)
            let count: @Sendable (ByteBuffer) async throws -> Void = { part in received.withLock { $0 += part.readableBytes } }
            let small = try OutboundPolicy(allowing: ["127.0.0.1"], maxResponseSize: 1 << 20)
            for path in ["/big", "/big-chunked"] {
                await #expect(throws: OutboundHTTPError.responseTooLarge(limit: 1 << 20)) {
                    try await http.download(server.url(path), policy: small, deadline: later, into: count)
                }
            }
            #expect(received.withLock { $0 } <= 1 << 20, "no more than the limit reached the sink")
            received.withLock { $0 = 0 }
            let roomy = try OutboundPolicy(allowing: ["127.0.0.1"])
            try await http.download(server.url("/big-chunked"), policy: roomy, deadline: later, into: count)
            #expect(received.withLock { $0 } == 2 << 20)
            let asked = server.requests.count
            await #expect(throws: OutboundHTTPError.self) {
                try await http.download(server.url("/big"), policy: try OutboundPolicy(allowing: ["*"]), deadline: later, into: count)
            }
            #expect(server.requests.count == asked, "an unlisted loopback host is never asked")
        }
    }

    @Test func responseSizeLimit() async throws {
        try await OutboundTestServer.run { server in
            let small = try OutboundPolicy(allowing: ["127.0.0.1"], maxResponseSize: 1 << 20)
            for path in ["/big", "/big-chunked"] {
                let error = await failure(OutboundRequest(url: server.url(path)), small)
                #expect(error?.kind == .responseTooLarge, "\(path): \(error?.message ?? "")")
                #expect(error?.code == 1)
            }
            let roomy = try OutboundPolicy(allowing: ["127.0.0.1"])
            for path in ["/big", "/big-chunked"] {
                let body = try await send(OutboundRequest(url: server.url(path)), roomy).body
                #expect(body.count == 2 << 20)
                #expect(body.allSatisfy { $0 == UInt8(ascii: "x") })
            }
        }
    }

    @Test func connectionFailure() async throws {
        // Port 1 (tcpmux) has no listener: the connection is refused.
        let policy = try OutboundPolicy(allowing: ["127.0.0.1"])
        let error = await failure(OutboundRequest(url: "http://127.0.0.1:1/"), policy)
        #expect(error?.kind == .connectionFailed)
        #expect(error?.code == 100)
        #expect(error?.message.contains("Connection refused") == true)
        let unresolvable = try OutboundPolicy(allowing: ["no-such-host.invalid"])
        let dns = await failure(OutboundRequest(url: "http://no-such-host.invalid/"), unresolvable)
        #expect(dns?.kind == .connectionFailed)
    }

    // MARK: Deadlines

    @Test func deadlineCutsAResponseThatNeverComes() async throws {
        try await OutboundTestServer.run { server in
            let policy = try OutboundPolicy(allowing: ["127.0.0.1"])
            let error = await failure(
                OutboundRequest(url: server.url("/slow")), policy, deadline: ContinuousClock.now + .milliseconds(300))
            #expect(error?.kind == .timedOut)
            #expect(error?.code == 124)
        }
    }

    @Test func deadlineCutsABodyThatNeverEnds() async throws {
        try await OutboundTestServer.run { server in
            let policy = try OutboundPolicy(allowing: ["127.0.0.1"])
            let error = await failure(
                OutboundRequest(url: server.url("/slow-body")), policy, deadline: ContinuousClock.now + .milliseconds(300))
            #expect(error?.kind == .timedOut)
        }
    }

    @Test func pastDeadlineFailsWithoutConnecting() async throws {
        try await OutboundTestServer.run { server in
            let policy = try OutboundPolicy(allowing: ["127.0.0.1"])
            let error = await failure(OutboundRequest(url: server.url("/echo")), policy, deadline: ContinuousClock.now - .seconds(1))
            #expect(error?.kind == .timedOut)
            #expect(server.requests.isEmpty)
        }
    }

    // MARK: Redirects

    @Test func redirectIsFollowed() async throws {
        try await OutboundTestServer.run { server in
            let policy = try OutboundPolicy(allowing: ["127.0.0.1"])
            let response = try await send(OutboundRequest(url: server.url("/redirect?to=/echo%3Fhop%3D1")), policy)
            #expect(response.status == 200)
            #expect(response.url == server.url("/echo?hop=1"))
            #expect(try echoed(response)["method"] == "GET")
            #expect(server.requests == ["/redirect", "/echo"])
        }
    }

    @Test func redirectKeepsOrDropsTheBodyByStatus() async throws {
        try await OutboundTestServer.run { server in
            let policy = try OutboundPolicy(allowing: ["127.0.0.1"])
            func post(_ status: Int) -> OutboundRequest {
                OutboundRequest(
                    url: server.url("/redirect?status=\(status)&to=/echo"), method: "POST",
                    headers: [("Content-Type", "text/plain")], body: Array("payload".utf8))
            }
            let kept = try echoed(try await send(post(307), policy))
            #expect(kept["method"] == "POST")
            #expect(kept["body"] == "payload")
            let dropped = try echoed(try await send(post(303), policy))
            #expect(dropped["method"] == "GET")
            #expect(dropped["body"] == "")
            #expect(dropped["headers"]?["content-type"] == nil)
        }
    }

    @Test func redirectToAHostNotAllowedIsRefused() async throws {
        try await OutboundTestServer.run { server in
            let policy = try OutboundPolicy(allowing: ["127.0.0.1"])
            let away = await failure(
                OutboundRequest(url: server.url("/redirect?to=http://elsewhere.example/echo")), policy)
            #expect(away?.kind == .hostNotAllowed)
            #expect(away?.message.contains("elsewhere.example") == true)
            let toName = await failure(
                OutboundRequest(url: server.url("/redirect?to=http://localhost:\(server.port)/echo")), policy)
            #expect(toName?.kind == .hostNotAllowed)
            let toFile = await failure(OutboundRequest(url: server.url("/redirect?to=file:///etc/passwd")), policy)
            #expect(toFile?.kind == .invalidURL)
            #expect(server.requests == ["/redirect", "/redirect", "/redirect"])
        }
    }

    @Test func redirectFromAWildcardToAnInternalAddressIsRefused() async throws {
        try await OutboundTestServer.run { server in
            // The first hop is listed exactly; the redirect's target is only covered by `*`.
            let policy = try OutboundPolicy(allowing: ["127.0.0.1", "*"])
            let error = await failure(
                OutboundRequest(url: server.url("/redirect?to=http://localhost:\(server.port)/echo")), policy)
            #expect(error?.kind == .addressRefused)
            #expect(server.requests == ["/redirect"])
        }
    }

    @Test func redirectCredentialsStayWithTheirOrigin() async throws {
        try await OutboundTestServer.run { server in
            let policy = try OutboundPolicy(allowing: ["127.0.0.1", "localhost"])
            let request = OutboundRequest(
                url: server.url("/redirect?to=http://localhost:\(server.port)/echo"),
                headers: [("Authorization", "Bearer secret"), ("X-Other", "kept")])
            let echo = try echoed(try await send(request, policy))
            #expect(echo["headers"]?["authorization"] == nil)
            #expect(echo["headers"]?["x-other"] == "kept")
        }
    }

    @Test func redirectLimit() async throws {
        try await OutboundTestServer.run { server in
            let policy = try OutboundPolicy(allowing: ["127.0.0.1"])
            let error = await failure(OutboundRequest(url: server.url("/loop")), policy)
            #expect(error?.kind == .tooManyRedirects)
            #expect(server.requests.count == OutboundHTTP.maxRedirects + 1)
        }
    }

    // MARK: The JSON bridge

    @Test func jsonAdapter() async throws {
        try await OutboundTestServer.run { server in
            let policy = try OutboundPolicy(allowing: ["127.0.0.1"])
            let arguments: JSONValue = [
                "url": .string(server.url("/echo")), "method": "PUT",
                "headers": ["X-Count": 3, "Content-Type": "application/json"], "body": "{\"a\":1}",
            ]
            let answer = try await http.perform(arguments: arguments, policy: policy, deadline: later)
            #expect(answer["status"] == 200)
            #expect(answer["headers"]?["content-type"] == "application/json")
            #expect(answer["url"] == .string(server.url("/echo")))
            let echo = try JSONValue(parsing: try #require(answer["text"]?.stringValue))
            #expect(echo["method"] == "PUT")
            #expect(echo["body"] == "{\"a\":1}")
            #expect(echo["headers"]?["x-count"] == "3")

            for bad: JSONValue in [[:], ["url": 1], ["url": "http://x/", "headers": "x"], ["url": "http://x/", "body": 1]] {
                do throws(OutboundHTTPError) {
                    _ = try await http.perform(arguments: bad, policy: policy, deadline: later)
                    Issue.record("\(bad) was accepted")
                } catch {
                    #expect(error.kind == .invalidRequest)
                }
            }
        }
    }
}
