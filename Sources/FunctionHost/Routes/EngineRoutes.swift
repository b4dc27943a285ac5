import DataAPI
import Hummingbird

/// The health check and the server clock.
struct EngineRoutes: Sendable {
    /// The version this host reports in its ping.
    static let version = "0.1.0"

    func register(on router: Router<HostRequestContext>) {
        for path in ["__engine/1/ping", "__engine/1.1/ping"] {
            router.get(RouterPath(path)) { _, _ in
                JSONResponse(["runtime": "swift-functionhost", "version": .string(Self.version)])
            }
        }
        router.get("/") { _, _ in JSONResponse(["status": "ok"]) }
    }

    /// The server clock (`date`), for the open group of each API version.
    func registerClock(on group: RouterGroup<HostRequestContext>) {
        group.get("date") { _, _ in
            JSONResponse(["__type": "Date", "iso": .string(ISODate.string(fromMilliseconds: ObjectID.currentMilliseconds()))])
        }
    }
}
