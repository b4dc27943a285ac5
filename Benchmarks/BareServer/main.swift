import Hummingbird

// The ceiling for every benchmark ratio: a bare Hummingbird route on the same machine, in the
// same run. Usage: BareServer <port>
let port = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 8081 : 8081
let router = Router()
router.get("hello") { _, _ in "Hello world!" }
// The same route for POST: the functions benchmark sends a POST with a JSON body.
router.post("hello") { _, _ in "Hello world!" }
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
