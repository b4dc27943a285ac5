import CJavaScriptCore
import Foundation
import Hummingbird
import Synchronization

/// JavaScript at its cheapest: worker threads, each with its own JavaScriptCore context holding
/// the functions, taking calls from one shared queue. A call's argument and answer cross as JSON
/// text, parsed and printed by JavaScriptCore itself. (Kept off Swift's cooperative pool, as
/// any host must: a script that loops would hold a pool thread.)
final class FloorScripts: Sendable {
    /// The functions: the bench's `helloJS` and the example `Todo` hooks, without the JS SDK.
    static let source = """
        function helloJS(params) { return 'Hello, ' + (params.name || 'world') + '!'; }
        function beforeSave(object) {
          var title = object.title;
          if (typeof title !== 'string' || !title.trim()) throw new Error('A todo needs a title.');
          object.title = title.trim();
          if (object.priority === undefined) object.priority = 1;
          return object;
        }
        function afterSave(object) { return null; }
        """

    private struct Job: Sendable {
        let function: String
        let argument: String
        let continuation: UnsafeContinuation<String?, Never>
    }

    private let jobs = Mutex<[Job]>([])
    private let ready = DispatchSemaphore(value: 0)

    /// Starts `threads` workers.
    init(threads: Int) {
        for _ in 0..<threads {
            let thread = Thread { [self] in work() }
            thread.start()
        }
    }

    /// Calls `function` with the JSON text `argument`; answers its result as JSON text.
    func call(_ function: String, argument: String) async throws -> String {
        let answer = await withUnsafeContinuation { continuation in
            jobs.withLock { $0.append(Job(function: function, argument: argument, continuation: continuation)) }
            ready.signal()
        }
        guard let answer else { throw HTTPError(.badRequest) }
        return answer
    }

    /// A worker thread: its own context with the functions, then calls from the queue forever.
    private func work() {
        let context = JSGlobalContextCreate(nil)!
        let source = JSStringCreateWithUTF8CString(Self.source)
        JSEvaluateScript(context, source, nil, nil, 1, nil)
        JSStringRelease(source)
        var functions: [String: JSObjectRef] = [:]
        let global = JSContextGetGlobalObject(context)
        for name in ["helloJS", "beforeSave", "afterSave"] {
            let key = JSStringCreateWithUTF8CString(name)
            let value = JSObjectGetProperty(context, global, key, nil)
            JSStringRelease(key)
            JSValueProtect(context, value)
            functions[name] = JSValueToObject(context, value, nil)
        }
        while true {
            ready.wait()
            guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
            job.continuation.resume(returning: Self.run(functions[job.function]!, job.argument, in: context))
        }
    }

    /// One call in `context`: the argument parsed from JSON text, the answer printed to it; nil
    /// for bad JSON or a thrown exception.
    private static func run(_ function: JSObjectRef, _ argument: String, in context: JSGlobalContextRef) -> String? {
        let text = JSStringCreateWithUTF8CString(argument)
        defer { JSStringRelease(text) }
        guard let value = JSValueMakeFromJSONString(context, text) else { return nil }
        var exception: JSValueRef?
        let arguments: [JSValueRef?] = [value]
        let result = arguments.withUnsafeBufferPointer {
            JSObjectCallAsFunction(context, function, nil, 1, $0.baseAddress, &exception)
        }
        guard exception == nil, let result, let json = JSValueCreateJSONString(context, result, 0, nil) else { return nil }
        defer { JSStringRelease(json) }
        let size = JSStringGetMaximumUTF8CStringSize(json)
        return String(unsafeUninitializedCapacity: size) { buffer in
            buffer.withMemoryRebound(to: CChar.self) { max(0, JSStringGetUTF8CString(json, $0.baseAddress, size) - 1) }
        }
    }
}
