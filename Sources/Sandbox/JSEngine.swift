import CJavaScriptCore

/// One JavaScriptCore context group and global context, used by one thread at a time.
///
/// JavaScriptCore contexts are not thread-safe; `JSEngine` is not `Sendable` and lives on the
/// thread of the `JSWorker` that owns it. Every evaluation runs under a watchdog (CPU time and
/// heap); a terminated context stays usable.
final class JSEngine {
    /// What one evaluation may use.
    struct Limits {
        /// CPU seconds. JavaScriptCore overshoots by up to half, so callers pass about two
        /// thirds of their budget.
        var cpuSeconds: Double
        /// Bytes of heap the VM may reach before the script is stopped.
        var memoryBytes: Int = 256 << 20
        /// The thread's CPU time (`JSWatchdog.threadCPUTime()`) when the caller began this
        /// step, if it read it: each read is a system call, and a JS call's step made three.
        var startedAt: Double? = nil
    }

    /// An argument passed to a JavaScript function from Swift.
    enum Argument {
        case number(Double)
        case string(String)
        case bool(Bool)
    }

    private let group: JSContextGroupRef
    private let context: JSGlobalContextRef
    private let watchdog: JSWatchdog
    /// Keeps the natives' Swift closures alive as long as the context that calls them.
    private var natives: [JSNativeFunction] = []
    /// The global functions `call` has reached, by name (kept protected for the context's life):
    /// a worker calls the same few for every step, and looking one up made a JavaScriptCore
    /// string and a copy of its name each time.
    private var functions: [String: JSObjectRef] = [:]
    /// GC stress, for tests: a full collection right before every call, after its arguments
    /// are made, where a value the collector can't see would be freed.
    var collectsBeforeEachCall = false

    init() {
        _ = Self.webAssemblyOff
        group = JSContextGroupCreate()
        context = JSGlobalContextCreateInGroup(group, nil)
        watchdog = JSWatchdog(group: group)
        removeWebAssembly()
    }

    /// JavaScriptCore's options for the process, set once, before the first VM (every engine is
    /// made here, so the first `JSEngine` comes first); true when JavaScriptCore took them.
    /// WebAssembly is off: JavaScriptCore's execution time limit doesn't stop a wasm loop,
    /// which would spin a core past any CPU limit until the process ends. (This JavaScriptCore
    /// names the option `useWasm`; `JSC_useWasm=false` in the environment does the same.)
    static let webAssemblyOff: Bool = jsc_options_set_boolean("useWasm", 0) != 0

    /// Deletes the `WebAssembly` global, so a script reaching for it gets a ReferenceError
    /// (with the option off there is none; should JavaScriptCore refuse the option, no script
    /// can reach wasm this way either).
    private func removeWebAssembly() {
        let name = JSStringCreateWithUTF8CString("WebAssembly")
        defer { JSStringRelease(name) }
        _ = JSObjectDeleteProperty(context, JSContextGetGlobalObject(context), name, nil)
    }

    deinit {
        for function in functions.values { JSValueUnprotect(context, function) }
        JSGlobalContextRelease(context)
        JSContextGroupRelease(group)
    }

    /// Evaluates `source` (named `file` in errors) and returns its result as JSON text, or nil
    /// when the result has no JSON form (`undefined`, functions).
    func evaluate(_ source: String, file: String = "<eval>", limits: Limits) throws(ScriptError) -> String? {
        let script = Self.string(source)
        let url = Self.string(file)
        defer {
            JSStringRelease(script)
            JSStringRelease(url)
        }
        return try guarded(limits) { exception in
            JSEvaluateScript(context, script, nil, url, 1, &exception)
        }
    }

    /// Calls the global function `name` with `arguments`, and returns its result as JSON text.
    ///
    /// Calling is cheaper than evaluating source and passes strings without escaping them.
    /// JavaScriptCore's collector scans the C stack but not Swift's heap: the argument values
    /// live in a Swift array, so each is protected until the call returns (making a later
    /// argument, a long string, can otherwise collect an earlier one and reuse its cell).
    func call(_ name: String, _ arguments: [Argument], limits: Limits) throws(ScriptError) -> String? {
        let function = try global(name)
        var values: [JSValueRef?] = []
        values.reserveCapacity(arguments.count)
        defer {
            for value in values { unprotect(value) }
        }
        for argument in arguments {
            let value: JSValueRef?
            switch argument {
            case .number(let number): value = JSValueMakeNumber(context, number)
            case .bool(let bool): value = JSValueMakeBoolean(context, bool)
            case .string(let string):
                let text = Self.string(string)
                defer { JSStringRelease(text) }
                value = JSValueMakeString(context, text)
            }
            protect(value)
            values.append(value)
        }
        if collectsBeforeEachCall { JSSynchronousGarbageCollectForDebugging(context) }
        return try values.withUnsafeBufferPointer { buffer throws(ScriptError) in
            try guarded(limits) { exception in
                JSObjectCallAsFunction(context, function, nil, buffer.count, buffer.baseAddress, &exception)
            }
        }
    }

    /// Whether the watchdog has stopped a script in this engine (its CPU time or its memory).
    /// Such an engine is never entered again (`guarded` refuses, `WorkerRuntime.replaceStopped`
    /// replaces it): JavaScriptCore can keep the stop pending in the VM past the call it ended
    /// (a stop in the promise jobs it runs on the way out), and a later call into that VM
    /// aborts the process (`VMTraps::deferTerminationSlow`).
    private(set) var wasStopped = false

    /// Why a script was stopped for its CPU time.
    static let cpuLimitMessage = "The script ran past its CPU-time limit."

    /// The global function `name`, looked up on its first call and kept (protected) after.
    private func global(_ name: String) throws(ScriptError) -> JSObjectRef {
        if let function = functions[name] { return function }
        let key = Self.string(name)
        defer { JSStringRelease(key) }
        guard let value = JSObjectGetProperty(context, JSContextGetGlobalObject(context), key, nil),
            JSValueIsObject(context, value), let function = JSValueToObject(context, value, nil)
        else { throw ScriptError(.exception, "\(name) is not a function") }
        JSValueProtect(context, function)
        functions[name] = function
        return function
    }

    /// A JavaScriptCore string of `text` (released by the caller). Through `withCString`: handing
    /// a Swift string to the C function directly copied it into a new array first.
    static func string(_ text: String) -> JSStringRef {
        text.withCString { JSStringCreateWithUTF8CString($0) }
    }

    /// Defines a global function that calls `body` with its arguments as strings; `body`
    /// returns a string for the script, or nil for `undefined`.
    func define(_ name: String, _ body: @escaping ([String]) -> String?) {
        let native = JSNativeFunction(body)
        natives.append(native)
        let key = Self.string(name)
        defer { JSStringRelease(key) }
        let object = native.makeObject(in: context)
        protect(object)
        defer { unprotect(object) }
        JSObjectSetProperty(
            context, JSContextGetGlobalObject(context), key, object,
            JSPropertyAttributes(kJSPropertyAttributeReadOnly | kJSPropertyAttributeDontEnum), nil)
    }

    /// Runs `body` under the watchdog and turns its value or exception into JSON or an error.
    private func guarded(
        _ limits: Limits, _ body: (inout JSValueRef?) -> JSValueRef?
    ) throws(ScriptError) -> String? {
        guard !wasStopped else { throw ScriptError(.exception, "The sandbox was stopped; it is being replaced.") }
        watchdog.arm(cpuSeconds: limits.cpuSeconds, memoryBytes: limits.memoryBytes, from: limits.startedAt)
        defer { watchdog.disarm() }
        var exception: JSValueRef?
        let value = body(&exception)
        // Both stay protected while they are read: turning them into text allocates.
        protect(value)
        protect(exception)
        defer {
            unprotect(value)
            unprotect(exception)
        }
        // A stop in the microtasks JavaScriptCore runs on the way out leaves no exception
        // behind: the verdict says what happened.
        if watchdog.verdict != nil { wasStopped = true }
        switch watchdog.verdict {
        case .cpu?: throw ScriptError(.timeout, Self.cpuLimitMessage)
        case .memory(let bytes)?:
            throw ScriptError(.memoryLimit, "The script used \(bytes >> 20) MB, past the \(limits.memoryBytes >> 20) MB ceiling.")
        case nil: break
        }
        if let exception { throw describe(exception) }
        guard let value, !JSValueIsUndefined(context, value) else { return nil }
        var jsonException: JSValueRef?
        guard let json = JSValueCreateJSONString(context, value, 0, &jsonException) else {
            if let jsonException { throw describe(jsonException) }
            return nil
        }
        defer { JSStringRelease(json) }
        return JSNativeFunction.string(json)
    }

    private func describe(_ exception: JSValueRef) -> ScriptError {
        protect(exception)
        defer { unprotect(exception) }
        var ignored: JSValueRef?
        let message = JSValueToStringCopy(context, exception, &ignored).map { text in
            defer { JSStringRelease(text) }
            return JSNativeFunction.string(text)
        } ?? "Unknown JavaScript exception"
        var line: Int?
        if JSValueIsObject(context, exception), let object = JSValueToObject(context, exception, nil) {
            let name = JSStringCreateWithUTF8CString("line")
            defer { JSStringRelease(name) }
            let value = JSObjectGetProperty(context, object, name, nil)
            if let value, JSValueIsNumber(context, value) { line = Int(JSValueToNumber(context, value, nil)) }
        }
        // JavaScriptCore reports a terminated script as this exception message.
        if message.contains("JavaScript execution terminated") { return ScriptError(.timeout, message) }
        return ScriptError(.exception, message, line: line)
    }

    /// Keeps `value` alive while Swift holds it outside the C stack; paired with `unprotect`.
    private func protect(_ value: JSValueRef?) {
        if let value { JSValueProtect(context, value) }
    }

    private func unprotect(_ value: JSValueRef?) {
        if let value { JSValueUnprotect(context, value) }
    }
}
