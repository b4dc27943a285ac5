import DataAPI
import Hummingbird

/// `GET /schemas` and `GET /schemas/{Class}` (master key): the classes and their fields' types.
struct SchemaRoutes: Sendable {
    let data: DataService

    func register(on group: RouterGroup<HostRequestContext>) {
        group.get("schemas") { _, context in
            JSONResponse(.object(try await data.schemas(caller: context.caller)))
        }
        group.get("schemas/:className") { _, context in
            JSONResponse(try await data.schema(of: try context.parameters.require("className"), caller: context.caller))
        }
    }
}
