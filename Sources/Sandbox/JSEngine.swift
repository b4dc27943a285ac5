import CJavaScriptCore

/// One JavaScriptCore context group and global context, used by one thread at a time.
///
/// JavaScriptCore contexts are not thread-safe; `JSEngine` is not `Sendable` and lives on the
/// thread of the `JSWorker` that owns it. A CPU-time limit per evaluation stops scripts that
/// loop forever; a terminated context stays usable.
final class JSEngine {
    private let group: JSContextGroupRef
    private let context: JSGlobalContextRef

    init() {
        group = JSContextGroupCreate()
        context = JSGlobalContextCreateInGroup(group, nil)
    }

    deinit {
        JSGlobalContextRelease(context)
        JSContextGroupRelease(group)
    }

    /// Evaluates `source` (named `file` in errors) and returns its result as JSON text, or nil
    /// when the result has no JSON form (`undefined`, functions).
    ///
    /// - Parameter cpuLimit: seconds of CPU time the evaluation may use. JavaScriptCore
    ///   overshoots its limit by up to half, so callers pass about two thirds of their budget.
    func evaluate(_ source: String, file: String = "<eval>", cpuLimit: Double) throws(ScriptError) -> String? {
        JSContextGroupSetExecutionTimeLimit(group, cpuLimit, nil, nil)
        defer { JSContextGroupClearExecutionTimeLimit(group) }
        let script = JSStringCreateWithUTF8CString(source)
        let url = JSStringCreateWithUTF8CString(file)
        defer {
            JSStringRelease(script)
            JSStringRelease(url)
        }
        var exception: JSValueRef?
        let value = JSEvaluateScript(context, script, nil, url, 1, &exception)
        if let exception { throw describe(exception) }
        guard let value, !JSValueIsUndefined(context, value) else { return nil }
        var jsonException: JSValueRef?
        guard let json = JSValueCreateJSONString(context, value, 0, &jsonException) else {
            if let jsonException { throw describe(jsonException) }
            return nil
        }
        defer { JSStringRelease(json) }
        return Self.string(json)
    }

    private func describe(_ exception: JSValueRef) -> ScriptError {
        var ignored: JSValueRef?
        let message = JSValueToStringCopy(context, exception, &ignored).map { text in
            defer { JSStringRelease(text) }
            return Self.string(text)
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

    private static func string(_ text: JSStringRef) -> String {
        let size = JSStringGetMaximumUTF8CStringSize(text)
        var buffer = [CChar](repeating: 0, count: size)
        JSStringGetUTF8CString(text, &buffer, size)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
