import JSON

/// How much one answer may carry. A pointer followed by `include` repeats its object wherever it
/// is pointed to, so an object pointing to itself 40 times multiplies an answer by 40 at each
/// level: these bound the paths, their depth, and what the answer embeds, before it is built.
public struct AnswerLimits: Sendable, Hashable {
    /// The most pointers one include path follows (`a.b.c` follows 3).
    public var maxIncludeDepth = 10
    /// The most include paths one query names.
    public var maxIncludePaths = 50
    /// The most objects included into one answer, counting each time an object is embedded.
    public var maxIncludedObjects = 10_000
    /// The most bytes of objects one answer carries (as JSON, estimated while it is built), and
    /// the most bytes of stored objects read for it: a page of 1000 objects of 16 KB. An object
    /// may hold 128 KB, so the engines stop reading a larger page before it is all in memory.
    public var maxBytes = 16 * 1024 * 1024

    /// The defaults: include depth 10, 50 paths, 10 000 included objects, 16 MB.
    public init() {}

    /// How deep an answer built within these limits can nest: each level an include follows
    /// embeds a stored document (at most `JSONValue.maxStoredDepth`) a few levels down its
    /// answer. What re-reading the host's own answer (the dialects' edge) allows.
    public var answerDepth: Int { (maxIncludeDepth + 1) * (JSONValue.maxStoredDepth + 4) }
}
