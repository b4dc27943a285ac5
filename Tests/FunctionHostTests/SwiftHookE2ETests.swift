import DataAPI
import Foundation
import HTTPTypes
import Hooks
import TestSupport
import Testing

@testable import FunctionHost

/// Hooks written in Swift, registered with the functions, fired by writes over real HTTP.
@Suite struct SwiftHookE2ETests {
    static func registry(events: Recorded<String>) -> FunctionRegistry {
        var registry = FunctionRegistry()
        registry.hooks.beforeSave("Order") { request in
            guard let quantity = request.object["quantity"]?.intValue, quantity > 0 else {
                throw HookError(code: 400, message: "An order needs a positive quantity.")
            }
            request.object["total"] = .int(quantity * 5)
            request.context["priced"] = true
        }
        registry.hooks.afterSave("Order") { request in
            events.record("afterSave \(request.context["priced"] == true ? "priced" : "unpriced")")
            // The hook's own object, saved again without running Order's hooks.
            let id = request.object["objectId"]?.stringValue ?? ""
            _ = try await request.data.withoutHooks.update("Order", id: id, ["confirmed": true])
        }
        registry.hooks.beforeUpdate("Order") { request in
            let before = request.original?.fields["quantity"]?.intValue ?? 0
            if let quantity = request.object["quantity"]?.intValue { request.object["total"] = .int(quantity * 5) }
            events.record("beforeUpdate \(request.updatedKeys.joined(separator: ",")) from \(before)")
        }
        registry.hooks.afterUpdate("Order") { request in events.record("afterUpdate \(request.object["total"]?.intValue ?? 0)") }
        registry.hooks.beforeDelete("Order") { request in
            if (request.object["quantity"]?.intValue ?? 0) > 2 { throw HookError(message: "Large orders stay.") }
        }
        registry.hooks.afterDelete("Order") { request in events.record("afterDelete \(request.object["objectId"]?.stringValue ?? "")") }
        registry.hooks.beforeFind("Order") { request in request.object["limit"] = 1 }
        registry.hooks.afterFind("Order") { request in
            request.results = request.results.map { order in
                var order = order
                order.fields["total"] = nil
                return order
            }
        }
        return registry
    }

    @Test func everyKindRunsAroundRESTWrites() async throws {
        let events = Recorded<String>()
        try await TestServer.run(functions: Self.registry(events: events)) { api in
            expectError(try await api.post("/1.1/classes/Order", ["quantity": 0]), code: 400, status: .badRequest)
            let created = try await api.post("/1.1/classes/Order", ["quantity": 2])
            #expect(created["total"] == 10, "\(created)")
            let id = try #require(created.objectId)
            #expect(try await api.get("/1.1/classes/Order/\(id)")["confirmed"] == true)
            let updated = try await api.put("/1.1/classes/Order/\(id)", ["quantity": 3])
            #expect(updated["total"] == 15, "\(updated)")
            _ = try await api.post("/1.1/classes/Order", ["quantity": 1])
            let found = try await api.get("/1.1/classes/Order")
            #expect(found.results.count == 1, "beforeFind set the limit")
            #expect(found.results.allSatisfy { $0["total"] == nil }, "afterFind removed the total")
            let refused = try await api.delete("/1.1/classes/Order/\(id)")
            #expect(refused["code"] == 142 && refused["error"]?.stringValue?.contains("Large orders stay.") == true, "\(refused)")
            _ = try await api.put("/1.1/classes/Order/\(id)", ["quantity": 1])
            #expect(try await api.delete("/1.1/classes/Order/\(id)").status == .ok)
            #expect(try await api.get("/1.1/classes/Order/\(id)").json == [:])
            #expect(events.all.contains("afterDelete \(id)"))
        }
        #expect(events.all.contains("afterSave priced"))
        #expect(events.all.contains("beforeUpdate quantity from 2"))
        #expect(events.all.contains("afterUpdate 15"))
        #expect(events.all.filter { $0.hasPrefix("afterSave") }.count == 2, "the confirmed save ran no hook: \(events.all)")
    }
}
