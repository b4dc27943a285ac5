import DataAPI
import Hummingbird
import JSON

/// `GET /schemas` and `GET /schemas/{Class}` (master key): the classes and their fields' types;
/// `PUT /schemas/{Class}` and `GET /schemas/{Class}/permissions`: a class's permissions;
/// `POST /schemas/{Class}` (and `POST /schemas`): a new class, empty, with its fields' types.
struct SchemaRoutes: Sendable {
    let data: DataService

    func register(on group: RouterGroup<HostRequestContext>) {
        group.get("schemas") { _, context in
            JSONResponse(.object(try await data.schemas(caller: context.caller)))
        }
        group.get("schemas/:className") { _, context in
            JSONResponse(try await data.schema(of: try context.parameters.require("className"), caller: context.caller))
        }
        group.get("schemas/:className/permissions") { _, context in
            JSONResponse(try await data.settingsDocument(of: try context.parameters.require("className"), caller: context.caller))
        }
        // LeanCloud's export shape (`{"permissions": {...}, "schema": {...}}`): an exported
        // `<Class>_all.json` or `<Class>_permissions.json` is a valid body as it is.
        // Parse's `fields` and `classLevelPermissions` are read too; a class set this way exists.
        group.put("schemas/:className") { request, context in
            let className = try context.parameters.require("className")
            var request = request
            let changes = JSONValue.object(try await request.jsonObject(context: context))
            let settings = try await data.updateClass(className, with: changes, caller: context.caller)
            return JSONResponse(DataService.document(className, settings))
        }
        // Parse's class creation: `{"className", "fields", "classLevelPermissions"}`, the class
        // in the path or in the body.
        group.post("schemas/:className") { request, context in
            var request = request
            let document = JSONValue.object(try await request.jsonObject(context: context))
            return JSONResponse(try await data.createClass(try context.parameters.require("className"), with: document, caller: context.caller))
        }
        group.post("schemas") { request, context in
            var request = request
            let members = try await request.jsonObject(context: context)
            guard case .string(let className)? = members["className"] else {
                throw DataAPIError(.invalidClassName, "A new class needs its className.")
            }
            return JSONResponse(try await data.createClass(className, with: .object(members), caller: context.caller))
        }
    }
}
