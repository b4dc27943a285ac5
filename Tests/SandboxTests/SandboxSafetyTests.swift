import JSON
import Testing

@testable import Sandbox

/// A host that answers each data call with the identity the call asked for (its options), so a
/// test sees who every query would have acted as; queries of `Settings` find nothing.
private struct IdentityHost: SandboxHost {
    func perform(_ operation: BridgeOperation, arguments: JSONValue) async throws(HostCallError) -> JSONValue {
        // A turn of the scheduler, so calls made together overlap as real database calls do.
        await Task.yield()
        // The shared loader's own query reads settings: none.
        if arguments["className"] == "Settings" { return [] }
        return arguments["options"] ?? .null
    }
}

/// The sandbox under an attacker's payloads: values the bridge holds survive the collector, the
/// function that runs is the one asked for, a call's identity is its own, and per-worker caches
/// stay bounded.
@Suite struct SandboxSafetyTests {
    static let source = """
        AV.Cloud.define('echo', function (request) { return request.params; });
        AV.Cloud.define('adminOnly', { internal: true }, function () { return 'the internal function ran'; });
        var bumps = 0;
        AV.Cloud.define('bump', function () { bumps += 1; return bumps; });
        AV.Cloud.define('classCount', function () { return AV.Object._classCacheSize(); });
        AV.Cloud.define('decodeAll', function (request) { return request.params.list.length; });
        """

    private static func load(workers: Int = 2, stress: Bool = false) async throws -> CloudCode {
        var limits = CloudCode.Limits()
        limits.collectsGarbageBeforeEachStep = stress
        return try await CloudCode(files: [("cloud.js", source)], workerCount: workers, limits: limits)
    }

    private static func call(
        _ code: CloudCode, _ name: String, _ params: JSONValue, mode: CloudCode.Mode = .function,
        host: any SandboxHost = NoHost()
    ) async throws -> JSONValue {
        let outcome = try await code.call(
            name, request: ["params": params], mode: mode, host: host, cpuLimit: 20, deadline: .now + .seconds(60))
        return try outcome.result.get()
    }

    /// The crash the issue reports: a name string made before a large request string was
    /// collected under the call and its cell reused. With a full collection forced right where
    /// that happened, every call, of every size, concurrently, answers its own params.
    @Test(arguments: [0, 1, 1000, 20_000, 200_000])
    func underCollectorStressEveryCallRunsTheFunctionAskedFor(copies: Int) async throws {
        let code = try await Self.load(stress: true)
        let params: JSONValue = ["a": .array(Array(repeating: "adminOnly", count: copies)), "n": .int(Int64(copies))]
        try await withThrowingTaskGroup(of: JSONValue.self) { group in
            for _ in 0..<4 {
                group.addTask { try await Self.call(code, "echo", params) }
            }
            for try await answer in group {
                #expect(answer["n"] == .int(Int64(copies)))
                #expect(answer["a"]?.arrayValue?.count == copies)
                #expect(answer != "the internal function ran")
            }
        }
    }

    /// Many calls of varied sizes and both modes at once, with the collector run before every
    /// step: each answer is checked whole.
    @Test func concurrentVariedPayloadsUnderCollectorStress() async throws {
        let code = try await Self.load(workers: 2, stress: true)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<48 {
                group.addTask {
                    let size = [3, 70, 900, 5_000, 30_000][index % 5] + index
                    let words = (0..<size).map { JSONValue.string("w\($0 % 97)-\(index)") }
                    let params: JSONValue = ["index": .int(Int64(index)), "words": .array(words)]
                    let mode: CloudCode.Mode = index.isMultiple(of: 2) ? .function : .rpc
                    let answer = try await Self.call(code, "echo", params, mode: mode)
                    #expect(answer == params, "call \(index) answered someone else's params")
                }
            }
            try await group.waitForAll()
        }
    }

    /// An internal function runs in process; an unknown name is the 404 error and never lands
    /// on another function.
    @Test func anUnknownNameNeverLandsOnAnotherFunction() async throws {
        let code = try await Self.load()
        #expect(try await Self.call(code, "adminOnly", [:]) == "the internal function ran", "callable in process")
        let missing = try await code.call(
            "adminOnlyX", request: ["params": [:]], host: NoHost(), cpuLimit: 5, deadline: .now + .seconds(5))
        guard case .failure(let error) = missing.result else {
            Issue.record("an unknown function answered: \(missing.result)")
            return
        }
        #expect(error.code == 1 && error.status == 404)
    }

    /// Code that rewires the entry point to run another function (here: the internal one)
    /// gets its answer refused: the name Swift checked is the name that must have run.
    @Test func anAnswerFromAnotherFunctionIsRefused() async throws {
        let rewired = Self.source + """
            var invoke = __fhInvoke;
            __fhInvoke = function (id, name, request, mode) { return invoke(id, 'adminOnly', request, mode); };
            """
        let code = try await CloudCode(files: [("cloud.js", rewired)], workerCount: 1)
        await #expect(throws: ScriptError.self) {
            _ = try await code.call("echo", request: ["params": [:]], host: NoHost(), cpuLimit: 5, deadline: .now + .seconds(5))
        }
    }

    /// A promise shared through module state (a single-flight loader) runs one call's
    /// continuation inside another call's step. Who each data call acts as comes from its own
    /// options, never from the step: across many overlapping calls each query carries exactly
    /// the identity its own call gave it.
    @Test func aSharedPromiseDoesNotShareIdentities() async throws {
        let shared = """
            var pending = null;
            function loadSettings() {
              if (!pending) pending = new AV.Query('Settings').find().then(function (r) { pending = null; return r; });
              return pending;
            }
            AV.Cloud.define('mine', async function (request) {
              await loadSettings();
              var options = request.params.token ? { sessionToken: request.params.token } : {};
              var asked = await AV._request('data.find', { className: 'Note' }, options);
              return { token: request.params.token || null, asked: asked };
            });
            """
        let code = try await CloudCode(files: [("cloud.js", shared)], workerCount: 1)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<60 {
                group.addTask {
                    let token: JSONValue = index.isMultiple(of: 3) ? .null : .string("token-\(index)")
                    let answer = try await Self.call(code, "mine", ["token": token], host: IdentityHost())
                    #expect(answer["token"] == token)
                    #expect(answer["asked"]?["sessionToken"] == token, "call \(index) acted as \(String(describing: answer["asked"]))")
                    #expect(answer["asked"]?["useMasterKey"] == false)
                }
            }
            try await group.waitForAll()
        }
    }

    /// `AV.Cloud.useMasterKey()` at load time is the app's default, as LeanEngine's template
    /// uses it. Called while serving a call it changes nothing (there is no telling whose code
    /// runs, and LeanEngine's process-wide switch would carry into later calls) and says so.
    @Test func useMasterKeyDoesNotCarryOverToTheNextCall() async throws {
        let source = """
            AV.Cloud.define('elevated', function () {
              AV.Cloud.useMasterKey();
              return AV._request('data.find', { className: 'Note' });
            });
            AV.Cloud.define('plain', function () { return AV._request('data.find', { className: 'Note' }); });
            """
        let code = try await CloudCode(files: [("cloud.js", source)], workerCount: 1)
        for _ in 0..<3 {
            let elevated = try await code.call(
                "elevated", request: ["params": [:]], host: IdentityHost(), cpuLimit: 5, deadline: .now + .seconds(10))
            #expect(try elevated.result.get()["useMasterKey"] == false)
            #expect(elevated.logs.contains { $0.level == "warning" && $0.message.contains("load time only") })
            #expect(try await Self.call(code, "plain", [:], host: IdentityHost())["useMasterKey"] == false)
        }
        let app = try await CloudCode(files: [("cloud.js", "AV.Cloud.useMasterKey();\n" + source)], workerCount: 1)
        #expect(try await Self.call(app, "plain", [:], host: IdentityHost())["useMasterKey"] == true)
    }

    /// A call whose continuation ran inside another call's step gets its answers after that
    /// other call has ended: the answers run under a call still live, never lost.
    @Test func answersOutliveTheCallWhoseStepMadeThem() async throws {
        let source = """
            var pending = null;
            AV.Cloud.define('waiter', async function (request) {
              if (!pending) pending = AV._request('data.find', { className: 'Slow' });
              await pending;
              // Runs in the step of whichever call's answer settled `pending`.
              var second = await AV._request('data.find', { className: 'Note' }, { sessionToken: request.params.token });
              return second.sessionToken;
            });
            """
        let code = try await CloudCode(files: [("cloud.js", source)], workerCount: 1)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    let token = JSONValue.string("t\(index)")
                    let answer = try await Self.call(code, "waiter", ["token": token], host: IdentityHost())
                    #expect(answer == token)
                }
            }
            try await group.waitForAll()
        }
    }

    /// 100 000 distinct class names arriving in rpc params (each decoded into an `AV.Object`)
    /// stay within the bounded class cache: the worker is never reset (its module state
    /// survives) and the cache holds at most its bound.
    @Test func distinctClassNamesInParamsDoNotResetAWorker() async throws {
        let code = try await Self.load(workers: 1)
        #expect(try await Self.call(code, "bump", [:]) == 1)
        for batch in 0..<5 {
            let pointers = (0..<20_000).map { index -> JSONValue in
                ["__type": "Pointer", "className": .string("C\(batch)_\(index)"), "objectId": "x"]
            }
            #expect(try await Self.call(code, "decodeAll", ["list": .array(pointers)], mode: .rpc) == 20_000)
        }
        #expect(try await Self.call(code, "bump", [:]) == 2, "the worker kept its state: it was never reset")
        let cached = try #require(try await Self.call(code, "classCount", [:]).intValue)
        #expect(cached <= 1000, "\(cached) classes cached")
    }
}
