public import FunctionHost

/// The entry point the host calls before it starts: every Swift cloud function is registered here.
public enum Functions {
    /// Registers this app's Swift functions.
    public static func register(into registry: inout FunctionRegistry) {
        registry.define("swiftHello") { _ in "Hello world!" }
        registerTodoFunctions(into: &registry)
    }
}
