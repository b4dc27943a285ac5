// The bridge's handoff, measured by hand (never in a test): a hook's payload into JavaScript and
// its answer back, as JSON text (today) or as values built and read through JavaScriptCore's C
// API. Build and run with Benchmarks/Bridge/run.sh (release, outside the package).
import CJavaScriptCore
import Foundation

let context = JSGlobalContextCreate(nil)!

func jsString(_ text: String) -> JSStringRef { JSStringCreateWithUTF8CString(text) }
func swiftString(_ text: JSStringRef) -> String {
    let size = JSStringGetMaximumUTF8CStringSize(text)
    return String(unsafeUninitializedCapacity: size) { buffer in
        buffer.withMemoryRebound(to: CChar.self) { max(0, JSStringGetUTF8CString(text, $0.baseAddress, size) - 1) }
    }
}
func evaluate(_ source: String) -> JSValueRef {
    let script = jsString(source)
    defer { JSStringRelease(script) }
    return JSEvaluateScript(context, script, nil, nil, 1, nil)!
}

// JSONValue → JSValue through the C API, one call per node.
func make(_ value: JSONValue) -> JSValueRef {
    switch value {
    case .null: return JSValueMakeNull(context)
    case .bool(let b): return JSValueMakeBoolean(context, b)
    case .int(let i): return JSValueMakeNumber(context, Double(i))
    case .double(let d): return JSValueMakeNumber(context, d)
    case .string(let s):
        let text = jsString(s)
        defer { JSStringRelease(text) }
        return JSValueMakeString(context, text)
    case .array(let elements):
        // Held in a Swift array, which the collector doesn't scan: protected until used.
        let values: [JSValueRef?] = elements.map { let v = make($0); JSValueProtect(context, v); return v }
        defer { for v in values { JSValueUnprotect(context, v) } }
        return values.withUnsafeBufferPointer { JSObjectMakeArray(context, $0.count, $0.baseAddress, nil) }
    case .object(let members):
        let object = JSObjectMake(context, nil, nil)
        for (key, member) in members {
            let name = jsString(key)
            JSObjectSetProperty(context, object, name, make(member), 0, nil)
            JSStringRelease(name)
        }
        return object!
    }
}

// JSValue → JSONValue through the C API.
let isArray: JSObjectRef = JSValueToObject(context, evaluate("Array.isArray"), nil)
JSValueProtect(context, isArray)
func read(_ value: JSValueRef) -> JSONValue {
    switch JSValueGetType(context, value) {
    case kJSTypeNull, kJSTypeUndefined: return .null
    case kJSTypeBoolean: return .bool(JSValueToBoolean(context, value))
    case kJSTypeNumber:
        let d = JSValueToNumber(context, value, nil)
        return d.rounded() == d && abs(d) < 9e15 ? .int(Int64(d)) : .double(d)
    case kJSTypeString:
        let text = JSValueToStringCopy(context, value, nil)!
        defer { JSStringRelease(text) }
        return .string(swiftString(text))
    default:
        let object = JSValueToObject(context, value, nil)!
        var argument: JSValueRef? = value
        let array = JSValueToBoolean(context, JSObjectCallAsFunction(context, isArray, nil, 1, &argument, nil))
        let names = JSObjectCopyPropertyNames(context, object)!
        defer { JSPropertyNameArrayRelease(names) }
        let count = JSPropertyNameArrayGetCount(names)
        if array {
            return .array((0..<count).map { read(JSObjectGetPropertyAtIndex(context, object, UInt32($0), nil)) })
        }
        var members: [String: JSONValue] = [:]
        for i in 0..<count {
            let name = JSPropertyNameArrayGetNameAtIndex(names, i)!
            members[swiftString(name)] = read(JSObjectGetProperty(context, object, name, nil))
        }
        return .object(members)
    }
}

func call(_ function: JSObjectRef, _ argument: JSValueRef) -> JSValueRef {
    var argument: JSValueRef? = argument
    return JSObjectCallAsFunction(context, function, nil, 1, &argument, nil)!
}

// A hook's payload as JavaScriptHooks builds it: a Todo of a dozen fields, its user, context.
let object: JSONValue = .object([
    "objectId": "65a1b2c3d4e5f6a7b8c9d0e1", "title": "Buy milk and bread for the week", "done": false,
    "priority": 3, "tags": ["home", "shopping", "weekly"], "createdAt": "2026-11-26T19:00:00.000Z",
    "updatedAt": "2026-11-26T19:00:00.000Z", "due": ["__type": "Date", "iso": "2026-11-30T09:00:00.000Z"],
    "owner": ["__type": "Pointer", "className": "_User", "objectId": "65a1b2c3d4e5f6a7b8c9d0ff"],
    "ACL": ["*": ["read": true], "65a1b2c3d4e5f6a7b8c9d0ff": ["write": true]], "notes": "Semi-skimmed, two litres.",
    "estimate": 12.5,
])
let payload: JSONValue = [
    "kind": "beforeSave", "className": "Todo", "object": object, "original": .null, "updatedKeys": [],
    "user": ["objectId": "65a1b2c3d4e5f6a7b8c9d0ff", "username": "ada", "sessionToken": "r:abcdefabcdefabcdef"],
    "context": [:], "results": [],
]
let parse = JSValueToObject(context, evaluate("(function (t) { return JSON.parse(t); })"), nil)!
let identity = JSValueToObject(context, evaluate("(function (v) { return v; })"), nil)!
JSValueProtect(context, parse)
JSValueProtect(context, identity)
let answerJS = evaluate("({ ok: true, value: { object: \(payload["object"]!.jsonString), changed: ['title'], context: {} }, logs: [], ran: '__before_save_for_Todo' })")
JSValueProtect(context, answerJS)

func measure(_ label: String, rounds: Int = 20000, _ body: () -> Void) {
    for _ in 0..<1000 { body() }
    let start = ContinuousClock.now
    for _ in 0..<rounds { body() }
    let elapsed = start.duration(to: .now)
    let micros = (Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12) / Double(rounds)
    print(label.padding(toLength: 54, withPad: " ", startingAt: 0) + String(format: "%7.2f µs", micros))
}

print("Into JavaScript (payload \(payload.jsonString.utf8.count) bytes of JSON):")
measure("Swift jsonString + JSON.parse in JS (today)") {
    let text = jsString(payload.jsonString)
    _ = call(parse, JSValueMakeString(context, text))
    JSStringRelease(text)
}
measure("Swift jsonString + JSValueMakeFromJSONString") {
    let text = jsString(payload.jsonString)
    _ = JSValueMakeFromJSONString(context, text)
    JSStringRelease(text)
}
measure("  of which Swift jsonString alone") { _ = payload.jsonString }
measure("values built through the C API (make)") { _ = call(identity, make(payload)) }
print("Out of JavaScript (answer \(read(answerJS).jsonString.utf8.count) bytes of JSON):")
measure("JSON.stringify + Swift JSONValue(parsing:) (today)") {
    let text = JSValueCreateJSONString(context, answerJS, 0, nil)!
    _ = try! JSONValue(parsing: swiftString(text))
    JSStringRelease(text)
}
measure("JSON.stringify alone") {
    let text = JSValueCreateJSONString(context, answerJS, 0, nil)!
    _ = swiftString(text)
    JSStringRelease(text)
}
let answerText = read(answerJS).jsonString
measure("  of which Swift JSONValue(parsing:) alone") { _ = try! JSONValue(parsing: answerText) }
measure("the JSValue tree read through the C API (read)") { _ = read(answerJS) }
precondition(read(answerJS)["value"]?["object"] == payload["object"], "the two ways must agree")
JSGarbageCollect(context)
