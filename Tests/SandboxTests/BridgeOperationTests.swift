import JSON
import Synchronization
import Testing

@testable import Sandbox

/// A host that records which operations reached it and answers each with its name.
private final class RecordingHost: SandboxHost {
    let seen = Mutex<[BridgeOperation]>([])

    func perform(_ operation: BridgeOperation, arguments: JSONValue) async throws(HostCallError) -> JSONValue {
        seen.withLock { $0.append(operation) }
        return .string(operation.rawValue)
    }
}

/// The bridge's operations are declared once, in Swift (`BridgeOperation`): the sandbox's
/// JavaScript names them only through the table Swift hands it, and a name outside the table
/// never reaches a host.
@Suite struct BridgeOperationTests {
    /// Every call site of `__fhCall` and `AV._request` in the sandbox's own JavaScript, with its
    /// first argument: (file, argument).
    private static var callSites: [(file: String, argument: String)] {
        SandboxScripts.all.flatMap { file in
            file.source.matches(of: /(?:__fhCall|AV\._request)\(\s*([^,)]+)/).compactMap { match -> (String, String)? in
                let argument = String(match.output.1).trimmingCharacters()
                // The definitions (`__fhCall = function (op, args)`) aren't calls.
                return ["op", "operation"].contains(argument) ? nil : (file.name, argument)
            }
        }
    }

    @Test func everyOperationTheJavaScriptSendsIsDeclared() throws {
        let declared = Set(BridgeOperation.allCases.map { String(describing: $0) })
        let sites = Self.callSites
        // The SDK's saves, deletes, fetches, finds, counts, fetch() and AV.Cloud.run: all there.
        #expect(sites.count >= 11, "\(sites)")
        var used: Set<String> = []
        for (file, argument) in sites {
            let name = try #require(
                argument.wholeMatch(of: /(?:AV\._operations|operations)\.(\w+)/)?.output.1,
                "\(file) names an operation without the table: \(argument)")
            #expect(declared.contains(String(name)), "\(file) sends '\(name)', which Swift doesn't declare")
            used.insert(String(name))
        }
        // No operation is spelt out as text anywhere in them either.
        for file in SandboxScripts.all {
            for operation in BridgeOperation.allCases {
                #expect(!file.source.contains("'\(operation.rawValue)'"), "\(file.name) spells '\(operation.rawValue)'")
            }
        }
        // And every declared operation is one the JavaScript uses: none is dead on the Swift side.
        #expect(used == declared, "declared but never sent: \(declared.subtracting(used))")
    }

    @Test func theScriptSeesTheTableFrozen() async throws {
        let code = try await CloudCode(
            files: [("cloud.js", """
                AV.Cloud.define('table', function () {
                  var before = AV._operations.dataFind;
                  try { AV._operations.dataFind = 'data.drop'; } catch (e) {}
                  return { table: AV._operations, frozen: Object.isFrozen(AV._operations), kept: AV._operations.dataFind === before };
                });
                """)], workerCount: 1)
        let outcome = try await code.call("table", request: ["params": [:]], cpuLimit: 5, deadline: .now + .seconds(10))
        let answer = try outcome.result.get()
        #expect(answer["table"] == BridgeOperation.operationTable)
        #expect(answer["frozen"] == true && answer["kept"] == true, "\(answer)")
    }

    @Test func aNameOutsideTheTableNeverReachesTheHost() async throws {
        let code = try await CloudCode(
            files: [("cloud.js", """
                AV.Cloud.define('ask', async function (request) {
                  try { return await __fhCall(request.params.name, {}); } catch (e) { return { code: e.code, message: e.message }; }
                });
                """)], workerCount: 1)
        let host = RecordingHost()
        for name: JSONValue in ["data.explode", "data.find ", "DATA.FIND", "dataFind", "__proto__", "toString", 7, .null] {
            let outcome = try await code.call(
                "ask", request: ["params": ["name": name]], host: host, cpuLimit: 5, deadline: .now + .seconds(10))
            let answer = try outcome.result.get()
            #expect(answer["code"] == 1, "\(name): \(answer)")
            #expect(answer["message"]?.stringValue?.hasPrefix("Unknown host operation") == true, "\(name): \(answer)")
        }
        #expect(host.seen.withLock { $0 }.isEmpty)
        // A declared name goes through, as the table names it.
        let outcome = try await code.call(
            "ask", request: ["params": ["name": "data.count"]], host: host, cpuLimit: 5, deadline: .now + .seconds(10))
        #expect(try outcome.result.get() == "data.count")
        #expect(host.seen.withLock { $0 } == [.dataCount])
    }
}

extension String {
    fileprivate func trimmingCharacters() -> String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
