/// The sandbox's own JavaScript: the bootstrap (`AV.Cloud`, `console`, timers, `require`, the
/// entry points each step of an invocation calls) and the data SDK (`AV.Object`, `AV.Query`,
/// `AV.User`, ...), in `JavaScript/*.js`.
///
/// The files are embedded in the binary (`.embedInCode` in Package.swift: SwiftPM generates
/// `PackageResources`), never read from a bundle directory at run time, since `functionhost` is
/// deployed as one file. `make test` checks their syntax with `node --check`.
enum SandboxScripts {
    /// Every script in evaluation order, as (name for error reports, source): the bootstrap
    /// first, then the SDK files, each an IIFE adding to the bootstrap's `global.AV`, later
    /// files building on the helpers earlier ones put on `AV` (underscore names).
    static let all: [(name: String, source: String)] = [
        ("bootstrap.js", PackageResources.bootstrap_js),
        ("sdk-core.js", PackageResources.sdk_core_js),
        ("sdk-values.js", PackageResources.sdk_values_js),
        ("sdk-encoding.js", PackageResources.sdk_encoding_js),
        ("sdk-operations.js", PackageResources.sdk_operations_js),
        ("sdk-object.js", PackageResources.sdk_object_js),
        ("sdk-save.js", PackageResources.sdk_save_js),
        ("sdk-relation.js", PackageResources.sdk_relation_js),
        ("sdk-query.js", PackageResources.sdk_query_js),
        ("sdk-query-run.js", PackageResources.sdk_query_run_js),
        ("sdk-search.js", PackageResources.sdk_search_js),
        ("sdk-user.js", PackageResources.sdk_user_js),
        ("sdk-http.js", PackageResources.sdk_http_js),
        ("sdk-queue.js", PackageResources.sdk_queue_js),
    ].map { ($0.0, String(decoding: $0.1, as: UTF8.self)) }
}
