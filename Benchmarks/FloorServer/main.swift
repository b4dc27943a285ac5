import Hummingbird

// The floors of issue 32's targets: the least work each target's request must take, done the
// cheapest way this machine allows, on the same Hummingbird as the host. `make bench` measures
// them as it measures the host (ratios to the bare route in the same rounds), so each target is
// printed beside what any server on this stack reaches here. Every shortcut is in the floor's
// favour: it keeps a key check, a request log line, the body's parse, the call or the insert and
// the JSON answer, and leaves out what the host does besides (metrics, CORS, rate limits,
// sessions and ACLs, connection limits, hooks' lookups, the JS SDK's request objects, scripts'
// time limits, class schemas). Its creates are group-committed by one writer thread, as the
// host's are by one of the waiting creates: no create is answered before its commit.
//
// Usage: FloorServer <port> <data directory>
//   POST /1.1/functions/swiftHello   a Swift function
//   POST /1.1/functions/helloJS      a JS function on a JavaScriptCore worker thread
//   POST /1.1/classes/{class}        a create: one row per transaction in SQLite (WAL, NORMAL)
//   POST /1.1/classes/Todo           the same with a JS beforeSave and afterSave
let arguments = CommandLine.arguments
let port = arguments.count > 1 ? Int(arguments[1]) ?? 8082 : 8082
let directory = arguments.count > 2 ? arguments[2] : "/tmp"
let log = FloorLog()
let store = try FloorStore(path: directory + "/floor.sqlite")
let scripts = FloorScripts(threads: 2)
let routes = FloorRoutes(store: store, scripts: scripts)

let router = Router()
router.add(middleware: FloorLogMiddleware(log: log))
router.post("1.1/functions/:name") { request, context in try await routes.function(request, context: context) }
router.post("1.1/classes/:className") { request, context in try await routes.create(request, context: context) }
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
