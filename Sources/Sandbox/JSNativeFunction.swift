import CJavaScriptCore

/// A Swift closure callable from JavaScript, taking and returning strings.
///
/// JavaScriptCore calls back through a C function pointer, which can't capture: the closure
/// rides along as the private data of an object of a callable class. The engine keeps each
/// native alive for as long as its context.
final class JSNativeFunction {
    private let body: ([String]) -> String?

    init(_ body: @escaping ([String]) -> String?) {
        self.body = body
    }

    /// A callable object for `context` that runs this native.
    func makeObject(in context: JSContextRef) -> JSObjectRef {
        var definition = kJSClassDefinitionEmpty
        definition.callAsFunction = nativeCallback
        let jsClass = JSClassCreate(&definition)
        defer { JSClassRelease(jsClass) }
        return JSObjectMake(context, jsClass, Unmanaged.passUnretained(self).toOpaque())
    }

    fileprivate func invoke(_ context: JSContextRef, _ arguments: UnsafeBufferPointer<JSValueRef?>) -> JSValueRef? {
        let strings = arguments.map { value -> String in
            guard let value, let text = JSValueToStringCopy(context, value, nil) else { return "" }
            defer { JSStringRelease(text) }
            return Self.string(text)
        }
        guard let result = body(strings) else { return JSValueMakeUndefined(context) }
        let text = JSEngine.string(result)
        defer { JSStringRelease(text) }
        return JSValueMakeString(context, text)
    }

    /// A JavaScriptCore string as a Swift one.
    static func string(_ text: JSStringRef) -> String {
        let size = JSStringGetMaximumUTF8CStringSize(text)
        return String(unsafeUninitializedCapacity: size) { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                // The size returned counts the terminating NUL.
                max(0, JSStringGetUTF8CString(text, chars.baseAddress, size) - 1)
            }
        }
    }
}

/// The C entry point of every native: finds the Swift closure in the callee's private data.
private let nativeCallback: JSObjectCallAsFunctionCallback = { context, function, _, count, arguments, _ in
    guard let context, let function, let info = JSObjectGetPrivate(function) else { return nil }
    let native = Unmanaged<JSNativeFunction>.fromOpaque(info).takeUnretainedValue()
    // Read in place (no copy of the array): JavaScriptCore keeps it for the whole callback.
    return native.invoke(context, UnsafeBufferPointer(start: arguments, count: arguments == nil ? 0 : count))
}
