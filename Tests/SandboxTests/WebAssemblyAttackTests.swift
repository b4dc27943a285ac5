import JSON
import Testing

@testable import Sandbox

/// JavaScriptCore's CPU limit doesn't stop a loop in WebAssembly: a module that loops for ever
/// would spin its worker's core until the process ends. The sandbox has no WebAssembly at all:
/// a script reaching for it gets a ReferenceError, and the worker serves the next call.
@Suite struct WebAssemblyAttackTests {
    /// `(module (func (export "f") (loop (br 0))))`, byte by byte.
    static let loopingModule = [
        0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,  // magic, version 1
        0x01, 0x04, 0x01, 0x60, 0x00, 0x00,  // types: one () -> ()
        0x03, 0x02, 0x01, 0x00,  // functions: one, of type 0
        0x07, 0x05, 0x01, 0x01, 0x66, 0x00, 0x00,  // exports: "f", function 0
        0x0a, 0x09, 0x01, 0x07, 0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b,  // code: loop { br 0 }
    ].map(String.init).joined(separator: ",")

    static let source = """
        AV.Cloud.define('wasmLoop', function () {
          var bytes = new Uint8Array([\(loopingModule)]);
          var instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {});
          instance.exports.f();
          return 'returned';
        });
        AV.Cloud.define('reachable', function () {
          var names = Object.getOwnPropertyNames(globalThis).filter(function (n) { return /wasm|webassembly/i.test(n); });
          return { typeOf: typeof globalThis['Web' + 'Assembly'], names: names, viaFunction: Function('return typeof WebAssembly')() };
        });
        AV.Cloud.define('ok', function () { return 'ok'; });
        """

    @Test func aWasmLoopGetsAClearErrorAndTheWorkerStaysResponsive() async throws {
        // One worker: a loop left spinning on it would hold every later call.
        let code = try await CloudCode(files: [("cloud.js", Self.source)], workerCount: 1)
        for _ in 0..<3 {
            // Before the fix this call ran past its deadline (a timeout thrown here) and the
            // worker's thread went on spinning.
            let outcome = try await code.call(
                "wasmLoop", request: ["params": [:]], cpuLimit: 1, deadline: .now + .seconds(5))
            guard case .failure(let thrown) = outcome.result else {
                Issue.record("the module ran: \(outcome.result)")
                return
            }
            #expect(thrown.message.contains("ReferenceError") && thrown.message.contains("WebAssembly"), "\(thrown.message)")
            let ok = try await code.call("ok", request: ["params": [:]], cpuLimit: 1, deadline: .now + .seconds(5))
            #expect(try ok.result.get() == "ok")
        }
    }

    @Test func noContextHasWebAssembly() async throws {
        let code = try await CloudCode(files: [("cloud.js", Self.source)], workerCount: 1)
        let outcome = try await code.call("reachable", request: ["params": [:]], cpuLimit: 1, deadline: .now + .seconds(5))
        #expect(try outcome.result.get() == ["typeOf": "undefined", "names": [], "viaFunction": "undefined"])
        #expect(JSEngine.webAssemblyOff)
    }
}
