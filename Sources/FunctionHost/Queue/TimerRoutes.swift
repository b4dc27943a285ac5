import CloudQueue
import DataAPI
import Foundation
import Hummingbird
import JSON

/// The timers' REST API, master key only (registered in a master-only group; the `functionhost
/// timers` commands speak it): `GET/POST /engine/timers`, `GET/PUT/DELETE /engine/timers/:name`
/// (a timer with its last run), `POST /engine/timers/:name/run` (fire it now) → `{"uniqueId"}`.
/// A body is `{"name", "function", "cron" | "every", "params", "environment", "user",
/// "enabled", "timeZone"}` (`TimerDefinition(body:)`); timers set here are `source: api` and a
/// deploy's timer of the same name doesn't replace them.
struct TimerRoutes: Sendable {
    let timers: TimerScheduler
    /// The zone a cron timer is read in when its body names none (`--timers-timezone`).
    let defaultTimeZone: TimeZone

    /// What a caller without the master key is answered.
    static let refusal = HostError(status: .unauthorized, code: 401, message: "Managing timers needs the master key.")

    /// Adds the routes to a master-only group.
    func register(on masterOnly: RouterGroup<HostRequestContext>) {
        masterOnly.get("engine/timers") { _, _ in
            JSONResponse(["results": .array(try await timers.timers().map(\.json))])
        }
        masterOnly.post("engine/timers") { request, context in
            var request = request
            let body = try await request.json(context: context) ?? .object([:])
            let saved = try await timers.save(try TimerDefinition(body: body, source: .api, defaultTimeZone: defaultTimeZone))
            return JSONResponse(status: .created, saved.json)
        }
        masterOnly.get("engine/timers/:name") { _, context in
            let name = try context.parameters.require("name")
            guard let timer = try await timers.timer(name: name) else { throw Self.notFound(name) }
            guard case .object(var body) = timer.json else { return JSONResponse(timer.json) }
            body["lastRun"] = try await timers.lastRun(name: name)?.leanEngineJSON ?? .null
            return JSONResponse(.object(body))
        }
        masterOnly.put("engine/timers/:name") { request, context in
            var request = request
            let name = try context.parameters.require("name")
            let body = try await request.json(context: context) ?? .object([:])
            let saved = try await timers.save(try TimerDefinition(body: body, name: name, source: .api, defaultTimeZone: defaultTimeZone))
            return JSONResponse(saved.json)
        }
        masterOnly.delete("engine/timers/:name") { _, context in
            try await timers.remove(name: try context.parameters.require("name"))
            return JSONResponse([:])
        }
        masterOnly.post("engine/timers/:name/run") { _, context in
            let record = try await timers.runNow(name: try context.parameters.require("name"))
            return JSONResponse(["uniqueId": .string(record.uniqueId)])
        }
    }

    private static func notFound(_ name: String) -> CloudQueueError {
        CloudQueueError(.notFound, code: 404, "No timer named '\(name.prefix(64))'.")
    }
}
