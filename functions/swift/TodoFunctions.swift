import FunctionHost

/// The parameters of `addTodo`.
struct NewTodo: Decodable, Sendable {
    var title: String
    var priority: Int?
}

/// Examples of functions that use the data API: one writes, one queries.
func registerTodoFunctions(into registry: inout FunctionRegistry) {
    // Creates a Todo and answers its id; a missing title is the caller's mistake (400, code 1).
    registry.define("addTodo", as: NewTodo.self) { todo, request -> [String: String] in
        guard !todo.title.isEmpty else { throw CloudError(message: "A todo needs a title.") }
        let object = try await request.data.create(
            "Todo", ["title": .string(todo.title), "priority": .int(Int64(todo.priority ?? 1))])
        request.logger.info("created todo \(object.objectId)")
        return ["objectId": object.objectId]
    }

    // The titles of the todos at or above a priority, highest first.
    registry.define("urgentTodos") { request -> [String] in
        let minimum = request.params["minimum"]?.intValue ?? 2
        let todos = try await request.data.find(
            "Todo", where: ["priority": ["$gte": .int(minimum)]], order: [SortKey(key: "priority", descending: true)])
        return todos.compactMap { $0.fields["title"]?.stringValue }
    }
}
